import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const lib = (name: string) => fileURLToPath(new URL(`./libs/${name}/src/index.ts`, import.meta.url));

const alias = {
  '@settle/config': lib('config'),
  '@settle/domain': lib('domain'),
  '@settle/http': lib('http'),
  '@settle/ledger': lib('ledger'),
  '@settle/messaging': lib('messaging'),
  '@settle/providers': lib('providers'),
  '@settle/testing': lib('testing'),
  '@settle/platform': lib('platform'),
  '@settle/vault': lib('vault'),
  '@settle/runtime': lib('runtime'),
};

// One test level per file suffix: *.unit.spec.ts (pure), *.int.spec.ts (one real dependency),
// *.e2e.spec.ts (the running apps). Integration and end-to-end tests need the local stack
// that scripts/local/test.sh starts.
export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: { alias },
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['{apps,libs,test}/**/*.unit.spec.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'int',
          include: ['{apps,libs,test}/**/*.int.spec.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.e2e.spec.ts'],
          testTimeout: 240_000,
          hookTimeout: 240_000,
          fileParallelism: false,
        },
      },
    ],
  },
});

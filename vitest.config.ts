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
// that scripts/local/test.sh starts. The levels run in that order (`sequence.groupOrder`).
//
// Unit and integration files share their workers' module graph (`isolate: false`): each file
// still gets its own test state, but the modules it imports are loaded once per worker rather
// than once per file, which was most of their time (unit files 107 s -> 15 s, integration
// files 265 s -> 171 s on a 2-core machine). What a file sets up it tears down (pools, timers,
// consumers), and the suite passes in shuffled file orders (`--sequence.shuffle.files`).
// End-to-end files keep a fresh module graph each: they start and stop whole stacks.
export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: { alias },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['{apps,libs,test}/**/*.unit.spec.ts'],
          isolate: false,
          // Pure files run on every core (Vitest's default leaves one free: one worker on two).
          maxWorkers: '100%',
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'int',
          include: ['{apps,libs,test}/**/*.int.spec.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          isolate: false,
          sequence: { groupOrder: 1 },
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
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});

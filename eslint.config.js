// Lint rules, checked on every test run (scripts/local/test.sh) beside dependency-cruiser's boundaries.
// typescript-eslint's recommended rules plus the type-aware ones that catch lost promises and
// unchecked values; formatting is Prettier's (eslint-config-prettier turns style rules off).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.settle/', 'coverage/', 'infra/target/', 'libs/receiver/dist/', 'examples/**/node_modules/', '**/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    rules: {
      // Async implementations of async ports (in-memory stores, fakes) need no await.
      '@typescript-eslint/require-await': 'off',
      // Flags `let x = null; try { x = await ... } catch {}`, the way optional reads are written here.
      'no-useless-assignment': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Tests read untyped JSON answers and poke at internals; the unsafe-any rules would only add casts.
    files: ['**/*.spec.ts', '**/test/**/*.ts', 'libs/testing/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // The console's single-page app runs in the browser (its own tsconfig.json); React's rules of hooks apply.
    files: ['apps/console/web/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    languageOptions: { globals: { ...globals.browser } },
  },
  { files: ['**/*.js', '**/*.mjs', '**/*.cjs'], ...tseslint.configs.disableTypeChecked },
  prettier,
);

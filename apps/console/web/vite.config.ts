// Builds the console's single-page app into dist/apps/console/web (index.html and hashed assets),
// which apps/console serves at `/`. In development, `npx vite --config apps/console/web/vite.config.ts`
// serves it with hot reload and passes /api on to the console API (CONSOLE_API_URL, default
// http://127.0.0.1:3400), so the session cookie stays same-origin.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = fileURLToPath(new URL('../../../dist/apps/console/web', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: { outDir, emptyOutDir: true, sourcemap: true, target: 'es2022' },
  server: {
    port: 5173,
    strictPort: true,
    proxy: { '/api': { target: process.env.CONSOLE_API_URL ?? 'http://127.0.0.1:3400', changeOrigin: false } },
  },
  preview: { port: 4173 },
});

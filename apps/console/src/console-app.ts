import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import type { DynamicModule } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createEdgeApp, WEB_APP_CONTENT_SECURITY_POLICY } from '@settle/http';
import { createMetricsRegistry } from '@settle/platform';
import { CONSOLE_CONTROLLERS, ConsoleApiModule, type ConsoleApiDeps } from './http/console-api.module.js';
import { consoleOpenApiDocument, serveConsoleOpenApi } from './http/openapi/document.js';

/** Largest request body the console accepts, bytes (its bodies are a sign-in's email and password). */
const BODY_LIMIT_BYTES = 16 * 1024;

/** Whether a folder holds a built web app (its `index.html`). */
export function isWebBuilt(webDir: string): boolean {
  return existsSync(join(webDir, 'index.html'));
}

/**
 * Builds the console's NestJS app on Fastify, not yet listening (tests call `inject`, the boot
 * `listen`): the API under `/api/v1` (ConsoleApiModule), `@fastify/cookie`, the web app's files
 * from `webDir` at `/` when it is built (`@fastify/static`), the API's OpenAPI document at
 * `/api/openapi.json` with its browsable page at `/api/docs`, and on every answer the edge's
 * security headers with the web app's Content-Security-Policy (`WEB_APP_CONTENT_SECURITY_POLICY`:
 * its own scripts, styles and requests only, `frame-ancestors 'none'`; docs/console.md,
 * "Security headers"), plus `Cache-Control: no-store` on the API's.
 *
 * @param webDir - folder of the built web app (`dist/apps/console/web`); missing or without
 *   `index.html`: `/` answers 503 `CONSOLE.WEB_NOT_BUILT`.
 * @param apiVersion - the version the OpenAPI document states (package.json's).
 * @param metrics - the registry `GET /metrics` serves, where the edge adds the HTTP latency; a
 *   new one with the default process metrics when absent.
 * @param imports - modules imported beside the app's own: the runtime's lifecycle module, at boot (`main.ts`).
 */
export async function createConsoleApp(
  deps: Omit<ConsoleApiDeps, 'webBuilt' | 'metrics'> & { webDir: string; apiVersion?: string; metrics?: ConsoleApiDeps['metrics'] },
  imports: readonly DynamicModule[] = [],
): Promise<NestFastifyApplication> {
  const webBuilt = isWebBuilt(deps.webDir);
  const metrics = deps.metrics ?? createMetricsRegistry();
  const app = await createEdgeApp(ConsoleApiModule.forRoot({ ...deps, webBuilt, metrics }), {
    bodyLimitBytes: BODY_LIMIT_BYTES,
    metrics,
    logger: deps.logger,
    contentSecurityPolicy: WEB_APP_CONTENT_SECURITY_POLICY,
    imports,
  });
  await app.register(fastifyCookie);
  serveConsoleOpenApi(app, consoleOpenApiDocument(app, deps.apiVersion ?? 'development', CONSOLE_CONTROLLERS));
  if (webBuilt) await app.register(fastifyStatic, { root: deps.webDir, prefix: '/', wildcard: false, index: ['index.html'] });
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onSend', async (request, reply, payload) => {
      if (request.url.startsWith('/api/')) void reply.header('cache-control', 'no-store');
      return payload;
    });
  return app;
}

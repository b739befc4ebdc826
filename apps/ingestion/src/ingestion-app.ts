import type { DynamicModule } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createEdgeApp } from '@settle/http';
import { createMetricsRegistry } from '@settle/platform';
import { ingestionOpenApiDocument, serveIngestionOpenApi } from './http/openapi/document.js';
import { INGESTION_CONTROLLERS, IngestionModule, type IngestionInfrastructure } from './ingestion.module.js';

/**
 * Routes whose bodies the HTTP edge keeps as raw bytes, whatever their content type: provider
 * webhooks, whose signatures cover the bytes and are checked before anything reads them
 * (docs/webhooks.md, "Content types").
 */
export const WEBHOOK_ROUTES = ['/v1/webhooks/:provider', '/v1/webhooks/:provider/:token'] as const;

/**
 * Builds the ingestion app (checkout API, admin API, provider webhooks, health, and the API's
 * OpenAPI document at `/docs/openapi.json` with its browsable page at `/docs`) on the shared HTTP
 * edge (`@settle/http`, `createEdgeApp`), not yet listening: the boot calls `listen`, tests
 * `inject`. Bodies over `config.http.bodyLimitBytes` (bytes) answer 413; JSON bodies are read
 * strictly (duplicate keys and integers not written as integer literals answer 400). Its
 * metrics (webhooks, verification requests, HTTP latency by route) go to `infra.registry`, or
 * to a new registry with the default process metrics.
 *
 * @param apiVersion - the version the OpenAPI document states (package.json's).
 * @param imports - modules imported beside the app's own: the runtime's lifecycle module, at boot (`main.ts`).
 */
export async function createIngestionApp(
  infra: IngestionInfrastructure,
  apiVersion = 'development',
  imports: readonly DynamicModule[] = [],
): Promise<NestFastifyApplication> {
  const registry = infra.registry ?? createMetricsRegistry();
  const app = await createEdgeApp(IngestionModule.forRoot({ ...infra, registry }), {
    bodyLimitBytes: infra.config.http.bodyLimitBytes,
    rawBodyRoutes: WEBHOOK_ROUTES,
    metrics: registry,
    logger: infra.logger,
    // Anybody can send a webhook: their trace context is a link, never a parent.
    untrustedTraceRoutes: WEBHOOK_ROUTES,
    imports,
  });
  serveIngestionOpenApi(app, ingestionOpenApiDocument(app, apiVersion, INGESTION_CONTROLLERS));
  return app;
}

/**
 * The OpenAPI documents of Settle's HTTP apps (docs/api.md): where each is committed and how it
 * is built from its app's controllers, for the generator (`npm run openapi`, scripts/docs/openapi.ts)
 * and the test that fails when a committed document is not what the code gives
 * (test/openapi.unit.spec.ts).
 */
import { join } from 'node:path';
import type { GeneratedOpenApiDocument } from '@settle/http';
import { buildConsoleOpenApi } from '../../apps/console/src/http/openapi/generate.js';
import { buildDispatcherOpenApi } from '../../apps/dispatcher/src/http/openapi/generate.js';
import { buildIngestionOpenApi } from '../../apps/ingestion/src/http/openapi/generate.js';

/** The apps that serve an HTTP API with an OpenAPI document. */
export const OPENAPI_APPS = ['ingestion', 'dispatcher', 'console'] as const;
export type OpenApiApp = (typeof OPENAPI_APPS)[number];

/**
 * Every app's document, by app name.
 *
 * @param root - the repository's root: the documents are `docs/api/<app>-openapi.json` under it,
 *   and its package.json gives their version.
 */
export function openApiDocuments(root: string): Record<OpenApiApp, GeneratedOpenApiDocument> {
  const file = (app: OpenApiApp) => join(root, 'docs', 'api', `${app}-openapi.json`);
  return {
    ingestion: { file: file('ingestion'), build: () => buildIngestionOpenApi(root) },
    dispatcher: { file: file('dispatcher'), build: () => buildDispatcherOpenApi(root) },
    console: { file: file('console'), build: () => buildConsoleOpenApi(root) },
  };
}

import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { buildOpenApiDocument, EDGE_PROBLEMS_NOTE, serveOpenApi, type ControllerClass } from '@settle/http';
import { SECURITY, webhookSecuritySchemes } from './security.js';

/** Where ingestion serves its API document: the JSON and a browsable page (docs/api.md). */
export const OPENAPI_PATHS = { json: '/docs/openapi.json', ui: '/docs' } as const;

/**
 * The OpenAPI 3.0 document of ingestion's API (README.md, "The API"; docs/api.md), from the
 * controllers' decorators (`buildOpenApiDocument`, `@settle/http`): the checkout API and the
 * entitlements read for upstream services (API key), manual reconciliation (admin API key), and
 * the provider webhooks (each provider's signature over the raw body; M-Pesa's secret token in the
 * path). `GET /health` and `GET /metrics` are for operators (docs/observability.md), not part of it.
 *
 * @param controllers - the app's controllers (`INGESTION_CONTROLLERS`), whose `ApiProblems` name the codes.
 */
export function ingestionOpenApiDocument(app: INestApplication, version: string, controllers: readonly ControllerClass[]): OpenAPIObject {
  return buildOpenApiDocument(app, {
    title: 'Settle ingestion API',
    description: [
      'HTTP in for Settle, the payment verification and webhook recovery service: checkouts from upstream checkout services, provider webhooks, verification on demand, what the ledger granted each user, and manual reconciliation.',
      "Authenticate with `Authorization: Bearer <api key>` (the admin API with an admin key); Settle is configured with the keys' SHA-256 digests only (`SETTLE_API_KEY_SHA256`, `SETTLE_ADMIN_API_KEY_SHA256`). Webhooks are authenticated by the provider's signature over the exact raw body, whatever its content type.",
      `Every error is RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\` (docs/errors.md); each operation lists its own codes per status. A 503 carries \`Retry-After\`: nothing was stored, and the same request succeeds later. ${EDGE_PROBLEMS_NOTE}`,
      'Amounts are integers in minor units; times ISO 8601 UTC; durations ISO 8601.',
    ].join('\n\n'),
    version,
    securitySchemes: {
      [SECURITY.apiKey]: {
        type: 'http',
        scheme: 'bearer',
        description: 'An API key of an upstream checkout service (`SETTLE_API_KEY_SHA256` holds its SHA-256).',
      },
      [SECURITY.adminApiKey]: { type: 'http', scheme: 'bearer', description: 'An admin API key (`SETTLE_ADMIN_API_KEY_SHA256` holds its SHA-256).' },
      ...webhookSecuritySchemes(),
    },
    pathPrefixes: ['/v1/'],
    controllers,
  });
}

/** Serves the document at {@link OPENAPI_PATHS}: `GET /docs/openapi.json` and the Swagger UI at `GET /docs`. */
export function serveIngestionOpenApi(app: INestApplication, document: OpenAPIObject): void {
  serveOpenApi(app, document, OPENAPI_PATHS);
}

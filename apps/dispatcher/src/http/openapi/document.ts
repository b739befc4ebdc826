import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { buildOpenApiDocument, EDGE_PROBLEMS_NOTE, serveOpenApi, type ControllerClass } from '@settle/http';
import { CUSTOMER_EVENT_KINDS, CUSTOMER_EVENT_SCHEMAS } from '../../deliveries/generated/customer-events.js';

/** Security scheme name of the dispatcher's document: the admin API key. */
export const SECURITY = { adminApiKey: 'adminApiKey', apiKey: 'apiKey' } as const;

/** Where the dispatcher serves its admin API's document: the JSON and a browsable page (docs/api.md). */
export const OPENAPI_PATHS = { json: '/docs/openapi.json', ui: '/docs' } as const;

/**
 * The OpenAPI 3.0 document of the dispatcher's admin API (docs/delivery.md, "Endpoints and their
 * secrets"; docs/api.md), from the controllers' decorators (`buildOpenApiDocument`,
 * `@settle/http`): the customer's endpoints and their secrets, every delivery and attempt of an
 * entitlement event, resend and recovery. `GET /health` and `GET /metrics` are for operators
 * (docs/observability.md), not part of it.
 *
 * @param controllers - the admin API's controllers (`ADMIN_API_CONTROLLERS`), whose `ApiProblems` name the codes.
 */
export function dispatcherOpenApiDocument(app: INestApplication, version: string, controllers: readonly ControllerClass[]): OpenAPIObject {
  const document = buildOpenApiDocument(app, {
    title: 'Settle dispatcher admin API',
    description: [
      "The dispatcher delivers entitlement events to the customer's endpoints, signed with Standard Webhooks, with retries for more than three days and a dead-letter topic after them (docs/delivery.md). This API registers and manages those endpoints and their signing secrets, shows every delivery attempt, and puts deliveries back in the schedule.",
      'The receipts API (`/v1/receipts/{event_id}/proof`) answers the merchant\'s backend the proof that a delivered event is in the ledger Settle signed (docs/ledger.md, "Receipts"); it takes the merchant\'s API key.',
      "Authenticate with `Authorization: Bearer <admin api key>`; the dispatcher is configured with the keys' SHA-256 digests only (`SETTLE_ADMIN_API_KEY_SHA256`, the same admin keys as ingestion's). A signing secret is answered once, when it is made; no other answer carries it.",
      `Every error is RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\` (docs/errors.md); each operation lists its own codes per status. A 503 carries \`Retry-After\`: nothing was changed, and the same request succeeds later. ${EDGE_PROBLEMS_NOTE}`,
      'Times are ISO 8601 UTC; durations milliseconds.',
    ].join('\n\n'),
    version,
    securitySchemes: {
      [SECURITY.adminApiKey]: { type: 'http', scheme: 'bearer', description: 'An admin API key (`SETTLE_ADMIN_API_KEY_SHA256` holds its SHA-256).' },
      [SECURITY.apiKey]: {
        type: 'http',
        scheme: 'bearer',
        description: "The merchant's API key, as its checkout services present it to ingestion (`SETTLE_API_KEY_SHA256`), or an admin API key.",
      },
    },
    pathPrefixes: ['/v1/admin/', '/v1/receipts/'],
    controllers,
  });
  return { ...document, 'x-webhooks': customerEventWebhooks() } as OpenAPIObject;
}

/**
 * What the dispatcher POSTs to a customer endpoint, one entry per event kind, its body the kind's
 * JSON Schema (docs/api/customer-events/, generated into this app by `npm run openapi`). OpenAPI
 * 3.1 calls this section `webhooks`; the document is OpenAPI 3.0 (what `@nestjs/swagger` writes),
 * where it is the `x-webhooks` extension that documentation tools read (docs/api.md).
 */
function customerEventWebhooks(): Record<string, unknown> {
  return Object.fromEntries(
    CUSTOMER_EVENT_KINDS.map((kind) => {
      const { $schema: _dialect, $id: _id, ...schema } = CUSTOMER_EVENT_SCHEMAS[kind];
      return [
        kind,
        {
          post: {
            summary: schema.title,
            description: `${schema.description} Signed with Standard Webhooks (\`webhook-id\` = \`event_id\`, \`webhook-timestamp\`, \`webhook-signature\`); docs/delivery.md.`,
            operationId: `customerEvent_${kind}`,
            requestBody: { required: true, content: { 'application/json': { schema } } },
            responses: {
              '2XX': {
                description: 'Received: recorded durably by the endpoint (the receiver kit answers 200 once the event is stored). Nothing is sent again.',
              },
              '410': { description: 'Gone: the endpoint is disabled and receives nothing more until it is enabled again.' },
              default: { description: 'Not received: the delivery is attempted again on the retry schedule (docs/delivery.md, "Attempts").' },
            },
          },
        },
      ];
    }),
  );
}

/** Serves the document at {@link OPENAPI_PATHS}: `GET /docs/openapi.json` and the Swagger UI at `GET /docs`. */
export function serveDispatcherOpenApi(app: INestApplication, document: OpenAPIObject): void {
  serveOpenApi(app, document, OPENAPI_PATHS);
}

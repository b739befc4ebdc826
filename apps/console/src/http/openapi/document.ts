import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { buildOpenApiDocument, EDGE_PROBLEMS_NOTE, serveOpenApi, type ControllerClass } from '@settle/http';
import { CSRF_HEADER, SESSION_COOKIE } from '../tokens.js';

/** Security scheme names of the document: the session cookie and the CSRF header. */
export const SECURITY = { session: 'session', csrf: 'csrf' } as const;

/** Where the console serves its API document: the JSON and a browsable page. */
export const OPENAPI_PATHS = { json: '/api/openapi.json', ui: '/api/docs' } as const;

/**
 * The OpenAPI 3.0 document of the console's admin API (docs/console.md, "API"), from the
 * controllers' decorators (`buildOpenApiDocument`, `@settle/http`): what the web app uses, usable
 * without it (sign in with `POST /api/v1/session`, keep the cookie, send the answered `csrfToken`
 * on every change). The session and the CSRF token are required together where both are named.
 *
 * @param controllers - the app's controllers, whose `ApiProblems` metadata names the codes.
 */
export function consoleOpenApiDocument(app: INestApplication, version: string, controllers: readonly ControllerClass[]): OpenAPIObject {
  return buildOpenApiDocument(app, {
    title: 'Settle console API',
    description: [
      'The operations API behind the console: the book of transactions, review queues, deliveries, manual actions and their audit trail.',
      `Sign in with \`POST /api/v1/session\`; the answer sets the \`${SESSION_COOKIE}\` cookie (HttpOnly, SameSite=Strict) and carries a \`csrfToken\`.`,
      `Every POST, PUT, PATCH and DELETE after sign-in must send that token in \`${CSRF_HEADER}\`.`,
      'Every error is RFC 9457 problem details with a stable `code` (docs/errors.md). Amounts are integers in minor units; times ISO 8601 UTC.',
      EDGE_PROBLEMS_NOTE,
    ].join('\n\n'),
    version,
    securitySchemes: {
      [SECURITY.session]: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
      [SECURITY.csrf]: { type: 'apiKey', in: 'header', name: CSRF_HEADER, description: "The session's csrfToken" },
    },
    // Health, metrics and the web app's files are not part of the admin API.
    pathPrefixes: ['/api/v1/'],
    controllers,
    securityRequirement: 'all',
  });
}

/** Serves the document at {@link OPENAPI_PATHS}: `GET /api/openapi.json` and the Swagger UI at `GET /api/docs`. */
export function serveConsoleOpenApi(app: INestApplication, document: OpenAPIObject): void {
  serveOpenApi(app, document, OPENAPI_PATHS);
}

import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { CSRF_HEADER, SESSION_COOKIE } from '../tokens.js';
import { problemResponses, problemSchema } from './decorators.js';

/** Security scheme names of the document: the session cookie and the CSRF header. */
export const SECURITY = { session: 'session', csrf: 'csrf' } as const;

/** Where the console serves its API document: the JSON and a browsable page. */
export const OPENAPI_PATHS = { json: '/api/openapi.json', ui: '/api/docs' } as const;

/**
 * The OpenAPI 3.0 document of the console's admin API (docs/console.md, "API"), from the
 * controllers' decorators: what the web app uses, usable without it (sign in with
 * `POST /api/v1/session`, keep the cookie, send the answered `csrfToken` on every change).
 * Each operation's problems are its controller's and its handler's `ApiProblems` codes, merged per status.
 *
 * @param controllers - the app's controllers, whose `ApiProblems` metadata names the codes.
 */
export function consoleOpenApiDocument(
  app: INestApplication,
  version: string,
  controllers: ReadonlyArray<abstract new (...args: never) => unknown>,
): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Settle console API')
    .setDescription(
      [
        'The operations API behind the console: the book of transactions, review queues, deliveries, manual actions and their audit trail.',
        `Sign in with \`POST /api/v1/session\`; the answer sets the \`${SESSION_COOKIE}\` cookie (HttpOnly, SameSite=Strict) and carries a \`csrfToken\`.`,
        `Every POST, PUT, PATCH and DELETE after sign-in must send that token in \`${CSRF_HEADER}\`.`,
        'Every error is RFC 9457 problem details with a stable `code` (docs/errors.md). Amounts are integers in minor units; times ISO 8601 UTC.',
      ].join('\n\n'),
    )
    .setVersion(version)
    .addCookieAuth(SESSION_COOKIE, { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE }, SECURITY.session)
    .addApiKey({ type: 'apiKey', in: 'header', name: CSRF_HEADER, description: "The session's csrfToken" }, SECURITY.csrf)
    .build();
  const document = SwaggerModule.createDocument(app, config);
  // Health, metrics and the web app's files are not part of the admin API.
  document.paths = Object.fromEntries(Object.entries(document.paths).filter(([path]) => path.startsWith('/api/v1/')));
  document.components = { ...document.components, schemas: { ...document.components?.schemas, Problem: problemSchema() } };
  const byName = new Map(controllers.map((c) => [c.name, c]));
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item) as Array<{ operationId?: string; security?: Array<Record<string, string[]>>; responses?: Record<string, unknown> }>) {
      if (!op || typeof op !== 'object') continue;
      // The decorators list the session and the CSRF token as alternatives; both are required.
      if (op.security && op.security.length > 1) op.security = [Object.assign({}, ...op.security) as Record<string, string[]>];
      // Problems: the controller's and the handler's codes, merged per status (`operationId` is `<Controller>_<handler>`).
      const [controllerName, handlerName] = (op.operationId ?? '').split('_');
      const controller = controllerName ? byName.get(controllerName) : undefined;
      const handler = controller && handlerName ? (controller.prototype as Record<string, unknown>)[handlerName] : undefined;
      if (controller && typeof handler === 'function') op.responses = { ...op.responses, ...problemResponses(controller, handler) };
    }
  }
  return document;
}

/** Serves the document at {@link OPENAPI_PATHS}: `GET /api/openapi.json` and the Swagger UI at `GET /api/docs`. */
export function serveConsoleOpenApi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup(OPENAPI_PATHS.ui.slice(1), app, document, {
    jsonDocumentUrl: OPENAPI_PATHS.json.slice(1),
    raw: ['json'],
    ui: true,
  });
}

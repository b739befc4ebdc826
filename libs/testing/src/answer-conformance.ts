/**
 * Checks an HTTP app's real answers against its OpenAPI document (docs/api.md): a hook on the
 * app parses every successful JSON answer of a documented route with the schema the document
 * states for that route and status (`documentedAnswers`, `@settle/http`: the schemas the
 * controllers' `ApiAnswer` decorators recorded), so an answer that drifts from the document, or a
 * status the document does not list, fails the test that produced it. Shared by the console's,
 * ingestion's and the dispatcher's API tests.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { documentedAnswers, type ControllerClass } from '@settle/http';

/** What the hook saw: answers that broke their document, and the routes (`METHOD /route/:param`) checked at least once. */
export interface AnswerConformance {
  violations: string[];
  checked: Set<string>;
}

/**
 * Registers the checking hook on the app; call before `app.init()`.
 *
 * @param document - the app's OpenAPI document, built from the same controllers.
 */
export function watchAnswers(app: NestFastifyApplication, document: OpenAPIObject, controllers: readonly ControllerClass[]): AnswerConformance {
  const schemas = documentedAnswers(document, controllers);
  const documentedRoutes = new Set([...schemas.keys()].map((key) => key.slice(0, key.lastIndexOf(' '))));
  const seen: AnswerConformance = { violations: [], checked: new Set() };
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onSend', async (request, reply, payload) => {
      const route = `${request.method} ${request.routeOptions.url ?? ''}`;
      if (!documentedRoutes.has(route) || reply.statusCode >= 300) return payload;
      // A documented non-JSON representation (a CSV export) is not checked against the JSON schema.
      const type = String(reply.getHeader('content-type') ?? '');
      if (type !== '' && !/json/.test(type)) return payload;
      const key = `${route} ${reply.statusCode}`;
      const schema = schemas.get(key);
      const body = typeof payload === 'string' ? payload : '';
      seen.checked.add(route);
      if (schema === undefined) {
        seen.violations.push(`${route}: answered ${reply.statusCode}, which the document does not list`);
      } else if (schema === null) {
        if (body.length > 0) seen.violations.push(`${route}: answered ${reply.statusCode} with a body the document does not describe`);
      } else if (body.length === 0) {
        seen.violations.push(`${route}: answered ${reply.statusCode} without the documented JSON body`);
      } else {
        const parsed = schema.safeParse(JSON.parse(body));
        if (!parsed.success) seen.violations.push(`${route}: ${parsed.error.message}`);
      }
      return payload;
    });
  return seen;
}

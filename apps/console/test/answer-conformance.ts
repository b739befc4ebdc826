/**
 * Checks the API's real answers against the schemas the OpenAPI document is made from
 * (apps/console/src/http/openapi/answers.ts): a hook on the app parses every 2xx JSON answer of
 * a documented route with its schema, so an answer that drifts from the document fails the test
 * that produced it.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { z } from 'zod';
import {
  heldInReviewAnswer,
  manualReviewAnswer,
  stateMismatchAnswer,
  overviewAnswer,
  reconcileAnswer,
  sessionAnswer,
  transactionDetailAnswer,
  transactionListAnswer,
  auditPageAnswer,
  userAnswer,
  userListAnswer,
  userWithPasswordAnswer,
  deliveryPageAnswer,
  endpointAnswer,
  endpointDetailAnswer,
  endpointListAnswer,
  eventDeliveriesAnswer,
  recoverAnswer,
  resendAnswer,
} from '../src/http/openapi/answers.js';

/** Each documented route's answer schema, by `METHOD /route/:pattern`. */
export const ANSWER_SCHEMAS: Record<string, z.ZodType> = {
  'POST /api/v1/session': sessionAnswer,
  'GET /api/v1/session': sessionAnswer,
  'GET /api/v1/overview': overviewAnswer,
  'GET /api/v1/transactions': transactionListAnswer,
  'GET /api/v1/transactions/:reference': transactionDetailAnswer,
  'POST /api/v1/transactions/:reference/reconcile': reconcileAnswer,
  'GET /api/v1/queues/held-in-review': heldInReviewAnswer,
  'GET /api/v1/queues/manual-review': manualReviewAnswer,
  'GET /api/v1/queues/state-mismatch': stateMismatchAnswer,
  'GET /api/v1/audit': auditPageAnswer,
  'GET /api/v1/users': userListAnswer,
  'POST /api/v1/users': userWithPasswordAnswer,
  'PATCH /api/v1/users/:email': userAnswer,
  'POST /api/v1/users/:email/password': userWithPasswordAnswer,
  'GET /api/v1/endpoints': endpointListAnswer,
  'GET /api/v1/endpoints/:id': endpointDetailAnswer,
  'GET /api/v1/deliveries': deliveryPageAnswer,
  'GET /api/v1/events/:eventId/deliveries': eventDeliveriesAnswer,
  'POST /api/v1/events/:eventId/resend': resendAnswer,
  'POST /api/v1/endpoints/:id/recover': recoverAnswer,
  'POST /api/v1/endpoints/:id/enable': endpointAnswer,
  'POST /api/v1/endpoints/:id/disable': endpointAnswer,
};

/** What the hook saw: answers that broke their schema, and the routes checked at least once. */
export interface AnswerConformance {
  violations: string[];
  checked: Set<string>;
}

/**
 * Registers the checking hook; call before `app.init()`.
 */
export function watchAnswers(app: NestFastifyApplication): AnswerConformance {
  const seen: AnswerConformance = { violations: [], checked: new Set() };
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onSend', async (request, reply, payload) => {
      const route = `${request.method} ${request.routeOptions.url ?? ''}`;
      const schema = ANSWER_SCHEMAS[route];
      if (schema && reply.statusCode < 300 && typeof payload === 'string' && payload.length > 0) {
        const parsed = schema.safeParse(JSON.parse(payload));
        seen.checked.add(route);
        if (!parsed.success) seen.violations.push(`${route}: ${parsed.error.message}`);
      }
      return payload;
    });
  return seen;
}

import { createNodeHandler, PROBLEM_JSON } from '@settle/receiver';
import { runsByKind } from './business.js';

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 * @param {string} [type]
 */
function send(res, status, body, type = 'application/json') {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Answers an RFC 9457 problem, like the kit does. */
function problem(res, status, code, title, detail) {
  send(res, status, { type: `urn:example:problem:${code.toLowerCase()}`, title, status, code, ...(detail ? { detail } : {}) }, PROBLEM_JSON);
}

/** @param {import('@settle/receiver').FailedEvent} event */
const failedView = (event) => ({
  event_id: event.eventId,
  event: event.kind,
  attempts: event.attempts,
  last_error: event.lastError,
  failed_at: event.failedAt.toISOString(),
  payload: event.payload,
});

/**
 * The example's HTTP routes, a plain `node:http` listener.
 *
 * - `POST /webhook/settle`: the kit (signature, record, 200 at once);
 * - `GET /access/:user_id/:entitlement`: `{ user_id, entitlement, expires_at }`, or 404;
 * - `GET /stats`: events per state, business-logic runs per event kind;
 * - `GET /stats/answers`: how long the kit took to answer deliveries (p50, p99, p99.9, max, in
 *   milliseconds); `DELETE /stats/answers` starts counting afresh;
 * - `GET /events/failed`, `POST /events/:event_id/retry`: failed events and their retry (put
 *   these behind your own authentication in a real backend);
 * - `GET /health`: 200 when PostgreSQL answers.
 *
 * @param {{ receiver: import('@settle/receiver').Receiver<import('pg').PoolClient>, pool: import('pg').Pool, logger: import('pino').Logger, answers: ReturnType<typeof import('./answers.js').answerTimes> }} deps
 * @returns {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void}
 */
export function routes({ receiver, pool, logger, answers }) {
  const webhook = createNodeHandler(receiver);

  /** @type {Array<[string, RegExp, (res: import('node:http').ServerResponse, ...params: string[]) => Promise<void>]>} */
  const table = [
    [
      'GET',
      /^\/access\/([^/]+)\/([^/]+)$/,
      async (res, userId, entitlement) => {
        const expiresAt = await receiver.accessExpiry(userId, entitlement);
        if (!expiresAt) return problem(res, 404, 'EXAMPLE.ACCESS_NOT_FOUND', 'No access granted', `${userId} has no ${entitlement}`);
        send(res, 200, { user_id: userId, entitlement, expires_at: expiresAt.toISOString() });
      },
    ],
    [
      'GET',
      /^\/stats$/,
      async (res) => {
        send(res, 200, { events: await receiver.counts(), runs: await runsByKind(pool) });
      },
    ],
    [
      'GET',
      /^\/stats\/answers$/,
      async (res) => {
        send(res, 200, answers.summary());
      },
    ],
    [
      'DELETE',
      /^\/stats\/answers$/,
      async (res) => {
        answers.reset();
        send(res, 200, answers.summary());
      },
    ],
    [
      'GET',
      /^\/events\/failed$/,
      async (res) => {
        send(res, 200, { events: (await receiver.listFailed()).map(failedView) });
      },
    ],
    [
      'POST',
      /^\/events\/([^/]+)\/retry$/,
      async (res, eventId) => {
        const outcome = await receiver.retry(eventId);
        if (outcome === 'not_found') return problem(res, 404, 'EXAMPLE.EVENT_NOT_FOUND', 'No such event', eventId);
        if (outcome === 'not_failed') return problem(res, 409, 'EXAMPLE.EVENT_NOT_FAILED', 'The event is not failed', eventId);
        send(res, 202, { event_id: eventId, state: 'pending' });
      },
    ],
    [
      'GET',
      /^\/health$/,
      async (res) => {
        await pool.query('SELECT 1');
        send(res, 200, { status: 'ok' });
      },
    ],
  ];

  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/webhook/settle') return webhook(req, res);
    const route = table.find(([method, pattern]) => method === req.method && pattern.test(path));
    if (!route) return problem(res, 404, 'EXAMPLE.NOT_FOUND', 'Not found', `${req.method} ${path}`);
    let params;
    try {
      params = route[1].exec(path).slice(1).map(decodeURIComponent);
    } catch {
      // Not valid percent-encoding (a lone `%`): no such resource. Thrown from here, the URIError
      // would be uncaught and end the process.
      return problem(res, 404, 'EXAMPLE.NOT_FOUND', 'Not found', `${req.method} ${path}`);
    }
    route[2](res, ...params).catch((error) => {
      logger.error({ err: error, path }, 'request failed');
      problem(res, 503, 'EXAMPLE.UNAVAILABLE', 'Service unavailable', 'the database did not answer');
    });
  };
}

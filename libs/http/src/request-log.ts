import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from '@settle/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Header a request id is read from (when well formed) and answered in. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** A request id a caller may choose: 1 to 128 letters, digits, `.`, `_`, `:` or `-`. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Longest `reference` written in a request line, characters (path parameters are bounded by the router already). */
const MAX_REFERENCE_CHARS = 200;

/**
 * Routes whose request lines are written at `debug`, whatever their status: the probes and
 * the scrapes, which arrive every few seconds and say nothing about traffic.
 */
export const SCRAPE_ROUTES: readonly string[] = ['/health', '/health/live', '/health/ready', '/metrics'];

/**
 * The id of a request: the caller's `X-Request-Id` when it is well formed (1 to 128 of
 * `[A-Za-z0-9._:-]`, so an upstream service's id follows the request into Settle's logs), else a
 * new random UUID. Fastify's `genReqId`.
 */
export function requestIdOf(request: { headers: IncomingHttpHeaders }): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** The transaction reference a request names: its `reference` path parameter, else its `reference` query parameter. */
function referenceOf(request: FastifyRequest): string | undefined {
  for (const source of [request.params, request.query]) {
    const value = (source as Record<string, unknown> | undefined)?.reference;
    if (typeof value === 'string' && value.length > 0) return value.slice(0, MAX_REFERENCE_CHARS);
  }
  return undefined;
}

/** The fields of a request line. */
export interface RequestLine {
  method: string;
  /** The route template (`/v1/checkouts/:reference`), never the URL with its ids; `null` when no route matched. */
  route: string | null;
  /** The answer's status; `null` when the client went away before it. */
  status: number | null;
  /** From the request's arrival to the answer's last byte, milliseconds (one decimal). */
  durationMs: number;
  requestId: string;
  /** The transaction reference the request names (path or query parameter `reference`). */
  reference?: string;
}

/**
 * The request line of a request (see {@link RequestLine}).
 *
 * @param durationMs - time since the request arrived, milliseconds.
 * @param status - the answer's status, `null` when none was sent.
 */
export function requestLine(request: FastifyRequest, durationMs: number, status: number | null): RequestLine {
  const reference = referenceOf(request);
  return {
    method: request.method,
    route: request.routeOptions.url ?? null,
    status,
    durationMs: Math.round(durationMs * 10) / 10,
    requestId: request.id,
    ...(reference !== undefined ? { reference } : {}),
  };
}

/**
 * Logs one line per HTTP request, `"msg":"request"`, once the answer is sent (or the client
 * went away: `status: null`, `aborted: true`), with {@link RequestLine}'s fields: method, route
 * template, status, duration in milliseconds, request id and the transaction reference when the
 * route or query names one. Never a body, a header or the raw URL (an M-Pesa callback URL
 * carries its secret token). Level: `info`, `error` for a 5xx, `debug` for the
 * {@link SCRAPE_ROUTES}. Also answers the request id in `X-Request-Id` ({@link requestIdOf}).
 *
 * Installed on every Settle HTTP app by `createEdgeApp` (and on the provider sandbox).
 *
 * @param quietRoutes - routes logged at `debug`; default {@link SCRAPE_ROUTES}.
 */
export function installRequestLog(instance: FastifyInstance, logger: Logger, quietRoutes: readonly string[] = SCRAPE_ROUTES): void {
  const quiet = new Set(quietRoutes);
  // Only for a request the client abandons, which has no reply to time it.
  const arrivals = new WeakMap<FastifyRequest, number>();
  instance.addHook('onRequest', (request, reply, done) => {
    arrivals.set(request, performance.now());
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  instance.addHook('onResponse', (request, reply: FastifyReply, done) => {
    const line = requestLine(request, reply.elapsedTime, reply.statusCode);
    if (line.route !== null && quiet.has(line.route)) logger.debug(line, 'request');
    else if (reply.statusCode >= 500) logger.error(line, 'request');
    else logger.info(line, 'request');
    done();
  });
  instance.addHook('onRequestAbort', (request, done) => {
    const arrived = arrivals.get(request);
    logger.info({ ...requestLine(request, arrived === undefined ? 0 : performance.now() - arrived, null), aborted: true }, 'request');
    done();
  });
}

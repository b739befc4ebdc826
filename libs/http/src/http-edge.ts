import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { PinoNestLogger, PROBLEM_JSON, ProblemError, type Logger } from '@settle/platform';
import type { FastifyHttpOptions, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { isUtf8 } from 'node:buffer';
import { Histogram, type Registry } from 'prom-client';
import { installRequestLog, requestIdOf } from './request-log.js';
import { API_CONTENT_SECURITY_POLICY, installSecurityHeaders, type CspDirectives } from './security-headers.js';
import { invalidCharacterProblem, unstorableRequestText } from './storable-text.js';
import { assertUnambiguousJson, type JsonStrictness } from './strict-json.js';
import { installHttpTracing } from './tracing.hook.js';

/**
 * Longest request target (path and query) answered, bytes: RFC 9110, section 4.1 recommends
 * supporting at least 8 000 octets; a longer one answers 414 `REQUEST.URI_TOO_LONG`.
 */
export const MAX_URL_BYTES = 8 * 1024;

/**
 * Largest request head (request line and headers) Node's HTTP parser reads, bytes (Node's own
 * default, stated here so it is a documented number): a larger one answers 431
 * `REQUEST.HEADERS_TOO_LARGE`, or 414 when the request line alone is over {@link MAX_URL_BYTES}.
 */
export const MAX_HEADER_BYTES = 16 * 1024;

/** Longest path parameter (a reference, an id) the router matches, characters; longer: 414. */
export const MAX_PARAM_CHARS = 200;

/** How one app's HTTP edge reads requests. */
export interface HttpEdgeOptions {
  /** Largest request body, bytes: a larger one answers 413 `REQUEST.BODY_TOO_LARGE`. */
  bodyLimitBytes: number;
  /**
   * Route patterns (Fastify's, such as `/v1/webhooks/:provider`) whose bodies are kept as raw
   * bytes whatever their content type, and not parsed (provider webhooks: the signature covers
   * the bytes, not the `Content-Type` header; the controller reads them after the check). The
   * request's `rawBody` is set on these routes only.
   */
  rawBodyRoutes?: readonly string[];
  /** Which ambiguities JSON bodies are refused for; default all (see {@link JsonStrictness}). */
  strictness?: JsonStrictness;
  /** The app's logger: Nest's framework logs and one line per request go to it ({@link createEdgeApp}). */
  logger: Logger;
  /**
   * Route patterns whose callers may not continue a trace of theirs (provider webhooks): their
   * requests start a new trace, linked to the caller's (see `installHttpTracing`).
   */
  untrustedTraceRoutes?: readonly string[];
  /**
   * The app's Content-Security-Policy ({@link installSecurityHeaders}); default
   * {@link API_CONTENT_SECURITY_POLICY}, for an app that answers only JSON.
   */
  contentSecurityPolicy?: CspDirectives;
  /**
   * The app's Prometheus registry (the one its `GET /metrics` serves): the edge registers
   * {@link HTTP_REQUEST_DURATION} on it and observes every answered request.
   */
  metrics: Registry;
  /**
   * Modules the app's root imports beside its own: the app runtime's lifecycle module
   * (`AppRuntime.module()` in @settle/runtime), whose shutdown hooks then run after the app's.
   */
  imports?: readonly DynamicModule[];
}

/** The root of an edge app given {@link HttpEdgeOptions.imports}: the app's module beside them. */
class EdgeAppRoot {}

/**
 * Name of the HTTP latency histogram every HTTP app exposes: seconds from the request's arrival
 * to its answer (Fastify's `reply.elapsedTime`), by `method`, `route` (the route's template,
 * such as `/v1/checkouts/:reference`, never the concrete path; {@link UNMATCHED_ROUTE} when no
 * route matched) and `status_code`.
 */
export const HTTP_REQUEST_DURATION = 'settle_http_request_duration_seconds';

/** The `route` label of a request no route matched (a 404, or an answer given before routing). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Upper bounds of the HTTP latency buckets, seconds: 5 ms to 10 s (prom-client's defaults). */
export const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The HTTP latency histogram of a registry ({@link HTTP_REQUEST_DURATION}), registered on it the
 * first time (a second edge on the same registry shares it).
 */
export function httpRequestDuration(registry: Registry): Histogram<'method' | 'route' | 'status_code'> {
  const existing = registry.getSingleMetric(HTTP_REQUEST_DURATION);
  if (existing) return existing as Histogram<'method' | 'route' | 'status_code'>;
  return new Histogram({
    name: HTTP_REQUEST_DURATION,
    help: 'Duration of HTTP requests from arrival to answer, seconds, by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: HTTP_DURATION_BUCKETS,
    registers: [registry],
  });
}

type EdgeRequest = FastifyRequest & { rawBody?: Buffer };

/** What a status answers when nothing more precise produced the problem (the safety net). */
const PROBLEM_BY_STATUS: Readonly<Record<number, { code: string; title: string }>> = {
  400: { code: 'REQUEST.INVALID', title: 'Invalid request' },
  404: { code: 'REQUEST.NOT_FOUND', title: 'Not found' },
  405: { code: 'REQUEST.METHOD_NOT_ALLOWED', title: 'Method not allowed' },
  408: { code: 'REQUEST.TIMEOUT', title: 'Request timeout' },
  413: { code: 'REQUEST.BODY_TOO_LARGE', title: 'Request body too large' },
  414: { code: 'REQUEST.URI_TOO_LONG', title: 'Request target too long' },
  415: { code: 'REQUEST.UNSUPPORTED_MEDIA_TYPE', title: 'Unsupported content type' },
  431: { code: 'REQUEST.HEADERS_TOO_LARGE', title: 'Request headers too large' },
  503: { code: 'SERVICE.UNAVAILABLE', title: 'Service unavailable' },
};

/**
 * The problem of a status with no error behind it: the status's own code
 * ({@link PROBLEM_BY_STATUS}), else `REQUEST.INVALID` for a 4xx and `INTERNAL` for a 5xx.
 */
export function problemForStatus(status: number, detail?: string): ProblemError {
  const known = PROBLEM_BY_STATUS[status];
  if (known) return new ProblemError(status, known.code, known.title, detail);
  return status >= 500
    ? new ProblemError(status, 'INTERNAL', 'Internal error', detail)
    : new ProblemError(status, 'REQUEST.INVALID', 'Invalid request', detail);
}

const unsupportedMediaType = () => new ProblemError(415, 'REQUEST.UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type', 'Send the body as application/json');

/**
 * A raw HTTP/1.1 answer written straight to a socket, for errors Node's HTTP parser meets before
 * any request object exists (the connection is closed after it).
 */
function rawProblemAnswer(problem: ProblemError): string {
  const body = JSON.stringify(problem.toProblem());
  return [
    `HTTP/1.1 ${problem.status} ${problem.title}`,
    `Content-Type: ${PROBLEM_JSON}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * The problem for an error of Node's HTTP parser (`clientError`): a request line over
 * {@link MAX_URL_BYTES} 414, any other head over {@link MAX_HEADER_BYTES} 431, a timeout 408,
 * anything else (not HTTP, a bad header) 400 `REQUEST.MALFORMED_HTTP`.
 */
export function clientErrorProblem(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): ProblemError {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    const packet = error.rawPacket;
    const lineEnd = packet ? packet.indexOf('\r\n') : -1;
    const requestLine = lineEnd === -1 ? (packet?.length ?? 0) : lineEnd;
    return requestLine > MAX_URL_BYTES ? problemForStatus(414) : problemForStatus(431);
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return problemForStatus(408);
  return new ProblemError(400, 'REQUEST.MALFORMED_HTTP', 'Malformed HTTP request');
}

/** Fastify's `clientErrorHandler`: answers Node's parser errors as problems, then closes. */
function onClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) socket.write(rawProblemAnswer(clientErrorProblem(error)));
  socket.destroy();
}

/** Sends a problem on a Fastify reply (errors the router meets before Nest sees the request). */
function sendProblem(request: FastifyRequest, reply: FastifyReply, problem: ProblemError): void {
  void reply
    .code(problem.status)
    .header('content-type', PROBLEM_JSON)
    .send(JSON.stringify(problem.toProblem(request.url.split('?')[0])));
}

/**
 * Fastify's server options for a Settle HTTP app: the body limit, no trusted proxy, the
 * parameter and head limits, and the router's and Node's own errors answered as RFC 9457
 * problems (`frameworkErrors`: a malformed URL 400 `REQUEST.MALFORMED_URL`, a path parameter
 * over {@link MAX_PARAM_CHARS} 414; `clientErrorHandler`: see {@link clientErrorProblem}).
 * Fastify's own 503 while closing is off (its body is not a problem): the edge answers it
 * ({@link installHttpEdge}).
 */
export function httpEdgeServerOptions(options: HttpEdgeOptions): FastifyHttpOptions<Server> {
  return {
    bodyLimit: options.bodyLimitBytes,
    return503OnClosing: false,
    trustProxy: false,
    genReqId: requestIdOf,
    routerOptions: { maxParamLength: MAX_PARAM_CHARS },
    http: { maxHeaderSize: MAX_HEADER_BYTES },
    clientErrorHandler: onClientError,
    frameworkErrors: (error, request, reply) => {
      const code = (error as { code?: string }).code;
      const problem =
        code === 'FST_ERR_BAD_URL'
          ? new ProblemError(400, 'REQUEST.MALFORMED_URL', 'Malformed URL', 'The path is not validly percent-encoded')
          : code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? problemForStatus(414, `A path segment is longer than ${MAX_PARAM_CHARS} characters`)
            : problemForStatus(500);
      sendProblem(request, reply, problem);
    },
  };
}

/**
 * Installs the edge's request handling on a Fastify instance, before its routes are registered
 * (Nest registers them on `init`):
 * - a server span per request, first, so that everything after runs in its context
 *   (`installHttpTracing`, docs/observability.md, "Traces");
 * - text that could not be stored as sent (`storable-text.ts`): a NUL or an unpaired surrogate
 *   in a path parameter, a query parameter's name or value or a header value, refused with 400
 *   `REQUEST.INVALID_CHARACTER` before the body is read, the guards or any handler run; in a
 *   JSON body (any string or key), or body bytes that are not UTF-8, the same, from the parser;
 * - body parsing: `application/json` strictly (UTF-8, then syntax, then {@link assertUnambiguousJson},
 *   then Fastify's own parser with its `__proto__`/`constructor` protection), every other content type
 *   415 `REQUEST.UNSUPPORTED_MEDIA_TYPE`; on {@link HttpEdgeOptions.rawBodyRoutes} any type (a
 *   missing or malformed `Content-Type` too), kept as raw bytes (`request.rawBody`);
 * - a request target over {@link MAX_URL_BYTES}: 414 `REQUEST.URI_TOO_LONG`;
 * - a path that exists for other methods only: 405 `REQUEST.METHOD_NOT_ALLOWED` with `Allow`
 *   (RFC 9110, section 15.5.6), rather than a 404;
 * - a safety net (`onSend`): any error answer that is not already a problem (a plugin's, the
 *   framework's) is replaced by the problem of its status ({@link problemForStatus}), so no
 *   answer names the framework;
 * - every answered request observed in the {@link HTTP_REQUEST_DURATION} histogram of
 *   `options.metrics` (`onResponse`): bounded labels only (the route's template, never the path,
 *   a reference or a query);
 * - a graceful close: once the app is closing (`app.close()`, the shutdown on SIGTERM), the
 *   server accepts no connection and requests in flight finish; a request that still arrives on
 *   an open keep-alive connection is answered 503 `SERVICE.UNAVAILABLE` with `Retry-After: 5`
 *   and `Connection: close`, before any handler runs, so the client retries elsewhere.
 */
export function installHttpEdge(instance: FastifyInstance, options: HttpEdgeOptions): void {
  const strictness = options.strictness ?? { duplicateKeys: true, integerLiterals: true, characters: true };
  const rawRoutes = new Set(options.rawBodyRoutes ?? []);
  const isRawRoute = (request: FastifyRequest) => rawRoutes.has(request.routeOptions.url ?? '');
  const parseJson = instance.getDefaultJsonParser('error', 'error');
  installHttpTracing(instance, { untrustedRoutes: options.untrustedTraceRoutes ?? [] });

  instance.removeAllContentTypeParsers();
  instance.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: options.bodyLimitBytes }, (request, body, done) => {
    // Raw routes never get here: their Content-Type is set aside on request (see the onRequest hook).
    const raw = body as Buffer;
    if (raw.length === 0) {
      done(new ProblemError(400, 'REQUEST.MALFORMED_JSON', 'Malformed JSON body', 'The body is empty'), undefined);
      return;
    }
    if (!isUtf8(raw)) {
      done(invalidCharacterProblem([{ path: '', message: 'the body is not valid UTF-8 (RFC 8259, section 8.1)' }]), undefined);
      return;
    }
    const text = raw.toString('utf8');
    try {
      assertUnambiguousJson(text, strictness);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    void parseJson(request, text, done);
  });
  instance.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: options.bodyLimitBytes }, (request, body, done) => {
    if (!isRawRoute(request)) {
      done(unsupportedMediaType(), undefined);
      return;
    }
    (request as EdgeRequest).rawBody = body as Buffer;
    done(null, undefined);
  });

  // Every route's path and methods, to tell "no such path" (404) from "not with this method" (405).
  const routes = FindMyWay();
  const known = new Set<string>();
  instance.addHook('onRoute', (route) => {
    // A catch-all (the console's web app: GET *) would make every other method's 404 a 405.
    if (route.url.includes('*')) return;
    for (const method of [route.method].flat()) {
      if (known.has(`${method} ${route.url}`)) continue;
      known.add(`${method} ${route.url}`);
      routes.on(method as HTTPMethod, route.url, () => undefined);
    }
  });

  let closing = false;
  instance.addHook('preClose', (done) => {
    closing = true;
    // Node closes the connections idle when the server closes, not those that become idle
    // later (a keep-alive connection whose request was in flight): close those as they do, so
    // the close never waits for a client's keep-alive time-out.
    const reaper = setInterval(() => instance.server.closeIdleConnections(), 100);
    instance.server.once('close', () => clearInterval(reaper));
    done();
  });

  instance.addHook('onRequest', (request, reply, done) => {
    if (closing) {
      void reply.header('retry-after', '5').header('connection', 'close');
      sendProblem(request, reply, new ProblemError(503, 'SERVICE.UNAVAILABLE', 'Service unavailable', 'The service is shutting down; retry the request'));
      return;
    }
    if ((request.raw.url?.length ?? 0) > MAX_URL_BYTES) {
      sendProblem(request, reply, problemForStatus(414, `The request target is longer than ${MAX_URL_BYTES} bytes`));
      return;
    }
    const unstorable = unstorableRequestText(request);
    if (unstorable.length > 0) {
      sendProblem(request, reply, invalidCharacterProblem(unstorable));
      return;
    }
    // A raw route reads bytes whatever the declared type: a missing or malformed Content-Type too
    // (Fastify would answer 415 before any parser for a header that is not a media type).
    if (request.headers['content-type'] !== undefined && isRawRoute(request)) request.headers['content-type'] = 'application/octet-stream';
    if (request.is404) {
      const path = request.url.split('?')[0]!;
      const allowed = allowedMethods(routes, path);
      if (allowed.length > 0) {
        void reply.header('allow', allowed.join(', '));
        sendProblem(request, reply, problemForStatus(405, `${request.method} is not allowed here; allowed: ${allowed.join(', ')}`));
        return;
      }
    }
    done();
  });

  const duration = httpRequestDuration(options.metrics);
  instance.addHook('onResponse', (request, reply, done) => {
    duration.observe(
      { method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE, status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });

  instance.addHook('onSend', async (request, reply, payload) => {
    // A response finished while closing tells its client not to reuse the connection.
    if (closing) void reply.header('connection', 'close');
    if (reply.statusCode < 400) return payload;
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith(PROBLEM_JSON)) return payload;
    void reply.header('content-type', PROBLEM_JSON);
    return JSON.stringify(problemForStatus(reply.statusCode).toProblem(request.url.split('?')[0]));
  });
}

/** Methods (sorted) a router has a route for at a concrete path. */
function allowedMethods(router: FindMyWay.Instance<FindMyWay.HTTPVersion.V1>, path: string): string[] {
  const methods: string[] = [];
  for (const method of ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT'] as const) {
    if (router.find(method, path)) methods.push(method);
  }
  return methods;
}

/**
 * Builds a Settle NestJS app on Fastify with its HTTP edge ({@link httpEdgeServerOptions},
 * {@link installHttpEdge}), not yet listening: Nest's own body parsers are off, the edge's
 * parse bodies. Nest's framework logs go through the app's logger ({@link PinoNestLogger}), and
 * every request is logged once there (`installRequestLog`). Every answer carries the security
 * headers ({@link installSecurityHeaders}) with the app's Content-Security-Policy.
 *
 * @param module - the app's root module (a `DynamicModule` from its `forRoot`).
 */
export async function createEdgeApp(module: Parameters<typeof NestFactory.create>[0], options: HttpEdgeOptions): Promise<NestFastifyApplication> {
  const root = options.imports?.length ? { module: EdgeAppRoot, imports: [module as DynamicModule, ...options.imports] } : module;
  const app = await NestFactory.create<NestFastifyApplication>(root, new FastifyAdapter(httpEdgeServerOptions(options)), {
    bodyParser: false,
    logger: new PinoNestLogger(options.logger),
  });
  // First, so that the answers the edge gives before routing or any handler carry them too.
  await installSecurityHeaders(app, options.contentSecurityPolicy ?? API_CONTENT_SECURITY_POLICY);
  const instance = app.getHttpAdapter().getInstance();
  installHttpEdge(instance, options);
  installRequestLog(instance, options.logger);
  return app;
}

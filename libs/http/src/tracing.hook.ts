import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Link, type Span } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The tracer of the HTTP server spans. */
export const HTTP_TRACER = '@settle/http';

/** Settle's own span attribute: the transaction reference a request names. */
const ATTR_SETTLE_REFERENCE = 'settle.reference';

/** How an app's HTTP server spans treat their callers. */
export interface HttpTracingOptions {
  /**
   * Route patterns (Fastify's, such as `/v1/webhooks/:provider`) whose callers may not continue
   * a trace of theirs: the providers' webhooks, which anybody can send. A request there starts
   * a new trace, linked to the caller's `traceparent` when it sent one, so an outsider can
   * neither join Settle's spans to a trace of its choosing nor switch their sampling off.
   */
  untrustedRoutes?: readonly string[];
}

/** A request's server span and the context its handling runs in. */
interface Traced {
  span: Span;
  context: Context;
}

/**
 * The server span of every request of a Fastify instance (OpenTelemetry's HTTP semantic
 * conventions: opentelemetry.io/docs/specs/semconv/http/http-spans/), manual rather than
 * auto-instrumented (the instrumentation libraries patch modules at load, which ESM makes
 * fragile):
 * - `onRequest` starts the span `<METHOD> <route>` (kind SERVER; the method alone when no route
 *   matched) as a child of the caller's W3C `traceparent` (except on
 *   {@link HttpTracingOptions.untrustedRoutes}), and runs the rest of the request in its
 *   context: the handler's work (the outbox rows it writes, the spans it starts) continues the
 *   request's trace, a body read from the socket later included (AsyncLocalStorage follows the
 *   body's stream on Node 24; tested with a body sent after a pause);
 * - `onResponse` (or `onRequestAbort`) ends it with `http.response.status_code`, status ERROR
 *   for a 5xx, and `settle.reference` when the request names one (a `:reference` path parameter,
 *   or a JSON body's `reference`).
 *
 * Attributes are `http.request.method`, `http.route` (the pattern, never the path: M-Pesa's
 * callback path holds a secret token), `url.scheme`, `http.response.status_code`, `error.type`
 * and `settle.reference`: no header, query or body value is recorded. While tracing is off the
 * spans are the API's non-recording ones and nothing is read from the headers.
 *
 * Install it before any other hook of the instance, so that those run in the request's context.
 */
export function installHttpTracing(instance: FastifyInstance, options: HttpTracingOptions = {}): void {
  const untrusted = new Set(options.untrustedRoutes ?? []);
  const traced = new WeakMap<FastifyRequest, Traced>();
  const tracer = () => trace.getTracer(HTTP_TRACER);

  instance.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    const incoming = propagation.extract(ROOT_CONTEXT, request.headers);
    const trusted = route === undefined || !untrusted.has(route);
    const parent = trusted ? incoming : ROOT_CONTEXT;
    const span = tracer().startSpan(
      route ? `${request.method} ${route}` : request.method,
      {
        kind: SpanKind.SERVER,
        attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method, [ATTR_URL_SCHEME]: request.protocol, ...(route ? { [ATTR_HTTP_ROUTE]: route } : {}) },
        links: trusted ? [] : linksOf(incoming),
      },
      parent,
    );
    const entry = { span, context: trace.setSpan(parent, span) };
    traced.set(request, entry);
    context.with(entry.context, done);
  });

  const end = (request: FastifyRequest, status: number | null) => {
    const entry = traced.get(request);
    if (!entry) return;
    traced.delete(request);
    const reference = referenceOf(request);
    if (reference) entry.span.setAttribute(ATTR_SETTLE_REFERENCE, reference);
    if (status === null) {
      entry.span.setAttribute(ATTR_ERROR_TYPE, 'aborted');
      entry.span.setStatus({ code: SpanStatusCode.ERROR, message: 'aborted' });
    } else {
      entry.span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      // A 4xx is the caller's error, not the server's (the conventions' rule for server spans).
      if (status >= 500) {
        entry.span.setAttribute(ATTR_ERROR_TYPE, String(status));
        entry.span.setStatus({ code: SpanStatusCode.ERROR });
      }
    }
    entry.span.end();
  };
  instance.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  instance.addHook('onRequestAbort', (request, done) => {
    end(request, null);
    done();
  });
}

/** A link to the span a caller's context names, when it names a valid one. */
function linksOf(incoming: Context): Link[] {
  const spanContext = trace.getSpanContext(incoming);
  return spanContext && trace.isSpanContextValid(spanContext) ? [{ context: spanContext }] : [];
}

/** The transaction reference a request names: its `:reference` path parameter, else its JSON body's `reference`. */
function referenceOf(request: FastifyRequest): string | undefined {
  const fromParams = (request.params as Record<string, unknown> | undefined)?.['reference'];
  if (typeof fromParams === 'string') return fromParams;
  const body = request.body;
  if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body)) {
    const fromBody = (body as Record<string, unknown>)['reference'];
    if (typeof fromBody === 'string' && fromBody.length <= 200) return fromBody;
  }
  return undefined;
}

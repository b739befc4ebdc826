import type { AttemptResult } from '@settle/domain';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT } from '@opentelemetry/semantic-conventions';
import {
  contextOfCarrier,
  failSpan,
  outgoingTraceHeaders,
  retryAfterFromAnswer,
  SETTLE_SPAN_ATTRIBUTES,
  SpanKind,
  startSpan,
  type TraceCarrier,
} from '@settle/platform';
import type { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import { safeLookup } from '../endpoints/url-policy.js';
import { signatureHeader } from '../endpoints/endpoint-secrets.js';

/** Longest answer excerpt kept with an attempt, characters. */
export const EXCERPT_CHARS = 512;
/** Most bytes of an answer read before the rest is dropped (the connection is then closed). */
const READ_LIMIT_BYTES = 16 * 1024;

/** One attempt to make. */
export interface AttemptRequest {
  /** The endpoint: each has its own connection pool. */
  endpointId: string;
  /** The entitlement event's id: the `webhook-id`, the same on every attempt. */
  eventId: string;
  url: string;
  /** The exact JSON body stored for the event. */
  body: string;
  /** The endpoint's current secret, then the previous one during a rotation. */
  signers: readonly Webhook[];
  /** The transaction reference of the event, for the attempt's span. */
  reference?: string;
  /** This attempt's number (1 for the first), for the attempt's span. */
  attempt?: number;
  /** The trace context the event came with: the attempt's client span is its child. */
  trace?: TraceCarrier | undefined;
}

/** The tracer of the delivery attempts' client spans. */
export const DELIVERY_TRACER = '@settle/dispatcher';

/**
 * The client span of one attempt (OpenTelemetry's HTTP client conventions), a child of the
 * event's trace: the endpoint's host and port only, since a customer's endpoint URL may hold a
 * token in its path or query, and the endpoint id.
 */
function attemptSpan(req: AttemptRequest) {
  const url = new URL(req.url);
  return startSpan(DELIVERY_TRACER, 'POST', {
    kind: SpanKind.CLIENT,
    parent: contextOfCarrier(req.trace),
    attributes: {
      [ATTR_HTTP_REQUEST_METHOD]: 'POST',
      [ATTR_SERVER_ADDRESS]: url.hostname,
      [ATTR_SERVER_PORT]: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
      'settle.endpoint_id': req.endpointId,
      ...(req.reference ? { [SETTLE_SPAN_ATTRIBUTES.reference]: req.reference } : {}),
      ...(req.attempt !== undefined ? { 'settle.delivery.attempt': req.attempt } : {}),
    },
  });
}

/** What an attempt did. */
export interface AttemptReport {
  result: AttemptResult;
  /** epoch ms */
  startedAt: number;
  /** milliseconds, from sending to the end of the answer (or the failure) */
  latencyMs: number;
  /** A bounded, secret-free excerpt of the answer body, `null` when there was none. */
  excerpt: string | null;
}

/**
 * Makes one text safe to keep and show: at most {@link EXCERPT_CHARS} characters, control
 * characters replaced, and anything shaped like a signing secret, a signature or a long
 * base64 key redacted (an endpoint that echoes its request must not make Settle store its secret).
 */
export function safeExcerpt(text: string): string | null {
  const cleaned = text
    .slice(0, EXCERPT_CHARS * 2)
    .replace(/whsec_[A-Za-z0-9+/=_-]*/g, 'whsec_[redacted]')
    .replace(/v1,[A-Za-z0-9+/=]{20,}/g, 'v1,[redacted]')
    .replace(/[A-Za-z0-9+/]{40,}={0,2}/g, '[redacted]')
    // eslint-disable-next-line no-control-regex -- control characters are replaced so excerpts print safely
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, ' ')
    .slice(0, EXCERPT_CHARS)
    .trim();
  return cleaned.length > 0 ? cleaned : null;
}

function failureOf(error: unknown, timedOut: boolean): AttemptResult {
  const e = error as { name?: string; code?: string; cause?: { code?: string } };
  if (
    timedOut ||
    // AbortSignal.timeout's reason: a DOMException with the legacy code TIMEOUT_ERR (23).
    (error instanceof DOMException && error.code === DOMException.TIMEOUT_ERR) ||
    e?.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e?.code === 'UND_ERR_BODY_TIMEOUT' ||
    e?.code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return { kind: 'timeout' };
  }
  return { kind: 'connection_error', code: String(e?.code ?? e?.cause?.code ?? e?.name ?? 'UNKNOWN').slice(0, 64) };
}

/**
 * Sends deliveries over pooled keep-alive connections (undici): one POST per attempt, signed
 * with the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`),
 * no redirects followed, bounded by a per-attempt time-out covering connection, headers and
 * body (docs/delivery.md, "Attempts"). Each endpoint has a connection pool of its own, so two
 * endpoints on one host never queue behind each other; unless private networks are allowed,
 * names resolving only to blocked addresses are never connected to.
 */
export class DeliverySender {
  private readonly agents = new Map<string, Agent>();

  /**
   * @param options.timeoutMs - per-attempt time-out, milliseconds.
   * @param options.connectionsPerEndpoint - most connections open to one endpoint (its in-flight limit).
   * @param options.allowPrivateNetworks - connect to loopback and private addresses (development, test).
   */
  constructor(private readonly options: { timeoutMs: number; connectionsPerEndpoint: number; allowPrivateNetworks: boolean }) {}

  private agentFor(endpointId: string): Agent {
    let agent = this.agents.get(endpointId);
    if (!agent) {
      agent = new Agent({
        connections: this.options.connectionsPerEndpoint,
        keepAliveTimeout: 30_000,
        pipelining: 1,
        ...(this.options.allowPrivateNetworks ? {} : { connect: { lookup: safeLookup } }),
      });
      this.agents.set(endpointId, agent);
    }
    return agent;
  }

  /**
   * Makes one attempt; never throws: every failure is reported as the attempt's result. The
   * attempt is a client span, a child of the event's trace, whose `traceparent` goes out with
   * the request (the signature covers the id, the timestamp and the body, not this header).
   */
  async attempt(req: AttemptRequest): Promise<AttemptReport> {
    const { span, context } = attemptSpan(req);
    const report = await this.send(req, outgoingTraceHeaders(context));
    if (report.result.kind === 'answered') {
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, report.result.status);
      if (report.result.status >= 400) failSpan(span, String(report.result.status));
    } else {
      failSpan(span, report.result.kind === 'timeout' ? 'timeout' : report.result.code);
    }
    span.end();
    return report;
  }

  private async send(req: AttemptRequest, traceHeaders: Record<string, string>): Promise<AttemptReport> {
    const startedAt = Date.now();
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    try {
      const answer = await request(req.url, {
        method: 'POST',
        dispatcher: this.agentFor(req.endpointId),
        signal,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Settle-Webhooks/1.0',
          'webhook-id': req.eventId,
          'webhook-timestamp': String(Math.floor(startedAt / 1000)),
          'webhook-signature': signatureHeader(req.signers, req.eventId, new Date(startedAt), req.body),
          ...traceHeaders,
        },
        body: req.body,
      });
      let read = 0;
      const chunks: Buffer[] = [];
      for await (const chunk of answer.body as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        read += chunk.length;
        if (read >= READ_LIMIT_BYTES) {
          answer.body.destroy();
          break;
        }
      }
      const retryAfterMs = retryAfterFromAnswer(answer.headers, Date.now());
      return {
        result: { kind: 'answered', status: answer.statusCode, retryAfterMs },
        startedAt,
        latencyMs: Date.now() - startedAt,
        excerpt: safeExcerpt(Buffer.concat(chunks).toString('utf8')),
      };
    } catch (error) {
      return { result: failureOf(error, signal.aborted), startedAt, latencyMs: Date.now() - startedAt, excerpt: null };
    }
  }

  /** Closes every pooled connection. */
  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((agent) => agent.close()));
    this.agents.clear();
  }
}

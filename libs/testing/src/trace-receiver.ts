import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an app exported it, flattened from OTLP/JSON. */
export interface ReceivedSpan {
  /** The exporting app's `service.name`. */
  service: string;
  /** The instrumentation scope (`@settle/http`, `@settle/messaging`, ...). */
  scope: string;
  traceId: string;
  spanId: string;
  /** `undefined` for a trace's root span. */
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** Span ids of the spans it links to. */
  links: string[];
}

/** A tiny OTLP/HTTP receiver (JSON encoding) on the loopback, for tests that read the apps' spans. */
export interface TraceReceiver {
  /** Base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT` (spans are posted to `<url>/v1/traces`). */
  url: string;
  /** Every span received so far, in arrival order. */
  spans(): ReceivedSpan[];
  /** The environment that makes an app export its spans here, every `scheduleDelayMs` milliseconds (default 200). */
  env(scheduleDelayMs?: number): NodeJS.ProcessEnv;
  /** The request bodies received, as text (to check that no secret was exported). */
  bodies(): string[];
  stop(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: AnyValue }>;
  links?: Array<{ spanId: string }>;
}
interface OtlpBody {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: AnyValue }> };
    scopeSpans?: Array<{ scope?: { name?: string }; spans?: OtlpSpan[] }>;
  }>;
}

/** OTLP/JSON ids are hex; some encoders send base64: both come out as hex. */
function hexId(id: string | undefined): string | undefined {
  if (!id) return undefined;
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

function valueOf(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return value.boolValue ?? '';
}

function attributesOf(list: Array<{ key: string; value: AnyValue }> | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

/**
 * Starts an OTLP/HTTP receiver for JSON exports (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) on
 * 127.0.0.1 with a free port: `POST /v1/traces` answers 200 and keeps the spans; anything else 404.
 */
export async function startTraceReceiver(): Promise<TraceReceiver> {
  const received: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/traces') {
      response.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      bodies.push(text);
      try {
        const body = JSON.parse(text) as OtlpBody;
        for (const resourceSpans of body.resourceSpans ?? []) {
          const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
          for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
            for (const span of scopeSpans.spans ?? []) {
              received.push({
                service,
                scope: scopeSpans.scope?.name ?? '',
                traceId: hexId(span.traceId)!,
                spanId: hexId(span.spanId)!,
                parentSpanId: hexId(span.parentSpanId),
                name: span.name,
                kind: span.kind,
                attributes: attributesOf(span.attributes),
                links: (span.links ?? []).map((l) => hexId(l.spanId)!),
              });
            }
          }
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    spans: () => [...received],
    bodies: () => [...bodies],
    env: (scheduleDelayMs = 200) => ({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: String(scheduleDelayMs),
    }),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * W3C trace context as text, and the span helpers every app shares (docs/observability.md,
 * "Traces"). Everything here goes through `@opentelemetry/api`: while no SDK is started (tracing
 * off, the default) spans are non-recording, nothing is injected or extracted, and these
 * functions cost a few allocations.
 */
import {
  context as otelContext,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';
import { isSettleError } from '@settle/domain';

/**
 * A W3C trace context as text (www.w3.org/TR/trace-context/): the `traceparent` and
 * `tracestate` values, as a Kafka record's headers and an outbox row's columns hold them.
 */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** Settle's own span attributes, beside OpenTelemetry's semantic conventions. */
export const SETTLE_SPAN_ATTRIBUTES = {
  /** The transaction reference of the work (a checkout's), where known. */
  reference: 'settle.reference',
  /** The payment provider of the work. */
  provider: 'settle.provider',
  /** What asked for a verification (`webhook_received`, `sweeper_orphaned`, ...). */
  trigger: 'settle.trigger',
  /** A provider's verdict (`cleared`, `declined`, ...). */
  verdict: 'settle.verdict',
  /** The record type (`settle-event-type` header). */
  eventType: 'settle.event_type',
} as const;

/** The semantic conventions' `error.type`: the class of a failure (opentelemetry.io/docs/specs/semconv/registry/attributes/error/). */
export const ATTR_ERROR_TYPE = 'error.type';

/** Reads a carrier's value as text: a string, a Buffer (Kafka headers), the first of an array. */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (Array.isArray(value)) return textOf(value[0]);
  return undefined;
}

const getter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => textOf(carrier[key]),
};

/**
 * The trace context a carrier holds (Kafka record headers, an outbox row's columns, a stored
 * `TraceCarrier`) as an OpenTelemetry `Context` whose remote span is the one it names;
 * `ROOT_CONTEXT` (a new trace) when it names none, or while tracing is off.
 */
export function contextOfCarrier(carrier: Record<string, unknown> | TraceCarrier | null | undefined): Context {
  if (!carrier) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carrier as Record<string, unknown>, getter);
}

/**
 * The W3C trace context of a context (`traceparent`, and `tracestate` when it has one), to
 * store or send on; `undefined` when it holds no valid span context or tracing is off.
 */
export function traceCarrierOf(context: Context = otelContext.active()): TraceCarrier | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context, carrier);
  const traceparent = carrier['traceparent'];
  if (!traceparent) return undefined;
  const tracestate = carrier['tracestate'];
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** A stored trace context from its two nullable columns. */
export function traceCarrierOfColumns(traceparent: string | null | undefined, tracestate: string | null | undefined): TraceCarrier | undefined {
  if (!traceparent) return undefined;
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/**
 * The `traceparent` header alone, for a request to a third party (a payment provider, a
 * customer's endpoint): `tracestate` may hold other vendors' data from upstream, so it is not
 * sent out. Empty when there is nothing to send.
 */
export function outgoingTraceHeaders(context: Context = otelContext.active()): Record<string, string> {
  const traceparent = traceCarrierOf(context)?.traceparent;
  return traceparent ? { traceparent } : {};
}

/**
 * Starts a span of Settle's own work: a child of `parent` (default the active context), or a
 * new trace with `links` when `parent` is `ROOT_CONTEXT`.
 *
 * @returns the span and the context its work runs in.
 */
export function startSpan(
  tracerName: string,
  name: string,
  options: { kind?: SpanKind; parent?: Context; links?: Link[]; attributes?: Attributes } = {},
): { span: Span; context: Context } {
  const parent = options.parent ?? otelContext.active();
  const span = trace
    .getTracer(tracerName)
    .startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {}, links: options.links ?? [] }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** A link to the span a stored trace context names, or none (`[]`). */
export function linksTo(carrier: TraceCarrier | null | undefined): Link[] {
  const spanContext = trace.getSpanContext(contextOfCarrier(carrier));
  return spanContext && trace.isSpanContextValid(spanContext) ? [{ context: spanContext }] : [];
}

/**
 * Ends a span, marked failed when `error` is given: status ERROR and `error.type` set to the
 * error's stable code (a Settle error's `code`, else its class name). The message is not
 * recorded: spans leave the process, and only codes are sure to hold no secret.
 */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) failSpan(span, isSettleError(error) ? error.code : error instanceof Error ? error.name : 'Error');
  span.end();
}

/** Marks a span failed with an `error.type` (a stable code, a status): status ERROR. */
export function failSpan(span: Span, errorType: string): void {
  span.setAttribute(ATTR_ERROR_TYPE, errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
}

/** Sets the transaction reference on the span a context holds (a no-op without one, or without a reference). */
export function annotateReference(context: Context | undefined, reference: string | null | undefined): void {
  if (context && reference) trace.getSpan(context)?.setAttribute(SETTLE_SPAN_ATTRIBUTES.reference, reference);
}

/** Runs `work` with `context` active (its spans and outbox rows continue that trace); `work` alone when there is none. */
export function withTraceContext<T>(context: Context | undefined, work: () => T): T {
  return context ? otelContext.with(context, work) : work();
}

export { ROOT_CONTEXT, SpanKind, type Context, type Span };

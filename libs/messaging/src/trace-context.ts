/**
 * The messaging spans of Settle's producers and consumers, and the W3C trace context on Kafka
 * records (docs/observability.md, "Traces"). The generic helpers (carriers, ending spans) are
 * `@settle/platform`'s; these add OpenTelemetry's messaging semantic conventions for Kafka.
 */
import { SpanKind, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { contextOfCarrier, SETTLE_SPAN_ATTRIBUTES } from '@settle/platform';
import { HEADERS, headerText } from './headers.js';

/** The tracer of Settle's messaging spans (outbox relays, consumer loops, dead-letter writes). */
export const MESSAGING_TRACER = '@settle/messaging';

/**
 * Attribute names of OpenTelemetry's messaging semantic conventions used on Settle's spans
 * (opentelemetry.io/docs/specs/semconv/messaging/kafka/, semantic conventions 1.45). They are
 * still "development" there, so they are copied here rather than imported from the package's
 * incubating entry point, as its README advises.
 */
export const MESSAGING_ATTRIBUTES = {
  system: 'messaging.system',
  destinationName: 'messaging.destination.name',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  consumerGroup: 'messaging.consumer.group.name',
  partition: 'messaging.destination.partition.id',
  /** Named `messaging.kafka.message.offset` before semantic conventions 1.27. */
  offset: 'messaging.kafka.offset',
} as const;

/**
 * Starts a producer span, `send <topic>` (kind PRODUCER), as a child of `parent` (the context
 * the record continues: the one its outbox row stored, or the message being handled).
 *
 * @returns the span and the context to inject into the record's headers.
 */
export function startSendSpan(topic: string, parent: Context, attributes: Attributes = {}): { span: Span; context: Context } {
  const span = trace.getTracer(MESSAGING_TRACER).startSpan(`send ${topic}`, { kind: SpanKind.PRODUCER }, parent);
  // Attributes only on a recording span: while tracing is off this costs nothing more.
  if (span.isRecording()) {
    span.setAttributes({
      [MESSAGING_ATTRIBUTES.system]: 'kafka',
      [MESSAGING_ATTRIBUTES.destinationName]: topic,
      [MESSAGING_ATTRIBUTES.operationType]: 'send',
      [MESSAGING_ATTRIBUTES.operationName]: 'send',
      ...attributes,
    });
  }
  return { span, context: trace.setSpan(parent, span) };
}

/** Where a consumed record came from, for its process span. */
export interface ConsumedRecord {
  topic: string;
  partition: number;
  /** Kafka offset, in decimal. */
  offset: string;
  groupId: string;
  headers: Record<string, unknown> | undefined;
}

/**
 * Starts a consumer span per message, `process <topic>` (kind CONSUMER), as a child of the
 * producer span its `traceparent` header names (a record without one starts a new trace), with
 * the Kafka attributes of the semantic conventions and the record type.
 *
 * @returns the span and the context the message's work continues (`MessageContext.trace`).
 */
export function startProcessSpan(record: ConsumedRecord): { span: Span; context: Context } {
  const parent = contextOfCarrier(record.headers);
  const span = trace.getTracer(MESSAGING_TRACER).startSpan(`process ${record.topic}`, { kind: SpanKind.CONSUMER }, parent);
  // Attributes only on a recording span: while tracing is off this costs nothing more.
  if (span.isRecording()) {
    const eventType = headerText(record.headers, HEADERS.eventType);
    span.setAttributes({
      [MESSAGING_ATTRIBUTES.system]: 'kafka',
      [MESSAGING_ATTRIBUTES.destinationName]: record.topic,
      [MESSAGING_ATTRIBUTES.operationType]: 'process',
      [MESSAGING_ATTRIBUTES.operationName]: 'process',
      [MESSAGING_ATTRIBUTES.consumerGroup]: record.groupId,
      [MESSAGING_ATTRIBUTES.partition]: String(record.partition),
      [MESSAGING_ATTRIBUTES.offset]: Number(record.offset),
      ...(eventType ? { [SETTLE_SPAN_ATTRIBUTES.eventType]: eventType } : {}),
    });
  }
  return { span, context: trace.setSpan(parent, span) };
}

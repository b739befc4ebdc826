/**
 * W3C trace context through Kafka headers and outbox rows (docs/observability.md, "Traces"):
 * first with tracing off (the default: nothing written, nothing recorded), then with the SDK
 * started on an in-memory exporter.
 */
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HEADERS,
  Outbox,
  relayHeaders,
  startProcessSpan,
  startSendSpan,
  topicNames,
  type AvroCodec,
  type CheckoutRegisteredV1,
  type OutboxRow,
} from '@settle/messaging';
import {
  contextOfCarrier,
  createLogger,
  endSpan,
  ROOT_CONTEXT,
  startSpan,
  startTracing,
  traceCarrierOf,
  withTraceContext,
  type Tracing,
} from '@settle/platform';

const topics = topicNames('settle');
/** A codec whose schema check passes: `prepare` is what is under test, not Avro. */
const acceptingCodec = { assertValid: async () => undefined } as unknown as AvroCodec;
const payload: CheckoutRegisteredV1 = {
  event_id: 'evt-1',
  occurred_at: 1_700_000_000_000,
  correlation_id: 'corr-1',
  reference: 'ref_trace_1',
  provider: 'paystack',
  amount_minor: 500_000,
  currency: 'NGN',
  user_id: 'user-1',
  customer_email: 'ada@example.com',
  customer_phone: null,
  entitlement: 'pro',
  access_period: 'P1M',
};
const row = (trace: { traceparent: string | null; tracestate: string | null }): OutboxRow => ({
  id: 1,
  topic: topics.transactionEvents,
  message_key: payload.reference,
  event_type: 'CheckoutRegistered',
  payload,
  correlation_id: payload.correlation_id,
  causation_id: null,
  ...trace,
});
/** Headers as kafkajs hands them to a consumer: Buffers. */
const asConsumed = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Buffer.from(v)]));
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe('tracing off (no OTEL_TRACES_EXPORTER): nothing is written', () => {
  it('injects no trace context anywhere and records nothing', async () => {
    const { span, context } = startSpan('test', 'request');
    expect(span.isRecording()).toBe(false);
    expect(traceCarrierOf(context)).toBeUndefined();
    const send = startSendSpan(topics.transactionEvents, context);
    expect(send.span.isRecording()).toBe(false);
    expect(Object.keys(relayHeaders(row({ traceparent: null, tracestate: null }), traceCarrierOf(send.context))).sort()).toEqual(
      [HEADERS.causationId, HEADERS.correlationId, HEADERS.eventType].sort(),
    );
    const prepared = await withTraceContext(context, () => new Outbox('app', topics, acceptingCodec).prepare({ type: 'CheckoutRegistered', payload }));
    expect(prepared).toMatchObject({ traceparent: null, tracestate: null });
  });

  it('ignores a traceparent that arrives (no propagator is registered)', () => {
    const headers = asConsumed({ [HEADERS.traceparent]: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    const process = startProcessSpan({ topic: topics.transactionEvents, partition: 0, offset: '7', groupId: 'g', headers });
    expect(process.span.isRecording()).toBe(false);
    expect(traceCarrierOf(process.context)).toBeUndefined();
  });
});

describe('tracing on: the context crosses Kafka headers and outbox rows', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;

  beforeAll(() => {
    tracing = startTracing(
      { exporter: 'console', serviceName: 'test', sampler: { kind: 'parentbased_always_on', ratio: 1 }, scheduleDelayMs: 10 },
      createLogger('trace-context-unit', 'fatal'),
      { exporter },
    );
  });

  afterAll(async () => {
    await tracing?.shutdown();
  });

  it('round-trips through record headers: the consumer span is a child of the producer span, in the same trace, with the trace state', () => {
    exporter.reset();
    const request = startSpan('test', 'request');
    const carrier = { traceparent: traceCarrierOf(request.context)!.traceparent!, tracestate: 'vendor=abc' };
    const stored = contextOfCarrier(carrier);
    const send = startSendSpan(topics.transactionEvents, stored, { 'settle.reference': payload.reference });
    const headers = relayHeaders(row({ traceparent: carrier.traceparent, tracestate: carrier.tracestate }), traceCarrierOf(send.context));
    const [, traceId, sendSpanId] = TRACEPARENT.exec(headers[HEADERS.traceparent]!)!;
    expect(headers[HEADERS.tracestate]).toBe('vendor=abc');

    const process = startProcessSpan({ topic: topics.transactionEvents, partition: 3, offset: '42', groupId: 'settle-verifier', headers: asConsumed(headers) });
    endSpan(process.span);
    endSpan(send.span);
    endSpan(request.span);

    const spans = new Map(exporter.getFinishedSpans().map((s) => [s.name, s]));
    const [requestSpan, sendSpan, processSpan] = [
      spans.get('request')!,
      spans.get(`send ${topics.transactionEvents}`)!,
      spans.get(`process ${topics.transactionEvents}`)!,
    ];
    expect(new Set([requestSpan, sendSpan, processSpan].map((s) => s.spanContext().traceId))).toEqual(new Set([traceId]));
    expect(sendSpan.spanContext().spanId).toBe(sendSpanId);
    expect(sendSpan.parentSpanContext?.spanId).toBe(requestSpan.spanContext().spanId);
    expect(processSpan.parentSpanContext?.spanId).toBe(sendSpanId);
    expect(processSpan.spanContext().traceState?.serialize()).toBe('vendor=abc');
    expect(processSpan.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.destination.name': topics.transactionEvents,
      'messaging.operation.type': 'process',
      'messaging.consumer.group.name': 'settle-verifier',
      'messaging.destination.partition.id': '3',
      'messaging.kafka.offset': 42,
    });
    expect(sendSpan.attributes).toMatchObject({ 'messaging.operation.type': 'send', 'settle.reference': payload.reference });
  });

  it('starts a new trace for a record without trace context', () => {
    const process = startProcessSpan({ topic: topics.transactionEvents, partition: 0, offset: '1', groupId: 'g', headers: asConsumed({}) });
    expect(process.span.isRecording()).toBe(true);
    expect(process.span.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    endSpan(process.span);
    expect(exporter.getFinishedSpans().at(-1)?.parentSpanContext).toBeUndefined();
  });

  it("keeps in an outbox row the context active when the message is prepared, or the message's own", async () => {
    const outbox = new Outbox('app', topics, acceptingCodec);
    const request = startSpan('test', 'request', { parent: ROOT_CONTEXT });
    const active = await withTraceContext(request.context, () => outbox.prepare({ type: 'CheckoutRegistered', payload }));
    expect(active.traceparent).toBe(traceCarrierOf(request.context)!.traceparent);
    expect(active.tracestate).toBeNull();

    const own = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'vendor=abc' };
    const explicit = await withTraceContext(request.context, () => outbox.prepare({ type: 'CheckoutRegistered', payload, trace: own }));
    expect(explicit).toMatchObject(own);

    const outside = await outbox.prepare({ type: 'CheckoutRegistered', payload });
    expect(outside).toMatchObject({ traceparent: null, tracestate: null });
    endSpan(request.span);
  });

  it('marks a failed span with the error code only', () => {
    const { span } = startSpan('test', 'failing');
    endSpan(span, Object.assign(new Error('the message may say anything'), { name: 'SomethingFailed' }));
    const failed = exporter.getFinishedSpans().at(-1)!;
    expect(failed.status).toEqual({ code: 2, message: 'SomethingFailed' });
    expect(failed.attributes['error.type']).toBe('SomethingFailed');
    expect(JSON.stringify(failed.attributes)).not.toContain('the message may say anything');
  });
});

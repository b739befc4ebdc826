/** Kafka header names Settle sets on every message. */
export const HEADERS = {
  eventType: 'settle-event-type',
  correlationId: 'correlation-id',
  causationId: 'causation-id',
  /**
   * W3C trace context (www.w3.org/TR/trace-context/): the producer span the record continues,
   * and vendors' trace state. Set only while tracing is on (docs/observability.md, "Traces").
   */
  traceparent: 'traceparent',
  tracestate: 'tracestate',
  /**
   * Who sent a checkout command (settle.checkout-commands.v1): the producer's client id or
   * principal, set by the producer; recorded with the command's effects, as the HTTP API records
   * the API key, so a leaked producer credential can be traced (docs/api.md, "Two ways in").
   */
  producer: 'settle-producer',
  /** Dead-letter records: why and where from. */
  dlqErrorCode: 'dlq-error-code',
  dlqErrorMessage: 'dlq-error-message',
  dlqSourceTopic: 'dlq-source-topic',
  dlqSourcePartition: 'dlq-source-partition',
  dlqSourceOffset: 'dlq-source-offset',
  dlqConsumerGroup: 'dlq-consumer-group',
} as const;

/** Reads a Kafka header as UTF-8 text. */
export function headerText(headers: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = headers?.[name];
  if (value === undefined || value === null) return undefined;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (Array.isArray(value)) return headerText({ v: value[0] }, 'v');
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

import type { KafkaMessage, Producer } from 'kafkajs';
import { isSettleError } from '@settle/domain';
import type { Logger } from 'pino';
import type { MessageContext } from './handler.js';
import { messageLogFields } from './log-fields.js';
import { HEADERS } from './headers.js';
import type { MessagingMetrics } from './metrics.js';
import { contextOfCarrier, endSpan, traceCarrierOf } from '@settle/platform';
import { startSendSpan } from './trace-context.js';

/** Writes one message that can never be processed to the dead-letter topic. */
export type DeadLetterWriter = (message: KafkaMessage, context: MessageContext, error: unknown) => Promise<void>;

/** Where dead-letter records go and who writes them. */
export interface DeadLetterOptions {
  /** Idempotent producer with acks all. */
  producer: Producer;
  deadLetterTopic: string;
  /** The consumer group, named in the record's headers. */
  groupId: string;
  logger: Logger;
  /** Counts each record once Kafka acknowledged it (`settle_dead_letter_records_total`); none when absent. */
  metrics?: MessagingMetrics;
}

/**
 * The headers of a dead-letter record: the original message's headers plus the error's code
 * (`MESSAGE.UNPROCESSABLE` when it has none), its message (at most 1 000 characters), and the
 * source topic, partition, offset and consumer group (docs/architecture.md, "Topics and
 * contracts").
 */
export function deadLetterHeaders(message: KafkaMessage, context: MessageContext, error: unknown, groupId: string): Record<string, Buffer | string> {
  return {
    ...originalHeaders(message),
    [HEADERS.dlqErrorCode]: errorCode(error),
    [HEADERS.dlqErrorMessage]: (error instanceof Error ? error.message : String(error)).slice(0, 1000),
    [HEADERS.dlqSourceTopic]: context.topic,
    [HEADERS.dlqSourcePartition]: String(context.partition),
    [HEADERS.dlqSourceOffset]: context.offset,
    [HEADERS.dlqConsumerGroup]: groupId,
  };
}

/** The code a dead-letter record names: a Settle error's own, else `MESSAGE.UNPROCESSABLE` (never a driver's or the OS's). */
function errorCode(error: unknown): string {
  return isSettleError(error) ? error.code : 'MESSAGE.UNPROCESSABLE';
}

/** The original message's headers that can be sent again (kafkajs gives Buffers, strings or arrays of them). */
function originalHeaders(message: KafkaMessage): Record<string, Buffer | string> {
  const out: Record<string, Buffer | string> = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string' || Buffer.isBuffer(first)) out[name] = first;
  }
  return out;
}

/**
 * A writer of dead-letter records: logs the failure (topic, partition, offset, correlation and
 * causation ids, reference (the message key), code), then sends the original key and bytes with
 * {@link deadLetterHeaders} and acks all, and counts the record by source topic and code.
 * Resolves once Kafka acknowledged the record, so the caller may then move the offset on.
 * The send is a producer span, a child of the message's `process` span, whose context replaces
 * the original's trace headers (docs/observability.md, "Traces").
 *
 * @throws kafkajs's error when the record cannot be sent (nothing is counted then).
 */
export function deadLetterWriter(options: DeadLetterOptions): DeadLetterWriter {
  const { producer, deadLetterTopic, groupId, logger, metrics } = options;
  return async (message, context, error) => {
    logger.error(
      { topic: context.topic, partition: context.partition, ...messageLogFields(context), reference: context.key, code: errorCode(error), err: error },
      'message sent to the dead-letter topic',
    );
    const send = startSendSpan(deadLetterTopic, context.trace ?? contextOfCarrier(context.headers));
    const headers = deadLetterHeaders(message, context, error, groupId);
    delete headers[HEADERS.traceparent];
    delete headers[HEADERS.tracestate];
    Object.assign(headers, traceCarrierOf(send.context));
    try {
      await producer.send({ topic: deadLetterTopic, acks: -1, messages: [{ key: message.key, value: message.value, headers }] });
      endSpan(send.span);
    } catch (sendError) {
      endSpan(send.span, sendError);
      throw sendError;
    }
    metrics?.deadLetterRecords.inc({ topic: context.topic, reason: errorCode(error) });
  };
}

import type { KafkaMessage } from 'kafkajs';
import type { TypedEvent } from './contracts.js';
import type { MessageContext } from './handler.js';
import { HEADERS, headerText } from './headers.js';

/** What a worker's log lines say about the fetched batch in hand (bound to a child logger by the consumer loop). */
export interface BatchLogFields {
  groupId: string;
  topic: string;
  partition: number;
  /** Offset of the batch's first message. */
  firstOffset: string;
  /** Offset of the batch's last message. */
  lastOffset: string;
  /** Messages in the batch. */
  messages: number;
}

/**
 * The fields of a batch's child logger: consumer group, topic, partition, first and last offsets,
 * message count. Every line the consumer loop writes about the batch (retries, a batch given up,
 * the batch handled) carries them.
 */
export function batchLogFields(groupId: string, batch: { topic: string; partition: number; messages: readonly KafkaMessage[] }): BatchLogFields {
  return {
    groupId,
    topic: batch.topic,
    partition: batch.partition,
    firstOffset: batch.messages[0]?.offset ?? '',
    lastOffset: batch.messages.at(-1)?.offset ?? '',
    messages: batch.messages.length,
  };
}

/** What a log line says about one message, beyond its batch's {@link BatchLogFields}. */
export interface MessageLogFields {
  offset: string;
  /** The flow's correlation id (`correlation-id` header), when the message has one. */
  correlationId?: string;
  /** The id of the event that caused this one (`causation-id` header), when the message has one. */
  causationId?: string;
  /** The transaction reference, from the decoded record (every Settle record names one). */
  reference?: string;
}

/**
 * The fields that identify a message in a log line: its offset, its correlation and causation ids
 * (from the `correlation-id` and `causation-id` headers, libs/messaging/src/headers.ts) and, once
 * decoded, its transaction `reference`. With the batch's topic and partition (a batch child
 * logger's, or {@link messageLogContext}) they find the message on Kafka, and the ids follow
 * it through the flow.
 */
export function messageLogFields(context: Pick<MessageContext, 'offset' | 'headers'>, event?: TypedEvent): MessageLogFields {
  const correlationId = headerText(context.headers, HEADERS.correlationId);
  const causationId = headerText(context.headers, HEADERS.causationId);
  const reference = event?.payload.reference;
  return {
    offset: context.offset,
    ...(correlationId !== undefined ? { correlationId } : {}),
    ...(causationId !== undefined ? { causationId } : {}),
    ...(reference !== undefined ? { reference } : {}),
  };
}

/**
 * {@link messageLogFields} with the message's topic and partition, for a line written outside a
 * batch's child logger (a handler's own logger): `logger.warn(messageLogContext(context, event), ...)`.
 */
export function messageLogContext(context: MessageContext, event?: TypedEvent): MessageLogFields & { topic: string; partition: number } {
  return { topic: context.topic, partition: context.partition, ...messageLogFields(context, event) };
}

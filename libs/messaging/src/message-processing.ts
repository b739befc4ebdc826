import type { KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import type { AvroCodec } from './codec.js';
import type { BatchHandler, BatchItem, MessageContext } from './handler.js';
import { Abandoned, retryBackoff, retryInPlace } from './retry-in-place.js';
import { annotateReference } from '@settle/platform';
import { startProcessSpan } from './trace-context.js';
import type { Span } from '@opentelemetry/api';

/** What processing a fetched batch needs, whichever handler the loop has. */
export interface ProcessingOptions {
  codec: AvroCodec;
  /** The batch's logger: a child bound to its consumer group, topic, partition and offsets (`batchLogFields`). */
  logger: Logger;
  /** Which errors no retry can fix. */
  isPermanent: (error: unknown) => boolean;
  /** Consumer-group session time-out, milliseconds: bounds the backoff between retries. */
  sessionTimeoutMs: number;
}

/** The current batch's liveness, from kafkajs's `eachBatch` arguments. */
export interface BatchLiveness {
  /** Whether the batch went stale, the consumer is stopping or the loop was stopped. */
  stale: () => boolean;
  heartbeat: () => Promise<void>;
}

/** A message for the dead-letter topic, with its context and the error that condemned it. */
export interface Rejected {
  message: KafkaMessage;
  context: MessageContext;
  error: unknown;
}

/** Where a fetched message came from. */
export function contextOf(batch: { topic: string; partition: number }, message: KafkaMessage): MessageContext {
  return {
    topic: batch.topic,
    partition: batch.partition,
    offset: message.offset,
    key: message.key?.toString('utf8') ?? null,
    timestamp: Number(message.timestamp),
    headers: message.headers ?? {},
  };
}

/**
 * Where a fetched message came from, with its `process` span started (a child of the producer
 * span its headers name: docs/observability.md, "Traces"); the caller ends the span once the
 * message is handled, dead-lettered or left for redelivery.
 */
export function tracedContextOf(batch: { topic: string; partition: number }, message: KafkaMessage, groupId: string): { context: MessageContext; span: Span } {
  const base = contextOf(batch, message);
  const { span, context } = startProcessSpan({ topic: batch.topic, partition: batch.partition, offset: message.offset, groupId, headers: base.headers });
  return { context: { ...base, trace: context }, span };
}

/**
 * Decodes a batch and hands it to the batch handler, retrying transient failures in place
 * until the batch goes stale. Undecodable messages and the items the handler names are
 * rejected; a handler error that `abandonBatchWhen` accepts (thrown, or named for an item)
 * gives the whole batch up, after `abandonDelayMs` (default 1 000 ms).
 *
 * @returns what must go to the dead-letter topic, in offset order, or `null` when the batch
 *   was abandoned (nothing durable happened for it that a redelivery harms).
 * @throws a decode error that is not permanent, or the handler's last transient error.
 */
export async function processBatch(
  options: ProcessingOptions & { handleBatch: BatchHandler; abandonBatchWhen?: (error: unknown) => boolean; abandonDelayMs?: number },
  messages: readonly KafkaMessage[],
  contexts: readonly MessageContext[],
  liveness: BatchLiveness,
): Promise<Rejected[] | null> {
  const { codec, logger, isPermanent } = options;
  const rejected: Rejected[] = [];
  const items: BatchItem[] = [];
  const sources: number[] = [];
  for (const [i, message] of messages.entries()) {
    try {
      const event = await codec.decode(message.value, message.headers);
      annotateReference(contexts[i]!.trace, event.payload.reference);
      items.push({ event, context: contexts[i]! });
      sources.push(i);
    } catch (error) {
      if (!isPermanent(error)) throw error;
      rejected.push({ message, context: contexts[i]!, error });
    }
  }
  const giveUp = options.abandonBatchWhen ?? (() => false);
  try {
    const failed = await retryInPlace(
      {
        retryable: (error) => !giveUp(error),
        onRetry: (attempt, error) => logger.warn({ attempt, err: error }, 'retrying batch'),
        ...liveness,
        backoff: retryBackoff(options.sessionTimeoutMs),
      },
      async () => (items.length === 0 ? [] : options.handleBatch(items)),
    );
    const abandon = failed.find(({ error }) => giveUp(error));
    if (abandon) throw abandon.error;
    for (const { index, error } of failed) rejected.push({ message: messages[sources[index]!]!, context: items[index]!.context, error });
  } catch (error) {
    if (error instanceof Abandoned) return null;
    if (giveUp(error)) {
      logger.warn({ err: error }, 'batch given up, to be fetched again');
      await new Promise((resolve) => setTimeout(resolve, options.abandonDelayMs ?? 1_000));
      return null;
    }
    throw error;
  }
  rejected.sort((a, b) => Number(BigInt(a.context.offset) - BigInt(b.context.offset)));
  return rejected;
}

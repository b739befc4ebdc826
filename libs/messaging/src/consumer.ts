import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';
import type { Consumer, Kafka, KafkaMessage, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { DecodeError, type AvroCodec } from './codec.js';
import type { TypedEvent } from './contracts.js';
import { HEADERS } from './headers.js';

/**
 * A message can never be processed, however often it is retried (bad payload, a broken
 * business rule): it goes to the dead-letter topic, visibly, and the partition moves on.
 */
export class PermanentMessageError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'PermanentMessageError';
  }
}

/** Where a message came from, for logs and dead-letter headers. */
export interface MessageContext {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  /** Kafka timestamp, epoch ms. */
  timestamp: number;
  headers: Record<string, unknown>;
}

/** Handles one decoded message. Resolve only once its effects are durable. */
export type MessageHandler = (event: TypedEvent, context: MessageContext) => Promise<void>;

export interface ConsumerLoopOptions {
  kafka: Kafka;
  groupId: string;
  topics: string[];
  codec: AvroCodec;
  /** Producer used for dead-letter records (idempotent, acks all). */
  producer: Producer;
  deadLetterTopic: string;
  logger: Logger;
  handle: MessageHandler;
  /** Decides which handler errors are permanent; default: {@link PermanentMessageError} and decode errors. */
  isPermanent?: (error: unknown) => boolean;
  fromBeginning?: boolean;
  /** Partitions handled at once (order within a partition is always kept). Default 1. */
  partitionsConsumedConcurrently?: number;
}

/** A running consumer loop. */
export interface ConsumerLoop {
  consumer: Consumer;
  /** Stops fetching, lets the message in hand finish, commits, disconnects. */
  stop(): Promise<void>;
}

function defaultIsPermanent(error: unknown): boolean {
  return (
    error instanceof PermanentMessageError ||
    error instanceof DecodeError ||
    (typeof error === 'object' && error !== null && (error as { name?: string }).name === 'DomainError')
  );
}

/**
 * Runs a consumer-group loop that owns its offsets (the kafkajs batch loop): each message is
 * decoded and handled, and its offset resolved only after the handler resolved, so nothing
 * is acknowledged before it is durable. Transient failures (database or broker down) are
 * retried in place with exponential backoff, holding the partition, for as long as it takes:
 * money events are never skipped. Permanent failures are written to the dead-letter topic
 * (original bytes, error in headers) before the offset moves on. Heartbeats are sent inside
 * long batches; the loop stops at once when the consumer is stopping or the batch is stale.
 */
export async function startConsumerLoop(options: ConsumerLoopOptions): Promise<ConsumerLoop> {
  const { kafka, groupId, topics, codec, producer, deadLetterTopic, logger, handle } = options;
  const isPermanent = options.isPermanent ?? defaultIsPermanent;
  const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false, sessionTimeout: 30_000, heartbeatInterval: 3_000 });
  let running = true;
  const transientRetry = retry(
    handleWhen((error) => running && !isPermanent(error)),
    { maxAttempts: Number.MAX_SAFE_INTEGER, backoff: new ExponentialBackoff({ initialDelay: 200, maxDelay: 10_000 }) },
  );

  async function deadLetter(message: KafkaMessage, context: MessageContext, error: unknown): Promise<void> {
    const code = (error as { code?: string }).code ?? 'MESSAGE.UNPROCESSABLE';
    logger.error(
      { topic: context.topic, partition: context.partition, offset: context.offset, reference: context.key, code, err: error },
      'message sent to the dead-letter topic',
    );
    await producer.send({
      topic: deadLetterTopic,
      acks: -1,
      messages: [
        {
          key: message.key,
          value: message.value,
          headers: {
            ...(message.headers as Record<string, Buffer>),
            [HEADERS.dlqErrorCode]: code,
            [HEADERS.dlqErrorMessage]: String((error as Error).message ?? error).slice(0, 1000),
            [HEADERS.dlqSourceTopic]: context.topic,
            [HEADERS.dlqSourcePartition]: String(context.partition),
            [HEADERS.dlqSourceOffset]: context.offset,
            [HEADERS.dlqConsumerGroup]: groupId,
          },
        },
      ],
    });
  }

  async function processMessage(message: KafkaMessage, context: MessageContext): Promise<void> {
    try {
      await transientRetry.execute(async ({ attempt }) => {
        if (attempt > 0) logger.warn({ topic: context.topic, partition: context.partition, offset: context.offset, attempt }, 'retrying message');
        const event = await codec.decode(message.value, message.headers as Record<string, unknown>);
        await handle(event, context);
      });
    } catch (error) {
      if (!running && !isPermanent(error)) throw error;
      await deadLetter(message, context, error);
    }
  }

  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: options.fromBeginning ?? true });
  await consumer.run({
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
    autoCommit: true,
    autoCommitInterval: 1_000,
    eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale, commitOffsetsIfNecessary }) => {
      for (const message of batch.messages) {
        if (!running || !isRunning() || isStale()) break;
        const context: MessageContext = {
          topic: batch.topic,
          partition: batch.partition,
          offset: message.offset,
          key: message.key?.toString('utf8') ?? null,
          timestamp: Number(message.timestamp),
          headers: (message.headers ?? {}) as Record<string, unknown>,
        };
        await processMessage(message, context);
        resolveOffset(message.offset);
        await heartbeat();
      }
      await commitOffsetsIfNecessary();
    },
  });

  return {
    consumer,
    async stop() {
      running = false;
      await consumer.stop();
      await consumer.disconnect();
    },
  };
}

import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';
import type { Consumer, Kafka, KafkaMessage, Offsets, PartitionAssigner, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { isPermanentError } from '@settle/domain';
import { DecodeError, type AvroCodec } from './codec.js';
import { groupCommitAcrossPartitions } from './group-commit.js';
import { HEADERS } from './headers.js';
import { PermanentMessageError, type BatchHandler, type BatchItem, type MessageContext, type MessageHandler } from './handler.js';

/** Partitions assigned to this member, per topic, as the group coordinator handed them out. */
export type Assignment = Readonly<Record<string, readonly number[]>>;

export interface ConsumerLoopOptions {
  kafka: Kafka;
  groupId: string;
  topics: string[];
  codec: AvroCodec;
  /** Producer used for dead-letter records (idempotent, acks all). */
  producer: Producer;
  deadLetterTopic: string;
  logger: Logger;
  /** Per-message handler; give this or {@link ConsumerLoopOptions.handleBatch}. */
  handle?: MessageHandler;
  /** Per-batch handler, used instead of `handle` when given. */
  handleBatch?: BatchHandler;
  /**
   * Merge the batches of partitions handed over together (one fetch) into one call of
   * `handleBatch` (see `groupCommitAcrossPartitions`): one transaction per fetch instead of one
   * per partition. Only for handlers indifferent to partitions. Default false.
   */
  groupCommitAcrossPartitions?: boolean;
  /** Group assignment strategies (default: kafkajs's round robin). */
  partitionAssigners?: PartitionAssigner[];
  /** Consumer-group session time-out, milliseconds (default 30 000): how long a silent member keeps its partitions. */
  sessionTimeoutMs?: number;
  /** Called after each join of the group with this member's new assignment. */
  onAssignment?: (assignment: Assignment) => void;
  /** Called when the member learns that the group is rebalancing, or stops: its partitions may be gone. */
  onRevocation?: () => void;
  /**
   * Errors of the batch handler after which the batch is given up, unresolved, instead of
   * retried (for example: this member no longer owns the partition's state). The same batch is
   * fetched again after `abandonDelayMs` unless the partition moved on meanwhile.
   */
  abandonBatchWhen?: (error: unknown) => boolean;
  /** Pause before giving a batch up, milliseconds (default 1 000): no busy loop while a rebalance settles. */
  abandonDelayMs?: number;
  /** Decides which handler errors are permanent; default: {@link PermanentMessageError} and decode errors. */
  isPermanent?: (error: unknown) => boolean;
  fromBeginning?: boolean;
  /** Partitions handled at once (order within a partition is always kept). Default 1. */
  partitionsConsumedConcurrently?: number;
  /**
   * Fetch batching (Kafka's `fetch.min.bytes` and `fetch.max.wait.ms`): the broker answers a
   * fetch once `minBytes` are available or `maxWaitTimeMs` passed, so under moderate load a
   * batch gathers that long's messages instead of one or two. Default 1 byte and 5 000 ms
   * (answer as soon as anything is there, kafkajs's defaults).
   */
  fetch?: { minBytes?: number; maxWaitTimeMs?: number };
}

/** A running consumer loop. */
export interface ConsumerLoop {
  consumer: Consumer;
  /** Stops fetching, lets the message in hand finish, commits, disconnects. */
  stop(): Promise<void>;
}

/** Where a fetched message came from. */
/** Retries ended because the member no longer holds the partition (see `retryInPlace`); `cause` is the last failure. */
class Abandoned extends Error {
  constructor(override readonly cause: unknown) {
    super('retries abandoned: the partition is no longer held');
    this.name = 'Abandoned';
  }
}

function contextOf(batch: { topic: string; partition: number }, message: KafkaMessage): MessageContext {
  return {
    topic: batch.topic,
    partition: batch.partition,
    offset: message.offset,
    key: message.key?.toString('utf8') ?? null,
    timestamp: Number(message.timestamp),
    headers: message.headers ?? {},
  };
}

function defaultIsPermanent(error: unknown): boolean {
  return error instanceof PermanentMessageError || error instanceof DecodeError || isPermanentError(error);
}

/**
 * Runs a consumer-group loop that owns its offsets (the kafkajs batch loop): each message is
 * decoded and handled, and its offset resolved only after the handler resolved, so nothing
 * is acknowledged before it is durable. Transient failures (database or broker down) are
 * retried in place with exponential backoff (at most a third of the session time-out between
 * attempts, a heartbeat before each), holding the partition, for as long as the member keeps
 * it: money events are never skipped, and a partition the group moved meanwhile is left,
 * unresolved, to its next owner. Permanent failures are written to the dead-letter topic
 * (original bytes, error in headers) before the offset moves on. Heartbeats are sent inside
 * long batches; the loop stops at once when the consumer is stopping or the batch is stale.
 */
export async function startConsumerLoop(options: ConsumerLoopOptions): Promise<ConsumerLoop> {
  const { kafka, groupId, topics, codec, producer, deadLetterTopic, logger, handle } = options;
  if (!handle === !options.handleBatch) throw new Error('startConsumerLoop needs exactly one of handle and handleBatch');
  const handleBatch =
    options.handleBatch && options.groupCommitAcrossPartitions
      ? groupCommitAcrossPartitions(options.handleBatch, {
          onCall: ({ batches, items }) => logger.debug({ groupId, batches, items }, 'partition batches handled in one call'),
        })
      : options.handleBatch;
  const isPermanent = options.isPermanent ?? defaultIsPermanent;
  const sessionTimeout = options.sessionTimeoutMs ?? 30_000;
  const consumer = kafka.consumer({
    groupId,
    allowAutoTopicCreation: false,
    sessionTimeout,
    heartbeatInterval: Math.max(100, Math.min(3_000, Math.floor(sessionTimeout / 3))),
    minBytes: options.fetch?.minBytes ?? 1,
    maxWaitTimeInMs: options.fetch?.maxWaitTimeMs ?? 5_000,
    ...(options.partitionAssigners ? { partitionAssigners: options.partitionAssigners } : {}),
  });
  if (options.onAssignment) {
    const onAssignment = options.onAssignment;
    consumer.on(consumer.events.GROUP_JOIN, (event) => onAssignment(event.payload.memberAssignment));
  }
  if (options.onRevocation) {
    const onRevocation = options.onRevocation;
    for (const name of [consumer.events.REBALANCING, consumer.events.STOP, consumer.events.CRASH]) consumer.on(name, () => onRevocation());
  }
  let running = true;
  // Retries heartbeat between attempts: never wait longer than a third of the session, so a
  // long outage (database or broker down) never costs this member its partitions.
  const backoff = () => new ExponentialBackoff({ initialDelay: 200, maxDelay: Math.max(200, Math.min(10_000, Math.floor(sessionTimeout / 3))) });

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

  /**
   * Runs `work`, retrying in place (with backoff) the failures `retryable` accepts, for as long
   * as this member keeps the partition: a heartbeat between attempts keeps the membership alive
   * during a long outage (database or broker down), and the retries end when the batch goes
   * stale or a heartbeat fails (the group is rebalancing, this member was evicted).
   *
   * @throws Abandoned when the retries ended that way (nothing is resolved: the messages are
   *   delivered again, to this member or the partition's next owner); else the last error.
   */
  async function retryInPlace<T>(
    retryable: (error: unknown) => boolean,
    onRetry: (attempt: number) => void,
    stale: () => boolean,
    heartbeat: () => Promise<void>,
    work: () => Promise<T>,
  ): Promise<T> {
    let lostGroup = false;
    const abandoned = () => stale() || lostGroup;
    const policy = retry(
      handleWhen((error) => !abandoned() && retryable(error)),
      { maxAttempts: Number.MAX_SAFE_INTEGER, backoff: backoff() },
    );
    try {
      return await policy.execute(async ({ attempt }) => {
        if (attempt > 0) {
          onRetry(attempt);
          await heartbeat().catch((error: unknown) => {
            lostGroup = true;
            throw error;
          });
        }
        return work();
      });
    } catch (error) {
      if (abandoned()) throw new Abandoned(error);
      throw error;
    }
  }

  /**
   * Decodes and handles one message, retrying transient failures in place (heartbeating
   * between attempts) for as long as the member keeps the partition. Returns `false` when
   * the retries ended because the batch went stale, the member lost the group or the loop is
   * stopping: the message is left unresolved, to be delivered again (to this member or the
   * partition's next owner), which the handlers' de-duplication makes harmless.
   */
  async function processMessage(message: KafkaMessage, context: MessageContext, stale: () => boolean, heartbeat: () => Promise<void>): Promise<boolean> {
    try {
      await retryInPlace(
        (error) => !isPermanent(error),
        (attempt) => logger.warn({ topic: context.topic, partition: context.partition, offset: context.offset, attempt }, 'retrying message'),
        stale,
        heartbeat,
        async () => handle!(await codec.decode(message.value, message.headers as Record<string, unknown>), context),
      );
      return true;
    } catch (error) {
      const cause = error instanceof Abandoned ? error.cause : error;
      if (!isPermanent(cause)) {
        if (error instanceof Abandoned) return false;
        throw error;
      }
      await deadLetter(message, context, cause);
      return true;
    }
  }

  /**
   * Decodes a batch and hands it to the batch handler, retrying transient failures in place
   * until the batch goes stale. Returns what must go to the dead-letter topic, or `null`
   * when the batch was abandoned (nothing durable happened for it that a redelivery harms).
   */
  async function processBatch(
    messages: readonly KafkaMessage[],
    contexts: readonly MessageContext[],
    stale: () => boolean,
    heartbeat: () => Promise<void>,
  ): Promise<Array<{ message: KafkaMessage; context: MessageContext; error: unknown }> | null> {
    const rejected: Array<{ message: KafkaMessage; context: MessageContext; error: unknown }> = [];
    const items: BatchItem[] = [];
    const sources: number[] = [];
    for (const [i, message] of messages.entries()) {
      try {
        items.push({ event: await codec.decode(message.value, message.headers), context: contexts[i]! });
        sources.push(i);
      } catch (error) {
        if (!isPermanent(error)) throw error;
        rejected.push({ message, context: contexts[i]!, error });
      }
    }
    const giveUp = options.abandonBatchWhen ?? (() => false);
    try {
      const failed = await retryInPlace(
        (error) => !giveUp(error),
        (attempt) => logger.warn({ topic: contexts[0]!.topic, partition: contexts[0]!.partition, attempt }, 'retrying batch'),
        stale,
        heartbeat,
        async () => (items.length === 0 ? [] : handleBatch!(items)),
      );
      const abandon = failed.find(({ error }) => giveUp(error));
      if (abandon) throw abandon.error;
      for (const { index, error } of failed) rejected.push({ message: messages[sources[index]!]!, context: items[index]!.context, error });
    } catch (error) {
      if (error instanceof Abandoned) return null;
      if (giveUp(error)) {
        logger.warn({ topic: contexts[0]!.topic, partition: contexts[0]!.partition, err: error }, 'batch given up, to be fetched again');
        await new Promise((resolve) => setTimeout(resolve, options.abandonDelayMs ?? 1_000));
        return null;
      }
      throw error;
    }
    rejected.sort((a, b) => Number(BigInt(a.context.offset) - BigInt(b.context.offset)));
    return rejected;
  }

  // kafkajs commits the resolved offsets after every partition's batch, and the batches of one
  // fetch finish together (the more so with group commit): concurrent commits would each send
  // the same offsets in an OffsetCommit request of their own. The batches finishing in one turn
  // of the event loop commit once, together; kafkajs then finds nothing left to commit.
  let sharedCommit: Promise<void> | null = null;
  const commitTogether = (commit: (offsets: Offsets) => Promise<void>, uncommitted: () => Offsets): Promise<void> => {
    sharedCommit ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      sharedCommit = null;
      const offsets = uncommitted();
      return offsets.topics.length > 0 ? commit(offsets) : undefined;
    });
    return sharedCommit;
  };

  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: options.fromBeginning ?? true });
  await consumer.run({
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
    autoCommit: true,
    autoCommitInterval: 1_000,
    // kafkajs hands these as functions to destructure (its documented batch loop), bound to the batch.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale, commitOffsetsIfNecessary, uncommittedOffsets }) => {
      if (handleBatch) {
        const contexts = batch.messages.map((message) => contextOf(batch, message));
        if (contexts.length === 0) return;
        const rejected = await processBatch(batch.messages, contexts, () => !running || !isRunning() || isStale(), heartbeat);
        if (rejected === null) return; // stale, stopping or given up: nothing resolved, the batch is fetched again
        for (const { message, context, error } of rejected) await deadLetter(message, context, error);
        resolveOffset(batch.messages.at(-1)!.offset);
        await heartbeat();
        await commitTogether(commitOffsetsIfNecessary, uncommittedOffsets);
        return;
      }
      const stale = () => !running || !isRunning() || isStale();
      for (const message of batch.messages) {
        if (stale()) break;
        if (!(await processMessage(message, contextOf(batch, message), stale, heartbeat))) break;
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

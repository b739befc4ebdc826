import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, Kafka, PartitionAssigner, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { isPermanentError } from '@settle/domain';
import type { AvroCodec } from './codec.js';
import { deadLetterWriter } from './dead-letter.js';
import { groupCommitAcrossPartitions } from './group-commit.js';
import type { BatchHandler } from './handler.js';
import { trackConsumerState, type Assignment, type ConsumerState } from './consumer-state.js';
import { batchLogFields } from './log-fields.js';
import { heartbeatWhileHandling } from './heartbeat-pump.js';
import { processBatch, tracedContextOf, type ProcessingOptions } from './message-processing.js';
import { nextOffsetAfter, type MessagingMetrics } from './metrics.js';
import { offsetCommitter } from './offset-commit.js';
import { endSpan } from '@settle/platform';

/**
 * The consumer-group session time-out the loops use unless told otherwise, milliseconds: 6 s,
 * the broker's smallest allowed (`group.min.session.timeout.ms`). A member that died without
 * leaving (SIGKILL, a lost host) keeps its partitions this long, so it bounds the recovery after
 * such a fault (docs/reliability.md: the first settlement within 10 s of the fault ending).
 * Heartbeats every 2 s, also inside long batches, keep a live member in the group.
 */
export const DEFAULT_SESSION_TIMEOUT_MS = 6_000;

export interface ConsumerLoopOptions {
  kafka: Kafka;
  groupId: string;
  topics: string[];
  codec: AvroCodec;
  /** Producer used for dead-letter records (idempotent, acks all). */
  producer: Producer;
  deadLetterTopic: string;
  logger: Logger;
  /**
   * The batch handler: every fetched batch (one partition's messages, in offset order, or the
   * batches of several partitions merged by {@link ConsumerLoopOptions.groupCommitAcrossPartitions})
   * in one call, for one database transaction per batch. There is no per-message mode: a stage that
   * handles every message alone pays a transaction per message (docs/architecture.md, "Batches").
   */
  handleBatch: BatchHandler;
  /**
   * Merge the batches of partitions handed over together (one fetch) into one call of
   * `handleBatch` (see `groupCommitAcrossPartitions`): one transaction per fetch instead of one
   * per partition. Only for handlers indifferent to partitions. Default false.
   */
  groupCommitAcrossPartitions?: boolean;
  /** Group assignment strategies (default: kafkajs's round robin). */
  partitionAssigners?: PartitionAssigner[];
  /**
   * Consumer-group session time-out, milliseconds (default {@link DEFAULT_SESSION_TIMEOUT_MS}):
   * how long a silent member keeps its partitions. Heartbeats go every third of it (at most
   * every 3 s), also while a batch is handled (`heartbeat-pump.ts`).
   */
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
  /**
   * Decides which handler errors are permanent; default `isPermanentError` from `@settle/domain`
   * (a SettleError of a permanent kind, such as `PermanentMessageError` and `DecodeError`).
   */
  isPermanent?: (error: unknown) => boolean;
  fromBeginning?: boolean;
  /** Partitions handled at once (order within a partition is always kept). Default 1. */
  partitionsConsumedConcurrently?: number;
  /**
   * Fetch batching (Kafka's `fetch.min.bytes` and `fetch.max.wait.ms`): the broker answers a
   * fetch once `minBytes` are available or `maxWaitTimeMs` passed, so under moderate load a
   * batch gathers that long's messages instead of one or two. Default 1 byte and 5 000 ms
   * (answer as soon as anything is there, kafkajs's defaults). `lingerMs`: after handling a batch
   * of fewer than {@link FETCH_LINGER_BELOW_MESSAGES} messages, the loop waits this long before its
   * next fetch, so messages arriving meanwhile come together: a linger while busy, which the
   * broker-side wait is not (a fetch waiting for `minBytes` waits when idle too). Default 0.
   * `maxBytesPerPartition`: most bytes of one partition's records per fetch (Kafka's
   * `max.partition.fetch.bytes`; a larger record still comes, alone), which bounds a batch, and
   * the memory it holds, when the loop is far behind; default
   * {@link DEFAULT_FETCH_MAX_BYTES_PER_PARTITION}.
   */
  fetch?: { minBytes?: number; maxWaitTimeMs?: number; lingerMs?: number; maxBytesPerPartition?: number };
  /**
   * Least time between two offset commits while batches keep coming, milliseconds (default
   * `DEFAULT_OFFSET_COMMIT_INTERVAL_MS`, 1 000; 0 commits after every batch). What is resolved
   * meanwhile is committed when the interval ends, on a rebalance and before the loop stops
   * (`offset-commit.ts`); after a crash, at most that much is handed over again, which the
   * handlers de-duplicate.
   */
  offsetCommitIntervalMs?: number;
  /**
   * Where the loop records each partition's consumer lag (from every fetched batch's high
   * watermark) and its dead-letter records; none when absent.
   */
  metrics?: MessagingMetrics;
}

/** A running consumer loop. */
export interface ConsumerLoop {
  consumer: Consumer;
  /** Its consumer group. */
  groupId: string;
  /** Where the member stands in its group (connecting, joined with its partitions, rebalancing, crashed, stopped). */
  state(): ConsumerState;
  /** Stops fetching, lets the message in hand finish, commits, disconnects. */
  stop(): Promise<void>;
}

/**
 * Most bytes of one partition's records in one fetch, by default (128 KiB: about 350 of Settle's
 * transaction events, about 2 000 over six partitions). kafkajs's own default, 1 MiB, let a
 * verifier draining a backlog of 80 000 events hold some 17 000 decoded messages at once
 * (docs/benchmarks.md, "A backlog's memory").
 */
export const DEFAULT_FETCH_MAX_BYTES_PER_PARTITION = 131_072;

/** A batch this small or smaller leaves the loop lingering before its next fetch (`fetch.lingerMs`); a larger one fetches again at once. */
export const FETCH_LINGER_BELOW_MESSAGES = 100;

/**
 * Runs a consumer-group loop that owns its offsets (the kafkajs batch loop): each fetched batch is
 * decoded and handed to the batch handler, and its offsets resolved only after the handler
 * resolved, so nothing is acknowledged before it is durable. Transient failures (database or broker down) are
 * retried in place with exponential backoff (at most a third of the session time-out between
 * attempts, a heartbeat before each; `retry-in-place.ts`), holding the partition, for as long
 * as the member keeps it: money events are never skipped, and a partition the group moved
 * meanwhile is left, unresolved, to its next owner. Permanent failures are written to the
 * dead-letter topic (original bytes, error in headers; `dead-letter.ts`) before the offset
 * moves on. Heartbeats are sent inside long batches; the loop stops at once when the consumer
 * is stopping or the batch is stale. Decoding, handling and retrying a batch:
 * `message-processing.ts`. With `metrics`, each partition's lag is set when its batch is
 * handed over (high watermark minus the batch's first offset) and again once offsets are
 * resolved (minus the offset after the last one resolved), and removed for partitions the
 * member no longer owns after a rebalance or once it stops. Each message gets a `process`
 * span, a child of the producer span its headers name, ended once it is handled,
 * dead-lettered (marked failed) or left for redelivery (docs/observability.md, "Traces").
 *
 * @throws kafkajs's errors when the consumer cannot connect or subscribe.
 */
export async function startConsumerLoop(options: ConsumerLoopOptions): Promise<ConsumerLoop> {
  const { kafka, groupId, topics, codec, producer, deadLetterTopic, logger } = options;
  const handleBatch = options.groupCommitAcrossPartitions
    ? groupCommitAcrossPartitions(options.handleBatch, {
        onCall: ({ batches, items }) => logger.debug({ groupId, batches, items }, 'partition batches handled in one call'),
      })
    : options.handleBatch;
  const sessionTimeout = options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
  const heartbeatInterval = Math.max(100, Math.min(3_000, Math.floor(sessionTimeout / 3)));
  const processing: ProcessingOptions = { codec, logger, isPermanent: options.isPermanent ?? isPermanentError, sessionTimeoutMs: sessionTimeout };
  const { metrics } = options;
  const deadLetter = deadLetterWriter({ producer, deadLetterTopic, groupId, logger, ...(metrics ? { metrics } : {}) });
  const offsets = offsetCommitter({
    ...(options.offsetCommitIntervalMs !== undefined ? { intervalMs: options.offsetCommitIntervalMs } : {}),
    onTimerError: (error) => logger.warn({ err: error, groupId }, 'committing offsets failed; the next commit carries them'),
  });
  const lingerMs = options.fetch?.lingerMs ?? 0;
  const consumer = kafka.consumer({
    groupId,
    allowAutoTopicCreation: false,
    sessionTimeout,
    heartbeatInterval,
    minBytes: options.fetch?.minBytes ?? 1,
    maxWaitTimeInMs: options.fetch?.maxWaitTimeMs ?? 5_000,
    maxBytesPerPartition: options.fetch?.maxBytesPerPartition ?? DEFAULT_FETCH_MAX_BYTES_PER_PARTITION,
    ...(options.partitionAssigners ? { partitionAssigners: options.partitionAssigners } : {}),
  });
  let running = true;
  const state = trackConsumerState(consumer, groupId, () => !running);
  if (options.onAssignment || metrics) {
    const onAssignment = options.onAssignment;
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      metrics?.keepAssigned(groupId, event.payload.memberAssignment);
      onAssignment?.(event.payload.memberAssignment);
    });
  }
  // Stopped or crashed (kafkajs emits STOP once its runner stopped, also before a restart): no
  // timer commits through the old client.
  consumer.on(consumer.events.STOP, () => offsets.close());
  // A rebalance hands the partitions over: commit what is resolved first (best effort; what it
  // misses is handed over again and de-duplicated).
  consumer.on(consumer.events.REBALANCING, () => {
    offsets.flush().catch((error: unknown) => logger.debug({ err: error, groupId }, 'committing offsets before the rebalance failed'));
  });
  if (options.onRevocation) {
    const onRevocation = options.onRevocation;
    for (const name of [consumer.events.REBALANCING, consumer.events.STOP, consumer.events.CRASH]) consumer.on(name, () => onRevocation());
  }

  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: options.fromBeginning ?? true });
  await consumer.run({
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
    // Offsets are committed by `offsets` (offset-commit.ts), on an interval, not after every batch.
    autoCommit: false,
    // kafkajs hands these as functions to destructure (its documented batch loop), bound to the batch.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale, commitOffsetsIfNecessary, uncommittedOffsets }) => {
      const stale = () => !running || !isRunning() || isStale();
      // Every line about this batch names its group, topic, partition and offsets.
      const log = logger.child(batchLogFields(groupId, batch));
      const started = performance.now();
      const lagAfter = (nextOffset: string) => metrics?.recordLag(groupId, batch.topic, batch.partition, batch.highWatermark, nextOffset);
      if (batch.messages.length > 0) lagAfter(batch.messages[0]!.offset);
      const stopHeartbeats = heartbeatWhileHandling(heartbeat, heartbeatInterval);
      try {
        await handleFetched();
      } finally {
        stopHeartbeats();
      }

      async function handleFetched(): Promise<void> {
        if (batch.messages.length === 0) return;
        const traced = batch.messages.map((message) => tracedContextOf(batch, message, groupId));
        const contexts = traced.map((t) => t.context);
        // Why each message failed, for its span: dead-lettered, or the whole batch's error.
        const failed = new Map<string, unknown>();
        try {
          const batchOptions = {
            ...processing,
            logger: log,
            handleBatch,
            abandonBatchWhen: options.abandonBatchWhen,
            abandonDelayMs: options.abandonDelayMs,
          };
          const rejected = await processBatch(batchOptions, batch.messages, contexts, { stale, heartbeat });
          if (rejected === null) return; // stale, stopping or given up: nothing resolved, the batch is fetched again
          for (const { message, context, error } of rejected) {
            failed.set(context.offset, error);
            await deadLetter(message, context, error);
          }
          resolveOffset(batch.messages.at(-1)!.offset);
          lagAfter(nextOffsetAfter(batch.messages.at(-1)!.offset));
          await heartbeat();
          await offsets.afterBatch(commitOffsetsIfNecessary, uncommittedOffsets, !running);
          log.debug({ deadLettered: rejected.length, durationMs: Math.round(performance.now() - started) }, 'batch handled');
          // Busy (a batch just came) but not full: let the next fetch gather company. Nothing is held:
          // this batch's offsets are resolved and committed above.
          if (lingerMs > 0 && batch.messages.length < FETCH_LINGER_BELOW_MESSAGES && !stale()) await sleep(lingerMs);
        } catch (error) {
          for (const context of contexts) if (!failed.has(context.offset)) failed.set(context.offset, error);
          throw error;
        } finally {
          for (const { context, span } of traced) endSpan(span, failed.get(context.offset));
        }
      }
    },
  });

  return {
    consumer,
    groupId,
    state,
    async stop() {
      running = false;
      // What is resolved goes now, while the member is still in its group; a batch still in hand
      // commits its own when it ends (afterBatch with `now`).
      await offsets.flush().catch((error: unknown) => logger.warn({ err: error, groupId }, 'committing offsets before stopping failed'));
      await consumer.stop(); // emits STOP: the committer's timer is disarmed
      await consumer.disconnect();
      metrics?.forgetGroup(groupId);
    },
  };
}

import type { Type } from '@nestjs/common';
import { EventPattern } from '@nestjs/microservices';
import type { Assignment, ConsumerLoopOptions, Topics } from '@settle/messaging';

/**
 * A provider told of its consumer group's membership (the sweeper: it owns the timers of the
 * partitions it is assigned). Named by {@link ConsumeBatchesOptions.membership}; resolved from
 * the app's module.
 */
export interface ConsumerGroupMember {
  /** After each join of the group, with this member's new assignment. */
  onAssignment(assignment: Assignment): void;
  /** The group is rebalancing, or the member stops: its partitions may be gone. */
  onRevocation(): void;
}

/**
 * One consumer loop of a worker, declared on its handler: the topics it reads (by their key in
 * `Topics`, so the prefix stays the configuration's), and every option of the owned kafkajs batch
 * loop (`startConsumerLoop` in `@settle/messaging`) except the connections and the handler, which
 * the transport supplies. Settings read from the configuration are functions of it.
 */
export interface ConsumeBatchesOptions<C = never> extends Pick<
  ConsumerLoopOptions,
  'groupCommitAcrossPartitions' | 'partitionAssigners' | 'abandonBatchWhen' | 'abandonDelayMs' | 'isPermanent' | 'fromBeginning'
> {
  /** The topics read, by key (`transactionEvents`, …); a loop of several topics gets their batches in one handler. */
  topics: readonly (keyof Topics)[];
  /** Consumer group; default `<topic prefix>-<worker name>`. A second loop of a worker must name its own suffix: `<topic prefix>-<groupSuffix>`. */
  groupSuffix?: string;
  /** Fetch batching; default the worker's `WORKER_FETCH_MIN_BYTES` and `WORKER_FETCH_MAX_WAIT_MS`. */
  fetch?: ConsumerLoopOptions['fetch'];
  /** Partitions handled at once; default the worker's `WORKER_PARTITIONS_CONCURRENCY`. */
  partitionsConsumedConcurrently?: number;
  /** Consumer-group session time-out, milliseconds; default the worker's `WORKER_SESSION_TIMEOUT_MS`. */
  sessionTimeoutMs?: (config: C) => number;
  /** The provider told of the group's membership (its class, resolved from the app's module). */
  membership?: Type<ConsumerGroupMember>;
}

/** The pattern of every batch handler: one per consumer loop, the options in the handler's extras. */
export const BATCH_PATTERN_PREFIX = 'settle.batches:';

/** Where {@link ConsumeBatches} keeps a loop's options among the handler's extras. */
export const CONSUMER_EXTRA = 'settleConsumer';

/**
 * Declares a controller method as the batch handler of one consumer loop: an `@EventPattern`
 * (from `@nestjs/microservices`) that the Kafka batch transport (`KafkaBatchTransport`) feeds with
 * whole fetched batches, `readonly BatchItem[]` (decoded messages with their context, one
 * partition's in offset order, or one fetch's merged with `groupCommitAcrossPartitions`), and whose
 * result is the batch handler's: the items to dead-letter, by index, with their permanent error
 * (`BatchHandler` in `@settle/messaging`). A throw is transient: the loop retries the whole batch.
 * Guards, interceptors, pipes and exception filters see the batch, never one message of it.
 *
 * @param name - the loop's name in the worker (its pattern, `settle.batches:<name>`), unique per worker.
 */
export function ConsumeBatches<C = never>(name: string, options: ConsumeBatchesOptions<C>): MethodDecorator {
  return EventPattern(`${BATCH_PATTERN_PREFIX}${name}`, { [CONSUMER_EXTRA]: options }) as MethodDecorator;
}

import type { ModuleRef } from '@nestjs/core';
import { BaseRpcContext, Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import type { WorkerConfig } from '@settle/config';
import { startConsumerLoop, type BatchItem, type ConsumerLoop, type MessagingMetrics } from '@settle/messaging';
import { isObservable, lastValueFrom } from 'rxjs';
import { BATCH_PATTERN_PREFIX, CONSUMER_EXTRA, type ConsumeBatchesOptions } from './consume-batches.js';
import type { WorkerContext } from './worker.options.js';

/** What a batch handler gets beside its batch: its loop's consumer group and topics. */
export class KafkaBatchContext extends BaseRpcContext<[groupId: string, topics: readonly string[]]> {
  /** The loop's consumer group. */
  get groupId(): string {
    return this.args[0];
  }

  /** The loop's topics (full names, prefixed). */
  get topics(): readonly string[] {
    return this.args[1];
  }
}

/**
 * What the transport needs of the app it runs in: its Kafka connections and tuning, where its
 * loops' lag and dead letters are counted, and where a started loop is reported. A worker's
 * {@link WorkerRuntime} is one; an HTTP app with consumer loops (ingestion) gives its own.
 */
export interface BatchLoopHost {
  readonly context: Pick<WorkerContext<WorkerConfig>, 'name' | 'config' | 'kafka' | 'codec' | 'producer' | 'topics' | 'logger'>;
  readonly messagingMetrics: MessagingMetrics;
  /** The loops started, in start order. */
  readonly loops: readonly ConsumerLoop[];
  /** A loop started: its membership joins the app's health. */
  addLoop(loop: ConsumerLoop): void;
  /** Every loop started. */
  running(): void;
  /** Names the shutdown step under way (logged if the shutdown overruns). */
  noteStep(step: string): void;
}

/** The dead-letter verdicts a batch handler returns (`BatchHandler` in `@settle/messaging`). */
type Verdicts = ReadonlyArray<{ index: number; error: unknown }>;

/**
 * The Nest transport of every consumer loop (the workers', and ingestion's inbound commands) (`CustomTransportStrategy` of `@nestjs/microservices`): each
 * `@ConsumeBatches` handler of the app becomes one consumer loop of `@settle/messaging`'s own
 * kafkajs batch loop (`startConsumerLoop`), never Nest's built-in Kafka server, which hands its
 * handlers one message at a time. The loop keeps its semantics exactly: whole fetched batches
 * (merged across partitions with `groupCommitAcrossPartitions`), heartbeats while a batch is
 * handled, transient errors retried in place, permanent ones dead-lettered, offsets resolved
 * only after the handler resolved. The handler is called through Nest's handler proxy, so guards,
 * interceptors, pipes and exception filters apply, to the whole batch.
 *
 * `listen` starts the loops in the order the handlers were declared, then reports the worker
 * ready; `close` (Nest's dispose step of the shutdown) stops them together.
 */
export class KafkaBatchTransport extends Server implements CustomTransportStrategy {
  /** Handler errors reach the loop (retried in place), not Nest's log alone. */
  override readonly propagatesEventHandlerErrors = true;
  private runtime: BatchLoopHost | null = null;
  private moduleRef: ModuleRef | null = null;
  private stopping: Promise<void> | null = null;

  /**
   * Gives the transport the app's connections (a worker's runtime, or an HTTP app's
   * {@link BatchLoopHost}) and module, once the app is created and before it listens
   * (`runWorker`, `startWorker`, ingestion's boot).
   */
  attach(runtime: BatchLoopHost, moduleRef: ModuleRef): void {
    this.runtime = runtime;
    this.moduleRef = moduleRef;
  }

  /**
   * Starts a consumer loop per batch handler, then reports the worker ready.
   * Calls `callback` with an Error when no handler is declared, two loops share a consumer group,
   * the transport was not attached, or a loop cannot connect.
   */
  listen(callback: (error?: unknown) => void): void {
    this.startLoops().then(
      () => callback(),
      (error: unknown) => callback(error),
    );
  }

  private async startLoops(): Promise<void> {
    const runtime = this.runtime;
    if (!runtime || !this.moduleRef) throw new Error('KafkaBatchTransport: attach(runtime, moduleRef) before listen');
    const { config, kafka, codec, producer, topics, logger, name } = runtime.context;
    const handlers = [...this.getHandlers()].filter(([pattern]) => pattern.startsWith(BATCH_PATTERN_PREFIX));
    if (handlers.length === 0) throw new Error(`worker ${name} declares no consumer loop (no @ConsumeBatches handler)`);
    const loops = handlers.map(([pattern, handler]) => {
      const options = (handler.extras?.[CONSUMER_EXTRA] ?? {}) as ConsumeBatchesOptions<WorkerConfig>;
      const groupId = `${config.kafka.topicPrefix}-${options.groupSuffix ?? name}`;
      return { pattern, handler, options, groupId, topicNames: options.topics.map((key) => topics[key]) };
    });
    const groups = loops.map((l) => l.groupId);
    if (new Set(groups).size !== groups.length) throw new Error(`worker ${name}: each consumer loop needs its own consumer group (groupSuffix)`);
    for (const { handler, options, groupId, topicNames } of loops) {
      const member = options.membership ? this.moduleRef.get(options.membership, { strict: false }) : null;
      const sessionTimeoutMs = options.sessionTimeoutMs?.(config) ?? config.worker.sessionTimeoutMs;
      const loop: ConsumerLoop = await startConsumerLoop({
        kafka,
        groupId,
        topics: [...topicNames],
        codec,
        producer,
        deadLetterTopic: topics.deadLetter,
        logger,
        metrics: runtime.messagingMetrics,
        handleBatch: (items) => this.handle(handler, items, new KafkaBatchContext([groupId, topicNames])),
        partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? config.worker.partitionsConcurrency,
        fetch: options.fetch ?? config.worker.fetch,
        ...(sessionTimeoutMs !== undefined ? { sessionTimeoutMs } : {}),
        ...(config.worker.offsetCommitIntervalMs !== undefined ? { offsetCommitIntervalMs: config.worker.offsetCommitIntervalMs } : {}),
        ...(options.groupCommitAcrossPartitions !== undefined ? { groupCommitAcrossPartitions: options.groupCommitAcrossPartitions } : {}),
        ...(options.partitionAssigners ? { partitionAssigners: options.partitionAssigners } : {}),
        ...(options.abandonBatchWhen ? { abandonBatchWhen: options.abandonBatchWhen } : {}),
        ...(options.abandonDelayMs !== undefined ? { abandonDelayMs: options.abandonDelayMs } : {}),
        ...(options.isPermanent ? { isPermanent: options.isPermanent } : {}),
        ...(options.fromBeginning !== undefined ? { fromBeginning: options.fromBeginning } : {}),
        ...(member ? { onAssignment: (assignment) => member.onAssignment(assignment), onRevocation: () => member.onRevocation() } : {}),
      });
      runtime.addLoop(loop);
    }
    runtime.running();
  }

  /** One batch through Nest's handler proxy: its result, or its error as thrown (`BatchErrorsPassThrough`). */
  private async handle(handler: MessageHandler, items: readonly BatchItem[], context: KafkaBatchContext): Promise<Verdicts> {
    const out: unknown = await handler(items, context);
    const result = isObservable(out) ? await lastValueFrom(out, { defaultValue: [] }) : out;
    return (result ?? []) as Verdicts;
  }

  /** Stops every consumer loop together (each lets its batch in hand finish); idempotent. @throws the first loop's error. */
  async close(): Promise<void> {
    const runtime = this.runtime;
    if (!runtime) return;
    this.stopping ??= (async () => {
      runtime.noteStep('consumer loops');
      const failed = (await Promise.allSettled(runtime.loops.map((loop) => loop.stop()))).find((r): r is PromiseRejectedResult => r.status === 'rejected');
      runtime.noteStep(`${runtime.context.name} providers`);
      if (failed) throw failed.reason;
    })();
    return this.stopping;
  }

  /** No transport events to subscribe to: the loops report through logs, metrics and readiness. */
  on(): void {
    throw new Error('KafkaBatchTransport has no events; see the consumer loops’ metrics and readiness');
  }

  /** The running consumer loops. */
  unwrap<T>(): T {
    return (this.runtime?.loops ?? []) as T;
  }
}

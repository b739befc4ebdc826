import { loadTracingConfig, type WorkerConfig } from '@settle/config';
import { connectMessaging, MessagingMetrics, Outbox, OutboxRelay, startConsumerLoop, type ConsumerLoop } from '@settle/messaging';
import {
  createLogger,
  createMetricsRegistry,
  createPool,
  guardProcess,
  markReady,
  migrateSchemas,
  onShutdown,
  runMain,
  startMetricsServer,
  startTracing,
} from '@settle/platform';
import { WorkerHealth } from './health.js';
import { stopInOrder, type ShutdownProgress, type StopStep } from './shutdown.js';
import type { WorkerContext, WorkerDefinition, WorkerOutbox } from './worker.definition.js';

/** A worker that booted: its connections, and the way to stop it. */
export interface RunningWorker<C extends WorkerConfig, O extends string> {
  context: WorkerContext<C, O>;
  /** The consumer loops, in the order declared. */
  loops: readonly ConsumerLoop[];
  /** Port of the metrics and health endpoint, `null` when none is served. */
  metricsPort: number | null;
  /**
   * Stops the worker in order: readiness turns `down` at once, then the consumer loops (each
   * stops fetching, lets the batch in hand finish and commits its offsets, or hands it back
   * unresolved, then leaves its group), the worker's own `stop` hook, the relays (each lets its
   * pass in hand finish, then publishes what its outbox still holds), the metrics endpoint and the
   * health probes' connections, the producer, the pool, then tracing (its buffered spans
   * exported). Unbounded: the process's shutdown bounds it (`SHUTDOWN_TIMEOUT_MS`, `runWorker`).
   *
   * @param progress - where the running step is noted (for the log line of an overrun).
   * @throws the first failed step's error, once every step ran.
   */
  stop(progress?: ShutdownProgress): Promise<void>;
}

/** Options of {@link startWorker}. */
export interface StartWorkerOptions {
  /**
   * Install the process-wide guards (unhandled rejections logged, uncaught exceptions fatal;
   * see `guardProcess`). `runWorker` does; a test running workers in its own process does not.
   */
  guardProcess?: boolean;
}

/**
 * Boots a worker: parses its configuration, creates its logger, its Prometheus registry (with
 * the default process metrics) and its PostgreSQL pool, applies its migrations, connects to
 * Kafka and the schema registry (topics created, the produced record types registered),
 * creates its outboxes and relays, runs its `setup`, starts the relays, the metrics and health
 * endpoint (when `METRICS_PORT` is set: `GET /metrics`; `GET /health/live`, `/health/ready` and
 * `/health` with the worker's readiness, {@link WorkerHealth}) and the consumer loops, runs its
 * `start` hook, reports ready and writes the ready file. The relays report their backlog age and
 * the loops their consumer lag and dead-letter records on the registry (`MessagingMetrics`),
 * beside what `setup` registers.
 * Tracing starts right after the logger when the `OTEL_*` variables ask for it
 * (`loadTracingConfig`, service name the worker's name), and its buffered spans are exported
 * last on the way down.
 *
 * A failed boot stops what already started, in the shutdown order, before rethrowing.
 *
 * @throws ConfigError when the configuration is invalid; any error of the database, the
 *   broker, the registry or `setup` met during boot; Error when `setup` gives no consumer
 *   loop, or two loops with the same consumer group.
 */
export async function startWorker<C extends WorkerConfig, O extends string>(
  definition: WorkerDefinition<C, O>,
  options: StartWorkerOptions = {},
): Promise<RunningWorker<C, O>> {
  const config = definition.config();
  const base = createLogger(definition.name, config.logLevel);
  const logger = definition.logBindings ? base.child(definition.logBindings) : base;
  if (options.guardProcess) guardProcess(logger);
  // Tracing (OTEL_* variables; off unless asked for) before anything that starts spans.
  const tracing = startTracing(loadTracingConfig(definition.name), logger);
  const metrics = createMetricsRegistry();
  const messagingMetrics = new MessagingMetrics(metrics);
  const pool = createPool(config.database.url, config.database.poolSize, (error) =>
    logger.warn({ err: error }, 'database connection lost; the pool opens a new one on next use'),
  );
  // Filled in start order; a failed boot and the shutdown stop them in this order.
  const loops: ConsumerLoop[] = [];
  const relays: OutboxRelay[] = [];
  const late: { appStop?: () => Promise<void>; closeMetrics?: () => Promise<void>; disconnect?: () => Promise<void>; health?: WorkerHealth } = {};
  const steps = (): StopStep[] => [
    // The loops are independent: they stop together (each waits for its fetch in hand).
    { name: 'consumer loops', stop: () => settleAll(loops.map((loop) => loop.stop())) },
    { name: `${definition.name} stop hook`, stop: () => late.appStop?.() },
    ...relays.map((relay, i) => ({ name: `outbox relay ${definition.outboxes?.[i]?.schema ?? i}`, stop: () => relay.stop() })),
    { name: 'metrics endpoint', stop: () => late.closeMetrics?.() },
    { name: 'health probes', stop: () => late.health?.close() },
    { name: 'producer', stop: () => late.disconnect?.() },
    { name: 'database pool', stop: () => pool.end() },
    // Last: the spans of everything above are exported (bounded; never holds the exit up long).
    { name: 'tracing', stop: () => tracing.shutdown() },
  ];

  try {
    await migrateSchemas(pool, definition.migrations ?? [], logger);
    const { kafka, topics, codec, producer } = await connectMessaging({
      clientId: `settle-${definition.name}`,
      brokers: config.kafka.brokers,
      topicPrefix: config.kafka.topicPrefix,
      registryUrl: config.schemaRegistry.url,
      produces: definition.produces,
      logger,
    });
    late.disconnect = () => producer.disconnect();
    const health = new WorkerHealth(definition.name, config, pool, logger);
    late.health = health;
    const outboxes = {} as Record<O, WorkerOutbox>;
    for (const declared of definition.outboxes ?? []) {
      const relay = new OutboxRelay(pool, declared.schema, producer, codec, logger.child({ component: 'outbox' }), declared.relay, messagingMetrics);
      outboxes[declared.schema] = { outbox: new Outbox(declared.schema, topics, codec), relay };
      relays.push(relay);
    }
    const context: WorkerContext<C, O> = { config, logger, metrics, pool, kafka, topics, codec, producer, outboxes, health: health.probes };
    const parts = await definition.setup(context);
    late.appStop = parts.stop;
    health.add(parts.health ?? []);
    const groups = parts.consumers.map((c) => c.groupId ?? `${config.kafka.topicPrefix}-${definition.name}`);
    if (groups.length === 0) throw new Error(`worker ${definition.name} declares no consumer loop`);
    if (new Set(groups).size !== groups.length) throw new Error(`worker ${definition.name}: each consumer loop needs its own consumer group`);

    for (const relay of relays) relay.start();
    const metricsServer = config.metricsPort !== null ? await startMetricsServer(metrics, config.metricsPort, logger, { health: health.probes }) : null;
    late.closeMetrics = metricsServer ? () => metricsServer.close() : undefined;
    for (const [i, consumer] of parts.consumers.entries()) {
      const loop = await startConsumerLoop({
        ...consumer,
        kafka,
        groupId: groups[i]!,
        codec,
        producer,
        deadLetterTopic: topics.deadLetter,
        logger,
        metrics: messagingMetrics,
        partitionsConsumedConcurrently: consumer.partitionsConsumedConcurrently ?? config.worker.partitionsConcurrency,
        fetch: consumer.fetch ?? config.worker.fetch,
        ...(config.worker.sessionTimeoutMs !== undefined && consumer.sessionTimeoutMs === undefined
          ? { sessionTimeoutMs: config.worker.sessionTimeoutMs }
          : {}),
      });
      loops.push(loop);
      health.addLoop(loop);
    }
    await parts.start?.();
    health.running();
    markReady(config.readyFile, logger);
    return {
      context,
      loops,
      metricsPort: metricsServer?.port ?? null,
      stop: (progress) => {
        health.stopping();
        return stopInOrder(steps(), logger, progress);
      },
    };
  } catch (error) {
    await stopInOrder(steps(), logger).catch(() => undefined);
    throw error;
  }
}

/** Waits for every promise; @throws the first rejection, once all settled. */
async function settleAll(promises: readonly Promise<void>[]): Promise<void> {
  const failed = (await Promise.allSettled(promises)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * Runs a worker as the process's app: boots it with {@link startWorker} (a failed boot prints
 * its message and exits with status 1) and stops it in order on SIGTERM or SIGINT, then exits
 * with status 0; with status 1 when a step failed or the stop overran `SHUTDOWN_TIMEOUT_MS`
 * (`onShutdown` in `@settle/platform`; a second signal exits at once).
 */
export function runWorker<C extends WorkerConfig, O extends string>(definition: WorkerDefinition<C, O>): void {
  runMain(async () => {
    const worker = await startWorker(definition, { guardProcess: true });
    onShutdown(worker.context.logger, (progress) => worker.stop(progress), { timeoutMs: worker.context.config.shutdownTimeoutMs });
  });
}

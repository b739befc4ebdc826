import type { OnApplicationBootstrap } from '@nestjs/common';
import type { WorkerConfig } from '@settle/config';
import { connectMessaging, MessagingMetrics, Outbox, OutboxRelay, type ConsumerLoop, type RelayOptions } from '@settle/messaging';
import { stopInOrder, type StopStep } from '@settle/platform';
import { AppRuntime, connectApp, type AppBase, type AppProcessOptions } from './app.runtime.js';
import { WorkerHealth } from './health.js';
import { startWorkerEndpoint } from './worker-endpoint.js';
import type { WorkerContext, WorkerModuleOptions, WorkerOutbox } from './worker.options.js';

/**
 * A declared outbox's relay options: the app's `OUTBOX_RELAY_LINGER_MS` under what the module
 * declares for that outbox (a declaration that names a linger keeps it).
 */
export function relayOptionsOf(config: WorkerConfig, declared: Partial<RelayOptions> | undefined): Partial<RelayOptions> {
  return { ...(config.worker.relayLingerMs !== undefined ? { lingerMs: config.worker.relayLingerMs } : {}), ...declared };
}

/** How the process runs the worker: see {@link AppProcessOptions}. */
export type WorkerProcessOptions = AppProcessOptions;

/**
 * The connections and the life of one Kafka worker, as a Nest provider of `WorkerModule`: an
 * {@link AppRuntime} (configuration, logger, tracing, metrics registry, pool and migrations) plus
 * Kafka and the schema registry (the produced record types registered), the outboxes and their
 * relays, and the worker's health, started and stopped through Nest's lifecycle hooks in the order
 * docs/operations.md ("Graceful shutdown") documents:
 *
 * - `onApplicationBootstrap` (the worker module first, being global): the relays and the metrics
 *   and health endpoint start; then the app's own providers start (timers, schedulers);
 * - the Kafka batch transport's `listen`: the consumer loops start; then the worker is ready
 *   ({@link WorkerRuntime.running}) and writes its ready file;
 * - on SIGTERM or SIGINT (`enableShutdownHooks`), `onModuleDestroy`: readiness turns `down` at
 *   once (a rolling update takes it out before its loops stop);
 * - the transport's `close` (Nest's dispose step): the consumer loops stop, each letting its
 *   batch in hand finish and commit its offsets, or handing it back unresolved, then leaving its
 *   group;
 * - `onApplicationShutdown`, the app module first: its providers stop (timers, schedulers,
 *   provider clients, the dispatcher's admin API); then this runtime's: the relays (each
 *   publishes what its outbox still holds), the metrics endpoint, the health probes'
 *   connections, the producer, the pool, tracing (its buffered spans exported).
 */
export class WorkerRuntime<C extends WorkerConfig = WorkerConfig, O extends string = string> extends AppRuntime<C> implements OnApplicationBootstrap {
  /** The connected worker, for its providers. */
  readonly context: WorkerContext<C, O>;
  /** The consumer loops, in start order (the transport adds them). */
  readonly loops: ConsumerLoop[] = [];
  /** Port of the metrics and health endpoint once started, `null` when none is served. */
  metricsPort: number | null = null;
  readonly messagingMetrics: MessagingMetrics;
  private readonly workerHealth: WorkerHealth;
  private readonly relays: { schema: string; relay: OutboxRelay }[];
  private closeMetrics: (() => Promise<void>) | null = null;

  private constructor(
    base: AppBase<C>,
    processOptions: AppProcessOptions,
    parts: {
      context: WorkerContext<C, O>;
      health: WorkerHealth;
      relays: { schema: string; relay: OutboxRelay }[];
      messagingMetrics: MessagingMetrics;
      disconnect: () => Promise<void>;
    },
  ) {
    super(base, processOptions);
    this.context = parts.context;
    this.workerHealth = parts.health;
    this.relays = parts.relays;
    this.messagingMetrics = parts.messagingMetrics;
    this.onStop(
      ...this.relays.map(({ schema, relay }) => ({ name: `outbox relay ${schema}`, stop: () => relay.stop() })),
      { name: 'metrics endpoint', stop: () => this.closeMetrics?.() },
      { name: 'health probes', stop: () => this.workerHealth.close() },
      { name: 'producer', stop: parts.disconnect },
    );
  }

  /**
   * Connects a worker: the app's part ({@link connectApp}), then Kafka and the schema registry
   * (topics created, the produced record types registered), its health probes and its outboxes
   * with their relays (not started). A failed connect stops what it already opened, in the
   * shutdown order, before rethrowing.
   *
   * @throws ConfigError when the configuration is invalid; any error of the database, the broker
   *   or the registry met on the way.
   */
  static async connectWorker<C extends WorkerConfig, O extends string>(
    options: WorkerModuleOptions<C, O>,
    processOptions: AppProcessOptions,
  ): Promise<WorkerRuntime<C, O>> {
    const base = await connectApp(options, processOptions);
    const { config, logger, metrics } = base;
    const pool = base.pool!;
    const messagingMetrics = new MessagingMetrics(metrics);
    try {
      const { kafka, topics, codec, producer } = await connectMessaging({
        clientId: `settle-${options.name}`,
        brokers: config.kafka.brokers,
        topicPrefix: config.kafka.topicPrefix,
        registryUrl: config.schemaRegistry.url,
        produces: options.produces,
        logger,
      });
      const health = new WorkerHealth(options.name, config, pool, logger);
      const relays: { schema: string; relay: OutboxRelay }[] = [];
      const outboxes = {} as Record<O, WorkerOutbox>;
      for (const declared of options.outboxes ?? []) {
        const relay = new OutboxRelay(
          pool,
          declared.schema,
          producer,
          codec,
          logger.child({ component: 'outbox' }),
          relayOptionsOf(config, declared.relay),
          messagingMetrics,
        );
        outboxes[declared.schema] = { outbox: new Outbox(declared.schema, topics, codec), relay };
        relays.push({ schema: declared.schema, relay });
      }
      const context: WorkerContext<C, O> = {
        name: options.name,
        config,
        logger,
        metrics,
        pool,
        kafka,
        topics,
        codec,
        producer,
        outboxes,
        health: health.probes,
        addHealthProbes: (probes) => health.add(probes),
      };
      return new WorkerRuntime(base, processOptions, { context, health, relays, messagingMetrics, disconnect: () => producer.disconnect() });
    } catch (error) {
      const steps: StopStep[] = [
        { name: 'database pool', stop: () => pool.end() },
        { name: 'tracing', stop: () => base.stopTracing() },
      ];
      await stopInOrder(steps, logger).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Starts the relays, then the metrics and health endpoint (`METRICS_PORT`; `GET /metrics`,
   * `/health/live`, `/health/ready`, `/health`, through terminus: {@link startWorkerEndpoint}).
   */
  async onApplicationBootstrap(): Promise<void> {
    for (const { relay } of this.relays) relay.start();
    const { config, metrics, logger } = this.context;
    if (config.metricsPort === null) return;
    const endpoint = await startWorkerEndpoint(this.workerHealth.probes, metrics, config.metricsPort, logger);
    this.closeMetrics = () => endpoint.close();
    this.metricsPort = endpoint.port;
  }

  /** Adds a started consumer loop: its membership becomes a readiness probe (`consumer:<group>`). */
  addLoop(loop: ConsumerLoop): void {
    this.loops.push(loop);
    this.workerHealth.addLoop(loop);
  }

  /** Every consumer loop started: ready when the dependencies are; the ready file is written. */
  running(): void {
    this.workerHealth.running();
    this.ready();
  }

  /** Readiness turns `down` at once: a rolling update takes the worker out before its loops stop. */
  protected override stopping(): void {
    this.workerHealth.stopping();
  }
}

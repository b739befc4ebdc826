import type { WorkerConfig } from '@settle/config';
import type { AvroCodec, ConsumerLoopOptions, EventType, Outbox, OutboxRelay, RelayOptions, Topics } from '@settle/messaging';
import type { HealthProbe, HealthProbes, Logger, Pool, SchemaMigrations } from '@settle/platform';
import type { Kafka, Producer } from 'kafkajs';
import type { Registry } from 'prom-client';

/** A transactional outbox the worker writes to (table `<schema>.outbox`), relayed to Kafka. */
export interface OutboxDefinition<S extends string = string> {
  /** Schema of the outbox table, also the name of the relay's advisory lock. */
  schema: S;
  /** Relay pacing; unset fields keep the relay's defaults (a 250 ms poll, 500 rows per pass). */
  relay?: Partial<RelayOptions>;
}

/** An outbox and its relay, as the worker's services receive them. */
export interface WorkerOutbox {
  /** Writes messages inside the caller's transaction. */
  outbox: Outbox;
  /** Publishes them; call `wake()` after a commit that enqueued some. */
  relay: OutboxRelay;
}

/**
 * One consumer loop of a worker: every option of the owned kafkajs batch loop
 * (`startConsumerLoop` in `@settle/messaging`) except the connections, which the runtime
 * supplies; its `handleBatch` takes every fetched batch in one call.
 */
export type ConsumerDefinition = Omit<
  ConsumerLoopOptions,
  'kafka' | 'codec' | 'producer' | 'deadLetterTopic' | 'logger' | 'groupId' | 'partitionsConsumedConcurrently' | 'fetch' | 'metrics'
> & {
  /** Fetch batching; default the worker's `WORKER_FETCH_MIN_BYTES` and `WORKER_FETCH_MAX_WAIT_MS`. */
  fetch?: ConsumerLoopOptions['fetch'];
  /** Consumer group; default `<topic prefix>-<worker name>`. A second loop of a worker must name its own. */
  groupId?: string;
  /** Partitions handled at once; default the worker's `WORKER_PARTITIONS_CONCURRENCY`. */
  partitionsConsumedConcurrently?: number;
};

/** What a worker's `setup` hands the runtime: its loops and hooks. */
export interface WorkerParts {
  /** The consumer loops, started in this order once the relays run (at least one). */
  consumers: readonly ConsumerDefinition[];
  /**
   * Readiness probes of the worker's own dependencies (the projector's event store), beside the
   * runtime's (PostgreSQL, Kafka, the registry, each consumer group: `WorkerHealth`).
   */
  health?: readonly HealthProbe[];
  /** Runs once every consumer loop started, before the worker reports ready (timers, a log line). */
  start?: () => void | Promise<void>;
  /** Runs at shutdown once the consumer loops stopped, before the relays stop. */
  stop?: () => Promise<void>;
}

/** Everything the runtime connected, for the worker's `setup` to build its services with. */
export interface WorkerContext<C extends WorkerConfig, O extends string> {
  config: C;
  /** The worker's logger (`app` is the worker's name, plus its `logBindings`). */
  logger: Logger;
  /**
   * The worker's Prometheus registry, served at `GET /metrics` on `METRICS_PORT` (none when the
   * port is unset; the dispatcher also serves it on its HTTP port): prom-client's default
   * process metrics and the runtime's consumer lag, dead-letter and outbox backlog metrics are
   * already in it; `setup` registers the worker's own.
   */
  metrics: Registry;
  /** The worker's PostgreSQL pool (`DATABASE_POOL_SIZE` connections), migrated. */
  pool: Pool;
  kafka: Kafka;
  topics: Topics;
  codec: AvroCodec;
  /** Idempotent, acks-all producer, shared by the relays and the dead-letter writes. */
  producer: Producer;
  /** The declared outboxes, by schema. */
  outboxes: Readonly<Record<O, WorkerOutbox>>;
  /**
   * The worker's readiness probes (its consumer loops' membership included once they start),
   * for a worker that serves HTTP of its own (the dispatcher's admin API, `HealthModule`).
   */
  health: HealthProbes;
}

/**
 * A worker app, declared: what it owns in PostgreSQL, what it produces, its outboxes, and a
 * `setup` that builds its services and names its consumer loops. The runtime does the rest
 * (`runWorker` in this lib): configuration, logger, pool, migrations, Kafka and the schema
 * registry, relays, loops, metrics endpoint, ready file and the ordered shutdown.
 */
export interface WorkerDefinition<C extends WorkerConfig, O extends string = never> {
  /** App name: the logger's `app`, the Kafka client id `settle-<name>`, the default consumer group `<prefix>-<name>`. */
  name: string;
  /** Parses the worker's configuration (a `@settle/config` loader). @throws ConfigError */
  config: () => C;
  /** Fields added to every log line (for example the sweeper's instance id). */
  logBindings?: Record<string, unknown>;
  /**
   * The versioned migrations of the schemas this worker owns, applied in order at boot, each
   * schema under its advisory lock (see `migrateSchema` in @settle/platform; docs/postgres.md).
   */
  migrations?: readonly SchemaMigrations[];
  /** Record types this worker publishes: their schemas are registered at boot. */
  produces: readonly EventType[];
  /** Outboxes this worker writes to; each gets a relay, started before the consumer loops. */
  outboxes?: readonly OutboxDefinition<O>[];
  /** Builds the worker's services from the connections; may be async (reading a vault). */
  setup(context: WorkerContext<C, O>): WorkerParts | Promise<WorkerParts>;
}

/**
 * Declares a worker; an identity function that lets TypeScript infer the configuration type
 * and the outbox schema names (so `outboxes.verifier` is typed in `setup`).
 */
export function defineWorker<C extends WorkerConfig, const O extends string = never>(definition: WorkerDefinition<C, O>): WorkerDefinition<C, O> {
  return definition;
}

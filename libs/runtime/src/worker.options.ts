import type { WorkerConfig } from '@settle/config';
import type { AvroCodec, EventType, Outbox, OutboxRelay, RelayOptions, Topics } from '@settle/messaging';
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
 * A worker app, declared to `WorkerModule.forRoot`: what it owns in PostgreSQL, what it
 * produces, its outboxes. Its services are the app module's providers (built from the
 * {@link WorkerContext}, token `WORKER_CONTEXT`), its consumer loops the `@ConsumeBatches`
 * handlers of its controllers.
 */
export interface WorkerModuleOptions<C extends WorkerConfig, O extends string = never> {
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
}

/** Everything the runtime connected, for the worker's providers to build its services with (token `WORKER_CONTEXT`). */
export interface WorkerContext<C extends WorkerConfig = WorkerConfig, O extends string = string> {
  /** The worker's name (`WorkerModuleOptions.name`). */
  name: string;
  config: C;
  /** The worker's logger (`app` is the worker's name, plus its `logBindings`). */
  logger: Logger;
  /**
   * The worker's Prometheus registry, served at `GET /metrics` on `METRICS_PORT` (none when the
   * port is unset; the dispatcher also serves it on its HTTP port): prom-client's default
   * process metrics and the runtime's consumer lag, dead-letter and outbox backlog metrics are
   * already in it; the worker's providers register their own.
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
  /** Adds readiness probes of the worker's own dependencies (the projector's event store). */
  addHealthProbes: (probes: readonly HealthProbe[]) => void;
}

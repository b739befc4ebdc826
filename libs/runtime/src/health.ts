import type { WorkerConfig } from '@settle/config';
import { consumerProbe, kafkaProbe, schemaRegistryProbe, type ConsumerLoop } from '@settle/messaging';
import { DEFAULT_HEALTH_TIMEOUT_MS, HealthCheckFailure, HealthProbes, postgresProbe, type HealthProbe, type Logger, type Pool } from '@settle/platform';

/** Where a worker is in its life: readiness is `down` unless `running`. */
export type WorkerPhase = 'starting' | 'running' | 'stopping';

/**
 * A worker's readiness (docs/observability.md, "Health"), served at `GET /health/ready` on its
 * metrics port (`METRICS_PORT`) and, for the dispatcher, on its admin API:
 * - `worker`: down while it boots and from the moment it starts stopping (so a rolling update
 *   takes it out before its loops stop), up once every consumer loop started;
 * - `postgres`: `SELECT 1` through its pool, every request;
 * - `kafka`: a metadata request, cached 5 s;
 * - `schema_registry`: `GET <url>/config`, cached 5 s, `degraded` when failing: a running worker
 *   decodes with the schemas it has cached and encodes with the ids it registered at boot, so a
 *   registry outage alone does not stop it (only a record of a schema it has never seen waits);
 * - `consumer:<group>`: each consumer loop's membership and partitions (`consumerProbe`; a
 *   member holding no partition is ready, a standby);
 * - what the worker adds (`WorkerParts.health`: the projector's event store).
 */
export class WorkerHealth {
  /** The probes, for terminus's `HealthModule` (the worker endpoint, the dispatcher's admin API). */
  readonly probes: HealthProbes;
  private phase: WorkerPhase = 'starting';
  private readonly list: HealthProbe[];

  /** @param name - the worker's name: the health Kafka client is `settle-<name>-health`. */
  constructor(name: string, config: Pick<WorkerConfig, 'kafka' | 'schemaRegistry'>, pool: Pool, logger: Logger) {
    this.list = [
      {
        key: 'worker',
        whenFailing: 'down',
        timeoutMs: DEFAULT_HEALTH_TIMEOUT_MS,
        cacheMs: 0,
        check: async () => {
          if (this.phase !== 'running') throw new HealthCheckFailure(this.phase, { state: this.phase });
          return { state: this.phase };
        },
      },
      postgresProbe(pool),
      kafkaProbe({ brokers: config.kafka.brokers, clientId: `settle-${name}`, logger }),
      schemaRegistryProbe(config.schemaRegistry.url, { whenFailing: 'degraded' }),
    ];
    this.probes = new HealthProbes(() => this.list, logger);
  }

  /** Adds the worker's own probes. */
  add(probes: readonly HealthProbe[]): void {
    this.list.push(...probes);
  }

  /** Adds a started consumer loop's membership (`consumer:<group>`). */
  addLoop(loop: Pick<ConsumerLoop, 'groupId' | 'state'>): void {
    this.list.push(consumerProbe(loop));
  }

  /** Every consumer loop started: ready when the dependencies are. */
  running(): void {
    this.phase = 'running';
  }

  /** The worker started stopping: not ready from now on. */
  stopping(): void {
    this.phase = 'stopping';
  }

  /** Closes the probes' connections (the Kafka admin client). */
  close(): Promise<void> {
    return this.probes.close();
  }
}

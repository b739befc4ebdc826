import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Upper bounds of the append-latency buckets, seconds: 1 ms to 10 s. */
export const LEDGER_APPEND_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Upper bounds of the batch-size buckets, consensus results. */
export const LEDGER_BATCH_SIZE_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500];

/** Prometheus metrics of the ledger projector, served at `GET /metrics` on `METRICS_PORT`. */
export class ProjectorMetrics {
  /**
   * Seconds of one ledger session that committed: the batch's outcome and grant appends, its
   * read models and outbox rows (one PostgreSQL transaction under one lock of the ledger head;
   * on KurrentDB the appends). Sessions that failed (retried) are not observed.
   */
  readonly appendDuration: Histogram;

  /** Consensus results projected in one committed ledger session (one fetch, merged across partitions). */
  readonly appendBatchSize: Histogram;

  /**
   * Checkpoint ticks by outcome (docs/ledger.md, "Checkpoints"): `made`, `nothing_new` (only
   * checkpoints appended since the last), `busy` (another replica or the command line holds the
   * checkpointer's lock), `failed` (the vault, the database). Every outcome starts at 0.
   */
  readonly checkpointRuns: Counter<'outcome'>;

  /** The size (events covered) of the last checkpoint made or found in the ledger, and when it was signed (epoch seconds); set from the first tick on. */
  readonly checkpointSize: Gauge;
  readonly checkpointTimestamp: Gauge;

  /** 1 when the last write to the checkpoint sink succeeded, 0 when it failed or no sink is configured (alert LedgerCheckpointSinkDown). */
  readonly sinkUp: Gauge;

  /** @param registry - the app's registry (`createMetricsRegistry`), where these are registered; a new empty one by default. */
  constructor(readonly registry: Registry = new Registry()) {
    this.appendDuration = new Histogram({
      name: 'settle_ledger_append_duration_seconds',
      help: 'Duration of one committed ledger session of the projector (appends, read models, outbox), seconds',
      buckets: LEDGER_APPEND_SECONDS_BUCKETS,
      registers: [registry],
    });
    this.appendBatchSize = new Histogram({
      name: 'settle_ledger_append_batch_size',
      help: 'Consensus results projected in one committed ledger session',
      buckets: LEDGER_BATCH_SIZE_BUCKETS,
      registers: [registry],
    });
    this.checkpointRuns = new Counter({
      name: 'settle_ledger_checkpoint_runs_total',
      help: 'Ledger checkpoint ticks by outcome (made, nothing_new, busy, failed)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    for (const outcome of ['made', 'nothing_new', 'busy', 'failed']) this.checkpointRuns.inc({ outcome }, 0);
    this.checkpointSize = new Gauge({ name: 'settle_ledger_checkpoint_size', help: 'Events covered by the last signed checkpoint', registers: [registry] });
    this.checkpointTimestamp = new Gauge({
      name: 'settle_ledger_checkpoint_timestamp_seconds',
      help: 'When the last checkpoint was signed, epoch seconds',
      registers: [registry],
    });
    this.sinkUp = new Gauge({
      name: 'settle_ledger_checkpoint_sink_up',
      help: '1 when the last write to the checkpoint sink succeeded, 0 when it failed or no sink is configured',
      registers: [registry],
    });
  }
}

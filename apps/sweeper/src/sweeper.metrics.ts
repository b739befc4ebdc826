import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of a sweeper instance, served at `GET /metrics` on `METRICS_PORT`. */
export class SweeperMetrics {
  /** Verification requests written to the outbox, by trigger (`sweeper_review_limit`: final re-checks). */
  readonly requests: Counter<'trigger'>;

  /** Milliseconds between a watch falling due and the sweep that fired it. */
  readonly detectionLag: Histogram;

  /** Partitions whose timers this instance owns (0 while the group rebalances). */
  readonly ownedPartitions: Gauge;

  /** @param registry - the app's registry (`createMetricsRegistry`), where these are registered; a new empty one by default. */
  constructor(readonly registry: Registry = new Registry()) {
    this.requests = new Counter({
      name: 'settle_sweeper_requests_total',
      help: 'Verification requests the sweeper wrote, by trigger',
      labelNames: ['trigger'] as const,
      registers: [registry],
    });
    this.detectionLag = new Histogram({
      name: 'settle_sweeper_detection_lag_ms',
      help: 'Delay between a transaction falling due and its verification request, milliseconds',
      buckets: [10, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000],
      registers: [registry],
    });
    this.ownedPartitions = new Gauge({
      name: 'settle_sweeper_owned_partitions',
      help: 'Partitions whose timers this sweeper instance owns',
      registers: [registry],
    });
  }
}

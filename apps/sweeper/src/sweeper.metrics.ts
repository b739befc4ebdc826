import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * How long past its due time a watch counts as overdue, milliseconds: the 30 s the
 * `SettleSweeperLagging` alert allows the detection lag (deploy/prometheus/alerts.yml).
 */
export const OVERDUE_AFTER_MS = 30_000;

/** Prometheus metrics of a sweeper instance, served at `GET /metrics` on `METRICS_PORT`. */
export class SweeperMetrics {
  /** Verification requests written to the outbox, by trigger (`sweeper_review_limit`: final re-checks). */
  readonly requests: Counter<'trigger'>;

  /** Milliseconds between a watch falling due and the sweep that fired it. */
  readonly detectionLag: Histogram;

  /** Partitions whose timers this instance owns (0 while the group rebalances). */
  readonly ownedPartitions: Gauge;

  /**
   * Watches of this instance's partitions whose due time has passed and that no sweep has fired
   * yet, as last counted (every few seconds); 0 while it owns no partition. Near 0 when the
   * sweeper keeps up: the timer fires a due watch within a tick.
   */
  readonly watchesDue: Gauge;

  /** Of {@link watchesDue}, those due for more than {@link OVERDUE_AFTER_MS}: checks the sweeper is late with. */
  readonly watchesOverdue: Gauge;

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
    this.watchesDue = new Gauge({
      name: 'settle_sweeper_watches_due',
      help: "Watches of this sweeper's partitions past their due time and not fired yet",
      registers: [registry],
    });
    this.watchesOverdue = new Gauge({
      name: 'settle_sweeper_watches_overdue',
      help: "Watches of this sweeper's partitions due for more than 30 s and not fired yet",
      registers: [registry],
    });
  }
}

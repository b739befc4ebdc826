import { PeriodicMeasurement, type Logger } from '@settle/platform';
import { Gauge, Registry } from 'prom-client';
import type { ReviewQueues } from '../queues/review-queues.js';

/** How often the console counts the review queues for its gauges, milliseconds. */
export const REVIEW_COUNT_INTERVAL_MS = 30_000;

/**
 * Prometheus metrics of the console, served at `GET /metrics` on its HTTP port beside the
 * default process metrics and the HTTP latency: the sizes of the two review queues, read from
 * `read_model.transaction_status` (the ledger's projection, what the console's queues list).
 * The console owns them (docs/observability.md, "Who counts the review queues"): one instance
 * reads the whole book's queues with one indexed query on a timer, where a count per verifier
 * instance would repeat the same figure from a table without a state index.
 */
export class ConsoleMetrics {
  /** Transactions held in review (state `RECOVERING`, entitlement `HELD_IN_REVIEW`), as last counted. */
  readonly heldInReview: Gauge;

  /** Transactions in manual review (state `MANUAL_REVIEW`), as last counted: each waits for a person. */
  readonly manualReview: Gauge;

  /** @param registry - the console's registry (`createMetricsRegistry`); a new empty one by default. */
  constructor(readonly registry: Registry = new Registry()) {
    this.heldInReview = new Gauge({
      name: 'settle_transactions_held_in_review',
      help: 'Transactions held in review (RECOVERING, entitlement HELD_IN_REVIEW), from the read model',
      registers: [registry],
    });
    this.manualReview = new Gauge({
      name: 'settle_transactions_in_manual_review',
      help: 'Transactions in manual review (MANUAL_REVIEW), from the read model',
      registers: [registry],
    });
  }

  /**
   * The measurement that sets both gauges from one count of the review queues: `start()` counts
   * at once and then every `intervalMs` milliseconds (default {@link REVIEW_COUNT_INTERVAL_MS})
   * until `stop()`. A failed count (the read model not created yet, the database down) is
   * logged and the gauges keep their values.
   */
  reviewCounting(queues: Pick<ReviewQueues, 'reviewCounts'>, logger: Logger, intervalMs = REVIEW_COUNT_INTERVAL_MS): PeriodicMeasurement {
    return new PeriodicMeasurement(
      async () => {
        const { heldInReview, manualReview } = await queues.reviewCounts();
        this.heldInReview.set(heldInReview);
        this.manualReview.set(manualReview);
      },
      intervalMs,
      logger,
      'console review queues',
    );
  }
}

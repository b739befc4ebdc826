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

  /** Open unmatched payments (paid, no checkout, not closed), as last counted (docs/unmatched-payments.md). */
  readonly unmatchedOpen: Gauge;

  /** Age of the oldest open unmatched payment, seconds (0 when none): the age alert's input. */
  readonly oldestUnmatchedAge: Gauge;

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
    this.unmatchedOpen = new Gauge({
      name: 'settle_unmatched_payments_open',
      help: 'Open unmatched payments (confirmed by the provider, no checkout, not closed), from the read model',
      registers: [registry],
    });
    this.oldestUnmatchedAge = new Gauge({
      name: 'settle_unmatched_payment_oldest_age_seconds',
      help: 'Age of the oldest open unmatched payment since the provider confirmed it, seconds; 0 when none',
      registers: [registry],
    });
  }

  /**
   * The measurement that sets the gauges from one count of the queues: `start()` counts
   * at once and then every `intervalMs` milliseconds (default {@link REVIEW_COUNT_INTERVAL_MS})
   * until `stop()`. A failed count (the read model not created yet, the database down) is
   * logged and the gauges keep their values.
   */
  reviewCounting(
    queues: Pick<ReviewQueues, 'reviewCounts'>,
    logger: Logger,
    intervalMs = REVIEW_COUNT_INTERVAL_MS,
    clock: () => number = Date.now,
  ): PeriodicMeasurement {
    return new PeriodicMeasurement(
      async () => {
        const { heldInReview, manualReview, unmatchedOpen, oldestUnmatchedAt } = await queues.reviewCounts();
        this.heldInReview.set(heldInReview);
        this.manualReview.set(manualReview);
        this.unmatchedOpen.set(unmatchedOpen);
        this.oldestUnmatchedAge.set(oldestUnmatchedAt === null ? 0 : Math.max(0, (clock() - oldestUnmatchedAt) / 1000));
      },
      intervalMs,
      logger,
      'console review queues',
    );
  }
}

import type { MissingSubjectKeys } from '@settle/ledger';
import { PeriodicMeasurement, type Logger } from '@settle/platform';
import { Gauge, Registry } from 'prom-client';
import type { ReviewQueues } from '../queues/review-queues.js';

/** How often the console counts the review queues for its gauges, milliseconds. */
export const REVIEW_COUNT_INTERVAL_MS = 30_000;

/** How often the console looks for sealed values whose subject key is missing, milliseconds (5 minutes: a restore is rare, the alert waits for 15). */
export const SUBJECT_KEY_CHECK_INTERVAL_MS = 300_000;

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

  /**
   * Subject keys that sealed values in the read models name but that are neither stored nor
   * erased (docs/privacy.md, "When a key is missing"), as last counted: the
   * `SettlePrivacySubjectKeysMissing` alert's input.
   */
  readonly subjectKeysMissing: Gauge;

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
    this.subjectKeysMissing = new Gauge({
      name: 'settle_privacy_subject_keys_missing',
      help: 'Subject keys named by sealed values in the read models, neither stored nor erased (their data reads unavailable); 0 when none',
      registers: [registry],
    });
  }

  /**
   * The measurement that sets {@link subjectKeysMissing} from `count` (`countMissingSubjectKeys`
   * of `@settle/ledger`): at once, then every `intervalMs` milliseconds (default
   * {@link SUBJECT_KEY_CHECK_INTERVAL_MS}). Missing keys are also logged at error level with the
   * stable `alert` field `SETTLE_PRIVACY_SUBJECT_KEYS_MISSING`; a failed count is logged and the
   * gauge keeps its value.
   */
  subjectKeyChecking(count: () => Promise<MissingSubjectKeys>, logger: Logger, intervalMs = SUBJECT_KEY_CHECK_INTERVAL_MS): PeriodicMeasurement {
    return new PeriodicMeasurement(
      async () => {
        const { missing, sealedValues } = await count();
        this.subjectKeysMissing.set(missing);
        if (missing > 0) {
          logger.error(
            { alert: 'SETTLE_PRIVACY_SUBJECT_KEYS_MISSING', missing, sealedValues },
            'sealed values name subject keys that are neither stored nor erased: their data reads unavailable (docs/privacy.md, "When a key is missing")',
          );
        }
      },
      intervalMs,
      logger,
      'console subject key check',
    );
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

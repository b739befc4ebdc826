import { Counter, Registry } from 'prom-client';

/** Prometheus metrics of the verifier, served at `GET /metrics` on `METRICS_PORT`. */
export class VerifierMetrics {
  /** Verifications decided, by provider, trigger, verdict and outcome (`UNCHANGED` when nothing changed). */
  readonly verifications: Counter<'provider' | 'trigger' | 'verdict' | 'outcome'>;

  /**
   * Transactions moved to manual review (docs/state-machine.md, decision 6), by the verdict of
   * the final re-check. Alert on any increase: a person must look.
   */
  readonly manualReviews: Counter<'last_verdict'>;

  /**
   * Answers about payments Settle was never told about (docs/unmatched-payments.md), by provider
   * and observation: `recorded` (paid, no checkout: alert), `declined`, `unresolved`, `matched`.
   */
  readonly unmatchedPayments: Counter<'provider' | 'observation'>;

  /** @param registry - the app's registry (`createMetricsRegistry`), where these are registered; a new empty one by default. */
  constructor(readonly registry: Registry = new Registry()) {
    this.verifications = new Counter({
      name: 'settle_verifications_total',
      help: 'Server-to-server verifications decided, by provider, trigger, verdict and outcome',
      labelNames: ['provider', 'trigger', 'verdict', 'outcome'] as const,
      registers: [registry],
    });
    this.manualReviews = new Counter({
      name: 'settle_manual_review_total',
      help: 'Transactions moved to manual review after the automatic re-checks, by last verdict',
      labelNames: ['last_verdict'] as const,
      registers: [registry],
    });
    this.unmatchedPayments = new Counter({
      name: 'settle_unmatched_payments_total',
      help: 'Answers about payments with no checkout, by provider and observation (recorded, declined, unresolved, matched)',
      labelNames: ['provider', 'observation'] as const,
      registers: [registry],
    });
  }
}

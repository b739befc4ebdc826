import { Counter, Registry } from 'prom-client';

/** Prometheus metrics of the verifier, served at `GET /metrics` on `METRICS_PORT`. */
export class VerifierMetrics {
  readonly registry = new Registry();

  /** Verifications decided, by provider, trigger, verdict and outcome (`UNCHANGED` when nothing changed). */
  readonly verifications = new Counter({
    name: 'settle_verifications_total',
    help: 'Server-to-server verifications decided, by provider, trigger, verdict and outcome',
    labelNames: ['provider', 'trigger', 'verdict', 'outcome'] as const,
    registers: [this.registry],
  });

  /**
   * Transactions moved to manual review (docs/state-machine.md, decision 6), by the verdict of
   * the final re-check. Alert on any increase: a person must look.
   */
  readonly manualReviews = new Counter({
    name: 'settle_manual_review_total',
    help: 'Transactions moved to manual review after the automatic re-checks, by last verdict',
    labelNames: ['last_verdict'] as const,
    registers: [this.registry],
  });
}

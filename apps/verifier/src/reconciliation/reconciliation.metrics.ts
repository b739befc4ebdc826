import { Counter, Gauge, Registry } from 'prom-client';

/** Prometheus metrics of reconciliation runs (docs/observability.md), served with the verifier's. */
export class ReconciliationMetrics {
  /** Runs ended, by provider, kind (incremental, daily, on_demand) and status (completed, failed). */
  readonly runs: Counter<'provider' | 'kind' | 'status'>;
  /** Provider transactions compared, by provider and class (out_of_scope and too_recent included). */
  readonly transactions: Counter<'provider' | 'class'>;
  /** Exceptions raised, by provider and class (live duplicate charges included). Alert on `settled_not_successful`. */
  readonly raised: Counter<'provider' | 'class'>;
  /** Exceptions open now, by class (refreshed every tick). */
  readonly open: Gauge<'class'>;

  /** @param registry - the app's registry, where these are registered; a new empty one by default. */
  constructor(readonly registry: Registry = new Registry()) {
    this.runs = new Counter({
      name: 'settle_reconciliation_runs_total',
      help: 'Reconciliation runs ended, by provider, kind and status',
      labelNames: ['provider', 'kind', 'status'] as const,
      registers: [registry],
    });
    this.transactions = new Counter({
      name: 'settle_reconciliation_transactions_total',
      help: 'Provider transactions compared by reconciliation runs, by provider and class',
      labelNames: ['provider', 'class'] as const,
      registers: [registry],
    });
    this.raised = new Counter({
      name: 'settle_reconciliation_exceptions_raised_total',
      help: 'Reconciliation exceptions raised, by provider and class',
      labelNames: ['provider', 'class'] as const,
      registers: [registry],
    });
    this.open = new Gauge({
      name: 'settle_reconciliation_exceptions_open',
      help: 'Reconciliation exceptions open, by class',
      labelNames: ['class'] as const,
      registers: [registry],
    });
  }
}

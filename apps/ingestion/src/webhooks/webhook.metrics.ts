import { Counter, Registry } from 'prom-client';

/** Prometheus metrics of the ingestion app, served at `GET /metrics`. */
export class IngestionMetrics {
  readonly registry = new Registry();

  /**
   * Webhooks by provider and outcome: `accepted`, `duplicate`, `rejected` (bad or missing
   * signature, stale timestamp, wrong callback token or source), `malformed`, `not_durable`.
   */
  readonly webhooks = new Counter({
    name: 'settle_webhooks_total',
    help: 'Provider webhooks received, by provider and outcome',
    labelNames: ['provider', 'outcome', 'reason'] as const,
    registers: [this.registry],
  });
}

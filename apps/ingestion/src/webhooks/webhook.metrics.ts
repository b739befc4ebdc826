import { Counter, Registry } from 'prom-client';

/** Prometheus metrics of the ingestion app, served at `GET /metrics`. */
export class IngestionMetrics {
  /**
   * Webhooks by provider and outcome: `accepted`, `duplicate`, `rejected` (bad or missing
   * signature, stale timestamp, wrong callback token or source), `malformed`, `not_durable`.
   */
  readonly webhooks: Counter<'provider' | 'outcome' | 'reason'>;

  /**
   * Verification requests of ingestion's triggers, by trigger and outcome: `requested`
   * (published), `coalesced` (reason `pending`: the trigger's previous request is unanswered;
   * `recent`: a provider answer younger than `SETTLE_VERIFY_COALESCE_MS` is in hand), `duplicate`
   * (a rejected webhook body that already asked). docs/webhooks.md, "Spoofed webhooks and
   * repeated verifications".
   */
  readonly verificationRequests: Counter<'trigger' | 'outcome' | 'reason'>;

  /**
   * Commands of the checkout commands topic, by command and outcome (`accepted`, `duplicate`,
   * `refused` with its `code`, `verified`): docs/api.md, "Two ways in".
   */
  readonly checkoutCommands: Counter<'command' | 'outcome' | 'code'>;

  /** @param registry - the app's registry (`createMetricsRegistry`), where these are registered; a new empty one by default. */
  constructor(readonly registry: Registry = new Registry()) {
    this.webhooks = new Counter({
      name: 'settle_webhooks_total',
      help: 'Provider webhooks received, by provider and outcome',
      labelNames: ['provider', 'outcome', 'reason'] as const,
      registers: [registry],
    });
    this.verificationRequests = new Counter({
      name: 'settle_verification_requests_total',
      help: 'Verification requests of ingestion, by trigger and outcome (requested, coalesced, duplicate)',
      labelNames: ['trigger', 'outcome', 'reason'] as const,
      registers: [registry],
    });
    this.checkoutCommands = new Counter({
      name: 'settle_checkout_commands_total',
      help: 'Checkout commands answered from the commands topic, by command, outcome and refusal code',
      labelNames: ['command', 'outcome', 'code'] as const,
      registers: [registry],
    });
  }
}

import type { ProviderName } from '@settle/domain';
import { CircuitState } from 'cockatiel';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { ProviderCallError } from './provider.port.js';

/** The breaker states, as the `state` label names them (cockatiel's `CircuitState`). */
export const CIRCUIT_STATE_LABELS: Readonly<Record<CircuitState, string>> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half_open',
  [CircuitState.Isolated]: 'isolated',
};

/**
 * What one provider HTTP call is, for its latency: `verify` (the verification query: Paystack's,
 * Stripe's and Flutterwave's `GET`, M-Pesa's STK query), `token` (M-Pesa's OAuth token) or `list`
 * (one page of a provider's transaction list, for reconciliation).
 */
export type ProviderOperation = 'verify' | 'token' | 'list';

/** The outcome of one provider HTTP call: `answered` (an answer the adapter reads), else the failure's `PROVIDER.*` code. */
export type CallOutcome = string;

/** Called once per provider HTTP call when it ended, with its outcome and duration in seconds. */
export type CallObserver = (outcome: CallOutcome, seconds: number) => void;

/** Upper bounds of the provider latency buckets, seconds: 10 ms to 10 s. */
export const PROVIDER_DURATION_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Prometheus metrics of the provider adapters, registered on the verifier's registry: each HTTP
 * call's latency, the retries, and each provider's circuit-breaker state (docs/providers.md,
 * "Retries and circuit breakers"; docs/observability.md). Labels are bounded: provider names,
 * operations, `PROVIDER.*` codes and breaker states.
 */
export class ProviderMetrics {
  /** Seconds of one HTTP call to a provider (one attempt; a retried verification makes several), by provider, operation and outcome. */
  readonly callDuration: Histogram<'provider' | 'operation' | 'outcome'>;

  /** Attempts retried after a retryable failure (502, 503, 504, 429, time-out, connection failure), by provider and the failure's code. */
  readonly retries: Counter<'provider' | 'reason'>;

  /**
   * Each provider's circuit-breaker state in this instance, one series per state: 1 for the
   * current one, 0 for the others (`closed`, `open`, `half_open`, `isolated`).
   */
  readonly circuitState: Gauge<'provider' | 'state'>;

  constructor(registry: Registry) {
    this.callDuration = new Histogram({
      name: 'settle_provider_request_duration_seconds',
      help: 'Duration of one HTTP call to a payment provider, seconds, by provider, operation (verify, token, list) and outcome (answered or the failure code)',
      labelNames: ['provider', 'operation', 'outcome'] as const,
      buckets: PROVIDER_DURATION_BUCKETS,
      registers: [registry],
    });
    this.retries = new Counter({
      name: 'settle_provider_retries_total',
      help: 'Provider calls retried after a retryable failure, by provider and failure code',
      labelNames: ['provider', 'reason'] as const,
      registers: [registry],
    });
    this.circuitState = new Gauge({
      name: 'settle_provider_circuit_state',
      help: "A provider's circuit-breaker state in this instance: 1 for the current state (closed, open, half_open, isolated), 0 for the others",
      labelNames: ['provider', 'state'] as const,
      registers: [registry],
    });
  }

  /** The observer of one provider's calls of one operation, for `callProvider`. */
  callObserver(provider: ProviderName, operation: ProviderOperation): CallObserver {
    return (outcome, seconds) => this.callDuration.observe({ provider, operation, outcome }, seconds);
  }

  /** Counts one retry of a provider's call, by the failure's code (`UNKNOWN` for anything but a {@link ProviderCallError}). */
  retried(provider: ProviderName, error: unknown): void {
    this.retries.inc({ provider, reason: error instanceof ProviderCallError ? error.code : 'UNKNOWN' });
  }

  /** Sets a provider's breaker state: 1 on its series, 0 on the other states'. */
  circuit(provider: ProviderName, state: CircuitState): void {
    const current = CIRCUIT_STATE_LABELS[state];
    for (const label of Object.values(CIRCUIT_STATE_LABELS)) this.circuitState.set({ provider, state: label }, label === current ? 1 : 0);
  }
}

import type { Secret } from '@settle/config';
import type { ProviderName, ProviderVerdict } from '@settle/domain';
import type { Dispatcher } from 'undici';
import { callProvider, providerAgent, providerPolicy, verifyThrough, type BackoffSettings, type BreakerSettings, type ProviderPolicy } from './http.js';
import { listThrough, type HttpAnswer } from './http.js';
import type { CallObserver, ProviderMetrics } from './metrics.js';
import type { PaymentProvider, VerificationRequest } from './provider.port.js';

/** Options every Bearer-authenticated REST provider takes. */
export interface BearerProviderOptions {
  /** API root (a trailing `/` is ignored). */
  baseUrl: string;
  /** Secret key sent as `Authorization: Bearer`; never logged. */
  secretKey: Secret;
  /** Per-call time-out, milliseconds. */
  timeoutMs: number;
  retry: BackoffSettings;
  /** Circuit breaker; missing fields take `DEFAULT_BREAKER_SETTINGS` (5 failures, 5 000 ms). */
  breaker?: Partial<BreakerSettings> | undefined;
  /** Connection pool; a keep-alive `providerAgent()` when absent. */
  dispatcher?: Dispatcher;
  /** Where calls' latency (operation `verify`), retries and the breaker's state are reported; nothing when absent. */
  metrics?: ProviderMetrics | undefined;
  /**
   * Rows asked for per page of the provider's transaction, refund and dispute lists where the
   * caller chooses (Paystack's `perPage`, Stripe's `limit`); each adapter's default when absent
   * (docs/reconciliation.md, "Providers' lists", "Refund and dispute lists").
   */
  listPageSize?: number | undefined;
}

/**
 * A provider verified by one `GET` with `Authorization: Bearer <secret key>` (Paystack,
 * Stripe, Flutterwave): server to server, with a per-call time-out, retries with exponential
 * backoff and full jitter for 502, 503, 504, 429 (honouring `Retry-After`), time-outs and
 * connection failures, inside this instance's own circuit breaker. Subclasses give the path,
 * extra headers and the pure answer-to-verdict mapping.
 */
export abstract class BearerGetProvider<
  O extends BearerProviderOptions = BearerProviderOptions,
  N extends ProviderName = ProviderName,
> implements PaymentProvider {
  protected readonly dispatcher: Dispatcher;
  /** Retries inside a circuit breaker; the breaker is this instance's own. */
  readonly policy: ProviderPolicy;
  /** Observes each verify call's latency, when metrics are given. */
  private readonly observeVerify: CallObserver | undefined;

  /**
   * @param name - the provider's name (a subclass passes its own), which labels its metrics.
   * @param options - connection, time-out, retry, breaker and metrics settings.
   */
  constructor(
    readonly name: N,
    protected readonly options: O,
  ) {
    this.dispatcher = options.dispatcher ?? providerAgent();
    this.policy = providerPolicy({
      retry: options.retry,
      breaker: options.breaker,
      metrics: options.metrics ? { provider: this.name, metrics: options.metrics } : undefined,
    });
    this.observeVerify = options.metrics?.callObserver(this.name, 'verify');
  }

  /** Path and query of the verify call, from the API root (starts with `/`). */
  protected abstract path(request: VerificationRequest): string;

  /** Maps one HTTP answer to a verdict (pure). */
  protected abstract verdict(status: number, body: string): ProviderVerdict;

  /** Headers besides Authorization and Accept. */
  protected extraHeaders(): Record<string, string> {
    return {};
  }

  /**
   * Queries the provider and maps the answer. Never rejects for provider or network failures:
   * those resolve as `unreachable` (`PROVIDER.CIRCUIT_OPEN` while the breaker is open).
   */
  async verify(request: VerificationRequest): Promise<ProviderVerdict> {
    const url = `${this.options.baseUrl.replace(/\/$/, '')}${this.path(request)}`;
    const headers = { authorization: `Bearer ${this.options.secretKey.reveal()}`, accept: 'application/json', ...this.extraHeaders() };
    return verifyThrough(
      this.policy,
      () => callProvider(this.dispatcher, url, { method: 'GET', headers, timeoutMs: this.options.timeoutMs, observe: this.observeVerify }),
      (answer) => this.verdict(answer.status, answer.body),
    );
  }

  /** Closes the connection pool. */
  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  /**
   * One page of the provider's transaction list (`TransactionLister.listPage` of a subclass):
   * `GET {baseUrl}{pathAndQuery}` with the same credentials, headers, time-out, retries and
   * breaker as {@link verify}, its latency reported as operation `list`. `read` maps the answer
   * (pure); what it throws as retryable is retried like a 502.
   *
   * @param pathAndQuery - path and query from the API root (starts with `/`).
   * @throws ProviderCallError once retries are spent, or as `read` throws it (see `listThrough`).
   */
  protected listGet<T>(pathAndQuery: string, read: (answer: HttpAnswer) => T): Promise<T> {
    const url = `${this.options.baseUrl.replace(/\/$/, '')}${pathAndQuery}`;
    const headers = { authorization: `Bearer ${this.options.secretKey.reveal()}`, accept: 'application/json', ...this.extraHeaders() };
    const observe = this.options.metrics?.callObserver(this.name, 'list');
    return listThrough(this.policy, async () =>
      read(await callProvider(this.dispatcher, url, { method: 'GET', headers, timeoutMs: this.options.timeoutMs, observe })),
    );
  }
}

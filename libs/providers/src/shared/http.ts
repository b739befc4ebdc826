import type { ProviderName, ProviderVerdict } from '@settle/domain';
import {
  circuitBreaker,
  ExponentialBackoff,
  fullJitterGenerator,
  handleWhen,
  isBrokenCircuitError,
  isIsolatedCircuitError,
  retry,
  SamplingBreaker,
  wrap,
  type CircuitBreakerPolicy,
  type IBackoff,
  type IBackoffFactory,
  type IRetryBackoffContext,
  type RetryPolicy,
} from 'cockatiel';
import { Agent, errors, request, type Dispatcher } from 'undici';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';
import { endSpan, failSpan, outgoingTraceHeaders, retryAfterFromAnswer, SpanKind, startSpan } from '@settle/platform';
import type { CallObserver, ProviderMetrics } from './metrics.js';
import { ProviderCallError } from './provider.port.js';

/** Backoff for provider queries, milliseconds. */
export interface BackoffSettings {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Ceiling of the first jittered delay, milliseconds. */
  initialDelayMs: number;
  /** Largest delay between two attempts, milliseconds; also caps a `Retry-After` hint. */
  maxDelayMs: number;
}

/**
 * Circuit breaker of one provider (cockatiel `SamplingBreaker`): it judges the provider by the
 * share of verifications that failed over a sliding window, as resilience4j's failure-rate
 * breaker does, so a provider that is down opens it within the window's first samples while a
 * minority of references that keep failing (a provider bug on some transactions, a storm of
 * 502s on some checkouts) never shuts out the rest (docs/reliability.md, finding 7). One
 * verification counts as one sample, whatever number of retries it made: the breaker wraps the
 * retry policy.
 */
export interface BreakerSettings {
  /**
   * Share of the window's verifications that ended on a retryable failure (502, 503, 504, 429,
   * time-out, connection failure, after all retries) above which the circuit opens; strictly
   * between 0 and 1.
   */
  failureRatio: number;
  /** The sliding window the share is taken over, milliseconds. */
  windowMs: number;
  /** Fewest verifications in the window before the circuit can open at all: a quiet provider is not judged on a handful. */
  minimumVerifications: number;
  /** How long the circuit stays open before one probe verification is let through, milliseconds. */
  halfOpenAfterMs: number;
}

/**
 * Breaker defaults: open when more than half of at least 10 verifications in the last 10 s
 * failed, probe again after 5 000 ms. A provider that is down at 100 verifications per second
 * therefore opens it within about 0.1 s and then gets one probe every 5 s; a provider that is
 * back is queried again within 5 s of it answering (docs/reliability.md: recovery within 10 s
 * of a fault ending).
 */
export const DEFAULT_BREAKER_SETTINGS: Readonly<BreakerSettings> = Object.freeze({
  failureRatio: 0.5,
  windowMs: 10_000,
  minimumVerifications: 10,
  halfOpenAfterMs: 5_000,
});

/** Resilience settings of one provider adapter: retries and the circuit breaker around them. */
export interface ProviderPolicySettings {
  retry: BackoffSettings;
  /** Missing fields take {@link DEFAULT_BREAKER_SETTINGS}. */
  breaker?: Partial<BreakerSettings> | undefined;
  /** Where the policy reports its retries and its breaker's state, under the provider's name; nothing when absent. */
  metrics?: { provider: ProviderName; metrics: ProviderMetrics } | undefined;
}

/** Verdict cause when the provider's circuit is open: the call was not made. */
export const CIRCUIT_OPEN_CAUSE = 'PROVIDER.CIRCUIT_OPEN';

/** Whether an error is a {@link ProviderCallError} marked retryable (the only failures retried or counted by the breaker). */
export function isRetryableProviderError(error: unknown): error is ProviderCallError {
  return error instanceof ProviderCallError && error.retryable;
}

/** The `Retry-After` hint carried by the failure a retry is about to back off from, milliseconds. */
function retryAfterOf(context: IRetryBackoffContext<unknown>): number | undefined {
  const failure = context.result;
  return 'error' in failure && failure.error instanceof ProviderCallError ? failure.error.retryAfterMs : undefined;
}

function honouringStep(jittered: IBackoff<unknown>, context: IRetryBackoffContext<unknown>, maxDelayMs: number): IBackoff<IRetryBackoffContext<unknown>> {
  const hinted = retryAfterOf(context);
  return {
    duration: hinted === undefined ? jittered.duration : Math.min(hinted, maxDelayMs),
    next: (nextContext) => honouringStep(jittered.next(nextContext), nextContext, maxDelayMs),
  };
}

/**
 * Backoff of provider retries: exponential with full jitter (a random delay in
 * [0, min(maxDelayMs, initialDelayMs x 2^n)), cockatiel `fullJitterGenerator`), except that
 * when the failed answer carried `Retry-After` (429, 502, 503, 504) the delay is that hint,
 * capped at `maxDelayMs` so one answer cannot stall a verification for long. All durations
 * are in milliseconds.
 */
export function providerBackoff(settings: BackoffSettings): IBackoffFactory<IRetryBackoffContext<unknown>> {
  const exponential = new ExponentialBackoff({
    initialDelay: settings.initialDelayMs,
    maxDelay: settings.maxDelayMs,
    generator: fullJitterGenerator,
  });
  return { next: (context) => honouringStep(exponential.next(), context, settings.maxDelayMs) };
}

/**
 * Retry policy for provider calls (cockatiel): {@link providerBackoff}, only for errors
 * marked retryable (502, 503, 504, 429, time-outs, connection resets; docs/spec.md, sections 3 and 7:
 * "retried with backoff and jitter"). `maxAttempts` counts the first attempt.
 */
export function providerRetryPolicy(settings: BackoffSettings): RetryPolicy {
  return retry(handleWhen(isRetryableProviderError), {
    maxAttempts: Math.max(0, settings.maxAttempts - 1),
    backoff: providerBackoff(settings),
  });
}

/**
 * Circuit breaker of one provider (cockatiel `circuitBreaker` with a `SamplingBreaker`): opens
 * when, over the last `windowMs`, at least `minimumVerifications` verifications were made and
 * more than `failureRatio` of them ended on a retryable failure; lets one probe through after
 * `halfOpenAfterMs` milliseconds and closes again on its success (its samples start afresh).
 * Non-retryable answers (a 401, a 400 "not found") say the provider is up and count as
 * successes.
 *
 * @param settings - missing fields take {@link DEFAULT_BREAKER_SETTINGS}.
 * @throws RangeError when `failureRatio` is not strictly between 0 and 1 (cockatiel's check).
 */
export function providerCircuitBreaker(settings: Partial<BreakerSettings> = {}): CircuitBreakerPolicy {
  const resolved = { ...DEFAULT_BREAKER_SETTINGS, ...settings };
  return circuitBreaker(handleWhen(isRetryableProviderError), {
    halfOpenAfter: resolved.halfOpenAfterMs,
    breaker: new SamplingBreaker({
      threshold: resolved.failureRatio,
      duration: resolved.windowMs,
      // cockatiel takes the minimum as a rate over the window and refuses to open while the
      // window holds fewer than `window * rate` samples; half a sample below the count keeps
      // floating-point rounding from asking for one more.
      minimumRps: (resolved.minimumVerifications - 0.5) / (resolved.windowMs / 1000),
    }),
  });
}

/** The resilience policy of one provider adapter: a circuit breaker wrapped around retries. */
export interface ProviderPolicy {
  /** The provider's breaker; its `state` and events are there for health checks and tests. */
  readonly breaker: CircuitBreakerPolicy;
  readonly retry: RetryPolicy;
  /**
   * Runs one provider operation: through the breaker (which throws cockatiel's
   * `BrokenCircuitError` without calling when open), then retries.
   */
  execute<T>(operation: () => Promise<T>): Promise<T>;
}

/**
 * Builds the shared policy every adapter uses: `wrap(breaker, retry)`, so a provider that is
 * down is not hammered (each verification is one breaker sample; once the circuit is open,
 * verifications resolve at once as unreachable `PROVIDER.CIRCUIT_OPEN`). Build one per
 * adapter instance: the breaker is per provider. With `settings.metrics`, every retry is
 * counted and every change of the breaker's state set on its gauge (`closed` from the start).
 */
export function providerPolicy(settings: ProviderPolicySettings): ProviderPolicy {
  const breaker = providerCircuitBreaker(settings.breaker);
  const retryPolicy = providerRetryPolicy(settings.retry);
  const combined = wrap(breaker, retryPolicy);
  if (settings.metrics) {
    const { provider, metrics } = settings.metrics;
    metrics.circuit(provider, breaker.state);
    breaker.onStateChange((state) => metrics.circuit(provider, state));
    retryPolicy.onRetry((event) => metrics.retried(provider, 'error' in event ? event.error : undefined));
  }
  return {
    breaker,
    retry: retryPolicy,
    execute: (operation) => combined.execute(() => operation()),
  };
}

/**
 * Runs a provider operation through its policy and turns failures into verdicts, so that
 * {@link PaymentProvider.verify} never rejects for provider or network failures:
 * - a {@link ProviderCallError} (after retries): unreachable with its code;
 * - an open (or isolated) circuit: unreachable {@link CIRCUIT_OPEN_CAUSE};
 * - anything else (a programming error) is rethrown.
 *
 * @param toVerdict - pure mapping of the operation's answer (e.g. `stripeVerdict`).
 */
export async function verifyThrough<T>(
  policy: ProviderPolicy,
  operation: () => Promise<T>,
  toVerdict: (answer: T) => ProviderVerdict,
): Promise<ProviderVerdict> {
  let answer: T;
  try {
    answer = await policy.execute(operation);
  } catch (error) {
    if (error instanceof ProviderCallError) return { kind: 'unreachable', cause: error.code };
    if (isBrokenCircuitError(error) || isIsolatedCircuitError(error)) return { kind: 'unreachable', cause: CIRCUIT_OPEN_CAUSE };
    throw error;
  }
  return toVerdict(answer);
}

/** A keep-alive connection pool for one provider. */
export function providerAgent(): Agent {
  return new Agent({ keepAliveTimeout: 10_000, connections: 64 });
}

/** An HTTP answer, body already read as text. */
export interface HttpAnswer {
  status: number;
  body: string;
}

/** Answers thrown as retryable: the provider (or a proxy before it) is overloaded or down. */
const RETRYABLE_STATUSES: ReadonlyMap<number, string> = new Map([
  [429, 'PROVIDER.RATE_LIMITED'],
  [502, 'PROVIDER.BAD_GATEWAY'],
  [503, 'PROVIDER.SERVICE_UNAVAILABLE'],
  [504, 'PROVIDER.GATEWAY_TIMEOUT'],
]);

/** The tracer of the provider calls' client spans. */
export const PROVIDERS_TRACER = '@settle/providers';

/**
 * The attributes of a provider call's client span (OpenTelemetry's HTTP client conventions):
 * the URL without its query or credentials (a query may name a reference, never a secret, but
 * is left out all the same), the server's address and port.
 */
function clientSpanAttributes(url: string, method: string): Record<string, string | number> {
  const parsed = new URL(url);
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
  return {
    [ATTR_HTTP_REQUEST_METHOD]: method,
    [ATTR_URL_FULL]: `${parsed.protocol}//${parsed.host}${parsed.pathname}`,
    [ATTR_SERVER_ADDRESS]: parsed.hostname,
    [ATTR_SERVER_PORT]: port,
  };
}

/**
 * Sends one request with a per-call time-out and reads the body, mapping transport failures
 * to {@link ProviderCallError}. Each call is a client span (`GET`, `POST`; a child of the active
 * context: the verification's span) whose W3C `traceparent` goes out with the request
 * (docs/observability.md, "Traces"); a retry is a span of its own.
 * - 429, 502, 503 and 504 are thrown as retryable errors carrying the answer's
 *   `Retry-After` delay (seconds or HTTP date, resolved against the answer's `Date` header
 *   when present), which the retry policy honours;
 * - time-outs (`timeoutMs`, milliseconds, for headers and body) and connection failures
 *   are thrown as retryable;
 * - every other status is returned for the adapter to read.
 *
 * `init.observe`, when given, is called once the call ended: `answered` for an answer returned,
 * else the thrown error's code, with the call's duration in seconds.
 *
 * @throws ProviderCallError as above; its message names no secret.
 */
export async function callProvider(
  dispatcher: Dispatcher,
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string; timeoutMs: number; observe?: CallObserver | undefined },
): Promise<HttpAnswer> {
  const started = performance.now();
  try {
    const answer = await sendProviderRequest(dispatcher, url, init);
    init.observe?.('answered', (performance.now() - started) / 1000);
    return answer;
  } catch (error) {
    init.observe?.(error instanceof ProviderCallError ? error.code : 'PROVIDER.UNKNOWN', (performance.now() - started) / 1000);
    throw error;
  }
}

/** One request of {@link callProvider}, unobserved. @throws ProviderCallError */
async function sendProviderRequest(
  dispatcher: Dispatcher,
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string; timeoutMs: number },
): Promise<HttpAnswer> {
  let status: number;
  let body: string;
  let headers: Record<string, string | string[] | undefined>;
  const { span, context } = startSpan(PROVIDERS_TRACER, init.method, { kind: SpanKind.CLIENT, attributes: clientSpanAttributes(url, init.method) });
  try {
    const response = await request(url, {
      method: init.method,
      headers: { ...init.headers, ...outgoingTraceHeaders(context) },
      body: init.body ?? null,
      dispatcher,
      headersTimeout: init.timeoutMs,
      bodyTimeout: init.timeoutMs,
      signal: AbortSignal.timeout(init.timeoutMs),
    });
    status = response.statusCode;
    headers = response.headers;
    body = await response.body.text();
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    if (status >= 400) failSpan(span, String(status));
    span.end();
  } catch (error) {
    // undici's own time-outs by class; the AbortSignal.timeout above rejects with a DOMException
    // whose code is TIMEOUT_ERR (an abort of another origin, ABORT_ERR, is treated the same).
    if (
      error instanceof errors.HeadersTimeoutError ||
      error instanceof errors.BodyTimeoutError ||
      (error instanceof DOMException && (error.code === DOMException.TIMEOUT_ERR || error.code === DOMException.ABORT_ERR))
    ) {
      const timeout = new ProviderCallError('PROVIDER.TIMEOUT', true, `No answer within ${init.timeoutMs} ms`);
      endSpan(span, timeout);
      throw timeout;
    }
    const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : 'UNKNOWN';
    const failed = new ProviderCallError('PROVIDER.CONNECTION_FAILED', true, `Connection failed (${code})`);
    endSpan(span, failed);
    throw failed;
  }
  const retryableCode = RETRYABLE_STATUSES.get(status);
  if (retryableCode !== undefined) {
    const retryAfterMs = retryAfterFromAnswer(headers, Date.now());
    throw new ProviderCallError(retryableCode, true, `Provider answered ${status}`, retryAfterMs);
  }
  return { status, body };
}

/**
 * Runs one list call (`TransactionLister.listPage`) through its provider's policy, the same
 * breaker and retries as verification: retryable failures (429 with `Retry-After` honoured up to
 * the backoff cap, 502, 503, 504, time-outs, connection failures, and whatever the operation
 * itself throws as retryable) are retried, and once they are spent the last
 * {@link ProviderCallError} is thrown for the caller to keep its cursor and try later. Unlike
 * {@link verifyThrough}, failures are thrown, not turned into verdicts.
 *
 * @throws ProviderCallError as above; `PROVIDER.CIRCUIT_OPEN` (retryable) while the breaker is
 *   open, without a call; anything else (a programming error) as it was.
 */
export async function listThrough<T>(policy: ProviderPolicy, operation: () => Promise<T>): Promise<T> {
  try {
    return await policy.execute(operation);
  } catch (error) {
    if (isBrokenCircuitError(error) || isIsolatedCircuitError(error)) {
      throw new ProviderCallError(CIRCUIT_OPEN_CAUSE, true, "The provider's circuit is open: the list call was not made");
    }
    throw error;
  }
}

import { ExponentialBackoff, fullJitterGenerator, handleWhen, retry, type RetryPolicy } from 'cockatiel';
import { Agent, errors, request, type Dispatcher } from 'undici';
import { ProviderCallError } from './provider.port.js';

/** Backoff for provider queries, milliseconds. */
export interface BackoffSettings {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/**
 * Retry policy for provider calls (cockatiel): exponential backoff with full jitter, capped,
 * only for errors marked retryable (502, 504, 429, time-outs, connection resets; spec
 * sections 3 and 7: "retried with backoff and jitter").
 */
export function providerRetryPolicy(settings: BackoffSettings): RetryPolicy {
  return retry(
    handleWhen((error) => error instanceof ProviderCallError && error.retryable),
    {
      maxAttempts: Math.max(0, settings.maxAttempts - 1),
      backoff: new ExponentialBackoff({
        initialDelay: settings.initialDelayMs,
        maxDelay: settings.maxDelayMs,
        generator: fullJitterGenerator,
      }),
    },
  );
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

/**
 * Sends one request with a per-call time-out and reads the body, mapping transport failures
 * to {@link ProviderCallError}. 502, 504 and 429 answers are thrown as retryable errors;
 * every other status is returned for the adapter to read.
 */
export async function callProvider(
  dispatcher: Dispatcher,
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string; timeoutMs: number },
): Promise<HttpAnswer> {
  let status: number;
  let body: string;
  try {
    const response = await request(url, {
      method: init.method,
      headers: init.headers,
      body: init.body ?? null,
      dispatcher,
      headersTimeout: init.timeoutMs,
      bodyTimeout: init.timeoutMs,
      signal: AbortSignal.timeout(init.timeoutMs),
    });
    status = response.statusCode;
    body = await response.body.text();
  } catch (error) {
    if (
      error instanceof errors.HeadersTimeoutError ||
      error instanceof errors.BodyTimeoutError ||
      (error as { name?: string }).name === 'TimeoutError' ||
      (error as { name?: string }).name === 'AbortError'
    ) {
      throw new ProviderCallError('PROVIDER.TIMEOUT', true, `No answer within ${init.timeoutMs} ms`);
    }
    const code = (error as { code?: string }).code ?? 'UNKNOWN';
    throw new ProviderCallError('PROVIDER.CONNECTION_FAILED', true, `Connection failed (${code})`);
  }
  if (status === 502) throw new ProviderCallError('PROVIDER.BAD_GATEWAY', true, 'Provider answered 502');
  if (status === 504) throw new ProviderCallError('PROVIDER.GATEWAY_TIMEOUT', true, 'Provider answered 504');
  if (status === 429) throw new ProviderCallError('PROVIDER.RATE_LIMITED', true, 'Provider answered 429');
  return { status, body };
}

/**
 * What one delivery attempt to a customer endpoint ended with, and what it means
 * (docs/delivery.md, "Attempts"). Pure: the transport reports, these rules decide.
 */

/** How an attempt ended, as the transport saw it. */
export type AttemptResult =
  /** The endpoint answered with an HTTP status; `retryAfterMs` when it sent a readable `Retry-After`. */
  | { readonly kind: 'answered'; readonly status: number; readonly retryAfterMs?: number | undefined }
  /** No complete answer within the per-attempt time-out. */
  | { readonly kind: 'timeout' }
  /** The connection failed (refused, reset, DNS, TLS); `code` names it (for example `ECONNREFUSED`). */
  | { readonly kind: 'connection_error'; readonly code: string };

/**
 * What an attempt means for its delivery and its endpoint:
 * - `delivered`: a 2xx answer, the event was received (the endpoint is healthy again);
 * - `gone`: 410 Gone, the endpoint asks never to be called again, so it is disabled;
 * - `throttled`: 429 or 503, retried no earlier than the `Retry-After` it sent;
 * - `failed`: anything else (other statuses, redirects, a time-out, a connection error): retried on the schedule.
 */
export type AttemptOutcome = 'delivered' | 'gone' | 'throttled' | 'failed';

/**
 * Classifies an attempt (docs/delivery.md; Standard Webhooks and Svix treat 410 and 429 the
 * same way). Redirects are failures: Settle never follows one, so a moved endpoint is fixed by
 * its owner, not by a redirect that could point anywhere.
 *
 * @returns the outcome, and the `Retry-After` delay (milliseconds) that applies, else `null`.
 */
export function classifyAttempt(result: AttemptResult): { outcome: AttemptOutcome; retryAfterMs: number | null } {
  if (result.kind !== 'answered') return { outcome: 'failed', retryAfterMs: null };
  const { status } = result;
  if (status >= 200 && status < 300) return { outcome: 'delivered', retryAfterMs: null };
  if (status === 410) return { outcome: 'gone', retryAfterMs: null };
  if (status === 429 || status === 503) return { outcome: 'throttled', retryAfterMs: result.retryAfterMs ?? null };
  return { outcome: 'failed', retryAfterMs: null };
}

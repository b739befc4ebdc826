/**
 * When a failed delivery is tried again, and when it is given up (docs/delivery.md,
 * "Retry schedule"). Pure: time and randomness come in as arguments.
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Waits after each failed attempt, milliseconds: 5 s, 1 min, 5 min, 30 min, 2 h, 5 h, 10 h,
 * 10 h, then 14 h five times: 14 attempts in all over 97.6 hours. Shortened by the largest
 * jitter (20 %), the span is still 78 hours, so a delivery keeps being tried for more than
 * three days (Stripe retries for up to 3 days; Svix's schedule, with its +/-20 % jitter,
 * covers about 27 hours).
 */
export const DEFAULT_RETRY_WAITS_MS: readonly number[] = [
  5 * SECOND,
  1 * MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
  14 * HOUR,
  14 * HOUR,
  14 * HOUR,
  14 * HOUR,
  14 * HOUR,
];

/** How failed deliveries are retried. */
export interface RetryPolicy {
  /** Wait after the n-th failed attempt of a round (index n - 1), milliseconds; its length is the number of retries. */
  readonly waitsMs: readonly number[];
  /** Spread of each wait, as a fraction: 0.2 draws each wait from [0.8, 1.2] times its nominal length. */
  readonly jitterRatio: number;
  /** Longest `Retry-After` honoured, milliseconds: a larger one is cut to this. */
  readonly retryAfterMaxMs: number;
}

/** The default policy: {@link DEFAULT_RETRY_WAITS_MS}, +/-20 % jitter, `Retry-After` honoured up to 6 hours. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { waitsMs: DEFAULT_RETRY_WAITS_MS, jitterRatio: 0.2, retryAfterMaxMs: 6 * HOUR };

/**
 * The time of the next attempt after a failed one, or `null` when the delivery is exhausted
 * (it goes to the dead-letter topic and stays visible).
 *
 * The wait after the n-th failure of a round is `waitsMs[n - 1]` spread by the jitter; a
 * `Retry-After` (429 or 503) is a minimum: the wait is the larger of the two, the hint capped
 * at `retryAfterMaxMs`.
 *
 * @param failures - failed attempts of this round so far, this one included (1 after the first).
 * @param failedAt - when this attempt ended, epoch ms.
 * @param random - a number in [0, 1) drawing the jitter (injected: pure and testable).
 * @param retryAfterMs - the endpoint's `Retry-After`, milliseconds, or `null`.
 * @returns epoch ms of the next attempt, or `null`.
 */
export function nextAttemptAt(policy: RetryPolicy, failures: number, failedAt: number, random: number, retryAfterMs: number | null = null): number | null {
  const nominal = policy.waitsMs[failures - 1];
  if (nominal === undefined || failures < 1) return null;
  const jittered = Math.round(nominal * (1 + policy.jitterRatio * (2 * random - 1)));
  const hinted = retryAfterMs === null ? 0 : Math.min(Math.max(0, retryAfterMs), policy.retryAfterMaxMs);
  return failedAt + Math.max(jittered, hinted);
}

/** How many attempts a round makes at most: the first and one per wait. */
export function attemptsPerRound(policy: RetryPolicy): number {
  return policy.waitsMs.length + 1;
}

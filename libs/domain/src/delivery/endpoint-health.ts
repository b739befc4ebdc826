/**
 * When a customer endpoint is disabled (docs/delivery.md, "Endpoint health"). Pure.
 */

/** Default: an endpoint failing every attempt for five days is disabled (Svix does the same). */
export const DEFAULT_DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1_000;

/** Why an endpoint was disabled. */
export type DisabledReason = 'admin' | 'gone' | 'failing';

/**
 * Whether an endpoint must be disabled after an attempt: at once when it answered 410 Gone,
 * and when every attempt since `failingSince` failed for at least `disableAfterMs`.
 *
 * @param failingSince - first failure of the current unbroken run of failures, epoch ms, or `null` after a success.
 * @param now - epoch ms.
 * @returns the reason to disable, or `null` to keep it enabled.
 */
export function disableReason(
  outcome: 'delivered' | 'gone' | 'throttled' | 'failed',
  failingSince: number | null,
  now: number,
  disableAfterMs: number,
): Exclude<DisabledReason, 'admin'> | null {
  if (outcome === 'gone') return 'gone';
  if (outcome === 'delivered' || failingSince === null) return null;
  return now - failingSince >= disableAfterMs ? 'failing' : null;
}

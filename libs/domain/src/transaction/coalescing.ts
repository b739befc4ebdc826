import type { VerificationTrigger } from './types.js';

/**
 * Triggers whose verification requests are coalesced per reference: those anybody can repeat
 * at will, so that repeating them cannot multiply provider queries (the open issue
 * "Reliability under faults and abuse", unauthenticated amplification):
 * - `webhook_signature_rejected`: an unauthenticated, spoofable body naming a known reference;
 * - `customer_returned` (`POST /v1/checkouts/{reference}/verify`) and `attempt_check`
 *   (`POST /v1/checkouts/{reference}/attempts`): a client polling in a loop.
 *
 * Every other trigger is never coalesced: a correctly signed webhook (`webhook_received`, already
 * de-duplicated by the provider's event identity), the sweeper's schedule (`sweeper_*`) and a
 * manual reconciliation (`admin_reconciliation`) always publish their request, so no flood of
 * the triggers above can hold them back.
 */
export const COALESCED_TRIGGERS: ReadonlySet<VerificationTrigger> = new Set<VerificationTrigger>([
  'webhook_signature_rejected',
  'customer_returned',
  'attempt_check',
]);

/** Whether requests of this trigger are coalesced (see {@link COALESCED_TRIGGERS}). */
export function isCoalescedTrigger(trigger: VerificationTrigger): boolean {
  return COALESCED_TRIGGERS.has(trigger);
}

/**
 * Whether anybody can cause a trigger without credentials: a webhook whose signature was
 * rejected (`webhook_signature_rejected`). Such a request, and an answer to it that changed
 * nothing, are not activity for the sweeper (`activityOf` in apps/sweeper), so a stream of spoofed
 * webhooks neither postpones the sweeper's checks nor resets its re-check count on the way to
 * manual review; an answer that changed the state still counts.
 */
export function isUnauthenticatedTrigger(trigger: VerificationTrigger): boolean {
  return trigger === 'webhook_signature_rejected';
}

/** How long a verification request holds back the next one of the same trigger, milliseconds. */
export interface CoalescingPolicy {
  /**
   * After a provider answer for the reference (of any trigger), requests of a coalesced
   * trigger add nothing for this long, milliseconds (`SETTLE_VERIFY_COALESCE_MS`). Default 5 000.
   */
  readonly windowMs: number;
  /**
   * Longest time an unanswered request counts as pending, milliseconds. A request the verifier
   * never answers (the transaction became terminal, the reference was unknown to it, the
   * message was dead-lettered) would otherwise hold the trigger back for ever; after this, one
   * new request may go out. Default 60 000 (over the verifier's worst case with the default
   * provider time-out and retries: 4 attempts of 5 s plus backoff).
   */
  readonly pendingLimitMs: number;
}

/** The defaults of {@link CoalescingPolicy}: a 5 s window, a request pending for at most 60 s. */
export const DEFAULT_COALESCING_POLICY: CoalescingPolicy = Object.freeze({ windowMs: 5_000, pendingLimitMs: 60_000 });

/** The latest request of one trigger for one reference. */
export interface PreviousVerificationRequest {
  /** The request's event id (the causation id its result carries). */
  readonly requestId: string;
  /** When it was published, epoch ms. */
  readonly requestedAt: number;
}

/** What is known when a verification is asked for (time comes in, no clock is read). */
export interface VerificationRequestContext {
  readonly trigger: VerificationTrigger;
  /** The latest request of this trigger for this reference, `null` when none was made. */
  readonly previous: PreviousVerificationRequest | null;
  /** When the latest provider answer for the reference was decided (any trigger), epoch ms; `null` when none yet. */
  readonly lastAnsweredAt: number | null;
  /** epoch ms */
  readonly now: number;
}

/**
 * The decision for one verification request:
 * - `request`: publish it;
 * - `coalesce`, `pending`: the previous request of the same trigger (`requestId`, made at
 *   `requestedAt`, epoch ms) is not answered yet; its answer will serve this one too;
 * - `coalesce`, `recent`: a provider answer for the reference, decided at `answeredAt`, is
 *   younger than the window; it is the answer.
 */
export type VerificationRequestDecision =
  | { readonly kind: 'request' }
  | { readonly kind: 'coalesce'; readonly reason: 'pending'; readonly requestId: string; readonly requestedAt: number }
  | { readonly kind: 'coalesce'; readonly reason: 'recent'; readonly answeredAt: number };

/** Why a request was coalesced, as the metrics label it. */
export type CoalescingReason = Extract<VerificationRequestDecision, { kind: 'coalesce' }>['reason'];

/**
 * Whether a verification request of a trigger adds anything, per reference (the rule of
 * docs/webhooks.md, "Spoofed webhooks and repeated verifications"):
 * 1. a trigger outside {@link COALESCED_TRIGGERS} is always requested;
 * 2. while the previous request of the same trigger is unanswered (no provider answer decided
 *    at or after it) and younger than `pendingLimitMs`, the new one is coalesced with it;
 * 3. while the latest provider answer (of any trigger) is younger than `windowMs`, the new one
 *    is coalesced with that answer;
 * 4. otherwise it is requested.
 * So per reference and trigger at most one request is outstanding, and after each answer at
 * most one more goes out per window, whatever the number of callers or ingestion instances.
 *
 * A time in the future (clocks of two instances slightly apart) counts as no time elapsed.
 */
export function decideVerificationRequest(
  context: VerificationRequestContext,
  policy: CoalescingPolicy = DEFAULT_COALESCING_POLICY,
): VerificationRequestDecision {
  if (!isCoalescedTrigger(context.trigger)) return { kind: 'request' };
  const { previous, lastAnsweredAt, now } = context;
  const answered = previous === null || (lastAnsweredAt !== null && lastAnsweredAt >= previous.requestedAt);
  if (previous !== null && !answered && now - previous.requestedAt < policy.pendingLimitMs) {
    return { kind: 'coalesce', reason: 'pending', requestId: previous.requestId, requestedAt: previous.requestedAt };
  }
  if (lastAnsweredAt !== null && now - lastAnsweredAt < policy.windowMs) {
    return { kind: 'coalesce', reason: 'recent', answeredAt: lastAnsweredAt };
  }
  return { kind: 'request' };
}

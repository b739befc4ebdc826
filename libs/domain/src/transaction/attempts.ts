import type { TransactionStatus } from './types.js';
import type { VerdictKind } from './verdict.js';

/** Every reason {@link decideNewAttempt} gives (the `/attempts` answer's `reason`). */
export const ATTEMPT_REASONS = [
  'ALREADY_PAID',
  'PREVIOUS_ATTEMPT_DECLINED',
  'NO_PAYMENT_FOUND',
  'PAYMENT_STILL_CLEARING',
  'IN_MANUAL_REVIEW',
  'PROVIDER_UNREACHABLE',
  'NOT_YET_KNOWN',
] as const;

/** Why a new payment attempt is or is not allowed. */
export type AttemptReason = (typeof ATTEMPT_REASONS)[number];

/** `allowed` is `null` when the answer is "not yet known". */
export interface AttemptDecision {
  readonly allowed: boolean | null;
  readonly reason: AttemptReason;
}

/**
 * docs/spec.md, section 1, rule 3: before a new payment attempt is allowed, the existing reference is
 * verified first. Given the state after that verification (and its verdict, when it
 * completed in time), decides whether the client may start a new attempt:
 * - settled: no, it is paid (a new attempt would charge twice);
 * - declined: yes, a retry is safe (docs/spec.md, section 3, FAILED_DECLINED);
 * - the provider has never seen a payment (not found) while PENDING: yes;
 * - still clearing: no, wait (USSD and bank transfers clear late);
 * - state mismatch or manual review: no, a person must look first;
 * - provider unreachable, or no answer within the wait: not yet known (`null`), ask again.
 *
 * @param status - the transaction's state after the verification, or before it when it did
 *   not complete in time.
 * @param verdict - the verdict of the fresh verification, `null` when it did not complete.
 */
export function decideNewAttempt(status: TransactionStatus, verdict: VerdictKind | null): AttemptDecision {
  switch (status) {
    case 'SETTLED_CONSENSUS':
      return { allowed: false, reason: 'ALREADY_PAID' };
    case 'FAILED_DECLINED':
      return { allowed: true, reason: 'PREVIOUS_ATTEMPT_DECLINED' };
    case 'STATE_MISMATCH':
    case 'MANUAL_REVIEW':
      return { allowed: false, reason: 'IN_MANUAL_REVIEW' };
    case 'RECOVERING':
      return { allowed: false, reason: 'PAYMENT_STILL_CLEARING' };
    case 'PENDING':
      if (verdict === 'not_found') return { allowed: true, reason: 'NO_PAYMENT_FOUND' };
      if (verdict === 'unreachable') return { allowed: null, reason: 'PROVIDER_UNREACHABLE' };
      if (verdict === 'clearing') return { allowed: false, reason: 'PAYMENT_STILL_CLEARING' };
      return { allowed: null, reason: 'NOT_YET_KNOWN' };
  }
}

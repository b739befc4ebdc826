import type { ProviderName } from '../transaction/types.js';
import type { ProviderVerdict } from '../transaction/verdict.js';

/**
 * A payment Settle was never told about (docs/unmatched-payments.md): the provider confirmed,
 * server to server, a cleared payment for a reference that has no checkout. Nothing is granted
 * on it (there are no expected terms to run the four checks against); it waits for a checkout
 * registered under its reference, or for an operator.
 */
export interface UnmatchedPayment {
  readonly provider: ProviderName;
  readonly reference: string;
  /** Minor units; `null` when the provider's answer does not carry it (M-Pesa). */
  readonly amountMinor: number | null;
  /** ISO 4217, upper case. */
  readonly currency: string;
  /** Payer identifiers as the provider reports them; empty when unconfirmed (M-Pesa). */
  readonly customer: { readonly email: string | null; readonly phone: string | null };
  /** Whether amount and customer come from the provider's answer; `false` for M-Pesa, shown as "amount and customer unverified". */
  readonly termsVerified: boolean;
  /** The provider's raw status (`success`, `succeeded`, `successful`, `0`). */
  readonly providerStatus: string;
  /** The provider's own id of the transaction, when it reports one. */
  readonly providerTransactionId: string | null;
  /** When the provider confirmed it, epoch ms. */
  readonly verifiedAt: number;
}

/**
 * What the verifier says about an unmatched payment candidate (`UnmatchedPaymentObserved.observation`):
 * a {@link CandidateAnswer}'s kind, `matched` once a checkout is registered under its reference, or
 * `closed` once an operator closed it with a reason.
 */
export const UNMATCHED_OBSERVATIONS = ['recorded', 'declined', 'not_found', 'unresolved', 'matched', 'closed'] as const;
/** One of {@link UNMATCHED_OBSERVATIONS}. */
export type UnmatchedObservation = (typeof UNMATCHED_OBSERVATIONS)[number];

/**
 * Why an operator closes an unmatched payment without a checkout (docs/unmatched-payments.md):
 * it was refunded at the provider, outside Settle; it was a test payment; or it is not Settle's
 * (another product on the same provider account).
 */
export const UNMATCHED_CLOSE_REASONS = ['refunded_outside_settle', 'test_payment', 'not_ours'] as const;
/** One of {@link UNMATCHED_CLOSE_REASONS}. */
export type UnmatchedCloseReason = (typeof UNMATCHED_CLOSE_REASONS)[number];

/**
 * What a provider answer about an unmatched payment candidate means:
 * - `recorded`: a cleared payment, to record as an unmatched payment;
 * - `declined`: a definitive failure: nothing was paid, the candidate is closed (counted only);
 * - `not_found`: the provider does not know the reference, after the grace period: nothing was
 *   paid through it (a webhook the provider cannot back), the candidate is closed (counted only);
 * - `unresolved`: still clearing, or the provider unreachable: checked again on the re-check
 *   schedule.
 */
export type CandidateAnswer =
  | { readonly kind: 'recorded'; readonly payment: UnmatchedPayment }
  | { readonly kind: 'declined'; readonly providerStatus: string }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'unresolved'; readonly verdict: 'clearing' | 'unreachable' };

/**
 * Maps the provider's verdict on a reference without a checkout to what Settle records
 * (docs/unmatched-payments.md, "What is recorded"). Pure.
 *
 * @param verifiedAt - when the answer arrived, epoch ms.
 */
export function candidateAnswer(provider: ProviderName, reference: string, verdict: ProviderVerdict, verifiedAt: number): CandidateAnswer {
  switch (verdict.kind) {
    case 'cleared': {
      const o = verdict.observation;
      const unconfirmed = new Set(o.unconfirmed ?? []);
      return {
        kind: 'recorded',
        payment: {
          provider,
          reference,
          amountMinor: unconfirmed.has('amount') ? null : o.amountMinor,
          currency: o.currency,
          customer: unconfirmed.has('customer') ? { email: null, phone: null } : { email: o.customer.email ?? null, phone: o.customer.phone ?? null },
          termsVerified: unconfirmed.size === 0,
          providerStatus: o.providerStatus,
          providerTransactionId: o.providerTransactionId ?? null,
          verifiedAt,
        },
      };
    }
    case 'declined':
      return { kind: 'declined', providerStatus: verdict.providerStatus };
    case 'not_found':
      return { kind: 'not_found' };
    case 'clearing':
    case 'unreachable':
      return { kind: 'unresolved', verdict: verdict.kind };
  }
}

import type { ConsensusCheck } from './consensus.js';
import type { Expectation, VerificationTrigger } from './types.js';
import type { ProviderObservation } from './verdict.js';

/** The checkout session was registered by an upstream checkout service. */
export interface CheckoutRegistered {
  readonly type: 'CheckoutRegistered';
  readonly data: { readonly expectation: Expectation; /** epoch ms */ readonly registeredAt: number };
}

/** The client reported the checkout finished; the wait for the webhook starts. */
export interface CheckoutCompleted {
  readonly type: 'CheckoutCompleted';
  readonly data: { readonly reference: string; /** epoch ms */ readonly completedAt: number };
}

/** Fields every verification outcome carries, for audit. */
interface OutcomeData {
  readonly reference: string;
  /** Identity of the verification that decided this outcome (idempotency key downstream). */
  readonly verificationId: string;
  readonly trigger: VerificationTrigger;
  /** epoch ms */
  readonly decidedAt: number;
}

/** PENDING/RECOVERING to SETTLED_CONSENSUS: funds cleared and all four checks passed. */
export interface TransactionSettled {
  readonly type: 'TransactionSettled';
  readonly data: OutcomeData & {
    readonly checks: readonly ConsensusCheck[];
    readonly observation: ProviderObservation;
  };
}

/** To FAILED_DECLINED: the provider reported a definitive failure. */
export interface PaymentDeclined {
  readonly type: 'PaymentDeclined';
  readonly data: OutcomeData & { readonly providerStatus: string; readonly reason: string };
}

/** PENDING to RECOVERING: the provider reports the payment still clearing. */
export interface PaymentHeldInReview {
  readonly type: 'PaymentHeldInReview';
  readonly data: OutcomeData & { readonly providerStatus: string };
}

/** To STATE_MISMATCH: funds cleared but at least one checklist point failed. */
export interface StateMismatchDetected {
  readonly type: 'StateMismatchDetected';
  readonly data: OutcomeData & {
    readonly checks: readonly ConsensusCheck[];
    readonly observation: ProviderObservation;
  };
}

/**
 * PENDING/RECOVERING to MANUAL_REVIEW: the sweeper's final automatic re-check (its limit)
 * still did not resolve the payment. The entitlement is unchanged (held in review, or locked);
 * a person must look, and an alert is raised.
 */
export interface ManualReviewRequired {
  readonly type: 'ManualReviewRequired';
  readonly data: OutcomeData & {
    /** Verdict of the final re-check: clearing, not_found or unreachable. */
    readonly lastVerdict: 'clearing' | 'not_found' | 'unreachable';
    /** The provider's raw status on that answer, `null` when it gave none. */
    readonly providerStatus: string | null;
  };
}

/** Outcome events: the ones the immutable ledger records. */
export type TransactionOutcome = TransactionSettled | PaymentDeclined | PaymentHeldInReview | StateMismatchDetected | ManualReviewRequired;

/** Every event of the transaction aggregate. */
export type TransactionEvent = CheckoutRegistered | CheckoutCompleted | TransactionOutcome;

/** Type names of {@link TransactionOutcome}. */
export const OUTCOME_EVENT_TYPES: ReadonlySet<TransactionEvent['type']> = new Set([
  'TransactionSettled',
  'PaymentDeclined',
  'PaymentHeldInReview',
  'StateMismatchDetected',
  'ManualReviewRequired',
]);

/** Narrows an event to a ledger outcome. */
export function isOutcome(event: TransactionEvent): event is TransactionOutcome {
  return OUTCOME_EVENT_TYPES.has(event.type);
}

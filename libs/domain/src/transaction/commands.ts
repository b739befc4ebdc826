import type { Expectation, VerificationTrigger } from './types.js';
import type { ProviderVerdict } from './verdict.js';

/** Register a checkout session (from `POST /v1/checkouts`). */
export interface RegisterCheckout {
  readonly type: 'RegisterCheckout';
  readonly data: { readonly expectation: Expectation; /** epoch ms */ readonly registeredAt: number };
}

/** The client finished the checkout (from `POST /v1/checkouts/{reference}/complete`). */
export interface CompleteCheckout {
  readonly type: 'CompleteCheckout';
  readonly data: { readonly reference: string; /** epoch ms */ readonly completedAt: number };
}

/** Apply one provider verification answer. Time and ids come in with the command. */
export interface RecordVerification {
  readonly type: 'RecordVerification';
  readonly data: {
    readonly reference: string;
    /** Deterministic id of this verification (derived from the trigger's event id). */
    readonly verificationId: string;
    readonly trigger: VerificationTrigger;
    readonly verdict: ProviderVerdict;
    /** epoch ms */
    readonly verifiedAt: number;
  };
}

/** Every command of the transaction aggregate. */
export type TransactionCommand = RegisterCheckout | CompleteCheckout | RecordVerification;

import type { MoneyMovementObservation, ProviderName } from '@settle/domain';
import type { PaymentProvider } from './provider.port.js';
import type { SkippedRow } from './transaction-list.port.js';

/**
 * What a provider's own objects say happened to a payment's money after it settled
 * (docs/state-machine.md, "The money after settlement"; each provider's endpoints in
 * docs/provider-facts.md, "Refunds, reversals and disputes"): read server to server, never taken
 * from a notification's body, and normalised into the domain's observations.
 */
export interface PaymentMovements {
  /** Every refund, dispute and reversal the provider holds for the payment, oldest first. */
  readonly observations: readonly MoneyMovementObservation[];
  /** Objects the adapter could not read (an unknown status, a currency that is no ISO 4217 code), each with why; absent when none. */
  readonly skipped?: readonly SkippedRow[] | undefined;
}

/**
 * A provider adapter that can read a payment's refunds, disputes and reversals. Read-only; the
 * calls go through the same retries and breaker as verification.
 */
export interface MoneyMovementReader {
  readonly name: ProviderName;
  /**
   * Reads what the provider holds about the money of one payment.
   *
   * @param reference - the payment's reference (Stripe: the PaymentIntent id).
   * @throws ProviderCallError once retries are spent (`retryable` says whether a later call may
   *   succeed), for a refused key (`PROVIDER.AUTH_REJECTED`) or an answer it cannot read
   *   (`PROVIDER.MALFORMED_RESPONSE`).
   */
  movementsOf(reference: string): Promise<PaymentMovements>;
}

/** Whether an adapter can read its provider's refunds and disputes. */
export function canReadMovements(provider: PaymentProvider): provider is PaymentProvider & MoneyMovementReader {
  return typeof (provider as Partial<MoneyMovementReader>).movementsOf === 'function';
}

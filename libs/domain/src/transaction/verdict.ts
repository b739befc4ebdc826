import type { CustomerIdentity } from './types.js';

/**
 * The facts a provider confirmed for a cleared payment, normalised across providers.
 * Amounts are integers in minor units whatever unit the provider answered in.
 */
export interface ProviderObservation {
  /** Reference as the provider reports it. */
  readonly reference: string;
  /** Amount the merchant asked for, minor units (Paystack: `requested_amount` when present). */
  readonly amountMinor: number;
  /**
   * Amount actually charged to the payer, minor units, when the provider reports it apart
   * (Paystack `amount` and Flutterwave `charged_amount` include fees passed to the customer).
   * Recorded for audit; a charge below {@link ProviderObservation.amountMinor} fails the amount
   * check.
   */
  readonly chargedAmountMinor?: number | undefined;
  /**
   * Amount the payment asked for, minor units, when the provider reports it apart from the
   * amount received (Stripe `amount` beside `amount_received`). Recorded for audit.
   */
  readonly requestedAmountMinor?: number | undefined;
  /** ISO 4217 code, upper case. */
  readonly currency: string;
  /** Payer identifiers as the provider reports them. */
  readonly customer: CustomerIdentity;
  /** The provider's own id of the transaction, for audit. */
  readonly providerTransactionId?: string | undefined;
  /** The provider's raw status string (`success`), for audit. */
  readonly providerStatus: string;
  /**
   * Terms the provider's answer does not carry, listed only when the query had no checkout to
   * take them from: M-Pesa's STK query confirms completion but no amount or phone, so a payment
   * with no initiation record (docs/unmatched-payments.md) has neither confirmed. The values of
   * the listed terms above are placeholders, never shown or compared as verified.
   */
  readonly unconfirmed?: readonly ('amount' | 'customer')[] | undefined;
}

/**
 * One normalised answer of a provider verification query (docs/spec.md, section 3 transition table
 * and section 7 error table):
 * - `cleared`: funds cleared; the observation still has to pass the consensus check;
 * - `declined`: a definitive failure (card declined, bad PIN);
 * - `clearing`: still in progress (USSD, bank transfer);
 * - `not_found`: the provider does not know the reference;
 * - `unreachable`: 502, 504, time-out or another answer that says nothing about the payment.
 */
export type ProviderVerdict =
  | { readonly kind: 'cleared'; readonly observation: ProviderObservation }
  | { readonly kind: 'declined'; readonly providerStatus: string; readonly reason: string }
  | { readonly kind: 'clearing'; readonly providerStatus: string }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'unreachable'; readonly cause: string };

/** Kind of a {@link ProviderVerdict}. */
export type VerdictKind = ProviderVerdict['kind'];

/** Every {@link VerdictKind}, for checking a verdict read from the wire. */
export const VERDICT_KINDS = ['cleared', 'declined', 'clearing', 'not_found', 'unreachable'] as const satisfies readonly VerdictKind[];
// Compile-time check that the list is complete: a kind added to ProviderVerdict but missing above fails here.
const _everyVerdictKindListed: [Exclude<VerdictKind, (typeof VERDICT_KINDS)[number]>] extends [never] ? true : never = true;

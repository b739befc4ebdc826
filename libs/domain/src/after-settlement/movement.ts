/**
 * What can happen to a payment's money after it settled (docs/state-machine.md, "The money after
 * settlement"): a refund the merchant issues, a reversal the payer's bank or the provider makes,
 * a dispute (a chargeback) the payer opens with their bank. As with a payment (docs/spec.md,
 * section 3), none of them is ever taken from a webhook body: a provider's notification is only a
 * trigger, and these observations are read server to server from the provider's own refund,
 * dispute or transaction object (docs/provider-facts.md, "Refunds, reversals and disputes") by
 * the provider adapters, which normalise the provider's statuses into the ones below.
 */

/** Kinds of money movement after settlement. */
export const MONEY_MOVEMENT_KINDS = ['refund', 'reversal', 'dispute'] as const;
/** One of {@link MONEY_MOVEMENT_KINDS}. */
export type MoneyMovementKind = (typeof MONEY_MOVEMENT_KINDS)[number];

/**
 * A refund's status as the provider adapter normalises it:
 * - `pending`: asked for, the money not yet returned (Stripe `pending` and `requires_action`,
 *   Paystack `pending` and `processing`): nothing is recorded yet;
 * - `succeeded`: the money is on its way back to the payer (Stripe `succeeded`, Paystack `processed`);
 * - `failed`: the refund did not happen, or was undone after it succeeded (Stripe `failed` and
 *   `canceled`, Paystack `failed`): the money stayed with the merchant.
 */
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
/** One of {@link REFUND_STATUSES}. */
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/**
 * A dispute's status as the provider adapter normalises it:
 * - `open`: the payer's bank asked for the money back and it is not decided (Stripe
 *   `warning_needs_response`, `needs_response`, `under_review` and their `warning_` forms);
 * - `won`: decided for the merchant, who keeps the money (Stripe `won`, `warning_closed`);
 * - `lost`: decided for the payer: the money went back (a chargeback; Stripe `lost`).
 */
export const DISPUTE_STATUSES = ['open', 'won', 'lost'] as const;
/** One of {@link DISPUTE_STATUSES}. */
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** What every observation of a provider's refund, reversal or dispute object carries. */
interface MovementObservationBase {
  /** The provider's own id of the object (a refund id, a dispute id, the reversal's transaction id). */
  readonly providerId: string;
  /** The payment the provider's object says it concerns, as Settle's reference (the transaction identity). */
  readonly paymentReference: string;
  /** Amount the object moves (refunded, reversed, disputed), an integer in minor units. */
  readonly amountMinor: number;
  /** ISO 4217 code as the provider reports it (compared after upper-casing). */
  readonly currency: string;
  /** The provider's raw status (`succeeded`, `processed`, `needs_response`), for audit. */
  readonly providerStatus: string;
  /** When the provider created the object, epoch ms. */
  readonly createdAt: number;
}

/** A provider's refund object, read server to server. */
export interface RefundObservation extends MovementObservationBase {
  readonly kind: 'refund';
  readonly status: RefundStatus;
}

/**
 * A reversal: the payment's money returned by the provider or the payer's bank, without a
 * refund the merchant asked for (a Paystack transaction whose status became `reversed`, an
 * M-Pesa reversal). Final once observed.
 */
export interface ReversalObservation extends MovementObservationBase {
  readonly kind: 'reversal';
}

/** A provider's dispute (chargeback) object, read server to server. */
export interface DisputeObservation extends MovementObservationBase {
  readonly kind: 'dispute';
  readonly status: DisputeStatus;
  /** The dispute's reason as the provider names it (`fraudulent`, `product_not_received`), `null` when none. */
  readonly reason: string | null;
}

/** One observation of a provider's object about a settled payment's money. */
export type MoneyMovementObservation = RefundObservation | ReversalObservation | DisputeObservation;

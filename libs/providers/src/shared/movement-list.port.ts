import type { ProviderName } from '@settle/domain';
import type { ListWindow, SkippedRow } from './transaction-list.port.js';

/**
 * One refund or dispute of a provider's own lists, as a reconciliation run reads it
 * (docs/reconciliation.md, "Refund and dispute lists"): only what names the payment to read
 * again. What the object says about the money (amount, status) is read afterwards by the
 * payment's own reader (`MoneyMovementReader.movementsOf`), never from a list row.
 */
export interface ListedMovement {
  /** Which list it comes from: a refund, or a dispute (a chargeback). */
  readonly kind: 'refund' | 'dispute';
  /** The provider's id of the refund or dispute (Stripe `re_...`, `dp_...`; Paystack and Flutterwave numbers, as text). */
  readonly id: string;
  /**
   * The reference of the payment it is about, as Settle knows the payment: Stripe the
   * PaymentIntent id (`payment_intent`), Paystack the transaction reference, Flutterwave the
   * `tx_ref` (docs/provider-facts.md, "Refunds, reversals and disputes").
   */
  readonly reference: string;
  /** When the provider created it, ms since the epoch. */
  readonly createdAtMs: number;
}

/** One page of a provider's refund or dispute list. */
export interface MovementPage {
  readonly movements: readonly ListedMovement[];
  /**
   * The opaque cursor of the next page, to store and pass back; `null` after the last page of the
   * last list. One cursor walks both lists, refunds first, then disputes. Durable: a run resumed
   * after a crash passes it again.
   */
  readonly next: string | null;
  /** How many rows the provider's answer held before normalisation (a row that could not be read is counted, not listed). */
  readonly rows: number;
  /** The rows of the answer that could not be read, each with why; absent when there were none. Counted in {@link MovementPage.rows}, never listed. */
  readonly skipped?: readonly SkippedRow[] | undefined;
  /** Rows the provider listed outside the window (a filter coarser than the window: Flutterwave's whole dates), not listed; absent when none. */
  readonly outsideWindow?: number | undefined;
}

/**
 * A provider's own lists of refunds and disputes by their creation time, paged
 * (docs/reconciliation.md, "Refund and dispute lists"; endpoints and parameters in
 * docs/provider-facts.md, "Refunds, reversals and disputes"). Read-only; the calls go through the
 * same retries and breaker as verification and the transaction list.
 */
export interface MovementLister {
  readonly name: ProviderName;
  /**
   * Fetches one page: the refunds created in the window, page after page, then the disputes.
   *
   * @param window - `fromMs` inclusive, `untilMs` exclusive, ms since the epoch (as the transaction list's).
   * @param cursor - `null` for the first refund page, else a previous page's {@link MovementPage.next}.
   * @throws ProviderCallError once retries are spent (`retryable` says whether a later run may
   *   succeed), for a refused key (`PROVIDER.AUTH_REJECTED`), an answer it cannot read
   *   (`PROVIDER.MALFORMED_RESPONSE`) or a cursor it never wrote (`PROVIDER.INVALID_CURSOR`).
   */
  listMovementPage(window: ListWindow, cursor: string | null): Promise<MovementPage>;
}

/** Whether an adapter can list its provider's refunds and disputes by creation time (M-Pesa cannot: docs/provider-facts.md). */
export function canListMovements<T extends object>(adapter: T): adapter is T & MovementLister {
  return typeof (adapter as Partial<MovementLister>).listMovementPage === 'function';
}

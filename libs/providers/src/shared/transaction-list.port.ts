import type { ProviderName, ProviderRecord } from '@settle/domain';
import type { PaymentProvider } from './provider.port.js';

/**
 * A reconciliation window (docs/reconciliation.md, "Runs"): the provider's transactions created
 * from `fromMs` (inclusive) to `untilMs` (exclusive), milliseconds since the epoch.
 */
export interface ListWindow {
  readonly fromMs: number;
  readonly untilMs: number;
}

/**
 * One transaction of a provider's list, normalised by its adapter: what the decision table
 * compares ({@link ProviderRecord}) and what the scope rule reads (`metadata`).
 */
export interface ListedTransaction extends ProviderRecord {
  /** Flat string metadata as the provider lists it (Paystack `metadata`, Stripe `metadata`, Flutterwave `meta`); absent when none. */
  readonly metadata?: Readonly<Record<string, string>> | undefined;
  /** When the provider created the transaction, ms since the epoch. */
  readonly createdAtMs: number;
  /** When it cleared (Paystack `paid_at`, ...), ms since the epoch; `null` when not paid or not listed. */
  readonly paidAtMs: number | null;
}

/** One page of a provider's list. */
export interface TransactionPage {
  readonly transactions: readonly ListedTransaction[];
  /**
   * The opaque cursor of the next page (a page number, Stripe's `starting_after` id), to store
   * and pass back; `null` on the last page. Durable: a run resumed after a crash passes it again.
   */
  readonly next: string | null;
  /** The provider's count of pages for the window when its answer gives one (Paystack `meta.pageCount`), for progress bars. */
  readonly totalPages?: number | undefined;
  /** How many rows the provider's answer held before normalisation (a row that could not be read is counted, not listed). */
  readonly rows: number;
  /**
   * The rows of the answer that could not be read (an unknown status, a currency that is no ISO
   * 4217 code, an amount that does not convert, no creation time), each with why, for the run's
   * log; absent when there were none. They are counted in {@link TransactionPage.rows}, never listed.
   */
  readonly skipped?: readonly SkippedRow[] | undefined;
  /**
   * Rows the provider listed outside the window, not listed here: a provider whose filter is
   * coarser than the window (Flutterwave's whole dates) or inclusive at its end; absent when none.
   */
  readonly outsideWindow?: number | undefined;
}

/** A row of a provider's list answer that was not listed, and why. */
export interface SkippedRow {
  /** Its position in the answer's rows, from 0. */
  readonly index: number;
  /** The provider's id of the row, when it had one. */
  readonly id?: string | undefined;
  /** Its reference, when it had one. */
  readonly reference?: string | undefined;
  /** Why it could not be read, in words (no personal data). */
  readonly reason: string;
}

/**
 * A provider's own list of transactions for a window, paged (docs/reconciliation.md; each
 * provider's endpoint, parameters and pagination in docs/provider-facts.md). Read-only. Adapters
 * retry transient failures (429 with `Retry-After`, 502, 503, 504, time-outs) with the same retry
 * and breaker settings as verification, inside the same breaker.
 */
export interface TransactionLister {
  readonly name: ProviderName;
  /**
   * Fetches one page.
   *
   * @param cursor - `null` for the first page, else a previous page's {@link TransactionPage.next}.
   * @throws ProviderCallError once retries are spent (`retryable` says whether a later run may
   *   succeed), or for an answer it cannot read (`PROVIDER.MALFORMED_RESPONSE`).
   */
  listPage(window: ListWindow, cursor: string | null): Promise<TransactionPage>;
}

/** Whether an adapter can list its provider's transactions (M-Pesa cannot: docs/provider-facts.md). */
export function canList(provider: PaymentProvider): provider is PaymentProvider & TransactionLister {
  return typeof (provider as Partial<TransactionLister>).listPage === 'function';
}

import { toMajorUnits } from './money.js';
import { json, type SandboxAnswer, type SandboxDispute, type SandboxRefund, type SandboxTransaction, type TransactionBook } from './sandbox.core.js';
import { DAY_MS, newestFirstSlice, queryInteger, queryText, type ListQuery } from './sandbox.list.js';

/**
 * Flutterwave's refund and chargeback objects in the sandbox (docs/provider-facts.md, "Refunds,
 * reversals and disputes", Flutterwave v3): `GET /v3/refunds` (a transaction's by `id=<transaction
 * id>`, or all by the dates `from`/`to`) and `GET /v3/chargebacks` (a transaction's by
 * `flw_ref=<the transaction's flw_ref>`, or all by dates), in Flutterwave's envelope, amounts in
 * the major unit and no currency on either object (as Flutterwave's). Flutterwave documents no v3
 * refund webhook and does not publish its chargeback webhook's payload, so the simulator sends
 * neither. Pure: the simulator checks the key and passes its book.
 */

/** Flutterwave's refund `status` for the sandbox's. */
const REFUND_STATUS: Record<SandboxRefund['status'], string> = { pending: 'pending', succeeded: 'completed', failed: 'failed' };

/** Flutterwave's chargeback `status` for the sandbox's: an open one is held (`initiated`); a lost one the merchant `accepted`. */
const CHARGEBACK_STATUS: Record<SandboxDispute['status'], string> = { open: 'initiated', won: 'won', lost: 'accepted' };

/** A refund as a row of Flutterwave's refund list. */
export function flutterwaveRefund(tx: SandboxTransaction, refund: SandboxRefund): Record<string, unknown> {
  return {
    id: Number(refund.id),
    account_id: 20937,
    tx_id: tx.id,
    flw_ref: `URF_${refund.id}`,
    wallet_id: 21009,
    amount_refunded: toMajorUnits(refund.amount, tx.currency),
    status: REFUND_STATUS[refund.status],
    destination: 'payment_source',
    meta: { source: 'availablebalance' },
    comment: 'Refund from the sandbox',
    settlement_id: 'NEW',
    transaction_id: tx.id,
    created_at: refund.createdAt,
  };
}

/** A dispute as a row of Flutterwave's chargeback list. */
export function flutterwaveChargeback(tx: SandboxTransaction, dispute: SandboxDispute): Record<string, unknown> {
  return {
    id: Number(dispute.id),
    amount: toMajorUnits(dispute.amount, tx.currency),
    flw_ref: tx.details?.flw_ref ?? null,
    status: CHARGEBACK_STATUS[dispute.status],
    stage: 'new',
    comment: dispute.reason,
    meta: { uploaded_proof: null, history: [] },
    due_date: new Date(Date.parse(dispute.createdAt) + 3 * 86_400_000).toISOString(),
    settlement_id: 'NEW',
    created_at: dispute.createdAt,
    transaction_id: tx.id,
    tx_ref: tx.reference,
  };
}

/** Rows a page of Flutterwave's refund and chargeback lists holds (fixed by Flutterwave for refunds; the same for chargebacks here). */
export const FLUTTERWAVE_MOVEMENT_PAGE_SIZE = 20;

/**
 * The window of a Flutterwave list's `from` and `to` (docs/provider-facts.md, Flutterwave, "Get
 * transactions"): whole dates `YYYY-MM-DD`, both included, read in UTC here, as `[fromMs, untilMs)`
 * in ms; unbounded on a side without one; `null` when either is not such a date.
 */
export function flutterwaveListWindow(query: ListQuery): { fromMs: number; untilMs: number } | null {
  const day = (param: string): number | null | undefined => {
    const text = queryText(query, param);
    if (text === undefined) return undefined;
    const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00.000Z`) : NaN;
    return Number.isFinite(ms) ? ms : null;
  };
  const from = day('from');
  const to = day('to');
  if (from === null || to === null) return null;
  return { fromMs: from ?? Number.MIN_SAFE_INTEGER, untilMs: to === undefined ? Number.MAX_SAFE_INTEGER : to + DAY_MS };
}

/** Which transaction a list asks about (`id` for refunds, `flw_ref` for chargebacks), as a test on the transaction; `null` for an `id` that is no number. */
function transactionFilter(kind: 'refunds' | 'chargebacks', query: ListQuery): ((tx: SandboxTransaction) => boolean) | null {
  if (kind === 'refunds') {
    const id = queryText(query, 'id');
    if (id === undefined) return () => true;
    return /^\d+$/.test(id) ? (tx) => tx.id === Number(id) : null;
  }
  const flwRef = queryText(query, 'flw_ref');
  return flwRef === undefined ? () => true : (tx) => tx.details?.flw_ref === flwRef;
}

/** The book's refunds or chargebacks created in a window, of the transactions `keep` keeps, oldest first, as Flutterwave's rows. */
function flutterwaveObjects(
  book: TransactionBook,
  kind: 'refunds' | 'chargebacks',
  window: { fromMs: number; untilMs: number },
  keep: (tx: SandboxTransaction) => boolean,
): Array<Record<string, unknown>> {
  return kind === 'refunds'
    ? book.refundsCreated(window.fromMs, window.untilMs).flatMap(({ tx, refund }) => (keep(tx) ? [flutterwaveRefund(tx, refund)] : []))
    : book.disputesCreated(window.fromMs, window.untilMs).flatMap(({ tx, dispute }) => (keep(tx) ? [flutterwaveChargeback(tx, dispute)] : []));
}

/**
 * `GET /v3/refunds` or `GET /v3/chargebacks` (docs/provider-facts.md, "Refunds, reversals and
 * disputes", Flutterwave): every refund or chargeback, or a transaction's (refunds by `id=<transaction
 * id>`, chargebacks by `flw_ref=<the transaction's flw_ref>`), created on the dates `from` to `to`
 * ({@link flutterwaveListWindow}), newest first, {@link FLUTTERWAVE_MOVEMENT_PAGE_SIZE} a page
 * (`page`), with `meta.page_info`.
 */
export function listFlutterwaveMovements(book: TransactionBook, kind: 'refunds' | 'chargebacks', query: ListQuery): SandboxAnswer {
  const refused = (message: string) => json(400, { status: 'error', message, data: null });
  const page = queryInteger(query, 'page') ?? 1;
  if (page === null || page < 1) return refused('page must be a positive integer');
  const window = flutterwaveListWindow(query);
  if (window === null) return refused('from and to must be dates in the format YYYY-MM-DD');
  const keep = transactionFilter(kind, query);
  if (keep === null) return refused('id must be a transaction id');
  const rows = flutterwaveObjects(book, kind, window, keep);
  return json(200, {
    status: 'success',
    message: kind === 'refunds' ? 'Refunds fetched' : 'Chargebacks fetched',
    meta: {
      page_info: {
        total: rows.length,
        current_page: page,
        total_pages: Math.ceil(rows.length / FLUTTERWAVE_MOVEMENT_PAGE_SIZE),
        page_size: FLUTTERWAVE_MOVEMENT_PAGE_SIZE,
      },
    },
    data: newestFirstSlice(rows, (page - 1) * FLUTTERWAVE_MOVEMENT_PAGE_SIZE, FLUTTERWAVE_MOVEMENT_PAGE_SIZE),
  });
}

import { toMajorUnits } from './money.js';
import { json, type SandboxAnswer, type SandboxDispute, type SandboxRefund, type SandboxTransaction, type TransactionBook } from './sandbox.core.js';
import { queryText, type ListQuery } from './sandbox.list.js';

/**
 * Flutterwave's refund and chargeback objects in the sandbox (docs/provider-facts.md, "Refunds,
 * reversals and disputes", Flutterwave v3): `GET /v3/refunds?id=<transaction id>` and
 * `GET /v3/chargebacks?flw_ref=<the transaction's flw_ref>`, in Flutterwave's envelope, amounts in
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

/**
 * `GET /v3/refunds?id=<transaction id>` or `GET /v3/chargebacks?flw_ref=<flw_ref>`: a transaction's
 * refunds or chargebacks, newest first, with `meta.page_info` (20 a page, one page). The sandbox
 * lists by transaction only: a list without it (reconciliation's `from`/`to`) is refused (400).
 */
export function listFlutterwaveMovements(book: TransactionBook, kind: 'refunds' | 'chargebacks', query: ListQuery): SandboxAnswer {
  const refused = json(400, { status: 'error', message: `The sandbox lists ${kind} by transaction only`, data: null });
  let tx: SandboxTransaction | undefined;
  if (kind === 'refunds') {
    const id = queryText(query, 'id');
    if (id === undefined || !/^\d+$/.test(id)) return refused;
    tx = book.getById(Number(id));
  } else {
    const flwRef = queryText(query, 'flw_ref');
    if (flwRef === undefined) return refused;
    tx = book.findByDetail('flw_ref', flwRef);
  }
  const rows =
    tx === undefined ? [] : kind === 'refunds' ? tx.refunds.map((r) => flutterwaveRefund(tx, r)) : tx.disputes.map((d) => flutterwaveChargeback(tx, d));
  const data = [...rows].reverse().slice(0, 20);
  return json(200, {
    status: 'success',
    message: kind === 'refunds' ? 'Refunds fetched' : 'Chargebacks fetched',
    meta: { page_info: { total: rows.length, current_page: 1, total_pages: 1, page_size: 20 } },
    data,
  });
}

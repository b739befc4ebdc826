import { json, type SandboxAnswer, type SandboxDispute, type SandboxRefund, type SandboxTransaction, type TransactionBook } from './sandbox.core.js';
import { filterInstant, newestFirstSlice, queryInteger, queryText, type ListQuery } from './sandbox.list.js';

/**
 * Paystack's refund and dispute objects in the sandbox (docs/provider-facts.md, "Refunds,
 * reversals and disputes", Paystack): `GET /refund/:id`, `GET /refund` (a payment's by
 * `transaction=<id>`, or all by `from`/`to`), `GET /dispute/:id`, `GET /dispute` (the same), in
 * Paystack's envelope, and the bodies of
 * the `refund.*` and `charge.dispute.*` events. Pure: the simulator checks the key and passes its book.
 */

/** Paystack's refund `status` for the sandbox's. */
const REFUND_STATUS: Record<SandboxRefund['status'], string> = { pending: 'pending', succeeded: 'processed', failed: 'failed' };

/** A refund as Paystack's refund object (Fetch Refund's `data`, a row of List Refunds): the transaction by its numeric id and, as `transaction_reference`, by its reference. */
export function paystackRefund(tx: SandboxTransaction, refund: SandboxRefund): Record<string, unknown> {
  return {
    id: Number(refund.id),
    integration: 100032,
    transaction: tx.id,
    transaction_reference: tx.reference,
    dispute: null,
    settlement: null,
    domain: 'test',
    amount: refund.amount,
    deducted_amount: refund.status === 'succeeded' ? refund.amount : 0,
    fully_deducted: refund.status === 'succeeded',
    currency: tx.currency,
    channel: 'card',
    status: REFUND_STATUS[refund.status],
    refunded_by: 'merchant@example.com',
    refunded_at: refund.status === 'succeeded' ? refund.updatedAt : null,
    expected_at: refund.createdAt,
    customer_note: 'Refund for transaction',
    merchant_note: 'Refund for transaction',
    createdAt: refund.createdAt,
    updatedAt: refund.updatedAt,
  };
}

/** Paystack's dispute `status` and `resolution` for the sandbox's: an open dispute waits for the merchant. */
function disputeState(dispute: SandboxDispute): { status: string; resolution: string | null } {
  if (dispute.status === 'open') return { status: 'awaiting-merchant-feedback', resolution: null };
  // Lost: the merchant accepted (the money goes back); won: the merchant declined with evidence and the bank agreed.
  return { status: 'resolved', resolution: dispute.status === 'lost' ? 'merchant-accepted' : 'declined' };
}

/** A dispute as Paystack's dispute object (Fetch Dispute's `data`; the events spell its times `created_at`). */
export function paystackDispute(tx: SandboxTransaction, dispute: SandboxDispute): Record<string, unknown> {
  return {
    id: Number(dispute.id),
    refund_amount: dispute.amount,
    currency: tx.currency,
    ...disputeState(dispute),
    domain: 'test',
    transaction: {
      id: tx.id,
      reference: tx.reference,
      status: 'success',
      amount: tx.amount,
      currency: tx.currency,
      paid_at: tx.paidAt,
      created_at: tx.createdAt,
    },
    transaction_reference: null,
    category: 'chargeback',
    dueAt: new Date(Date.parse(dispute.createdAt) + 7 * 86_400_000).toISOString(),
    resolvedAt: dispute.resolvedAt,
    createdAt: dispute.createdAt,
    updatedAt: dispute.resolvedAt ?? dispute.createdAt,
  };
}

/** The body of a `refund.*` event: the payment by reference, no refund id, the amount as text (as Paystack's samples). */
export function paystackRefundEvent(tx: SandboxTransaction, refund: SandboxRefund): { event: string; data: Record<string, unknown> } {
  const event = refund.status === 'succeeded' ? 'refund.processed' : refund.status === 'failed' ? 'refund.failed' : 'refund.pending';
  return {
    event,
    data: {
      status: REFUND_STATUS[refund.status],
      transaction_reference: tx.reference,
      refund_reference: refund.status === 'succeeded' ? `TRF_${refund.id}` : null,
      amount: String(refund.amount),
      currency: tx.currency,
      processor: 'mastercard',
      customer: { first_name: null, last_name: null, email: tx.email },
      integration: 100032,
      domain: 'test',
    },
  };
}

/** The body of a `charge.dispute.create` or `charge.dispute.resolve` event: the dispute object, its times in snake case. */
export function paystackDisputeEvent(tx: SandboxTransaction, dispute: SandboxDispute): { event: string; data: Record<string, unknown> } {
  const { createdAt, updatedAt, ...object } = paystackDispute(tx, dispute);
  return {
    event: dispute.status === 'open' ? 'charge.dispute.create' : 'charge.dispute.resolve',
    data: { ...object, created_at: createdAt, updated_at: updatedAt },
  };
}

/** Paystack's 404 for an object id it does not know. */
function missing(kind: 'Refund' | 'Dispute'): SandboxAnswer {
  return json(404, { status: false, message: `${kind} not found` });
}

/** `GET /refund/:id`. */
export function retrievePaystackRefund(book: TransactionBook, id: string): SandboxAnswer {
  const found = book.refundById(id);
  return found ? json(200, { status: true, message: 'Refund retrieved', data: paystackRefund(found.tx, found.refund) }) : missing('Refund');
}

/** `GET /dispute/:id`. */
export function retrievePaystackDispute(book: TransactionBook, id: string): SandboxAnswer {
  const found = book.disputeById(id);
  return found ? json(200, { status: true, message: 'Dispute retrieved', data: paystackDispute(found.tx, found.dispute) }) : missing('Dispute');
}

/**
 * The window of a Paystack list's `from` and `to` (docs/provider-facts.md, Paystack, "List
 * transactions"), as `[fromMs, untilMs)` in ms: ISO instants, both included, or dates meaning the
 * whole day (UTC); unbounded on a side without one; `null` when either cannot be read.
 */
export function paystackListWindow(query: ListQuery): { fromMs: number; untilMs: number } | null {
  const toText = queryText(query, 'to');
  const from = filterInstant(queryText(query, 'from'));
  const to = filterInstant(toText, true);
  if (from === null || to === null) return null;
  // A date means its whole day (filterInstant gives the next day's start); an instant is included.
  const untilMs = to === undefined ? Number.MAX_SAFE_INTEGER : toText!.trim().length === 10 ? to : to + 1;
  return { fromMs: from ?? Number.MIN_SAFE_INTEGER, untilMs };
}

/** The book's refunds or disputes created in a window, of one transaction when given, oldest first, as Paystack's objects. */
function paystackObjects(
  book: TransactionBook,
  kind: 'refunds' | 'disputes',
  window: { fromMs: number; untilMs: number },
  transaction: number | undefined,
): Array<Record<string, unknown>> {
  const of = (tx: SandboxTransaction) => transaction === undefined || tx.id === transaction;
  return kind === 'refunds'
    ? book.refundsCreated(window.fromMs, window.untilMs).flatMap(({ tx, refund }) => (of(tx) ? [paystackRefund(tx, refund)] : []))
    : book.disputesCreated(window.fromMs, window.untilMs).flatMap(({ tx, dispute }) => (of(tx) ? [paystackDispute(tx, dispute)] : []));
}

/**
 * `GET /refund` or `GET /dispute` with `transaction=<id>`, `from=`, `to=`, `perPage=`, `page=`
 * (docs/provider-facts.md, "Refunds, reversals and disputes", Paystack): every refund or dispute,
 * or a payment's (by Paystack's numeric transaction id), created from `from` to `to` (as the
 * transaction list reads them: {@link paystackListWindow}), newest first, `perPage` (default 50,
 * capped at 100) a page, with `meta: { total, skipped, perPage, page, pageCount }`.
 */
export function listPaystackMovements(book: TransactionBook, kind: 'refunds' | 'disputes', query: ListQuery): SandboxAnswer {
  const perPageAsked = queryInteger(query, 'perPage');
  const page = queryInteger(query, 'page') ?? 1;
  const transaction = queryInteger(query, 'transaction');
  if (perPageAsked === null || (perPageAsked !== undefined && perPageAsked < 1) || page === null || page < 1 || transaction === null) {
    return json(400, { status: false, message: 'perPage, page and transaction must be positive integers' });
  }
  const window = paystackListWindow(query);
  if (window === null) return json(400, { status: false, message: 'Invalid date: from and to are ISO 8601 dates or instants' });
  const perPage = Math.min(100, perPageAsked ?? 50);
  const objects = paystackObjects(book, kind, window, transaction);
  return json(200, {
    status: true,
    message: kind === 'refunds' ? 'Refunds retrieved' : 'Disputes retrieved',
    data: newestFirstSlice(objects, (page - 1) * perPage, perPage),
    meta: { total: objects.length, skipped: (page - 1) * perPage, perPage, page, pageCount: Math.ceil(objects.length / perPage) },
  });
}

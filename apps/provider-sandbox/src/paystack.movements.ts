import { json, type SandboxAnswer, type SandboxDispute, type SandboxRefund, type SandboxTransaction, type TransactionBook } from './sandbox.core.js';
import { queryInteger, queryText, type ListQuery } from './sandbox.list.js';

/**
 * Paystack's refund and dispute objects in the sandbox (docs/provider-facts.md, "Refunds,
 * reversals and disputes", Paystack): `GET /refund/:id`, `GET /refund?transaction=<id>`,
 * `GET /dispute/:id`, `GET /dispute?transaction=<id>`, in Paystack's envelope, and the bodies of
 * the `refund.*` and `charge.dispute.*` events. Pure: the simulator checks the key and passes its book.
 */

/** Paystack's refund `status` for the sandbox's. */
const REFUND_STATUS: Record<SandboxRefund['status'], string> = { pending: 'pending', succeeded: 'processed', failed: 'failed' };

/** A refund as Paystack's refund object (Fetch Refund's `data`). */
export function paystackRefund(tx: SandboxTransaction, refund: SandboxRefund): Record<string, unknown> {
  return {
    id: Number(refund.id),
    integration: 100032,
    transaction: tx.id,
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
 * `GET /refund?transaction=<id>&perPage=` or `GET /dispute?transaction=<id>&perPage=`: a payment's
 * refunds or disputes (by Paystack's numeric transaction id), newest first, with `meta`. The
 * sandbox lists by transaction only: a list without `transaction` (the `from`/`to` windows of
 * reconciliation) is refused (400) rather than answered with every payment's objects.
 */
export function listPaystackMovements(book: TransactionBook, kind: 'refunds' | 'disputes', query: ListQuery): SandboxAnswer {
  const perPage = queryInteger(query, 'perPage') ?? 50;
  const transaction = queryInteger(query, 'transaction');
  if (perPage === null || perPage < 1) return json(400, { status: false, message: 'perPage must be a positive integer' });
  if (transaction === null || transaction === undefined || queryText(query, 'from') !== undefined) {
    return json(400, { status: false, message: 'The sandbox lists refunds and disputes by transaction id only' });
  }
  const tx = book.getById(transaction);
  const objects = tx === undefined ? [] : kind === 'refunds' ? tx.refunds.map((r) => paystackRefund(tx, r)) : tx.disputes.map((d) => paystackDispute(tx, d));
  const rows = [...objects].reverse().slice(0, Math.min(perPage, 100));
  return json(200, {
    status: true,
    message: kind === 'refunds' ? 'Refunds retrieved' : 'Disputes retrieved',
    data: rows,
    meta: { total: objects.length, skipped: 0, perPage, page: 1, pageCount: Math.max(1, Math.ceil(objects.length / perPage)) },
  });
}

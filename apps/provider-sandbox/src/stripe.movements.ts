import type Stripe from 'stripe';
import { json, type SandboxAnswer, type SandboxDispute, type SandboxRefund, type SandboxTransaction, type TransactionBook } from './sandbox.core.js';
import { newestFirstSlice, queryInteger, queryText, type ListQuery } from './sandbox.list.js';

/**
 * Stripe's refund and dispute objects in the sandbox (docs/provider-facts.md, Stripe, "Refunds
 * and disputes"), typed by the `stripe` package as the PaymentIntent is: `GET /v1/refunds/:id`,
 * `GET /v1/refunds` (a payment's by `payment_intent`, or all by `created`), `GET /v1/disputes/:id`,
 * `GET /v1/disputes` (the same),
 * and the objects the `refund.*` and `charge.dispute.*` events carry. Pure: the simulator checks
 * the key and passes its book.
 */

/** Stripe's refund `status` for the sandbox's (`pending`, `succeeded`, `failed`). */
const REFUND_STATUS: Record<SandboxRefund['status'], string> = { pending: 'pending', succeeded: 'succeeded', failed: 'failed' };

/** Stripe's dispute `status` for the sandbox's: an open dispute waits for the merchant's evidence. */
const DISPUTE_STATUS: Record<SandboxDispute['status'], Stripe.Dispute.Status> = { open: 'needs_response', won: 'won', lost: 'lost' };

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** A refund as Stripe's Refund object. */
export function stripeRefund(tx: SandboxTransaction, refund: SandboxRefund): Stripe.Refund {
  return {
    id: refund.id,
    object: 'refund',
    amount: refund.amount,
    balance_transaction: refund.status === 'pending' ? null : `txn_${refund.id.slice(3)}`,
    charge: String(tx.details?.latest_charge ?? ''),
    created: seconds(refund.createdAt),
    currency: tx.currency.toLowerCase(),
    customer: null,
    customer_account: null,
    metadata: {},
    payment_intent: tx.reference,
    payment_method: String(tx.details?.payment_method ?? ''),
    reason: 'requested_by_customer',
    receipt_number: null,
    source_transfer_reversal: null,
    status: REFUND_STATUS[refund.status],
    transfer_reversal: null,
    ...(refund.status === 'failed' ? { failure_reason: 'lost_or_stolen_card' } : {}),
  };
}

/** A dispute as Stripe's Dispute object (no evidence submitted). */
export function stripeDispute(tx: SandboxTransaction, dispute: SandboxDispute): Stripe.Dispute {
  const created = seconds(dispute.createdAt);
  return {
    id: dispute.id,
    object: 'dispute',
    amount: dispute.amount,
    balance_transactions: [],
    charge: String(tx.details?.latest_charge ?? ''),
    created,
    currency: tx.currency.toLowerCase(),
    enhanced_eligibility_types: [],
    evidence: {
      access_activity_log: null,
      billing_address: null,
      cancellation_policy: null,
      cancellation_policy_disclosure: null,
      cancellation_rebuttal: null,
      customer_communication: null,
      customer_email_address: null,
      customer_name: null,
      customer_purchase_ip: null,
      customer_signature: null,
      duplicate_charge_documentation: null,
      duplicate_charge_explanation: null,
      duplicate_charge_id: null,
      enhanced_evidence: {},
      product_description: null,
      receipt: null,
      refund_policy: null,
      refund_policy_disclosure: null,
      refund_refusal_explanation: null,
      service_date: null,
      service_documentation: null,
      shipping_address: null,
      shipping_carrier: null,
      shipping_date: null,
      shipping_documentation: null,
      shipping_tracking_number: null,
      uncategorized_file: null,
      uncategorized_text: null,
    },
    evidence_details: {
      due_by: created + 7 * 86_400,
      enhanced_eligibility: {},
      has_evidence: false,
      past_due: false,
      submission_count: 0,
      submission_method: 'not_submitted',
    },
    intended_submission_method: null,
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: tx.reference,
    reason: dispute.reason,
    status: DISPUTE_STATUS[dispute.status],
  };
}

/** Stripe's 404 for an object id it does not know. */
function missing(kind: 'refund' | 'dispute', id: string): SandboxAnswer {
  return json(404, {
    error: {
      code: 'resource_missing',
      doc_url: 'https://stripe.com/docs/error-codes/resource-missing',
      message: `No such ${kind}: '${id}'`,
      param: 'id',
      type: 'invalid_request_error',
    },
  });
}

/** `GET /v1/refunds/:id`. */
export function retrieveStripeRefund(book: TransactionBook, id: string): SandboxAnswer {
  const found = book.refundById(id);
  return found ? json(200, stripeRefund(found.tx, found.refund)) : missing('refund', id);
}

/** `GET /v1/disputes/:id`. */
export function retrieveStripeDispute(book: TransactionBook, id: string): SandboxAnswer {
  const found = book.disputeById(id);
  return found ? json(200, stripeDispute(found.tx, found.dispute)) : missing('dispute', id);
}

/**
 * The window of a Stripe list's `created` filters (`created`, `created[gte]`, `created[gt]`,
 * `created[lte]`, `created[lt]`: whole Unix seconds), as `[fromMs, untilMs)` in ms; unbounded on a
 * side without a filter; the parameter that is no integer when one is not. An object created at
 * 1.5 s has `created` 1, so `created[lte]=1` ends at 2000 ms.
 */
export function stripeCreatedWindow(query: ListQuery): { fromMs: number; untilMs: number } | { invalid: string } {
  const created: Record<string, number | undefined> = {};
  for (const param of ['created', 'created[gte]', 'created[gt]', 'created[lte]', 'created[lt]']) {
    const seconds = queryInteger(query, param);
    if (seconds === null) return { invalid: param };
    created[param] = seconds;
  }
  const ms = (seconds: number | undefined, plus = 0) => (seconds === undefined ? [] : [(seconds + plus) * 1000]);
  const fromMs = Math.max(Number.MIN_SAFE_INTEGER, ...ms(created.created), ...ms(created['created[gte]']), ...ms(created['created[gt]'], 1));
  const untilMs = Math.min(Number.MAX_SAFE_INTEGER, ...ms(created.created, 1), ...ms(created['created[lte]'], 1), ...ms(created['created[lt]']));
  return { fromMs, untilMs: Math.max(fromMs, untilMs) };
}

/** The book's refunds or disputes created in a window, newest first, as Stripe's objects. */
function stripeObjects(
  book: TransactionBook,
  kind: 'refunds' | 'disputes',
  window: { fromMs: number; untilMs: number },
): Array<Stripe.Refund | Stripe.Dispute> {
  const oldestFirst: Array<Stripe.Refund | Stripe.Dispute> =
    kind === 'refunds'
      ? book.refundsCreated(window.fromMs, window.untilMs).map(({ tx, refund }) => stripeRefund(tx, refund))
      : book.disputesCreated(window.fromMs, window.untilMs).map(({ tx, dispute }) => stripeDispute(tx, dispute));
  return newestFirstSlice(oldestFirst, 0, oldestFirst.length);
}

/**
 * `GET /v1/refunds` or `GET /v1/disputes` (docs/provider-facts.md, Stripe, "Refunds and
 * disputes", "Lists by time"): every refund or dispute, or a payment's (`payment_intent`), created
 * in the `created[...]` window when one is given, newest first, `{ object: "list", data, has_more,
 * url }` (`limit` 1 to 100, default 10). `starting_after` continues after an object of the same
 * list (400 `resource_missing` for an id it does not hold there); `ending_before` is not simulated
 * (400).
 */
export function listStripeMovements(book: TransactionBook, kind: 'refunds' | 'disputes', query: ListQuery): SandboxAnswer {
  const invalid = (param: string, message: string, code?: string) =>
    json(400, { error: { type: 'invalid_request_error', ...(code ? { code } : {}), param, message } });
  const limit = queryInteger(query, 'limit') ?? 10;
  if (limit === null || limit < 1 || limit > 100) return invalid('limit', 'This value must be greater than or equal to 1 and less than or equal to 100.');
  const window = stripeCreatedWindow(query);
  if ('invalid' in window) return invalid(window.invalid, 'Invalid integer', 'parameter_invalid_integer');
  if (queryText(query, 'ending_before') !== undefined) return invalid('ending_before', 'ending_before is not simulated by the sandbox');
  const intent = queryText(query, 'payment_intent');
  const objects = stripeObjects(book, kind, window).filter((object) => intent === undefined || object.payment_intent === intent);
  const after = queryText(query, 'starting_after');
  const start = after === undefined ? 0 : objects.findIndex((object) => object.id === after) + 1;
  if (start === 0 && after !== undefined) {
    return invalid('starting_after', `No such ${kind === 'refunds' ? 'refund' : 'dispute'}: '${after}'`, 'resource_missing');
  }
  const page = objects.slice(start, start + limit);
  return json(200, { object: 'list', data: page, has_more: objects.length > start + page.length, url: `/v1/${kind}` });
}

import type Stripe from 'stripe';
import { json, type SandboxAnswer, type SandboxDispute, type SandboxRefund, type SandboxTransaction, type TransactionBook } from './sandbox.core.js';
import { queryInteger, queryText, type ListQuery } from './sandbox.list.js';

/**
 * Stripe's refund and dispute objects in the sandbox (docs/provider-facts.md, Stripe, "Refunds
 * and disputes"), typed by the `stripe` package as the PaymentIntent is: `GET /v1/refunds/:id`,
 * `GET /v1/refunds?payment_intent=`, `GET /v1/disputes/:id`, `GET /v1/disputes?payment_intent=`,
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
 * `GET /v1/refunds?payment_intent=pi_...&limit=` or `GET /v1/disputes?payment_intent=...`: the
 * payment's refunds or disputes, newest first, `{ object: "list", data, has_more, url }`
 * (`limit` 1 to 100, default 10). The sandbox lists by payment only: Stripe's `created` window
 * and `starting_after` on these lists are not simulated (400), and a list without
 * `payment_intent` is refused (400) rather than answered with every payment's objects.
 */
export function listStripeMovements(book: TransactionBook, kind: 'refunds' | 'disputes', query: ListQuery): SandboxAnswer {
  const invalid = (param: string, message: string) => json(400, { error: { type: 'invalid_request_error', param, message } });
  const limit = queryInteger(query, 'limit') ?? 10;
  if (limit === null || limit < 1 || limit > 100) return invalid('limit', 'This value must be greater than or equal to 1 and less than or equal to 100.');
  const intent = queryText(query, 'payment_intent');
  if (intent === undefined) return invalid('payment_intent', 'The sandbox lists refunds and disputes by payment_intent only');
  for (const param of ['created', 'starting_after', 'ending_before']) {
    if (queryText(query, param) !== undefined || queryText(query, `${param}[gte]`) !== undefined)
      return invalid(param, `${param} is not simulated by the sandbox`);
  }
  const tx = book.get(intent);
  const objects = tx === undefined ? [] : kind === 'refunds' ? tx.refunds.map((r) => stripeRefund(tx, r)) : tx.disputes.map((d) => stripeDispute(tx, d));
  const newestFirst = [...objects].reverse();
  return json(200, { object: 'list', data: newestFirst.slice(0, limit), has_more: newestFirst.length > limit, url: `/v1/${kind}` });
}

import type { DisputeObservation, DisputeStatus, RefundObservation, RefundStatus } from '@settle/domain';
import { z } from 'zod';
import { listAnswerError, listJson, malformedList, rowIdentity } from '../shared/list.js';
import type { PaymentMovements } from '../shared/movement.port.js';
import { readMovements } from '../shared/movements.js';
import type { SkippedRow } from '../shared/transaction-list.port.js';
import type { MovementNotifications } from '../shared/webhook.js';

/**
 * Stripe's refunds and disputes of a payment (docs/provider-facts.md, Stripe, "Refunds and
 * disputes"): `GET /v1/refunds?payment_intent=<pi>&limit=100` and
 * `GET /v1/disputes?payment_intent=<pi>&limit=100`, each answered `{ object: "list", data,
 * has_more }`, newest first. A refunded or disputed PaymentIntent stays `succeeded`: its refunds
 * and disputes are only in these lists. Amounts are in minor units, `currency` lower case,
 * `created` Unix seconds. Pure.
 */

/** Rows asked for per list (`limit`): Stripe's maximum. A payment with more refunds than this is read as malformed (see {@link stripeMovements}). */
export const STRIPE_MOVEMENTS_LIMIT = 100;

/**
 * Stripe's notifications about a settled payment's money (docs/provider-facts.md, Stripe,
 * "Notifications"): `refund.*` and `charge.refund.updated` (a Refund), `charge.refunded` (a
 * Charge), `charge.dispute.*` (a Dispute), each naming the payment at `data.object.payment_intent`
 * (`data.object.id` is the refund, charge or dispute). Triggers only: the refunds and disputes are
 * then read by REST.
 */
export const STRIPE_MOVEMENT_NOTIFICATIONS: MovementNotifications = {
  eventTypePath: ['type'],
  kinds: ['refund.', 'charge.refund', 'charge.dispute.'].map((prefix) => ({ prefix, referencePaths: [['data', 'object', 'payment_intent']] })),
};

/**
 * Stripe refund `status` values, normalised: `pending` and `requires_action` (the payer must
 * give bank details) are asked for and not returned yet; `failed` and `canceled` returned
 * nothing (a refund can fail after it succeeded, Stripe's `refund.failed`).
 */
export const STRIPE_REFUND_STATUSES: Readonly<Record<string, RefundStatus>> = {
  pending: 'pending',
  requires_action: 'pending',
  succeeded: 'succeeded',
  failed: 'failed',
  canceled: 'failed',
};

/**
 * Stripe dispute `status` values, normalised: the `warning_` states are inquiries (no money moved
 * yet) and the `appeal_` states a decision being contested, all `open`; `warning_closed` (an
 * inquiry that never became a chargeback) and `prevented` (stopped before it was filed; any
 * money returned shows as a refund) are `won` for the merchant's money; `lost` is a chargeback.
 */
export const STRIPE_DISPUTE_STATUSES: Readonly<Record<string, DisputeStatus>> = {
  warning_needs_response: 'open',
  warning_under_review: 'open',
  needs_response: 'open',
  under_review: 'open',
  appeal_needs_response: 'open',
  appeal_under_review: 'open',
  warning_closed: 'won',
  prevented: 'won',
  won: 'won',
  lost: 'lost',
};

const LABEL = 'Stripe';

const listAnswer = z.object({ object: z.literal('list'), data: z.array(z.unknown()), has_more: z.boolean() });

const refundRow = z
  .object({
    id: z.string().min(1),
    amount: z.number().int().nonnegative(),
    currency: z.string(),
    status: z.string(),
    created: z.number().int().nonnegative(),
    payment_intent: z.union([z.string(), z.object({ id: z.string() }).loose()]).nullable(),
  })
  .loose();

const disputeRow = refundRow.extend({ reason: z.string().nullish() });

/** The PaymentIntent id an object names (it may be expanded). */
function intentOf(value: string | { id: string } | null): string {
  return value === null ? '' : typeof value === 'string' ? value : value.id;
}

/** Path and query of a payment's refunds or disputes. */
export function stripeMovementsPath(kind: 'refunds' | 'disputes', reference: string): string {
  return `/v1/${kind}?${new URLSearchParams({ payment_intent: reference, limit: String(STRIPE_MOVEMENTS_LIMIT) }).toString()}`;
}

/** One Stripe refund read as an observation, or why it cannot be. */
export function stripeRefundObservation(raw: unknown): RefundObservation | Omit<SkippedRow, 'index'> {
  const identity = rowIdentity(raw, 'id', 'payment_intent');
  const parsed = refundRow.safeParse(raw);
  if (!parsed.success) return { ...identity, reason: 'the refund lacks an id, amount, currency, status, created or payment_intent of the documented types' };
  const refund = parsed.data;
  const status = STRIPE_REFUND_STATUSES[refund.status];
  if (status === undefined) return { ...identity, reason: `unknown refund status "${refund.status.slice(0, 40)}"` };
  return {
    kind: 'refund',
    providerId: refund.id,
    paymentReference: intentOf(refund.payment_intent),
    amountMinor: refund.amount,
    currency: refund.currency,
    providerStatus: refund.status,
    createdAt: refund.created * 1000,
    status,
  };
}

/** One Stripe dispute read as an observation, or why it cannot be. */
export function stripeDisputeObservation(raw: unknown): DisputeObservation | Omit<SkippedRow, 'index'> {
  const identity = rowIdentity(raw, 'id', 'payment_intent');
  const parsed = disputeRow.safeParse(raw);
  if (!parsed.success) return { ...identity, reason: 'the dispute lacks an id, amount, currency, status, created or payment_intent of the documented types' };
  const dispute = parsed.data;
  const status = STRIPE_DISPUTE_STATUSES[dispute.status];
  if (status === undefined) return { ...identity, reason: `unknown dispute status "${dispute.status.slice(0, 40)}"` };
  return {
    kind: 'dispute',
    providerId: dispute.id,
    paymentReference: intentOf(dispute.payment_intent),
    amountMinor: dispute.amount,
    currency: dispute.currency,
    providerStatus: dispute.status,
    createdAt: dispute.created * 1000,
    status,
    reason: dispute.reason ?? null,
  };
}

/**
 * One list answer's rows, read.
 *
 * @throws ProviderCallError for an answer other than 200 (`listAnswerError`), a body that is not
 *   the documented list, or a list with more rows than one page holds (`PROVIDER.MALFORMED_RESPONSE`:
 *   Settle would otherwise miss a refund).
 */
export function stripeMovementRows(status: number, body: string): readonly unknown[] {
  if (status !== 200) throw listAnswerError(status, LABEL);
  const parsed = listAnswer.safeParse(listJson(body, LABEL));
  if (!parsed.success) throw malformedList(LABEL, 'not a list object with data and has_more');
  if (parsed.data.has_more) throw malformedList(LABEL, `a payment has more than ${STRIPE_MOVEMENTS_LIMIT} refunds or disputes`);
  return parsed.data.data;
}

/**
 * A payment's refunds and disputes from the two list answers' rows, oldest first (Stripe lists
 * newest first), with the objects that could not be read kept apart.
 */
export function stripeMovements(refunds: readonly unknown[], disputes: readonly unknown[]): PaymentMovements {
  return readMovements([
    { rows: refunds, read: stripeRefundObservation },
    { rows: disputes, read: stripeDisputeObservation },
  ]);
}

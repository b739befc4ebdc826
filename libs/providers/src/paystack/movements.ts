import type { DisputeObservation, DisputeStatus, MoneyMovementObservation, RefundObservation, RefundStatus } from '@settle/domain';
import { z } from 'zod';
import { listAnswerError, listedInstant, listJson, malformedList, rowIdentity } from '../shared/list.js';
import type { PaymentMovements } from '../shared/movement.port.js';
import { byCreation, readMovements } from '../shared/movements.js';
import type { SkippedRow } from '../shared/transaction-list.port.js';
import type { MovementNotifications } from '../shared/webhook.js';

/**
 * Paystack's refunds, disputes and reversal of a payment (docs/provider-facts.md, "Refunds,
 * reversals and disputes", Paystack). Paystack's refund and dispute lists filter by its numeric
 * transaction id, not by the reference, so a read is three calls: `GET /transaction/verify/:reference`
 * (the id, the status, the amount), then `GET /refund?transaction=<id>&perPage=100` and
 * `GET /dispute?transaction=<id>&perPage=100`. Amounts are in the minor unit. Pure.
 */

/** Rows asked for per list (`perPage`). A payment with more refunds or disputes than this is read as malformed. */
export const PAYSTACK_MOVEMENTS_PAGE_SIZE = 100;

/**
 * Paystack's notifications about a settled payment's money (docs/provider-facts.md, Paystack,
 * "Notifications"): `refund.*` names the payment at `data.transaction_reference`; `charge.dispute.*`
 * at `data.transaction.reference` (its `data.transaction_reference` is `null` in every published
 * sample, so read second). Triggers only: the refunds and disputes are then read by REST.
 */
export const PAYSTACK_MOVEMENT_NOTIFICATIONS: MovementNotifications = {
  eventTypePath: ['event'],
  kinds: [
    { prefix: 'refund.', referencePaths: [['data', 'transaction_reference']] },
    {
      prefix: 'charge.dispute.',
      referencePaths: [
        ['data', 'transaction', 'reference'],
        ['data', 'transaction_reference'],
      ],
    },
  ],
};

/**
 * Paystack refund `status` values, normalised: `pending`, `processing` and `needs-attention` (it
 * waits for the payer's bank details) are not returned yet; `processed` is; `failed` returned
 * nothing (the amount goes back to the merchant's balance). No enumeration is published; another
 * value is kept apart for review.
 */
export const PAYSTACK_REFUND_STATUSES: Readonly<Record<string, RefundStatus>> = {
  pending: 'pending',
  processing: 'pending',
  'needs-attention': 'pending',
  processed: 'succeeded',
  failed: 'failed',
};

/**
 * Paystack dispute `status` values, normalised: `awaiting-merchant-feedback`,
 * `awaiting-bank-feedback` and `pending` are open; `resolved` is decided by its `resolution`
 * ({@link PAYSTACK_DISPUTE_RESOLUTIONS}). `archived` and any other value are kept apart for review
 * (their meaning is (unconfirmed)).
 */
export const PAYSTACK_OPEN_DISPUTE_STATUSES: ReadonlySet<string> = new Set(['awaiting-merchant-feedback', 'awaiting-bank-feedback', 'pending']);

/**
 * A resolved Paystack dispute's `resolution`, normalised: `merchant-accepted` and `auto-accepted`
 * (no answer before `dueAt`) send the money back to the payer (`lost`); `declined` (the merchant
 * contested it with evidence) keeps it (`won`).
 */
export const PAYSTACK_DISPUTE_RESOLUTIONS: Readonly<Record<string, Exclude<DisputeStatus, 'open'>>> = {
  'merchant-accepted': 'lost',
  'auto-accepted': 'lost',
  declined: 'won',
};

const LABEL = 'Paystack';

const envelope = z.object({ status: z.literal(true), data: z.unknown() });

const verified = z
  .object({
    id: z.union([z.number().int(), z.string().regex(/^\d+$/)]),
    status: z.string(),
    reference: z.string(),
    amount: z.number().int().nonnegative(),
    requested_amount: z.number().int().nonnegative().nullish(),
    currency: z.string(),
  })
  .loose();

/** What the verify answer gives a read of the money: the transaction's id, status, amount and currency. */
export type PaystackTransaction = z.infer<typeof verified>;

const refundRow = z
  .object({
    id: z.union([z.number().int(), z.string()]),
    transaction: z.union([z.number().int(), z.string(), z.object({ id: z.union([z.number(), z.string()]) }).loose()]),
    dispute: z.union([z.number(), z.string()]).nullish(),
    amount: z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]),
    currency: z.string().nullish(),
    status: z.string(),
  })
  .loose();

const disputeRow = z
  .object({
    id: z.union([z.number().int(), z.string()]),
    refund_amount: z.number().int().nonnegative().nullish(),
    currency: z.string().nullish(),
    status: z.string(),
    resolution: z.string().nullish(),
    category: z.string().nullish(),
    transaction: z.object({ id: z.union([z.number(), z.string()]), reference: z.string(), amount: z.number().int().nonnegative().nullish() }).loose(),
  })
  .loose();

/** `GET /refund?transaction=<id>&perPage=100` and `GET /dispute?transaction=<id>&perPage=100`: a transaction's refunds and disputes. */
export function paystackMovementsPaths(transactionId: string): { refunds: string; disputes: string } {
  const query = (kind: string) => `/${kind}?${new URLSearchParams({ transaction: transactionId, perPage: String(PAYSTACK_MOVEMENTS_PAGE_SIZE) }).toString()}`;
  return { refunds: query('refund'), disputes: query('dispute') };
}

/**
 * The transaction a verify answer describes.
 *
 * @throws ProviderCallError for an answer other than 200 (`listAnswerError`; Paystack's 400
 *   "Transaction reference not found" included) or one it cannot read.
 */
export function paystackVerifiedTransaction(status: number, body: string): PaystackTransaction {
  if (status !== 200) throw listAnswerError(status, LABEL);
  const parsed = envelope.safeParse(listJson(body, LABEL));
  const data = parsed.success ? verified.safeParse(parsed.data.data) : null;
  if (!data?.success) throw malformedList(LABEL, 'the verify answer lacks the transaction id, status, amount or currency');
  return data.data;
}

/**
 * One list answer's rows.
 *
 * @throws ProviderCallError for an answer other than 200, a body that is not `{ status: true, data: [] }`,
 *   or more rows than one page holds (Settle would otherwise miss one).
 */
export function paystackMovementRows(status: number, body: string): readonly unknown[] {
  if (status !== 200) throw listAnswerError(status, LABEL);
  const parsed = envelope.safeParse(listJson(body, LABEL));
  if (!parsed.success || !Array.isArray(parsed.data.data)) throw malformedList(LABEL, 'not { status: true, data: [...] }');
  if (parsed.data.data.length >= PAYSTACK_MOVEMENTS_PAGE_SIZE)
    throw malformedList(LABEL, `a payment has ${PAYSTACK_MOVEMENTS_PAGE_SIZE} refunds or disputes or more`);
  return parsed.data.data;
}

const createdOf = (raw: unknown) => {
  const row = raw as { createdAt?: unknown; created_at?: unknown };
  return listedInstant(row.createdAt ?? row.created_at);
};

/**
 * One Paystack refund read as an observation, or why it cannot be. Its `transaction` is the
 * numeric transaction id: the observation names the payment's reference only when that id is the
 * verified transaction's (else the identity check fails, as it must).
 */
export function paystackRefundObservation(raw: unknown, transaction: PaystackTransaction): RefundObservation | Omit<SkippedRow, 'index'> {
  const identity = rowIdentity(raw, 'id', 'transaction');
  const parsed = refundRow.safeParse(raw);
  const createdAt = createdOf(raw);
  if (!parsed.success || createdAt === null)
    return { ...identity, reason: 'the refund lacks an id, transaction, amount, status or creation time of the documented types' };
  const refund = parsed.data;
  const status = PAYSTACK_REFUND_STATUSES[refund.status];
  if (status === undefined) return { ...identity, reason: `unknown refund status "${refund.status.slice(0, 40)}"` };
  const transactionId = String(typeof refund.transaction === 'object' ? refund.transaction.id : refund.transaction);
  return {
    kind: 'refund',
    providerId: String(refund.id),
    paymentReference: transactionId === String(transaction.id) ? transaction.reference : `transaction ${transactionId}`,
    amountMinor: Number(refund.amount),
    currency: refund.currency ?? transaction.currency,
    providerStatus: refund.status,
    createdAt,
    status,
  };
}

/**
 * One Paystack dispute read as an observation, or why it cannot be. The amount is `refund_amount`
 * (the amount the payer gets back if the merchant accepts; the transaction's amount when absent),
 * the currency the transaction's when the dispute gives none.
 */
export function paystackDisputeObservation(raw: unknown, transaction: PaystackTransaction): DisputeObservation | Omit<SkippedRow, 'index'> {
  const identity = rowIdentity(raw, 'id', 'transaction_reference');
  const parsed = disputeRow.safeParse(raw);
  const createdAt = createdOf(raw);
  if (!parsed.success || createdAt === null)
    return { ...identity, reason: 'the dispute lacks an id, status, transaction or creation time of the documented types' };
  const dispute = parsed.data;
  const status: DisputeStatus | undefined = PAYSTACK_OPEN_DISPUTE_STATUSES.has(dispute.status)
    ? 'open'
    : dispute.status === 'resolved'
      ? PAYSTACK_DISPUTE_RESOLUTIONS[dispute.resolution ?? '']
      : undefined;
  if (status === undefined)
    return { ...identity, reason: `unknown dispute status "${dispute.status.slice(0, 40)}" (resolution "${String(dispute.resolution).slice(0, 40)}")` };
  return {
    kind: 'dispute',
    providerId: String(dispute.id),
    paymentReference: dispute.transaction.reference,
    amountMinor: dispute.refund_amount ?? dispute.transaction.amount ?? transaction.requested_amount ?? transaction.amount,
    currency: dispute.currency ?? transaction.currency,
    providerStatus: dispute.resolution ? `${dispute.status}: ${dispute.resolution}` : dispute.status,
    createdAt,
    status,
    reason: dispute.category ?? null,
  };
}

/**
 * A payment's refunds, disputes and reversal, oldest first:
 * - each refund, except one that settles a dispute (its `dispute` names one): that money is the
 *   dispute's, counted once when the dispute is lost;
 * - each dispute;
 * - a reversal when the transaction's status is `reversed` and no refund or lost dispute explains
 *   it (Paystack shows a refunded transaction as `reversed` too), for the amount the merchant asked
 *   for, at `observedAt` (Paystack's answer gives no time for it).
 *
 * @param observedAt - when the answers were read, epoch ms.
 */
export function paystackMovements(
  transaction: PaystackTransaction,
  refunds: readonly unknown[],
  disputes: readonly unknown[],
  observedAt: number,
): PaymentMovements {
  const read = readMovements([
    { rows: refunds, read: (raw) => ((raw as { dispute?: unknown } | null)?.dispute != null ? null : paystackRefundObservation(raw, transaction)) },
    { rows: disputes, read: (raw) => paystackDisputeObservation(raw, transaction) },
  ]);
  const explained = read.observations.some((o) => (o.kind === 'refund' && o.status !== 'failed') || (o.kind === 'dispute' && o.status === 'lost'));
  if (transaction.status !== 'reversed' || explained) return read;
  const reversal: MoneyMovementObservation = {
    kind: 'reversal',
    providerId: `transaction ${String(transaction.id)}`,
    paymentReference: transaction.reference,
    amountMinor: transaction.requested_amount ?? transaction.amount,
    currency: transaction.currency,
    providerStatus: 'reversed',
    createdAt: observedAt,
  };
  return { ...read, observations: [...read.observations, reversal].sort(byCreation) };
}

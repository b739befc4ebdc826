import type { DisputeObservation, DisputeStatus, RefundObservation, RefundStatus } from '@settle/domain';
import { z } from 'zod';
import { listAnswerError, listedInstant, listJson, malformedList, rowIdentity } from '../shared/list.js';
import type { PaymentMovements } from '../shared/movement.port.js';
import { readMovements } from '../shared/movements.js';
import { AmountConversionError, majorToMinor } from '../shared/normalise.js';
import type { SkippedRow } from '../shared/transaction-list.port.js';

/**
 * Flutterwave's refunds and chargebacks of a transaction (docs/provider-facts.md, "Refunds,
 * reversals and disputes", Flutterwave v3). Neither object carries a currency and both give
 * amounts in the MAJOR unit, so a read is three calls: the verify call by `tx_ref` (the
 * transaction's id, `flw_ref` and currency), then `GET /v3/refunds?id=<transaction id>` (the
 * parameter's name is (unconfirmed)) and `GET /v3/chargebacks?flw_ref=<flw_ref>`, which answers
 * every chargeback of the transaction. Pages hold 20 rows. Pure.
 */

/** Flutterwave's page size for these lists (not ours to choose). A transaction with a full page of either is read as malformed. */
export const FLUTTERWAVE_MOVEMENTS_PAGE_SIZE = 20;

/**
 * Flutterwave refund `status` values, normalised: `completed` (also with a processor suffix,
 * `completed-mpgs`) and `successful` are returned, `failed` is not, `pending` not yet. The full
 * list is (unconfirmed); another value is kept apart for review.
 */
export function flutterwaveRefundStatus(status: string): RefundStatus | undefined {
  if (status === 'completed' || status === 'successful' || status.startsWith('completed-')) return 'succeeded';
  if (status === 'failed') return 'failed';
  return status === 'pending' ? 'pending' : undefined;
}

/**
 * Flutterwave chargeback `status` values, normalised: `initiated` (the amount held), `declined`
 * (the merchant contested it; the bank decides) and `pending` are open; `accepted` (the merchant
 * accepted: the money goes back) and `lost` are lost; `won` is won. A later stage can be a new
 * chargeback object of the same transaction, read like any other.
 */
export const FLUTTERWAVE_CHARGEBACK_STATUSES: Readonly<Record<string, DisputeStatus>> = {
  initiated: 'open',
  declined: 'open',
  pending: 'open',
  accepted: 'lost',
  lost: 'lost',
  won: 'won',
};

const LABEL = 'Flutterwave';

const majorAmount = z.union([z.number(), z.string()]);

const verified = z
  .object({
    id: z.union([z.number().int(), z.string().regex(/^\d+$/)]),
    tx_ref: z.string().min(1),
    flw_ref: z.string().min(1),
    currency: z.string(),
  })
  .loose();

/** What the verify answer gives a read of the money: the transaction's id, references and currency. */
export type FlutterwaveTransaction = z.infer<typeof verified>;

const refundRow = z
  .object({
    id: z.union([z.number().int(), z.string()]),
    amount_refunded: majorAmount,
    status: z.string(),
    transaction_id: z.union([z.number().int(), z.string()]).nullish(),
    tx_id: z.union([z.number().int(), z.string()]).nullish(),
    created_at: z.string(),
  })
  .loose();

const chargebackRow = z
  .object({
    id: z.union([z.number().int(), z.string()]),
    amount: majorAmount,
    status: z.string(),
    stage: z.string().nullish(),
    tx_ref: z.string().nullish(),
    transaction_id: z.union([z.number().int(), z.string()]).nullish(),
    created_at: z.string(),
  })
  .loose();

/** `GET /v3/refunds?id=<transaction id>` and `GET /v3/chargebacks?flw_ref=<flw_ref>`. */
export function flutterwaveMovementsPaths(transaction: FlutterwaveTransaction): { refunds: string; chargebacks: string } {
  return {
    refunds: `/v3/refunds?${new URLSearchParams({ id: String(transaction.id) }).toString()}`,
    chargebacks: `/v3/chargebacks?${new URLSearchParams({ flw_ref: transaction.flw_ref }).toString()}`,
  };
}

/**
 * The transaction a verify answer describes.
 *
 * @throws ProviderCallError for an answer other than 200 (`listAnswerError`) or one it cannot read.
 */
export function flutterwaveVerifiedTransaction(status: number, body: string): FlutterwaveTransaction {
  if (status !== 200) throw listAnswerError(status, LABEL);
  const answer = listJson(body, LABEL) as { status?: unknown; data?: unknown };
  const data = answer.status === 'success' ? verified.safeParse(answer.data) : null;
  if (!data?.success) throw malformedList(LABEL, 'the verify answer lacks the transaction id, tx_ref, flw_ref or currency');
  return data.data;
}

/**
 * One list answer's rows.
 *
 * @throws ProviderCallError for an answer other than 200, a body that is not `{ status: "success", data: [] }`,
 *   or a full page (Settle would otherwise miss a row: the sandbox and Flutterwave answer one page of 20).
 */
export function flutterwaveMovementRows(status: number, body: string): readonly unknown[] {
  if (status !== 200) throw listAnswerError(status, LABEL);
  const answer = listJson(body, LABEL) as { status?: unknown; data?: unknown };
  if (answer.status !== 'success' || !Array.isArray(answer.data)) throw malformedList(LABEL, 'not { status: "success", data: [...] }');
  if (answer.data.length >= FLUTTERWAVE_MOVEMENTS_PAGE_SIZE)
    throw malformedList(LABEL, `a transaction has ${FLUTTERWAVE_MOVEMENTS_PAGE_SIZE} refunds or chargebacks or more`);
  return answer.data;
}

/** A major-unit amount in minor units of the transaction's currency, or why not. */
function minor(amount: number | string, currency: string): number | string {
  try {
    return majorToMinor(amount, currency);
  } catch (error) {
    if (error instanceof AmountConversionError) return `the amount does not convert (${error.code})`;
    throw error;
  }
}

/** One Flutterwave refund read as an observation, or why it cannot be. It names the payment by the transaction id. */
export function flutterwaveRefundObservation(raw: unknown, transaction: FlutterwaveTransaction): RefundObservation | Omit<SkippedRow, 'index'> {
  const identity = rowIdentity(raw, 'id', 'transaction_id');
  const parsed = refundRow.safeParse(raw);
  const createdAt = parsed.success ? listedInstant(parsed.data.created_at) : null;
  if (!parsed.success || createdAt === null)
    return { ...identity, reason: 'the refund lacks an id, amount_refunded, status or created_at of the documented types' };
  const refund = parsed.data;
  const status = flutterwaveRefundStatus(refund.status);
  if (status === undefined) return { ...identity, reason: `unknown refund status "${refund.status.slice(0, 40)}"` };
  const amountMinor = minor(refund.amount_refunded, transaction.currency);
  if (typeof amountMinor === 'string') return { ...identity, reason: amountMinor };
  const of = String(refund.transaction_id ?? refund.tx_id ?? '');
  return {
    kind: 'refund',
    providerId: String(refund.id),
    paymentReference: of === String(transaction.id) ? transaction.tx_ref : `transaction ${of}`,
    amountMinor,
    currency: transaction.currency,
    providerStatus: refund.status,
    createdAt,
    status,
  };
}

/** One Flutterwave chargeback read as an observation, or why it cannot be. */
export function flutterwaveChargebackObservation(raw: unknown, transaction: FlutterwaveTransaction): DisputeObservation | Omit<SkippedRow, 'index'> {
  const identity = rowIdentity(raw, 'id', 'tx_ref');
  const parsed = chargebackRow.safeParse(raw);
  const createdAt = parsed.success ? listedInstant(parsed.data.created_at) : null;
  if (!parsed.success || createdAt === null) return { ...identity, reason: 'the chargeback lacks an id, amount, status or created_at of the documented types' };
  const chargeback = parsed.data;
  const status = FLUTTERWAVE_CHARGEBACK_STATUSES[chargeback.status];
  if (status === undefined) return { ...identity, reason: `unknown chargeback status "${chargeback.status.slice(0, 40)}"` };
  const amountMinor = minor(chargeback.amount, transaction.currency);
  if (typeof amountMinor === 'string') return { ...identity, reason: amountMinor };
  return {
    kind: 'dispute',
    providerId: String(chargeback.id),
    paymentReference: chargeback.tx_ref ?? `transaction ${String(chargeback.transaction_id ?? '')}`,
    amountMinor,
    currency: transaction.currency,
    providerStatus: chargeback.stage ? `${chargeback.status} (${chargeback.stage})` : chargeback.status,
    createdAt,
    status,
    reason: null,
  };
}

/** A transaction's refunds and chargebacks, oldest first, those it cannot read kept apart. */
export function flutterwaveMovements(transaction: FlutterwaveTransaction, refunds: readonly unknown[], chargebacks: readonly unknown[]): PaymentMovements {
  return readMovements([
    { rows: refunds, read: (raw) => flutterwaveRefundObservation(raw, transaction) },
    { rows: chargebacks, read: (raw) => flutterwaveChargebackObservation(raw, transaction) },
  ]);
}

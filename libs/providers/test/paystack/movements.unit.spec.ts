import { describe, expect, it } from 'vitest';
import {
  paystackDisputeObservation,
  paystackMovementRows,
  paystackMovements,
  paystackMovementsPaths,
  paystackRefundObservation,
  paystackVerifiedTransaction,
  type PaystackTransaction,
} from '@settle/providers';

// Shapes as Paystack's API reference samples them (Fetch Refund, Fetch Dispute; fields Settle does not read left out).
const transaction: PaystackTransaction = {
  id: 4099260516,
  status: 'success',
  reference: 're4lyvq3s3',
  amount: 40333,
  requested_amount: 40000,
  currency: 'NGN',
};
const refund = (over: Record<string, unknown> = {}) => ({
  id: 1234567,
  integration: 100982,
  transaction: 4099260516,
  dispute: null,
  settlement: null,
  domain: 'live',
  amount: 10000,
  deducted_amount: 0,
  fully_deducted: false,
  currency: 'NGN',
  channel: 'card',
  status: 'processed',
  refunded_by: 'customer@example.com',
  refunded_at: '2024-08-23T09:23:48.000Z',
  createdAt: '2024-08-22T09:23:48.000Z',
  updatedAt: '2024-08-23T09:23:48.000Z',
  ...over,
});
const dispute = (over: Record<string, unknown> = {}) => ({
  id: 358950,
  refund_amount: 40000,
  currency: 'NGN',
  status: 'awaiting-merchant-feedback',
  resolution: null,
  domain: 'live',
  transaction: { id: 4099260516, reference: 're4lyvq3s3', amount: 40000, currency: 'NGN' },
  transaction_reference: null,
  category: 'chargeback',
  createdAt: '2024-08-24T09:23:48.000Z',
  ...over,
});
const answer = (data: unknown) =>
  JSON.stringify({ status: true, message: 'Refunds retrieved', data, meta: { total: 1, skipped: 0, perPage: 100, page: 1, pageCount: 1 } });

describe("Paystack's refunds, disputes and reversal of a payment", () => {
  it('asks for them by Paystack transaction id, a page of 100', () => {
    expect(paystackMovementsPaths('4099260516')).toEqual({
      refunds: '/refund?transaction=4099260516&perPage=100',
      disputes: '/dispute?transaction=4099260516&perPage=100',
    });
  });

  it('reads the transaction of a verify answer, and refuses one it cannot read', () => {
    expect(
      paystackVerifiedTransaction(
        200,
        JSON.stringify({ status: true, message: 'Verification successful', data: { ...transaction, gateway_response: 'Approved' } }),
      ),
    ).toMatchObject(transaction);
    expect(() => paystackVerifiedTransaction(400, '{"status":false,"message":"Transaction reference not found"}')).toThrow(
      expect.objectContaining({ code: 'PROVIDER.UNEXPECTED_STATUS_400', retryable: false }),
    );
    expect(() => paystackVerifiedTransaction(200, '{"status":true,"data":{}}')).toThrow(expect.objectContaining({ code: 'PROVIDER.MALFORMED_RESPONSE' }));
  });

  it('reads a processed refund of this transaction under its reference; one of another transaction names that one', () => {
    expect(paystackRefundObservation(refund(), transaction)).toEqual({
      kind: 'refund',
      providerId: '1234567',
      paymentReference: 're4lyvq3s3',
      amountMinor: 10000,
      currency: 'NGN',
      providerStatus: 'processed',
      createdAt: Date.parse('2024-08-22T09:23:48.000Z'),
      status: 'succeeded',
    });
    expect(paystackRefundObservation(refund({ transaction: 1 }), transaction)).toMatchObject({ paymentReference: 'transaction 1' });
    expect(paystackRefundObservation(refund({ amount: '10000', created_at: '2024-08-22T09:23:48Z', createdAt: undefined }), transaction)).toMatchObject({
      amountMinor: 10000,
    });
  });

  it.each([
    ['pending', 'pending'],
    ['processing', 'pending'],
    ['needs-attention', 'pending'],
    ['processed', 'succeeded'],
    ['failed', 'failed'],
  ])('normalises refund status %s as %s', (raw, status) => {
    expect(paystackRefundObservation(refund({ status: raw }), transaction)).toMatchObject({ status });
  });

  it.each([
    ['awaiting-merchant-feedback', null, 'open'],
    ['awaiting-bank-feedback', null, 'open'],
    ['pending', null, 'open'],
    ['resolved', 'merchant-accepted', 'lost'],
    ['resolved', 'auto-accepted', 'lost'],
    ['resolved', 'declined', 'won'],
  ])('normalises dispute status %s (%s) as %s', (raw, resolution, status) => {
    expect(paystackDisputeObservation(dispute({ status: raw, resolution }), transaction)).toMatchObject({
      kind: 'dispute',
      status,
      amountMinor: 40000,
      reason: 'chargeback',
      paymentReference: 're4lyvq3s3',
    });
  });

  it('keeps apart a dispute it cannot decide (archived, or resolved with an unknown resolution)', () => {
    const movements = paystackMovements(transaction, [], [dispute({ status: 'archived' }), dispute({ status: 'resolved', resolution: 'withdrawn' })], 0);
    expect(movements.observations).toEqual([]);
    expect(movements.skipped?.map((s) => s.reason)).toEqual([expect.stringContaining('"archived"'), expect.stringContaining('"withdrawn"')]);
  });

  it('leaves out a refund that settles a dispute: its money is counted once, by the lost dispute', () => {
    const movements = paystackMovements(
      transaction,
      [refund({ dispute: 358950, amount: 40000 })],
      [dispute({ status: 'resolved', resolution: 'merchant-accepted' })],
      0,
    );
    expect(movements.observations.map((o) => [o.kind, o.providerId])).toEqual([['dispute', '358950']]);
  });

  it('a reversed transaction no refund or lost dispute explains is a reversal of the amount asked for, at the reading time', () => {
    const reversed = { ...transaction, status: 'reversed' };
    expect(paystackMovements(reversed, [], [], 1_700_000_000_000).observations).toEqual([
      {
        kind: 'reversal',
        providerId: 'transaction 4099260516',
        paymentReference: 're4lyvq3s3',
        amountMinor: 40000,
        currency: 'NGN',
        providerStatus: 'reversed',
        createdAt: 1_700_000_000_000,
      },
    ]);
    expect(paystackMovements(reversed, [refund()], [], 0).observations.map((o) => o.kind)).toEqual(['refund']);
    expect(paystackMovements(reversed, [refund({ status: 'failed' })], [], 1_800_000_000_000).observations.map((o) => o.kind)).toEqual(['refund', 'reversal']);
  });

  it('refuses a list answer it cannot trust', () => {
    expect(paystackMovementRows(200, answer([refund()]))).toHaveLength(1);
    expect(() => paystackMovementRows(401, '{"status":false}')).toThrow(expect.objectContaining({ code: 'PROVIDER.AUTH_REJECTED' }));
    expect(() => paystackMovementRows(200, answer({}))).toThrow(expect.objectContaining({ code: 'PROVIDER.MALFORMED_RESPONSE' }));
    expect(() => paystackMovementRows(200, answer(Array.from({ length: 100 }, () => refund())))).toThrow(/100 refunds or disputes or more/);
  });
});

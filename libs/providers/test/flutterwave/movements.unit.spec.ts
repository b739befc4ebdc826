import { describe, expect, it } from 'vitest';
import {
  flutterwaveChargebackObservation,
  flutterwaveMovementRows,
  flutterwaveMovements,
  flutterwaveMovementsPaths,
  flutterwaveRefundObservation,
  flutterwaveRefundStatus,
  flutterwaveVerifiedTransaction,
  type FlutterwaveTransaction,
} from '@settle/providers';

// Shapes as Flutterwave's v3 reference samples them ("Get all refunds", "Chargebacks"; fields Settle does not read left out).
const transaction: FlutterwaveTransaction = {
  id: 1163068,
  tx_ref: 'akhlm-pstmn-blkchrge-xx6',
  flw_ref: 'FLW-M03K-02c21a8095c7e064b8b9714db834080b',
  currency: 'NGN',
};
const refund = (over: Record<string, unknown> = {}) => ({
  id: 75923,
  account_id: 73362,
  tx_id: 1163068,
  flw_ref: 'URF_1577867664541_3572735',
  amount_refunded: 6900,
  status: 'completed',
  destination: 'payment_source',
  meta: { source: 'availablebalance' },
  transaction_id: 1163068,
  created_at: '2020-01-01T08:34:24.000Z',
  ...over,
});
const chargeback = (over: Record<string, unknown> = {}) => ({
  id: 2209,
  amount: 50.5,
  flw_ref: 'FLW-M03K-02c21a8095c7e064b8b9714db834080b',
  status: 'initiated',
  stage: 'new',
  comment: 'Customer says the goods never came',
  due_date: '2020-01-04T08:34:24.000Z',
  created_at: '2020-01-02T08:34:24.000Z',
  transaction_id: 1163068,
  tx_ref: 'akhlm-pstmn-blkchrge-xx6',
  ...over,
});
const list = (data: unknown) =>
  JSON.stringify({ status: 'success', message: 'Refunds fetched', meta: { page_info: { total: 1, current_page: 1, total_pages: 1 } }, data });

describe("Flutterwave's refunds and chargebacks of a transaction", () => {
  it('asks for them by transaction id and by its flw_ref', () => {
    expect(flutterwaveMovementsPaths(transaction)).toEqual({
      refunds: '/v3/refunds?id=1163068',
      chargebacks: '/v3/chargebacks?flw_ref=FLW-M03K-02c21a8095c7e064b8b9714db834080b',
    });
  });

  it('reads the transaction of a verify answer', () => {
    expect(flutterwaveVerifiedTransaction(200, JSON.stringify({ status: 'success', data: { ...transaction, amount: 100 } }))).toMatchObject(transaction);
    expect(() => flutterwaveVerifiedTransaction(200, JSON.stringify({ status: 'success', data: { id: 1 } }))).toThrow(
      expect.objectContaining({ code: 'PROVIDER.MALFORMED_RESPONSE' }),
    );
  });

  it('reads a refund: major units to minor with the transaction currency, the transaction id to its tx_ref', () => {
    expect(flutterwaveRefundObservation(refund(), transaction)).toEqual({
      kind: 'refund',
      providerId: '75923',
      paymentReference: 'akhlm-pstmn-blkchrge-xx6',
      amountMinor: 690000,
      currency: 'NGN',
      providerStatus: 'completed',
      createdAt: Date.parse('2020-01-01T08:34:24.000Z'),
      status: 'succeeded',
    });
    expect(flutterwaveRefundObservation(refund({ transaction_id: 1, tx_id: 1 }), transaction)).toMatchObject({ paymentReference: 'transaction 1' });
    expect(flutterwaveRefundObservation(refund({ amount_refunded: 1.234 }), transaction)).toMatchObject({
      reason: expect.stringContaining('PROVIDER.MALFORMED_AMOUNT'),
    });
  });

  it.each([
    ['completed', 'succeeded'],
    ['completed-mpgs', 'succeeded'],
    ['successful', 'succeeded'],
    ['failed', 'failed'],
    ['pending', 'pending'],
    ['on-hold', undefined],
  ])('normalises refund status %s as %s', (raw, status) => {
    expect(flutterwaveRefundStatus(raw)).toBe(status);
  });

  it.each([
    ['initiated', 'open'],
    ['declined', 'open'],
    ['pending', 'open'],
    ['accepted', 'lost'],
    ['lost', 'lost'],
    ['won', 'won'],
  ])('normalises chargeback status %s as %s', (raw, status) => {
    expect(flutterwaveChargebackObservation(chargeback({ status: raw }), transaction)).toMatchObject({
      kind: 'dispute',
      status,
      amountMinor: 5050,
      currency: 'NGN',
    });
  });

  it('a later stage is another chargeback, read as its own; rows it cannot read are kept apart', () => {
    const movements = flutterwaveMovements(
      transaction,
      [refund({ status: 'on-hold' })],
      [chargeback({ status: 'declined' }), chargeback({ id: 2221, stage: 'pre-arbitration', status: 'lost', created_at: '2020-01-09T08:34:24.000Z' })],
    );
    expect(movements.observations.map((o) => [o.providerId, o.kind === 'dispute' ? o.status : null, o.providerStatus])).toEqual([
      ['2209', 'open', 'declined (new)'],
      ['2221', 'lost', 'lost (pre-arbitration)'],
    ]);
    expect(movements.skipped).toEqual([{ index: 0, id: '75923', reference: '1163068', reason: 'unknown refund status "on-hold"' }]);
  });

  it('refuses a list answer it cannot trust', () => {
    expect(flutterwaveMovementRows(200, list([refund()]))).toHaveLength(1);
    expect(() => flutterwaveMovementRows(401, '{}')).toThrow(expect.objectContaining({ code: 'PROVIDER.AUTH_REJECTED' }));
    expect(() => flutterwaveMovementRows(200, '{"status":"error","data":null}')).toThrow(expect.objectContaining({ code: 'PROVIDER.MALFORMED_RESPONSE' }));
    expect(() => flutterwaveMovementRows(200, list(Array.from({ length: 20 }, () => refund())))).toThrow(/20 refunds or chargebacks or more/);
  });
});

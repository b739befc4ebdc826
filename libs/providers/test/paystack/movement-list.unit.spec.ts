import { describe, expect, it } from 'vitest';
import { paystackListedMovement, paystackMovementListPage, paystackMovementListPath } from '@settle/providers';

const window = { fromMs: Date.UTC(2026, 2, 1), untilMs: Date.UTC(2026, 2, 2) };

// Rows as Paystack's API reference lists them (PaystackOSS/openapi, RefundListResponseArray and
// DisputeListResponseArray; fields Settle does not read left out).
const refund = (over: Record<string, unknown> = {}) => ({
  integration: 428626,
  transaction: 627891234,
  dispute: null,
  settlement: null,
  id: 747680,
  domain: 'test',
  currency: 'NGN',
  amount: 10000,
  status: 'processed',
  refunded_at: null,
  deducted_amount: 10000,
  createdAt: '2026-03-01T10:00:00.000Z',
  transaction_reference: 'stl_paid_once',
  ...over,
});
const dispute = (over: Record<string, unknown> = {}) => ({
  id: 2867,
  refund_amount: 1002,
  currency: 'NGN',
  status: 'awaiting-merchant-feedback',
  resolution: null,
  domain: 'test',
  transaction: { id: 5991760, domain: 'test', status: 'success', reference: 'stl_disputed', amount: 39100, currency: 'NGN' },
  transaction_reference: null,
  category: 'chargeback',
  createdAt: '2026-03-01T11:00:00.000Z',
  updatedAt: '2026-03-01T11:00:00.000Z',
  ...over,
});
const answer = (data: unknown[], meta: Record<string, unknown> = { total: data.length, skipped: 0, perPage: '100', page: 1, pageCount: 1 }) =>
  JSON.stringify({ status: true, message: 'Refunds retrieved', data, meta });

describe("Paystack's refund and dispute lists by creation time", () => {
  it('asks each list for the window as ISO instants, a page of 100', () => {
    expect(paystackMovementListPath('refunds', window, 1)).toBe('/refund?from=2026-03-01T00%3A00%3A00.000Z&to=2026-03-02T00%3A00%3A00.000Z&perPage=100&page=1');
    expect(paystackMovementListPath('disputes', window, 3, 25)).toBe(
      '/dispute?from=2026-03-01T00%3A00%3A00.000Z&to=2026-03-02T00%3A00%3A00.000Z&perPage=25&page=3',
    );
  });

  it('reads a refund by its transaction_reference and a dispute by its transaction.reference, ids as text', () => {
    expect(paystackListedMovement('refund', refund())).toEqual({
      kind: 'listed',
      value: { kind: 'refund', id: '747680', reference: 'stl_paid_once', createdAtMs: Date.UTC(2026, 2, 1, 10) },
    });
    expect(paystackListedMovement('dispute', dispute())).toEqual({
      kind: 'listed',
      value: { kind: 'dispute', id: '2867', reference: 'stl_disputed', createdAtMs: Date.UTC(2026, 2, 1, 11) },
    });
    expect(paystackListedMovement('refund', refund({ createdAt: undefined, created_at: '2026-03-01T12:00:00Z' }))).toMatchObject({
      value: { createdAtMs: Date.UTC(2026, 2, 1, 12) },
    });
  });

  it('skips, with why, a row naming its transaction by id only, and one without a creation time in a zone', () => {
    expect(paystackListedMovement('refund', refund({ transaction_reference: null }))).toEqual({
      kind: 'skipped',
      row: { id: '747680', reason: 'the refund names no transaction reference' },
    });
    expect(paystackListedMovement('dispute', dispute({ createdAt: '2026-03-01 11:00:00' }))).toMatchObject({ kind: 'skipped', row: { id: '2867' } });
  });

  it('a page: rows in the window, the same list page after page, then disputes from page 1, then the end', () => {
    const page = paystackMovementListPage(
      'refunds',
      200,
      answer([refund(), refund({ id: 2, createdAt: '2026-03-02T00:00:00.000Z' }), refund({ id: 3, transaction_reference: '' })], {
        page: 1,
        pageCount: 3,
        perPage: '3',
      }),
      window,
    );
    expect(page).toEqual({
      movements: [{ kind: 'refund', id: '747680', reference: 'stl_paid_once', createdAtMs: Date.UTC(2026, 2, 1, 10) }],
      next: 'refunds:2',
      rows: 3,
      skipped: [{ index: 2, id: '3', reference: '', reason: 'the refund names no transaction reference' }],
      outsideWindow: 1,
    });
    expect(paystackMovementListPage('refunds', 200, answer([], { page: 3, pageCount: 3 }), window).next).toBe('disputes:');
    expect(paystackMovementListPage('refunds', 200, answer([], { page: 1, pageCount: 0 }), window).next).toBe('disputes:');
    expect(paystackMovementListPage('disputes', 200, answer([dispute()], { page: 1, pageCount: 2 }), window).next).toBe('disputes:2');
    expect(paystackMovementListPage('disputes', 200, answer([dispute()]), window)).toMatchObject({ movements: [{ reference: 'stl_disputed' }], next: null });
  });

  it('throws for answers it cannot use', () => {
    expect(() => paystackMovementListPage('refunds', 401, '{"status":false}', window)).toThrow(expect.objectContaining({ code: 'PROVIDER.AUTH_REJECTED' }));
    expect(() => paystackMovementListPage('refunds', 400, '{"status":false}', window)).toThrow(expect.objectContaining({ retryable: false }));
    expect(() => paystackMovementListPage('disputes', 200, '{"status":true,"data":[]}', window)).toThrow(
      expect.objectContaining({ code: 'PROVIDER.MALFORMED_RESPONSE' }),
    );
  });
});

import { describe, expect, it } from 'vitest';
import {
  flutterwaveListedRow,
  flutterwaveMovementListAnswer,
  flutterwaveMovementListPath,
  flutterwaveMovementPage,
  flutterwaveTransactionsToName,
  readWindowRows,
  type FlutterwaveTxRefLookup,
} from '@settle/providers';

const window = { fromMs: Date.UTC(2026, 2, 1, 6), untilMs: Date.UTC(2026, 2, 1, 18) };

// Rows as Flutterwave's v3 reference samples them ("Get all refunds", "Chargebacks"; fields Settle does not read left out).
const refund = (over: Record<string, unknown> = {}) => ({
  id: 75923,
  account_id: 73362,
  tx_id: 1163068,
  flw_ref: 'URF_1577867664541_3572735',
  amount_refunded: 6900,
  status: 'completed',
  transaction_id: 1163068,
  created_at: '2026-03-01T08:34:24.000Z',
  ...over,
});
const chargeback = (over: Record<string, unknown> = {}) => ({
  id: 2209,
  amount: 50.5,
  flw_ref: 'FLW-M03K-02c21a8095c7e064b8b9714db834080b',
  status: 'initiated',
  stage: 'new',
  created_at: '2026-03-01T09:34:24.000Z',
  transaction_id: 1163068,
  tx_ref: 'stl_charged_back',
  ...over,
});
const answer = (data: unknown[], page = 1, pages = 1) =>
  JSON.stringify({ status: 'success', message: 'Refunds fetched', meta: { page_info: { total: data.length, current_page: page, total_pages: pages } }, data });

describe("Flutterwave's refund and chargeback lists by creation date", () => {
  it('asks each list for the whole UTC dates covering the window, by page', () => {
    expect(flutterwaveMovementListPath('refunds', window, 1)).toBe('/v3/refunds?from=2026-03-01&to=2026-03-01&page=1');
    expect(flutterwaveMovementListPath('disputes', { fromMs: Date.UTC(2026, 1, 28, 23), untilMs: Date.UTC(2026, 2, 2) }, 2)).toBe(
      '/v3/chargebacks?from=2026-02-28&to=2026-03-02&page=2',
    );
  });

  it('reads the envelope: its rows and the next page number', () => {
    expect(flutterwaveMovementListAnswer(200, answer([refund()], 1, 2))).toEqual({ data: [refund()], next: '2' });
    expect(flutterwaveMovementListAnswer(200, answer([], 2, 2)).next).toBeNull();
    expect(() => flutterwaveMovementListAnswer(200, JSON.stringify({ status: 'success', data: [] }))).toThrow(
      expect.objectContaining({ code: 'PROVIDER.MALFORMED_RESPONSE' }),
    );
    expect(() => flutterwaveMovementListAnswer(401, '{"status":"error"}')).toThrow(expect.objectContaining({ code: 'PROVIDER.AUTH_REJECTED' }));
  });

  it('reads a chargeback by its tx_ref, a refund by its transaction id (to look up), and skips a row naming neither', () => {
    expect(flutterwaveListedRow(chargeback())).toEqual({
      kind: 'listed',
      value: { id: '2209', createdAtMs: Date.UTC(2026, 2, 1, 9, 34, 24), txRef: 'stl_charged_back', transactionId: '1163068' },
    });
    expect(flutterwaveListedRow(refund({ transaction_id: undefined }))).toEqual({
      kind: 'listed',
      value: { id: '75923', createdAtMs: Date.UTC(2026, 2, 1, 8, 34, 24), txRef: null, transactionId: '1163068' },
    });
    expect(flutterwaveListedRow(refund({ transaction_id: null, tx_id: null }))).toEqual({
      kind: 'skipped',
      row: { id: '75923', reason: 'the row names no tx_ref and no transaction id' },
    });
    expect(flutterwaveListedRow(refund({ created_at: 'today' }))).toMatchObject({ kind: 'skipped', row: { id: '75923' } });
  });

  it('looks up each transaction of the refunds in the window once, and names each refund by what was found', () => {
    const rows = [
      refund({ id: 1, transaction_id: 11 }),
      refund({ id: 2, transaction_id: 11 }),
      refund({ id: 3, transaction_id: 33 }),
      refund({ id: 4, transaction_id: 44, created_at: '2026-03-01T19:00:00Z' }),
      chargeback({ id: 5 }),
      refund({ id: 6, transaction_id: 66 }),
    ];
    const read = readWindowRows(window, rows, flutterwaveListedRow);
    expect(flutterwaveTransactionsToName(read)).toEqual(['11', '33', '66']);
    const txRefs = new Map<string, FlutterwaveTxRefLookup>([
      ['11', 'stl_eleven'],
      ['33', { reason: 'PROVIDER.UNEXPECTED_STATUS_400' }],
    ]);
    expect(flutterwaveMovementPage('refunds', read, rows.length, '2', txRefs)).toEqual({
      movements: [
        { kind: 'refund', id: '1', reference: 'stl_eleven', createdAtMs: Date.UTC(2026, 2, 1, 8, 34, 24) },
        { kind: 'refund', id: '2', reference: 'stl_eleven', createdAtMs: Date.UTC(2026, 2, 1, 8, 34, 24) },
        { kind: 'refund', id: '5', reference: 'stl_charged_back', createdAtMs: Date.UTC(2026, 2, 1, 9, 34, 24) },
      ],
      next: 'refunds:2',
      rows: 6,
      skipped: [
        { index: 2, id: '3', reason: 'its transaction 33 gives no tx_ref: PROVIDER.UNEXPECTED_STATUS_400' },
        { index: 5, id: '6', reason: 'its transaction 66 gives no tx_ref: its transaction was not looked up' },
      ],
      outsideWindow: 1,
    });
  });

  it('chargebacks follow refunds, and end the walk', () => {
    const read = readWindowRows(window, [chargeback()], flutterwaveListedRow);
    expect(flutterwaveMovementPage('refunds', readWindowRows(window, [], flutterwaveListedRow), 0, null, new Map()).next).toBe('disputes:');
    expect(flutterwaveMovementPage('disputes', read, 1, null, new Map())).toEqual({
      movements: [{ kind: 'dispute', id: '2209', reference: 'stl_charged_back', createdAtMs: Date.UTC(2026, 2, 1, 9, 34, 24) }],
      next: null,
      rows: 1,
    });
  });
});

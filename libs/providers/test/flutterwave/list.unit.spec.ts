import { describe, expect, it } from 'vitest';
import { FLUTTERWAVE_LIST_STATUSES, flutterwaveListDates, flutterwaveListPage, flutterwaveListPath } from '@settle/providers';

const window = { fromMs: Date.UTC(2026, 2, 1), untilMs: Date.UTC(2026, 2, 2) };

const row = (fields: Record<string, unknown> = {}) => ({
  id: 1163077,
  tx_ref: 'stl_1',
  flw_ref: 'FLW-M03K-781621ccfe976c03515bcd07a39f3db8',
  amount: 303.5,
  currency: 'NGN',
  charged_amount: 303.5,
  app_fee: 4.25,
  status: 'successful',
  payment_type: 'card',
  created_at: '2026-03-01T19:33:20.000Z',
  amount_settled: 299.25,
  customer: { id: 252759, email: 'user@example.com', phone_number: '08012345678', name: 'Kendrick Graham' },
  meta: { settle: 'yes' },
  ...fields,
});

const answer = (data: unknown[], pageInfo: Record<string, unknown> = { total: data.length, current_page: 1, total_pages: 1 }) =>
  JSON.stringify({ status: 'success', message: 'Transactions fetched', meta: { page_info: pageInfo }, data });

describe("Flutterwave's transaction list to a page (docs/provider-facts.md, Flutterwave)", () => {
  it('asks for the UTC dates covering the window, to the date of its exclusive end', () => {
    expect(flutterwaveListDates(window)).toEqual({ from: '2026-03-01', to: '2026-03-02' });
    expect(flutterwaveListDates({ fromMs: Date.UTC(2026, 2, 1, 23, 30), untilMs: Date.UTC(2026, 2, 3, 0, 30) })).toEqual({
      from: '2026-03-01',
      to: '2026-03-03',
    });
    expect(flutterwaveListDates({ fromMs: Date.UTC(2026, 2, 1, 23, 59, 59, 999), untilMs: Date.UTC(2026, 2, 2) })).toEqual({
      from: '2026-03-01',
      to: '2026-03-02',
    });
    expect(flutterwaveListPath(window, 4)).toBe('/v3/transactions?from=2026-03-01&to=2026-03-02&page=4');
  });

  it('reads a row: tx_ref, major units to minor units, the payer (E.164 with the region), meta flattened, created_at', () => {
    expect(flutterwaveListPage(200, answer([row()]), window, { phoneRegion: 'NG' })).toEqual({
      transactions: [
        {
          provider: 'flutterwave',
          reference: 'stl_1',
          providerTransactionId: '1163077',
          status: 'succeeded',
          providerStatus: 'successful',
          amountMinor: 30_350,
          currency: 'NGN',
          customer: { email: 'user@example.com', phone: '+2348012345678' },
          metadata: { settle: 'yes' },
          createdAtMs: Date.UTC(2026, 2, 1, 19, 33, 20),
          paidAtMs: null,
        },
      ],
      next: null,
      totalPages: 1,
      rows: 1,
    });
  });

  it('converts with the currency exponent: 0 (UGX, JPY), 2 (NGN), 3 (KWD), decimal text too', () => {
    const page = flutterwaveListPage(
      200,
      answer([
        row({ tx_ref: 'a', amount: 1500, currency: 'UGX' }),
        row({ tx_ref: 'b', amount: 1500, currency: 'JPY' }),
        row({ tx_ref: 'c', amount: '100.50', currency: 'NGN' }),
        row({ tx_ref: 'd', amount: 1.234, currency: 'KWD' }),
        row({ tx_ref: 'e', amount: 100, currency: 'kes' }),
      ]),
      window,
    );
    expect(page.transactions.map((t) => [t.reference, t.amountMinor, t.currency])).toEqual([
      ['a', 1500, 'UGX'],
      ['b', 1500, 'JPY'],
      ['c', 10_050, 'NGN'],
      ['d', 1234, 'KWD'],
      ['e', 10_000, 'KES'],
    ]);
  });

  it.each([
    ['successful', 'succeeded'],
    ['failed', 'failed'],
    ['pending', 'pending'],
  ])('status %s is %s', (status, normalised) => {
    expect(flutterwaveListPage(200, answer([row({ status })]), window).transactions[0]).toMatchObject({ status: normalised, providerStatus: status });
    expect(FLUTTERWAVE_LIST_STATUSES[status]).toBe(normalised);
  });

  it('the older flat payer fields, a phone of N/A and no meta', () => {
    const [listed] = flutterwaveListPage(
      200,
      answer([row({ customer: undefined, customer_email: 'user@gmail.com', customer_name: 'Yemi Desola', meta: null })]),
      window,
    ).transactions;
    expect(listed).toMatchObject({ customer: { email: 'user@gmail.com', phone: undefined } });
    expect(listed!.metadata).toBeUndefined();
    expect(
      flutterwaveListPage(200, answer([row({ customer: { email: 'a@b.co', phone_number: 'N/A' } })]), window).transactions[0]!.customer.phone,
    ).toBeUndefined();
  });

  it('keeps only the rows created in the window: its first instant in, its exclusive end out', () => {
    const page = flutterwaveListPage(
      200,
      answer([
        row({ tx_ref: 'end', created_at: '2026-03-02T00:00:00.000Z' }),
        row({ tx_ref: 'last', created_at: '2026-03-01T23:59:59.999Z' }),
        row({ tx_ref: 'first', created_at: '2026-03-01T00:00:00.000Z' }),
        row({ tx_ref: 'before', created_at: '2026-02-28T23:59:59.999Z' }),
      ]),
      window,
    );
    expect(page.transactions.map((t) => t.reference)).toEqual(['last', 'first']);
    expect(page).toMatchObject({ rows: 4, outsideWindow: 2 });
  });

  it('rows that cannot be read are kept with their reason: too many decimals, unknown currency or status, no created_at', () => {
    const page = flutterwaveListPage(
      200,
      answer([
        row({ tx_ref: 'decimals', amount: 10.5, currency: 'JPY' }),
        row({ tx_ref: 'currency', currency: 'XYZ' }),
        row({ tx_ref: 'status', status: 'cancelled' }),
        row({ tx_ref: 'created', created_at: 'yesterday' }),
        row({ tx_ref: undefined }),
      ]),
      window,
    );
    expect(page.transactions).toEqual([]);
    expect(page.skipped?.map((s) => [s.reference, s.reason])).toEqual([
      ['decimals', 'PROVIDER.MALFORMED_AMOUNT: Amount has more than 0 decimals'],
      ['currency', 'PROVIDER.UNKNOWN_CURRENCY: Currency XYZ is unknown'],
      ['status', 'unknown status "cancelled"'],
      ['created', 'no readable creation time (created_at)'],
      [undefined, expect.stringContaining('lacks a tx_ref')],
    ]);
  });

  it('the cursor is the next page number until the last page', () => {
    expect(flutterwaveListPage(200, answer([row()], { total: 158, current_page: 1, total_pages: 16 }), window)).toMatchObject({ next: '2', totalPages: 16 });
    expect(flutterwaveListPage(200, answer([row()], { total: 158, current_page: 16, total_pages: 16 }), window)).toMatchObject({ next: null });
    expect(flutterwaveListPage(200, answer([], { total: 0, current_page: 1, total_pages: 0 }), window)).toMatchObject({
      transactions: [],
      next: null,
      rows: 0,
    });
  });

  it('a refused key, a 500 and unreadable envelopes throw', () => {
    expect(() => flutterwaveListPage(401, '{"status":"error","message":"Invalid authorization key","data":null}', window)).toThrow(
      expect.objectContaining({ code: 'PROVIDER.AUTH_REJECTED', retryable: false }),
    );
    expect(() => flutterwaveListPage(500, '{}', window)).toThrow(expect.objectContaining({ retryable: true }));
    expect(() => flutterwaveListPage(200, '{"status":"success","data":[]}', window)).toThrow(expect.objectContaining({ code: 'PROVIDER.MALFORMED_RESPONSE' }));
    expect(() => flutterwaveListPage(200, '{"status":"error","message":"x","data":null}', window)).toThrow(
      expect.objectContaining({ code: 'PROVIDER.MALFORMED_RESPONSE' }),
    );
  });
});

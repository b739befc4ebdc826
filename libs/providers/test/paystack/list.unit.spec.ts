import { describe, expect, it } from 'vitest';
import { PAYSTACK_LIST_STATUSES, paystackListCursor, paystackListPage, paystackListPath } from '@settle/providers';

const window = { fromMs: Date.UTC(2026, 2, 1), untilMs: Date.UTC(2026, 2, 2) };

const tx = (fields: Record<string, unknown> = {}) => ({
  id: 4099260516,
  domain: 'test',
  status: 'success',
  reference: 'stl_1',
  amount: 40_333,
  requested_amount: 40_000,
  currency: 'NGN',
  gateway_response: 'Successful',
  paid_at: '2026-03-01T10:00:05.000Z',
  created_at: '2026-03-01T10:00:00.000Z',
  channel: 'card',
  customer: { email: 'ada@example.com', phone: '+2348012345678', customer_code: 'CUS_1' },
  metadata: { settle: 'yes' },
  ...fields,
});

const answer = (data: unknown[], meta: Record<string, unknown> = { total: data.length, skipped: 0, perPage: 100, page: 1, pageCount: 1 }) =>
  JSON.stringify({ status: true, message: 'Transactions retrieved', data, meta });

describe("Paystack's transaction list to a page (docs/provider-facts.md, Paystack)", () => {
  it('asks for the window as ISO instants, a page size and a page', () => {
    expect(paystackListPath(window, 3, 50)).toBe('/transaction?from=2026-03-01T00%3A00%3A00.000Z&to=2026-03-02T00%3A00%3A00.000Z&perPage=50&page=3');
    expect(paystackListPath(window, 1)).toContain('perPage=100&page=1');
  });

  it('reads a transaction as verification does: requested_amount in minor units, currency upper case, the payer, metadata, times', () => {
    const page = paystackListPage(200, answer([tx({ currency: 'ngn' })]), window);
    expect(page.transactions).toEqual([
      {
        provider: 'paystack',
        reference: 'stl_1',
        providerTransactionId: '4099260516',
        status: 'succeeded',
        providerStatus: 'success',
        amountMinor: 40_000,
        currency: 'NGN',
        customer: { email: 'ada@example.com', phone: '+2348012345678' },
        metadata: { settle: 'yes' },
        createdAtMs: Date.UTC(2026, 2, 1, 10),
        paidAtMs: Date.UTC(2026, 2, 1, 10, 0, 5),
      },
    ]);
    expect(page).toMatchObject({ next: null, totalPages: 1, rows: 1 });
    expect(page.skipped).toBeUndefined();
  });

  it('falls back to amount without requested_amount; zero-decimal and three-decimal currencies are already minor units', () => {
    const page = paystackListPage(
      200,
      answer([
        tx({ requested_amount: null }),
        tx({ reference: 'stl_2', currency: 'UGX', amount: 5_000, requested_amount: undefined }),
        tx({ reference: 'stl_3', currency: 'KWD', amount: 1_234, requested_amount: 1_234 }),
      ]),
      window,
    );
    expect(page.transactions.map((t) => [t.amountMinor, t.currency])).toEqual([
      [40_333, 'NGN'],
      [5_000, 'UGX'],
      [1_234, 'KWD'],
    ]);
  });

  it.each([
    ['success', 'succeeded'],
    ['failed', 'failed'],
    ['abandoned', 'failed'],
    ['reversed', 'reversed'],
    ['ongoing', 'pending'],
    ['pending', 'pending'],
    ['processing', 'pending'],
    ['queued', 'pending'],
  ])('status %s is %s', (status, normalised) => {
    const [listed] = paystackListPage(200, answer([tx({ status, paid_at: null })]), window).transactions;
    expect(listed).toMatchObject({ status: normalised, providerStatus: status });
    expect(PAYSTACK_LIST_STATUSES[status]).toBe(normalised);
  });

  it('a paid time is kept only for a paid (or reversed) transaction', () => {
    const [failed] = paystackListPage(200, answer([tx({ status: 'failed' })]), window).transactions;
    expect(failed!.paidAtMs).toBeNull();
  });

  it('metadata as text, with custom fields, or empty', () => {
    const page = paystackListPage(
      200,
      answer([
        tx({ metadata: '{"settle":"yes","custom_fields":[{"display_name":"Plan","variable_name":"plan","value":"pro"}]}' }),
        tx({ reference: 'stl_2', metadata: '' }),
        tx({ reference: 'stl_3', metadata: null }),
      ]),
      window,
    );
    expect(page.transactions.map((t) => t.metadata)).toEqual([{ settle: 'yes', plan: 'pro' }, undefined, undefined]);
  });

  it('rows that cannot be read are counted and kept with their reason; the others are listed', () => {
    const page = paystackListPage(
      200,
      answer([
        tx({ reference: 'stl_ok' }),
        tx({ reference: 'stl_status', status: 'reversal_pending' }),
        tx({ reference: 'stl_currency', currency: 'naira' }),
        tx({ reference: 'stl_created', created_at: null, createdAt: undefined }),
        tx({ reference: undefined }),
        tx({ reference: 'stl_amount', amount: 12.5 }),
        'not a row',
      ]),
      window,
    );
    expect(page.transactions.map((t) => t.reference)).toEqual(['stl_ok']);
    expect(page.rows).toBe(7);
    expect(page.skipped).toEqual([
      { index: 1, id: '4099260516', reference: 'stl_status', reason: 'unknown status "reversal_pending"' },
      { index: 2, id: '4099260516', reference: 'stl_currency', reason: 'the currency is not an ISO 4217 code' },
      { index: 3, id: '4099260516', reference: 'stl_created', reason: 'no readable creation time (created_at)' },
      { index: 4, id: '4099260516', reason: expect.stringContaining('lacks a reference') },
      { index: 5, id: '4099260516', reference: 'stl_amount', reason: expect.stringContaining('lacks') },
      { index: 6, reason: expect.stringContaining('lacks') },
    ]);
  });

  it("a row at the window's end (Paystack's `to` may include it) or before its start is counted outside the window", () => {
    const page = paystackListPage(
      200,
      answer([
        tx({ reference: 'stl_end', created_at: '2026-03-02T00:00:00.000Z' }),
        tx({ reference: 'stl_last', created_at: '2026-03-01T23:59:59.999Z' }),
        tx({ reference: 'stl_first', created_at: '2026-03-01T00:00:00.000Z' }),
        tx({ reference: 'stl_before', created_at: '2026-02-28T23:59:59.999Z' }),
      ]),
      window,
    );
    expect(page.transactions.map((t) => t.reference)).toEqual(['stl_last', 'stl_first']);
    expect(page.outsideWindow).toBe(2);
  });

  it('the cursor is the next page number until the last page', () => {
    expect(paystackListPage(200, answer([tx()], { total: 250, skipped: 0, perPage: 100, page: 1, pageCount: 3 }), window)).toMatchObject({
      next: '2',
      totalPages: 3,
    });
    expect(paystackListPage(200, answer([tx()], { total: 250, skipped: 200, perPage: 100, page: 3, pageCount: 3 }), window)).toMatchObject({ next: null });
    expect(paystackListPage(200, answer([], { total: 0, skipped: 0, perPage: 100, page: 1, pageCount: 0 }), window)).toEqual({
      transactions: [],
      next: null,
      totalPages: 0,
      rows: 0,
    });
    expect(paystackListCursor(null)).toBe(1);
    expect(paystackListCursor('2')).toBe(2);
  });

  it('a refused key, a 500, a 400 and unreadable envelopes throw, retryable only where a later call may succeed', () => {
    expect(() => paystackListPage(401, '{"status":false,"message":"Invalid key"}', window)).toThrow(
      expect.objectContaining({ code: 'PROVIDER.AUTH_REJECTED', retryable: false }),
    );
    expect(() => paystackListPage(500, 'oops', window)).toThrow(expect.objectContaining({ code: 'PROVIDER.UNEXPECTED_STATUS_500', retryable: true }));
    expect(() => paystackListPage(400, '{"status":false,"message":"Invalid date"}', window)).toThrow(expect.objectContaining({ retryable: false }));
    for (const body of ['not json', '{"status":false,"message":"x"}', '{"status":true,"data":{}}', '{"status":true,"data":[]}']) {
      expect(() => paystackListPage(200, body, window)).toThrow(expect.objectContaining({ code: 'PROVIDER.MALFORMED_RESPONSE', retryable: false }));
    }
  });
});

import { describe, expect, it } from 'vitest';
import {
  assertListWindow,
  canList,
  flattenMetadata,
  listAnswerError,
  listedInstant,
  listPageOf,
  pageNumberCursor,
  ProviderCallError,
  type PaymentProvider,
} from '@settle/providers';

describe('list helpers (docs/reconciliation.md, "Providers\' lists")', () => {
  it('a window is two integer instants, from strictly before until', () => {
    expect(() => assertListWindow({ fromMs: 0, untilMs: 1 })).not.toThrow();
    expect(() => assertListWindow({ fromMs: 5, untilMs: 5 })).toThrow(RangeError);
    expect(() => assertListWindow({ fromMs: 6, untilMs: 5 })).toThrow(RangeError);
    expect(() => assertListWindow({ fromMs: 0.5, untilMs: 5 })).toThrow(RangeError);
  });

  it('page-number cursors: null is page 1, a number written by an adapter is read back, anything else is refused', () => {
    expect(pageNumberCursor(null)).toBe(1);
    expect(pageNumberCursor('7')).toBe(7);
    for (const bad of ['0', '-1', '1.5', 'abc', '', '01', '9999999999']) {
      expect(() => pageNumberCursor(bad)).toThrow(expect.objectContaining({ code: 'PROVIDER.INVALID_CURSOR', retryable: false }));
    }
  });

  it("instants need a time zone; a local time is never read in this machine's zone", () => {
    expect(listedInstant('2026-03-01T10:00:00.000Z')).toBe(Date.UTC(2026, 2, 1, 10));
    expect(listedInstant('2026-03-01T11:00:00+01:00')).toBe(Date.UTC(2026, 2, 1, 10));
    expect(listedInstant('2026-03-01 10:00:00Z')).toBe(Date.UTC(2026, 2, 1, 10));
    expect(listedInstant('2026-03-01T10:00:00')).toBeNull();
    expect(listedInstant('2026-03-01')).toBeNull();
    expect(listedInstant(null)).toBeNull();
    expect(listedInstant(1_700_000_000)).toBeNull();
  });

  it('metadata is flattened to text: scalars as text, nested values as JSON, Paystack custom_fields by variable name', () => {
    expect(
      flattenMetadata({
        settle: 'yes',
        order: 42,
        gift: false,
        none: null,
        cart: { items: 2 },
        tags: ['a'],
        custom_fields: [
          { display_name: 'Mobile', variable_name: 'mobile', value: '+2348012345678' },
          { display_name: 'Order', variable_name: 'order', value: 'from the field' },
          { display_name: 'Nested', variable_name: 'nested', value: { a: 1 } },
          'junk',
        ],
      }),
    ).toEqual({ settle: 'yes', order: '42', gift: 'false', cart: '{"items":2}', tags: '["a"]', mobile: '+2348012345678' });
  });

  it('metadata given as JSON text is read as its object; empty or non-object metadata is none', () => {
    expect(flattenMetadata('{"settle":"yes"}')).toEqual({ settle: 'yes' });
    for (const none of [null, undefined, '', 0, 'not json', '[1]', [], {}, { a: null }]) expect(flattenMetadata(none)).toBeUndefined();
  });

  it('list answers other than 200: a refused key is not retryable, a 500 is, a 400 is not', () => {
    expect(listAnswerError(401, 'X')).toMatchObject({ code: 'PROVIDER.AUTH_REJECTED', retryable: false, kind: 'internal' });
    expect(listAnswerError(403, 'X')).toMatchObject({ code: 'PROVIDER.AUTH_REJECTED', retryable: false });
    expect(listAnswerError(500, 'X')).toMatchObject({ code: 'PROVIDER.UNEXPECTED_STATUS_500', retryable: true, kind: 'unavailable' });
    expect(listAnswerError(400, 'X')).toMatchObject({ code: 'PROVIDER.UNEXPECTED_STATUS_400', retryable: false });
    expect(listAnswerError(400, 'X')).toBeInstanceOf(ProviderCallError);
  });

  it('a page lists the rows read in the window, counts those outside, keeps the unreadable with their reason', () => {
    const window = { fromMs: 100, untilMs: 200 };
    const page = listPageOf(
      window,
      [99, 100, 199, 200, 'bad'],
      (row) =>
        typeof row === 'number'
          ? {
              kind: 'listed',
              transaction: {
                provider: 'paystack',
                reference: `r${row}`,
                status: 'succeeded',
                providerStatus: 'success',
                amountMinor: 1,
                currency: 'NGN',
                customer: {},
                createdAtMs: row,
                paidAtMs: null,
              },
            }
          : { kind: 'skipped', row: { reason: 'unreadable' } },
      { next: '2', totalPages: 3 },
    );
    expect(page.transactions.map((t) => t.reference)).toEqual(['r100', 'r199']);
    expect(page).toMatchObject({ next: '2', totalPages: 3, rows: 5, outsideWindow: 2, skipped: [{ index: 4, reason: 'unreadable' }] });
  });

  it('canList tells a lister from a verification-only adapter', () => {
    const verifyOnly: PaymentProvider = { name: 'mpesa', verify: async () => ({ kind: 'not_found' }) };
    expect(canList(verifyOnly)).toBe(false);
    expect(canList(Object.assign(verifyOnly, { listPage: async () => ({ transactions: [], next: null, rows: 0 }) }))).toBe(true);
  });
});

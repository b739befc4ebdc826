import { describe, expect, it } from 'vitest';
import type { UnmatchedPayment } from '../src/api/types';
import {
  checkMatchForm,
  compareTerms,
  EMPTY_MATCH_FORM,
  findOpenUnmatched,
  matchFieldOfPath,
  proposedTerms,
  toMinorUnits,
  UNMATCHED_LOOKUP_PAGES,
  type MatchFormValues,
  type UnmatchedPage,
} from '../src/lib/match';

// The match form's pure parts: major units typed, minor units sent (the currency's exponent from
// Intl, as formatMoney reads it), the form's checks, and a proposal's terms beside the provider's answer.

describe('an amount typed in major units, sent in minor units', () => {
  it("shifts the digits by the currency's exponent: 2 for NGN and USD, 0 for JPY and UGX, 3 for KWD", () => {
    expect(toMinorUnits('900', 'NGN')).toEqual({ ok: true, minor: 90_000 });
    expect(toMinorUnits('900.00', 'NGN')).toEqual({ ok: true, minor: 90_000 });
    expect(toMinorUnits('2500.5', 'USD')).toEqual({ ok: true, minor: 250_050 });
    expect(toMinorUnits('0.01', 'usd')).toEqual({ ok: true, minor: 1 });
    expect(toMinorUnits('.5', 'USD')).toEqual({ ok: true, minor: 50 });
    expect(toMinorUnits('1500', 'JPY')).toEqual({ ok: true, minor: 1500 });
    expect(toMinorUnits('5000', 'UGX')).toEqual({ ok: true, minor: 5000 });
    expect(toMinorUnits('1.234', 'KWD')).toEqual({ ok: true, minor: 1234 });
  });

  it('is exact where a float multiplication is not (0.29 × 100 is 28.999…)', () => {
    expect(0.29 * 100).not.toBe(29);
    expect(toMinorUnits('0.29', 'USD')).toEqual({ ok: true, minor: 29 });
    expect(toMinorUnits('1234567.89', 'NGN')).toEqual({ ok: true, minor: 123_456_789 });
  });

  it('takes commas grouping thousands and spaces, not a comma as the decimal mark', () => {
    expect(toMinorUnits(' 1,500.00 ', 'NGN')).toEqual({ ok: true, minor: 150_000 });
    expect(toMinorUnits('1 500', 'NGN')).toEqual({ ok: true, minor: 150_000 });
    expect(toMinorUnits('1,234,567', 'JPY')).toEqual({ ok: true, minor: 1_234_567 });
    expect(toMinorUnits('900,50', 'NGN')).toEqual({ ok: false, message: expect.stringContaining('with a point for decimals, such as 1500.00') });
  });

  it('refuses more decimals than the currency has, nothing, zero, words and an unknown currency', () => {
    expect(toMinorUnits('900.005', 'NGN')).toEqual({ ok: false, message: 'NGN has 2 decimal places: enter at most 2.' });
    expect(toMinorUnits('1500.5', 'JPY')).toEqual({ ok: false, message: 'JPY has no minor unit: enter a whole amount.' });
    expect(toMinorUnits('', 'NGN').ok).toBe(false);
    expect(toMinorUnits('.', 'NGN').ok).toBe(false);
    expect(toMinorUnits('0.00', 'NGN')).toEqual({ ok: false, message: 'The amount must be above zero.' });
    expect(toMinorUnits('-5', 'NGN').ok).toBe(false);
    expect(toMinorUnits('1e3', 'NGN').ok).toBe(false);
    expect(toMinorUnits('ten', 'NGN').ok).toBe(false);
    expect(toMinorUnits('99999999999999999', 'NGN')).toEqual({ ok: false, message: 'The amount is too large.' });
    expect(toMinorUnits('900', '')).toEqual({ ok: false, message: expect.stringContaining('Enter the currency first') });
    expect(toMinorUnits('900', 'NAIRA').ok).toBe(false);
  });
});

describe('the match form', () => {
  const filled: MatchFormValues = {
    entitlement: ' pro-monthly ',
    userId: 'user-42',
    accessPeriod: 'p30d',
    amount: '2,500.00',
    currency: 'ngn',
    email: 'payer@example.com',
    phone: '',
  };

  it('opens empty: nothing comes from the provider', () => {
    expect(Object.values(EMPTY_MATCH_FORM).every((value) => value === '')).toBe(true);
  });

  it("builds the API's terms: minor units, codes upper-cased, text trimmed, the customer's e-mail and/or phone", () => {
    expect(checkMatchForm(filled)).toEqual({
      ok: true,
      terms: {
        amount: 250_000,
        currency: 'NGN',
        user_id: 'user-42',
        customer: { email: 'payer@example.com' },
        entitlement: 'pro-monthly',
        access_period: 'P30D',
      },
    });
    expect(checkMatchForm({ ...filled, email: '', phone: '+234 801 234 5678' })).toMatchObject({
      ok: true,
      terms: { customer: { phone: '+234 801 234 5678' } },
    });
    expect(checkMatchForm({ ...filled, phone: '+254700000000' })).toMatchObject({
      ok: true,
      terms: { customer: { email: 'payer@example.com', phone: '+254700000000' } },
    });
    for (const period of ['P1M', 'P1Y', 'P2W', 'P1Y6M']) expect(checkMatchForm({ ...filled, accessPeriod: period }).ok).toBe(true);
  });

  it('says what is wrong beside each field', () => {
    const empty = checkMatchForm(EMPTY_MATCH_FORM);
    expect(empty.ok).toBe(false);
    expect(Object.keys(!empty.ok ? empty.errors : {}).sort()).toEqual(['accessPeriod', 'currency', 'email', 'entitlement', 'userId']);
    const wrong = checkMatchForm({ ...filled, accessPeriod: 'a month', amount: '2500.001', email: 'payer', phone: '0801 234 5678' });
    expect(wrong).toEqual({
      ok: false,
      errors: {
        accessPeriod: expect.stringContaining('P30D'),
        amount: 'NGN has 2 decimal places: enter at most 2.',
        email: 'Not an e-mail address.',
        phone: expect.stringContaining('+ and the country code'),
      },
    });
    // An access period with hours is a checkout's, not the console's: the API refuses it.
    expect(checkMatchForm({ ...filled, accessPeriod: 'PT12H' })).toMatchObject({ ok: false, errors: { accessPeriod: expect.any(String) } });
    expect(checkMatchForm({ ...filled, currency: 'NG' })).toMatchObject({ ok: false, errors: { currency: expect.any(String) } });
  });

  it("names the form's field of an API problem's path", () => {
    expect(matchFieldOfPath('amount')).toBe('amount');
    expect(matchFieldOfPath('customer.phone')).toBe('phone');
    expect(matchFieldOfPath('customer')).toBe('email');
    expect(matchFieldOfPath('access_period')).toBe('accessPeriod');
    expect(matchFieldOfPath('(body)')).toBeNull();
  });
});

describe("a proposal's terms beside the provider's answer", () => {
  const terms = { amount: 90_000, currency: 'NGN', user_id: 'user-7', customer: { email: 'Payer@Example.com' }, entitlement: 'pro', access_period: 'P1M' };
  const payment: UnmatchedPayment = {
    reference: 'ref_1',
    provider: 'paystack',
    amountMinor: 90_000,
    currency: 'NGN',
    // As the console's API gives it: masked (docs/privacy.md, "Masked forms").
    customer: { email: 'p•••@example.com', phone: null },
    termsVerified: true,
    providerStatus: 'success',
    providerTransactionId: null,
    verifiedAt: '2026-11-28T12:00:00.000Z',
  };
  const agreement = (lines: ReturnType<typeof compareTerms>) => Object.fromEntries(lines.map((line) => [line.term, line.agrees]));

  it('reads match terms back from the parameters, and nothing else', () => {
    expect(proposedTerms({ ...terms })).toEqual(terms);
    expect(proposedTerms({ ...terms, amount: '90000' })).toBeNull();
    expect(proposedTerms({ reason: 'x' })).toBeNull();
  });

  it('agrees line by line when the terms are what the provider confirmed; an e-mail that fits the masked form (in any case) is for the verifier to decide', () => {
    const lines = compareTerms(terms, payment);
    expect(lines.map((line) => line.term)).toEqual(['currency', 'amount', 'email', 'phone', 'user_id', 'entitlement', 'access_period']);
    expect(agreement(lines)).toEqual({ currency: true, amount: true, email: null, phone: null, user_id: null, entitlement: null, access_period: null });
    expect(lines.find((line) => line.term === 'email')!.provider).toBe('p•••@example.com');
    const amount = lines.find((line) => line.term === 'amount')!;
    expect(amount.proposed).toContain('900.00');
    expect(amount.provider).toContain('900.00');
    expect(lines.filter((line) => line.checkoutOnly).map((line) => line.term)).toEqual(['user_id', 'entitlement', 'access_period']);
  });

  it('marks a different amount, currency or e-mail, and compares nothing the provider did not verify', () => {
    expect(agreement(compareTerms({ ...terms, amount: 80_000 }, payment))).toMatchObject({ amount: false, currency: true });
    expect(agreement(compareTerms({ ...terms, currency: 'USD' }, payment))).toMatchObject({ amount: false, currency: false });
    expect(agreement(compareTerms({ ...terms, customer: { email: 'other@example.com' } }, payment))).toMatchObject({ email: false });
    expect(agreement(compareTerms({ ...terms, customer: { email: 'payer@example.org' } }, payment))).toMatchObject({ email: false });
    expect(agreement(compareTerms({ ...terms, customer: { email: 'p@example.com' } }, payment))).toMatchObject({ email: false });
    const mpesa = { ...payment, amountMinor: null, currency: 'KES', customer: { email: null, phone: null }, termsVerified: false };
    const lines = compareTerms({ ...terms, currency: 'KES', customer: { phone: '+254700000000' } }, mpesa);
    expect(agreement(lines)).toMatchObject({ currency: true, amount: null, email: null, phone: null });
    expect(lines.find((line) => line.term === 'amount')!.provider).toBeNull();
    expect(
      agreement(compareTerms({ ...terms, customer: { phone: '+254 700 000 000' } }, { ...payment, customer: { email: null, phone: '+254•••000' } })),
    ).toMatchObject({ phone: null });
    expect(
      agreement(compareTerms({ ...terms, customer: { phone: '+254 700 000 001' } }, { ...payment, customer: { email: null, phone: '+254•••000' } })),
    ).toMatchObject({ phone: false });
  });

  it('shows the proposed terms alone when the payment is not at hand', () => {
    const lines = compareTerms(terms, null);
    expect(lines.every((line) => line.provider === null && line.agrees === null)).toBe(true);
  });
});

describe('finding open unmatched payments in the queue', () => {
  const item = (reference: string) => ({ reference }) as UnmatchedPayment;
  function pages(...contents: string[][]): { read: (cursor: string | null) => Promise<UnmatchedPage>; cursors: Array<string | null> } {
    const cursors: Array<string | null> = [];
    return {
      cursors,
      read: (cursor) => {
        cursors.push(cursor);
        const index = cursor === null ? 0 : Number(cursor);
        return Promise.resolve({ items: (contents[index] ?? []).map(item), nextCursor: index + 1 < contents.length ? String(index + 1) : null });
      },
    };
  }

  it('reads pages until every reference is found', async () => {
    const queue = pages(['a', 'b'], ['c', 'd'], ['e']);
    const found = await findOpenUnmatched(['c', 'a'], queue.read);
    expect([...found.keys()].sort()).toEqual(['a', 'c']);
    expect(queue.cursors).toEqual([null, '1']);
  });

  it('stops at the end of the queue, a reference missing from it not found', async () => {
    const queue = pages(['a'], ['b']);
    expect([...(await findOpenUnmatched(['b', 'gone'], queue.read)).keys()]).toEqual(['b']);
    expect(queue.cursors).toEqual([null, '1']);
    expect((await findOpenUnmatched([], pages(['a']).read)).size).toBe(0);
  });

  it(`reads at most ${UNMATCHED_LOOKUP_PAGES} pages`, async () => {
    const queue = pages(...Array.from({ length: UNMATCHED_LOOKUP_PAGES + 5 }, (_, i) => [`p${i}`]));
    expect((await findOpenUnmatched(['p24'], queue.read)).size).toBe(0);
    expect(queue.cursors).toHaveLength(UNMATCHED_LOOKUP_PAGES);
  });
});

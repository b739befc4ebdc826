import { describe, expect, it } from 'vitest';
import { flutterwaveVerdict, flutterwaveVerifyPath } from '@settle/providers';

/** A Flutterwave v3 verify answer (docs/provider-facts.md, Flutterwave): amounts in MAJOR units. */
const answer = (data: Record<string, unknown>) =>
  JSON.stringify({
    status: 'success',
    message: 'Transaction fetched successfully',
    data: {
      id: 4975363,
      tx_ref: 'chk_01HZX3',
      flw_ref: 'FLW-MOCK-72d0f9a3d8b5a1e0d5c9e2f1a7b3c6d4',
      amount: 100.5,
      currency: 'NGN',
      charged_amount: 101.91,
      app_fee: 1.41,
      merchant_fee: 0,
      processor_response: 'Approved. Successful',
      status: 'successful',
      payment_type: 'card',
      customer: { id: 2379524, email: 'ada@example.com', phone_number: '08012345678', name: 'Ada Obi' },
      ...data,
    },
  });

describe('Flutterwave verify answer to verdict (docs/provider-facts.md, Flutterwave)', () => {
  it('successful is cleared: major units to minor units exactly, tx_ref as reference, charged_amount recorded', () => {
    expect(flutterwaveVerdict(200, answer({}), { phoneRegion: 'NG' })).toEqual({
      kind: 'cleared',
      observation: {
        reference: 'chk_01HZX3',
        amountMinor: 10_050,
        chargedAmountMinor: 10_191,
        currency: 'NGN',
        customer: { email: 'ada@example.com', phone: '+2348012345678' },
        providerTransactionId: '4975363',
        providerStatus: 'successful',
      },
    });
  });

  it.each([
    ['NGN', 100.5, 10_050],
    ['NGN', 100, 10_000],
    ['NGN', '100.50', 10_050],
    ['JPY', 1500, 1500],
    ['KWD', 1.234, 1234],
    ['KES', 0.1, 10],
    ['USD', 1.15, 115],
    ['UGX', 50_000, 50_000],
    ['ngn', 19.99, 1999],
  ])('%s %s is %s minor units', (currency, amount, minor) => {
    const verdict = flutterwaveVerdict(200, answer({ currency, amount, charged_amount: null }));
    expect(verdict.kind === 'cleared' && verdict.observation).toMatchObject({
      amountMinor: minor,
      chargedAmountMinor: undefined,
      currency: String(currency).toUpperCase(),
    });
  });

  it('amounts with more decimals than the currency has, negative or non-decimal amounts are malformed, never rounded', () => {
    for (const [currency, amount] of [
      ['NGN', 100.505],
      ['JPY', 1500.5],
      ['KWD', 1.2345],
      ['NGN', -100],
      ['NGN', '1e3'],
      ['NGN', '100.'],
      ['NGN', 'abc'],
      ['NGN', 1e21],
    ] as const) {
      expect(flutterwaveVerdict(200, answer({ currency, amount }))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.MALFORMED_AMOUNT' });
    }
    expect(flutterwaveVerdict(200, answer({ charged_amount: 101.915 }))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.MALFORMED_AMOUNT' });
  });

  it('an unknown currency cannot be converted', () => {
    expect(flutterwaveVerdict(200, answer({ currency: 'XYZ' }))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.UNKNOWN_CURRENCY' });
    expect(flutterwaveVerdict(200, answer({ currency: 'NAIRA' }))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.UNKNOWN_CURRENCY' });
  });

  it('phone numbers: international form is normalised; a national one needs the region, else it is kept as sent', () => {
    const international = flutterwaveVerdict(200, answer({ customer: { email: null, phone_number: '+234 801 234 5678' } }));
    expect(international.kind === 'cleared' && international.observation.customer).toEqual({ email: undefined, phone: '+2348012345678' });
    const national = flutterwaveVerdict(200, answer({}));
    expect(national.kind === 'cleared' && national.observation.customer.phone).toBe('08012345678');
    const withCountryCode = flutterwaveVerdict(200, answer({ customer: { phone_number: '2348012345678' } }), { phoneRegion: 'NG' });
    expect(withCountryCode.kind === 'cleared' && withCountryCode.observation.customer.phone).toBe('+2348012345678');
  });

  it('failed is a definitive decline with the processor response', () => {
    expect(flutterwaveVerdict(200, answer({ status: 'failed', processor_response: 'Insufficient funds' }))).toEqual({
      kind: 'declined',
      providerStatus: 'failed',
      reason: 'Insufficient funds',
    });
  });

  it('pending is still clearing (amounts are not read)', () => {
    expect(flutterwaveVerdict(200, answer({ status: 'pending', amount: 1.2345 }))).toEqual({ kind: 'clearing', providerStatus: 'pending' });
  });

  it('400 "No transaction was found" is not_found, by id or by reference', () => {
    for (const message of ['No transaction was found for this id', 'No transaction was found for this tx_ref']) {
      expect(flutterwaveVerdict(400, JSON.stringify({ status: 'error', message, data: null }))).toEqual({ kind: 'not_found' });
    }
    expect(flutterwaveVerdict(400, JSON.stringify({ status: 'error', message: 'Invalid tx_ref', data: null }))).toEqual({
      kind: 'unreachable',
      cause: 'PROVIDER.UNEXPECTED_STATUS_400',
    });
  });

  it('401 is AUTH_REJECTED; 500, unknown statuses and malformed bodies are unreachable', () => {
    expect(flutterwaveVerdict(401, JSON.stringify({ status: 'error', message: 'Invalid authorization key', data: null }))).toEqual({
      kind: 'unreachable',
      cause: 'PROVIDER.AUTH_REJECTED',
    });
    expect(flutterwaveVerdict(500, '{}')).toEqual({ kind: 'unreachable', cause: 'PROVIDER.UNEXPECTED_STATUS_500' });
    expect(flutterwaveVerdict(200, answer({ status: 'reversed' }))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.UNKNOWN_STATUS' });
    expect(flutterwaveVerdict(200, '<html>')).toEqual({ kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' });
    expect(flutterwaveVerdict(200, JSON.stringify({ status: 'error', message: 'x', data: null }))).toEqual({
      kind: 'unreachable',
      cause: 'PROVIDER.MALFORMED_RESPONSE',
    });
    expect(flutterwaveVerdict(200, answer({ tx_ref: undefined }))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' });
    expect(flutterwaveVerdict(200, answer({ amount: null }))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' });
  });
});

describe('Flutterwave endpoint choice', () => {
  it('uses verify_by_reference for our tx_ref, even an all-digit one', () => {
    expect(flutterwaveVerifyPath('chk_01HZX3', 'chk_01HZX3')).toBe('/v3/transactions/verify_by_reference?tx_ref=chk_01HZX3');
    expect(flutterwaveVerifyPath('123456', '123456')).toBe('/v3/transactions/verify_by_reference?tx_ref=123456');
    expect(flutterwaveVerifyPath('a b&c', 'a b&c')).toBe('/v3/transactions/verify_by_reference?tx_ref=a%20b%26c');
  });

  it("uses the id endpoint for Flutterwave's numeric id", () => {
    expect(flutterwaveVerifyPath('4975363', 'chk_01HZX3')).toBe('/v3/transactions/4975363/verify');
    expect(flutterwaveVerifyPath('04975363', 'chk_01HZX3')).toBe('/v3/transactions/verify_by_reference?tx_ref=04975363');
  });
});

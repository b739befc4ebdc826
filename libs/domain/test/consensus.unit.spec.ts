import { describe, expect, it } from 'vitest';
import { checkConsensus, samePhone, toE164, type Expectation, type ProviderObservation } from '@settle/domain';

const expectation: Expectation = {
  reference: 'ws_CO_191220191020363925',
  provider: 'paystack',
  amountMinor: 100_00,
  currency: 'KES',
  userId: 'user-7',
  customer: { phone: '+254712345678' },
  entitlement: 'pro',
  accessPeriod: null,
};

const observed = (customer: ProviderObservation['customer']): ProviderObservation => ({
  reference: expectation.reference,
  amountMinor: 100_00,
  currency: 'kes',
  customer,
  providerStatus: 'success',
});

describe('four-point consensus: customer identifier (docs/spec.md, section 3, check 4)', () => {
  it.each([
    ['E.164', '+254712345678'],
    ['without the plus (M-Pesa callbacks)', '254712345678'],
    ['national form', '0712345678'],
    ['international with spaces', '+254 712 345 678'],
  ])('matches the same phone number written %s', (_how, phone) => {
    expect(samePhone('+254712345678', phone)).toBe(true);
    expect(checkConsensus(expectation, observed({ phone })).every((c) => c.passed)).toBe(true);
  });

  it.each([
    ['another subscriber', '+254712345679'],
    ['another country', '+2348012345678'],
    ['garbage', 'not-a-phone'],
  ])('refuses %s', (_what, phone) => {
    const checks = checkConsensus(expectation, observed({ phone }));
    expect(checks.filter((c) => !c.passed).map((c) => c.code)).toEqual(['CONSENSUS.CUSTOMER_MISMATCH']);
  });

  it('normalises to E.164 and refuses invalid numbers', () => {
    expect(toE164('+234 801 234 5678')).toBe('+2348012345678');
    expect(toE164('08012345678', 'NG')).toBe('+2348012345678');
    expect(toE164('12345')).toBeNull();
  });

  it('compares e-mail case-insensitively after trimming, and needs a shared identifier', () => {
    const byEmail: Expectation = { ...expectation, customer: { email: 'Ada@Example.com' } };
    expect(checkConsensus(byEmail, observed({ email: ' ada@example.COM ' }))[3]!.passed).toBe(true);
    expect(checkConsensus(byEmail, observed({ phone: '+254712345678' }))[3]!.passed).toBe(false);
  });

  it('upper-cases the observed currency before comparing (Stripe answers "usd")', () => {
    expect(checkConsensus(expectation, observed({ phone: '+254712345678' }))[1]).toMatchObject({ passed: true, observed: 'KES' });
  });
});

describe('phone readings', () => {
  it('matches an international number written without its plus even where it is also a national number', () => {
    expect(samePhone('+4915123456789', '4915123456789')).toBe(true);
    expect(samePhone('+62812345678', '62812345678')).toBe(true);
  });
});

describe('amount check (docs/spec.md, section 3, check 3: exact minor units)', () => {
  const byEmail: Expectation = { ...expectation, customer: { email: 'ada@example.com' } };
  const paid = (amounts: Partial<ProviderObservation>) => ({ ...observed({ email: 'ada@example.com' }), ...amounts });

  it('passes the exact amount, recording fees passed on to the payer', () => {
    expect(checkConsensus(byEmail, paid({ chargedAmountMinor: 100_00 + 150 }))[2]).toMatchObject({ passed: true, observed: '10000 (charged 10150)' });
  });

  it('fails one minor unit off either way, and a charge below the confirmed amount', () => {
    expect(checkConsensus(byEmail, paid({ amountMinor: 100_00 - 1 }))[2]!.code).toBe('CONSENSUS.AMOUNT_MISMATCH');
    expect(checkConsensus(byEmail, paid({ amountMinor: 100_00 + 1 }))[2]!.code).toBe('CONSENSUS.AMOUNT_MISMATCH');
    expect(checkConsensus(byEmail, paid({ chargedAmountMinor: 100_00 - 1 }))[2]!.code).toBe('CONSENSUS.AMOUNT_MISMATCH');
  });
});

describe('four-point consensus after the customer was erased (docs/privacy.md, "Erasure")', () => {
  const erased: Expectation = { ...expectation, customer: {}, customerErased: true };

  it('compares the customer no more: the check records erased and passes, whatever the provider reports', () => {
    for (const customer of [{ phone: '+254712345678' }, { phone: '+254799999999', email: 'someone@example.com' }, {}]) {
      const checks = checkConsensus(erased, observed(customer));
      expect(checks.find((c) => c.check === 'customer')).toEqual({ check: 'customer', passed: true, code: null, expected: 'erased', observed: 'erased' });
    }
  });

  it('still checks the money: an erased customer does not settle a wrong amount', () => {
    const checks = checkConsensus(erased, { ...observed({}), amountMinor: 1 });
    expect(checks.filter((c) => !c.passed).map((c) => c.code)).toEqual(['CONSENSUS.AMOUNT_MISMATCH']);
  });

  it('without the mark, a registration with no identifiers still fails the check (nothing to compare is not a match)', () => {
    const checks = checkConsensus({ ...expectation, customer: {} }, observed({ phone: '+254712345678' }));
    expect(checks.filter((c) => !c.passed).map((c) => c.code)).toEqual(['CONSENSUS.CUSTOMER_MISMATCH']);
  });
});

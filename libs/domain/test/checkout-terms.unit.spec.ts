import { describe, expect, it } from 'vitest';
import { sameCheckoutTerms, type CheckoutTerms } from '@settle/domain';

const terms: CheckoutTerms = {
  reference: 'ref_7PVGX8MEk85tgeEpVDtD',
  provider: 'paystack',
  amountMinor: 500_000,
  currency: 'NGN',
  userId: 'user-42',
  customer: { email: 'ada@example.com', phone: '+2348012345678' },
  entitlement: 'pro-monthly',
  accessPeriod: 'P1M',
};

describe('same reference, other terms (sameCheckoutTerms)', () => {
  it('the very same terms are the same registration (a retry)', () => {
    expect(sameCheckoutTerms(terms, { ...terms, customer: { ...terms.customer } })).toBe(true);
  });

  it('an absent customer identifier equals null or undefined, nothing else', () => {
    const noPhone: CheckoutTerms = { ...terms, customer: { email: terms.customer.email } };
    expect(sameCheckoutTerms(noPhone, { ...terms, customer: { email: terms.customer.email, phone: undefined } })).toBe(true);
    expect(sameCheckoutTerms(noPhone, terms)).toBe(false);
  });

  it.each<[string, Partial<CheckoutTerms>]>([
    ['reference', { reference: 'ref_other' }],
    ['provider', { provider: 'stripe' }],
    ['amount (minor units)', { amountMinor: 500_001 }],
    ['currency', { currency: 'USD' }],
    ['user', { userId: 'user-43' }],
    ['customer e-mail', { customer: { email: 'eve@example.com', phone: '+2348012345678' } }],
    ['customer phone', { customer: { email: 'ada@example.com', phone: '+2348000000000' } }],
    ['entitlement', { entitlement: 'pro-yearly' }],
    ['access period', { accessPeriod: 'P1Y' }],
    ['access period absent', { accessPeriod: null }],
  ])('another %s is other terms, in both directions', (_term, change) => {
    expect(sameCheckoutTerms(terms, { ...terms, ...change })).toBe(false);
    expect(sameCheckoutTerms({ ...terms, ...change }, terms)).toBe(false);
  });

  it('compares exactly as registered: no case folding or trimming of the terms', () => {
    expect(sameCheckoutTerms(terms, { ...terms, currency: 'ngn' })).toBe(false);
    expect(sameCheckoutTerms(terms, { ...terms, customer: { ...terms.customer, email: 'Ada@example.com' } })).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { sameCheckoutTerms } from '@settle/domain';
import { registerCheckoutBody } from '../src/checkouts/checkout.request.js';
import { recordTerms, requestedTerms, type CheckoutRecord } from '../src/checkouts/checkout.repository.js';

const body = registerCheckoutBody.parse({
  provider: 'paystack',
  reference: 'ref_terms_1',
  amount: 500_000,
  currency: 'NGN',
  user_id: 'user-42',
  customer: { email: 'ada@example.com' },
  entitlement: 'pro-monthly',
  access_period: 'P1M',
});

/** The record ingestion stores for a body (the INSERT's columns: an absent identifier is NULL). */
const stored: CheckoutRecord = {
  reference: body.reference,
  provider: body.provider,
  amountMinor: body.amount,
  currency: body.currency,
  userId: body.user_id,
  email: body.customer.email ?? null,
  phone: body.customer.phone ?? null,
  entitlement: body.entitlement,
  accessPeriod: body.access_period,
  requestSha256: 'irrelevant',
  correlationId: 'c',
  registeredAt: new Date(0),
  completedAt: null,
  submittedBy: 'api_key:0123456789ab',
};

describe('ingestion registers through the domain rule "same reference, other terms"', () => {
  it('the same request again has the same terms as the stored registration (an idempotent retry)', () => {
    expect(sameCheckoutTerms(recordTerms(stored), requestedTerms(body))).toBe(true);
  });

  it.each([
    ['amount', { amount: 400_000 }],
    ['currency', { currency: 'USD' }],
    ['user', { user_id: 'user-43' }],
    ['entitlement', { entitlement: 'pro-yearly' }],
    ['access period', { access_period: 'P1Y' }],
    ['customer', { customer: { email: 'ada@example.com', phone: '+2348012345678' } }],
  ])('another %s under the same reference is a conflict', (_term, change) => {
    const other = registerCheckoutBody.parse({ ...body, ...change });
    expect(sameCheckoutTerms(recordTerms(stored), requestedTerms(other))).toBe(false);
  });
});

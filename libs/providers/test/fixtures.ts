import { parseAccessPeriod, type Expectation } from '@settle/domain';

/** A checkout's registered terms, overridable per test. */
export function expectation(fields: Partial<Expectation> = {}): Expectation {
  return {
    reference: 'ws_CO_191220191020363925',
    provider: 'mpesa',
    amountMinor: 150_000,
    currency: 'KES',
    userId: 'user_1',
    customer: { phone: '+254712345678' },
    entitlement: 'pro-monthly',
    accessPeriod: parseAccessPeriod('P1M'),
    ...fields,
  };
}

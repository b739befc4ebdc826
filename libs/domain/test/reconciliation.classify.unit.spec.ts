/**
 * The reconciliation's decision table (docs/reconciliation.md, "Classes"): every class, its
 * precedence, the exact comparison of amounts and currencies, the payer compared only where both
 * sides name them, and the duplicate window's boundaries; then properties over generated pairs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  classify,
  DEFAULT_DUPLICATE_WINDOW_MS,
  EXCEPTION_CLASSES,
  findPossibleDuplicates,
  PROVIDER_PAYMENT_STATUSES,
  RECONCILIATION_CLASSES,
  TRANSACTION_STATUSES,
  type ClearedPayment,
  type ProviderRecord,
  type SettleRecord,
} from '@settle/domain';

const paid: ProviderRecord = {
  provider: 'paystack',
  reference: 'ref_recon_1',
  providerTransactionId: '4099260516',
  status: 'succeeded',
  providerStatus: 'success',
  amountMinor: 250_000,
  currency: 'NGN',
  customer: { email: 'Ada@Example.com' },
};
const settled: SettleRecord = {
  reference: 'ref_recon_1',
  status: 'SETTLED_CONSENSUS',
  amountMinor: 250_000,
  currency: 'NGN',
  customer: { email: 'ada@example.com', phone: '+2348012345678' },
  userId: 'user-1',
  entitlement: 'pro-monthly',
};

describe('classify', () => {
  it('a payment settled in both with the same terms matches, with no evidence', () => {
    expect(classify(paid, settled)).toEqual({ reference: 'ref_recon_1', class: 'matches', exception: false, evidence: [] });
  });

  it('settled in Settle but reversed, failed or pending at the provider is the most serious exception, whatever else differs', () => {
    for (const status of ['reversed', 'failed', 'pending'] as const) {
      const provider = { ...paid, status, providerStatus: status, amountMinor: 1 };
      expect(classify(provider, settled, 'ref_earlier')).toEqual({
        reference: 'ref_recon_1',
        class: 'settled_not_successful',
        exception: true,
        evidence: [{ field: 'status', provider: `${status} (${status})`, settle: 'SETTLED_CONSENSUS' }],
      });
    }
  });

  it('another amount (exact, minor units), currency or payer is terms_differ, each field with both sides', () => {
    expect(classify({ ...paid, amountMinor: 250_001, currency: 'ghs', customer: { email: 'eve@example.com' } }, settled)).toEqual({
      reference: 'ref_recon_1',
      class: 'terms_differ',
      exception: true,
      evidence: [
        { field: 'amount', provider: '250001', settle: '250000' },
        { field: 'currency', provider: 'GHS', settle: 'NGN' },
        { field: 'customer', provider: 'email:e•••@example.com', settle: 'email:a•••@example.com phone:+234•••678' },
      ],
    });
    // Terms differ before a duplicate and before stuck.
    expect(classify({ ...paid, amountMinor: 1 }, { ...settled, status: 'PENDING' }, 'ref_earlier').class).toBe('terms_differ');
  });

  it('compares the payer only where both sides name them: a list answer without the e-mail is not a difference', () => {
    expect(classify({ ...paid, customer: {} }, settled).class).toBe('matches');
    expect(classify({ ...paid, currency: 'ngn', customer: { phone: '08012345678' } }, settled).class).toBe('matches');
    expect(classify({ ...paid, customer: { phone: '08099999999' } }, settled).evidence.map((e) => e.field)).toEqual(['customer']);
  });

  it('a second payment of the same user and entitlement is a possible duplicate, naming the one it repeats', () => {
    expect(classify(paid, settled, 'ref_recon_0')).toEqual({
      reference: 'ref_recon_1',
      class: 'possible_duplicate',
      exception: true,
      evidence: [{ field: 'duplicate_of', provider: 'ref_recon_1', settle: 'ref_recon_0' }],
    });
  });

  it('paid at the provider and not settled in Settle is stuck, in every other state', () => {
    for (const status of ['PENDING', 'RECOVERING', 'MANUAL_REVIEW', 'FAILED_DECLINED'] as const) {
      expect(classify(paid, { ...settled, status })).toEqual({
        reference: 'ref_recon_1',
        class: 'stuck',
        exception: true,
        evidence: [{ field: 'status', provider: 'succeeded (success)', settle: status }],
      });
    }
  });

  it('paid at the provider and never registered is unknown to Settle', () => {
    expect(classify(paid, null)).toEqual({
      reference: 'ref_recon_1',
      class: 'unknown_to_settle',
      exception: true,
      evidence: [{ field: 'status', provider: 'succeeded (success)', settle: 'no checkout' }],
    });
  });

  it('counts, never raises, what was not paid: failed in both matches; pending or failed and not settled here are not_paid', () => {
    const failed = { ...paid, status: 'failed' as const, providerStatus: 'failed' };
    expect(classify(failed, { ...settled, status: 'FAILED_DECLINED' }).class).toBe('matches');
    expect(classify(failed, { ...settled, status: 'PENDING' }).class).toBe('not_paid');
    expect(classify({ ...paid, status: 'pending', providerStatus: 'ongoing' }, { ...settled, status: 'FAILED_DECLINED' }).class).toBe('not_paid');
    expect(classify(failed, null)).toEqual({ reference: 'ref_recon_1', class: 'not_paid_unknown', exception: false, evidence: [] });
  });
});

describe('findPossibleDuplicates', () => {
  const at = 1_800_000_000_000;
  const payment = (reference: string, clearedAtMs: number, userId = 'user-1', entitlement = 'pro-monthly'): ClearedPayment => ({
    reference,
    userId,
    entitlement,
    clearedAtMs,
  });

  it('flags a payment within the window of the previous one (inclusive), not one past it', () => {
    const found = findPossibleDuplicates([
      payment('a', at),
      payment('b', at + DEFAULT_DUPLICATE_WINDOW_MS),
      payment('c', at + 2 * DEFAULT_DUPLICATE_WINDOW_MS + 1),
    ]);
    expect([...found]).toEqual([['b', 'a']]);
  });

  it('compares only payments of the same user for the same entitlement, and takes a window of its own', () => {
    const found = findPossibleDuplicates(
      [payment('a', at), payment('b', at + 1_000, 'user-2'), payment('c', at + 1_000, 'user-1', 'pro-yearly'), payment('d', at + 60_001)],
      60_000,
    );
    expect([...found]).toEqual([]);
    expect([...findPossibleDuplicates([payment('a', at), payment('d', at + 60_000)], 60_000)]).toEqual([['d', 'a']]);
  });

  it('orders payments at the same instant by reference', () => {
    expect([...findPossibleDuplicates([payment('z', at), payment('m', at)])]).toEqual([['z', 'm']]);
  });
});

describe('properties', () => {
  const customerArb = fc.record({ email: fc.option(fc.constantFrom('ada@example.com', 'ADA@example.com', 'eve@example.com'), { nil: undefined }) });
  const providerArb: fc.Arbitrary<ProviderRecord> = fc.record({
    provider: fc.constant('paystack' as const),
    reference: fc.constant('ref_p'),
    status: fc.constantFrom(...PROVIDER_PAYMENT_STATUSES),
    providerStatus: fc.constantFrom('success', 'failed', 'reversed', 'ongoing'),
    amountMinor: fc.constantFrom(100, 250_000, 250_001),
    currency: fc.constantFrom('NGN', 'ngn', 'KES', 'XYZ1'),
    customer: customerArb,
  });
  const settleArb: fc.Arbitrary<SettleRecord | null> = fc.option(
    fc.record({
      reference: fc.constant('ref_p'),
      status: fc.constantFrom(...TRANSACTION_STATUSES),
      amountMinor: fc.constantFrom(100, 250_000),
      currency: fc.constantFrom('NGN', 'KES'),
      customer: customerArb,
      userId: fc.constant('user-1'),
      entitlement: fc.constant('pro-monthly'),
    }),
    { nil: null },
  );

  it('every pair ends in exactly one known class; exception exactly for the exception classes; a match carries no evidence', () => {
    fc.assert(
      fc.property(providerArb, settleArb, fc.option(fc.constant('ref_earlier'), { nil: null }), (provider, settle, duplicateOf) => {
        const result = classify(provider, settle, duplicateOf);
        expect(RECONCILIATION_CLASSES).toContain(result.class);
        expect(result.exception).toBe(EXCEPTION_CLASSES.has(result.class));
        expect(result.exception).toBe(result.evidence.length > 0);
        // A payment the provider did not clear is an exception only when Settle settled it.
        if (provider.status !== 'succeeded') expect(result.exception).toBe(settle?.status === 'SETTLED_CONSENSUS');
        // A match in a cleared payment means same amount and currency.
        if (result.class === 'matches' && provider.status === 'succeeded') {
          expect([provider.amountMinor, provider.currency.toUpperCase()]).toEqual([settle!.amountMinor, settle!.currency]);
        }
      }),
    );
  });

  it('duplicates do not depend on the order of the input, and each names an earlier payment of the same buyer within the window', () => {
    const paymentsArb = fc.uniqueArray(
      fc.record({
        reference: fc.string({ minLength: 1, maxLength: 6 }),
        userId: fc.constantFrom('u1', 'u2'),
        entitlement: fc.constantFrom('e1', 'e2'),
        clearedAtMs: fc.integer({ min: 0, max: 3 * DEFAULT_DUPLICATE_WINDOW_MS }),
      }),
      { selector: (p) => p.reference, maxLength: 30 },
    );
    fc.assert(
      fc.property(paymentsArb, fc.nat(), (payments, seed) => {
        const found = findPossibleDuplicates(payments);
        const shuffled = [...payments].sort((a, b) => ((a.reference.charCodeAt(0) * 31 + seed) % 7) - ((b.reference.charCodeAt(0) * 31 + seed) % 7));
        expect(findPossibleDuplicates(shuffled)).toEqual(found);
        const byRef = new Map(payments.map((p) => [p.reference, p]));
        for (const [later, earlier] of found) {
          const [l, e] = [byRef.get(later)!, byRef.get(earlier)!];
          expect([l.userId, l.entitlement]).toEqual([e.userId, e.entitlement]);
          expect(l.clearedAtMs - e.clearedAtMs).toBeGreaterThanOrEqual(0);
          expect(l.clearedAtMs - e.clearedAtMs).toBeLessThanOrEqual(DEFAULT_DUPLICATE_WINDOW_MS);
        }
      }),
    );
  });
});

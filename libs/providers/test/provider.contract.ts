import { describe, expect, it } from 'vitest';
import type { Expectation, ProviderName, ProviderVerdict } from '@settle/domain';
import type { PaymentProvider } from '@settle/providers';

/** What the provider knows about a transaction when it is queried. */
export type ContractScenario =
  /** Paid in full: the answer must clear with the expectation's reference, amount and currency. */
  | 'paid'
  /** Declined by the provider. */
  | 'declined'
  /** Still clearing at the first query, paid at the second. */
  | 'clearing_then_paid'
  /** The provider never answers in time. */
  | 'timing_out'
  /** The provider has never heard of the reference. */
  | 'unknown';

/** A transaction made ready for one scenario, and the adapter that will query it. */
export interface ContractSubject {
  adapter: PaymentProvider;
  expectation: Expectation;
}

/** Makes the contract's subjects: against the provider sandbox over HTTP, or scripted in memory. */
export interface ProviderContractHarness {
  given(provider: ProviderName, scenario: ContractScenario): Promise<ContractSubject>;
  /** Scenarios a provider cannot express (M-Pesa has no "unknown reference" answer); default: all. */
  supports?(provider: ProviderName, scenario: ContractScenario): boolean;
}

const query = ({ adapter, expectation }: ContractSubject): Promise<ProviderVerdict> => adapter.verify({ reference: expectation.reference, expectation });

/**
 * The provider port's contract (`PaymentProvider`): every adapter, real or fake, maps the same
 * provider facts to the same verdict kinds, and never rejects for a provider failure.
 */
export function providerContract(name: string, providers: readonly ProviderName[], harness: () => ProviderContractHarness): void {
  describe.each(providers)(`provider contract: ${name}, %s`, (provider) => {
    // A scenario the provider cannot express is not registered at all (no test that cannot fail).
    const when =
      (scenario: ContractScenario) =>
      (title: string, test: () => Promise<void>): void => {
        if (harness().supports?.(provider, scenario) ?? true) it(title, test);
      };

    when('paid')('a paid transaction is cleared, with the amount in minor units and the identity of the session', async () => {
      const subject = await harness().given(provider, 'paid');
      const verdict = await query(subject);
      expect(verdict.kind).toBe('cleared');
      if (verdict.kind !== 'cleared') return;
      const { reference, amountMinor, currency } = subject.expectation;
      expect(verdict.observation).toMatchObject({ reference, amountMinor, currency });
      expect(Number.isSafeInteger(verdict.observation.amountMinor)).toBe(true);
    });

    when('declined')('a declined payment is declined', async () => {
      expect((await query(await harness().given(provider, 'declined'))).kind).toBe('declined');
    });

    when('clearing_then_paid')('a payment still clearing is clearing, then cleared', async () => {
      const subject = await harness().given(provider, 'clearing_then_paid');
      expect((await query(subject)).kind).toBe('clearing');
      expect((await query(subject)).kind).toBe('cleared');
    });

    when('timing_out')('a provider that keeps timing out is unreachable, never failed, and the call resolves', async () => {
      expect(await query(await harness().given(provider, 'timing_out'))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.TIMEOUT' });
    });

    when('unknown')('an unknown reference is not_found', async () => {
      expect(await query(await harness().given(provider, 'unknown'))).toEqual({ kind: 'not_found' });
    });
  });
}

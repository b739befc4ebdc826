import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PROVIDERS, type ProviderName, type ProviderVerdict } from '@settle/domain';
import { FakePaymentProvider } from '@settle/providers';
import { expectation } from '../fixtures.js';
import { providerContract, type ContractScenario } from '../provider.contract.js';

const cleared = (e: ReturnType<typeof expectation>): ProviderVerdict => ({
  kind: 'cleared',
  observation: { reference: e.reference, amountMinor: e.amountMinor, currency: e.currency, customer: e.customer, providerStatus: 'success' },
});

providerContract('in-memory fake', PROVIDERS, () => ({
  given: async (provider: ProviderName, scenario: ContractScenario) => {
    const adapter = new FakePaymentProvider(provider);
    const e = expectation({ reference: `ref_${randomUUID().slice(0, 8)}`, provider, amountMinor: 40_000, currency: 'NGN' });
    switch (scenario) {
      case 'paid':
        adapter.script(e.reference, cleared(e));
        break;
      case 'declined':
        adapter.script(e.reference, { kind: 'declined', providerStatus: 'failed', reason: 'Declined' });
        break;
      case 'clearing_then_paid':
        adapter.script(e.reference, { kind: 'clearing', providerStatus: 'pending' }, cleared(e));
        break;
      case 'timing_out':
        adapter.script(e.reference, { kind: 'unreachable', cause: 'PROVIDER.TIMEOUT' });
        break;
      case 'unknown':
        break;
    }
    return Promise.resolve({ adapter, expectation: e });
  },
}));

describe('FakePaymentProvider', () => {
  it('serves the scripted answers in order, repeats the last, and records every call', async () => {
    const fake = new FakePaymentProvider('stripe').script('pi_1', { kind: 'clearing', providerStatus: 'processing' }, { kind: 'not_found' });
    const request = { reference: 'pi_1', expectation: expectation({ reference: 'pi_1', provider: 'stripe' }) };
    expect(await fake.verify(request)).toEqual({ kind: 'clearing', providerStatus: 'processing' });
    expect(await fake.verify(request)).toEqual({ kind: 'not_found' });
    expect(await fake.verify(request)).toEqual({ kind: 'not_found' });
    await fake.verify({ ...request, reference: 'pi_2' });
    expect(fake.callsFor('pi_1')).toHaveLength(3);
    expect(fake.calls.map((c) => c.reference)).toEqual(['pi_1', 'pi_1', 'pi_1', 'pi_2']);
  });

  it('computes an answer from the request when scripted with a function, and refuses calls once closed', async () => {
    const fake = new FakePaymentProvider().script('ref_1', (request) => ({ kind: 'declined', providerStatus: 'failed', reason: request.expectation!.userId }));
    const request = { reference: 'ref_1', expectation: expectation({ reference: 'ref_1', userId: 'user_9' }) };
    expect(await fake.verify(request)).toEqual({ kind: 'declined', providerStatus: 'failed', reason: 'user_9' });
    await fake.close();
    await expect(fake.verify(request)).rejects.toThrow(/closed/);
  });
});

import { describe, expect, it } from 'vitest';
import { candidateAnswer, type ProviderVerdict } from '@settle/domain';

const cleared = (extra: Partial<Extract<ProviderVerdict, { kind: 'cleared' }>['observation']> = {}): ProviderVerdict => ({
  kind: 'cleared',
  observation: { reference: 'ref_1', amountMinor: 250_000, currency: 'NGN', customer: { email: 'payer@example.com' }, providerStatus: 'success', ...extra },
});

describe('what a provider answer about a payment with no checkout means (docs/unmatched-payments.md)', () => {
  it('a cleared payment is recorded with what the provider confirmed: amount in minor units, currency, customer, status, its own id', () => {
    expect(candidateAnswer('paystack', 'ref_1', cleared({ providerTransactionId: '4099', chargedAmountMinor: 253_750 }), 1_000)).toEqual({
      kind: 'recorded',
      payment: {
        provider: 'paystack',
        reference: 'ref_1',
        amountMinor: 250_000,
        currency: 'NGN',
        customer: { email: 'payer@example.com', phone: null },
        termsVerified: true,
        providerStatus: 'success',
        providerTransactionId: '4099',
        verifiedAt: 1_000,
      },
    });
  });

  it('terms the answer does not carry (M-Pesa) are recorded as unverified, never as the placeholder values', () => {
    const answer = candidateAnswer('mpesa', 'ws_CO_1', cleared({ amountMinor: 0, currency: 'KES', customer: {}, unconfirmed: ['amount', 'customer'] }), 1_000);
    expect(answer).toMatchObject({ kind: 'recorded', payment: { amountMinor: null, customer: { email: null, phone: null }, termsVerified: false } });
  });

  it('a decline or a reference the provider does not know closes the candidate; clearing and unreachable leave it to be checked again', () => {
    expect(candidateAnswer('stripe', 'pi_1', { kind: 'declined', providerStatus: 'requires_payment_method', reason: 'card_declined' }, 1)).toEqual({
      kind: 'declined',
      providerStatus: 'requires_payment_method',
    });
    expect(candidateAnswer('stripe', 'pi_1', { kind: 'not_found' }, 1)).toEqual({ kind: 'not_found' });
    const unresolved: ProviderVerdict[] = [
      { kind: 'clearing', providerStatus: 'processing' },
      { kind: 'unreachable', cause: 'PROVIDER.TIMEOUT' },
    ];
    expect(unresolved.map((v) => candidateAnswer('stripe', 'pi_1', v, 1))).toEqual([
      { kind: 'unresolved', verdict: 'clearing' },
      { kind: 'unresolved', verdict: 'unreachable' },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { paystackVerdict } from '@settle/providers';

const answer = (data: Record<string, unknown>) =>
  JSON.stringify({
    status: true,
    message: 'Verification successful',
    data: {
      id: 4099260516,
      status: 'success',
      reference: 'ref_1',
      amount: 40_333,
      requested_amount: 40_000,
      currency: 'NGN',
      gateway_response: 'Successful',
      customer: { email: 'ada@example.com', phone: null, customer_code: 'CUS_1' },
      ...data,
    },
  });

describe('Paystack verify answer to verdict (docs/provider-facts.md, Paystack)', () => {
  it('success is cleared, and the amount check uses requested_amount, recording both', () => {
    const verdict = paystackVerdict(200, answer({}));
    expect(verdict).toEqual({
      kind: 'cleared',
      observation: {
        reference: 'ref_1',
        amountMinor: 40_000,
        chargedAmountMinor: 40_333,
        currency: 'NGN',
        customer: { email: 'ada@example.com', phone: undefined },
        providerTransactionId: '4099260516',
        providerStatus: 'success',
      },
    });
  });

  it('falls back to amount when requested_amount is absent', () => {
    const verdict = paystackVerdict(200, answer({ requested_amount: undefined }));
    expect(verdict.kind === 'cleared' && verdict.observation.amountMinor).toBe(40_333);
  });

  it.each(['failed', 'reversed'])('%s is a definitive decline', (status) => {
    expect(paystackVerdict(200, answer({ status, gateway_response: 'Declined' }))).toEqual({
      kind: 'declined',
      providerStatus: status,
      reason: 'Declined',
    });
  });

  it.each(['abandoned', 'ongoing', 'pending', 'processing', 'queued'])('%s is still clearing, never a failure', (status) => {
    expect(paystackVerdict(200, answer({ status }))).toEqual({ kind: 'clearing', providerStatus: status });
  });

  it('400 "Transaction reference not found" is not_found', () => {
    expect(paystackVerdict(400, JSON.stringify({ status: false, message: 'Transaction reference not found' }))).toEqual({ kind: 'not_found' });
  });

  it('a wrong key, an unknown status, a 500 or a malformed body are unreachable: state preserved', () => {
    expect(paystackVerdict(401, '{"status":false,"message":"Invalid key"}')).toEqual({ kind: 'unreachable', cause: 'PROVIDER.AUTH_REJECTED' });
    expect(paystackVerdict(200, answer({ status: 'weird' }))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.UNKNOWN_STATUS' });
    expect(paystackVerdict(500, '{}')).toEqual({ kind: 'unreachable', cause: 'PROVIDER.UNEXPECTED_STATUS_500' });
    expect(paystackVerdict(200, '<html>')).toEqual({ kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' });
    expect(paystackVerdict(200, answer({ amount: 12.5 }))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' });
  });
});

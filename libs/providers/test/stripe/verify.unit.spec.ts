import { describe, expect, it } from 'vitest';
import { stripeVerdict } from '@settle/providers';

/** A PaymentIntent as `GET /v1/payment_intents/:id?expand[]=latest_charge` returns it (docs/provider-facts.md, Stripe). */
const intent = (fields: Record<string, unknown>) =>
  JSON.stringify({
    id: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
    object: 'payment_intent',
    amount: 2000,
    amount_received: 2000,
    currency: 'usd',
    customer: 'cus_NffrFeUfNV2Hib',
    receipt_email: 'ada@example.com',
    cancellation_reason: null,
    last_payment_error: null,
    latest_charge: {
      id: 'ch_3MtwBwLkdIwHu7ix28a3tqPa',
      object: 'charge',
      billing_details: { email: 'billing@example.com', name: 'Ada', phone: null },
    },
    metadata: {},
    status: 'succeeded',
    ...fields,
  });

const cardDeclined = {
  type: 'card_error',
  code: 'card_declined',
  decline_code: 'insufficient_funds',
  message: 'Your card has insufficient funds.',
};

describe('Stripe PaymentIntent to verdict (docs/provider-facts.md, Stripe)', () => {
  it('succeeded is cleared: amount check on amount_received, amount recorded, currency upper case, receipt_email', () => {
    expect(stripeVerdict(200, intent({}))).toEqual({
      kind: 'cleared',
      observation: {
        reference: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
        amountMinor: 2000,
        requestedAmountMinor: 2000,
        currency: 'USD',
        customer: { email: 'ada@example.com', phone: undefined },
        providerTransactionId: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
        providerStatus: 'succeeded',
      },
    });
  });

  it('a partial capture compares what was received, and records the asked amount', () => {
    const verdict = stripeVerdict(200, intent({ amount: 2000, amount_received: 1500 }));
    expect(verdict.kind === 'cleared' && verdict.observation).toMatchObject({ amountMinor: 1500, requestedAmountMinor: 2000 });
  });

  it('falls back to the expanded charge billing email, and has no email when the charge is not expanded', () => {
    const expanded = stripeVerdict(200, intent({ receipt_email: null }));
    expect(expanded.kind === 'cleared' && expanded.observation.customer.email).toBe('billing@example.com');
    const collapsed = stripeVerdict(200, intent({ receipt_email: null, latest_charge: 'ch_3MtwBwLkdIwHu7ix28a3tqPa' }));
    expect(collapsed.kind === 'cleared' && collapsed.observation.customer).toEqual({ email: undefined, phone: undefined });
  });

  it('zero-decimal currencies stay as Stripe sends them (JPY 1500 is 1500)', () => {
    const verdict = stripeVerdict(200, intent({ amount: 1500, amount_received: 1500, currency: 'jpy' }));
    expect(verdict.kind === 'cleared' && verdict.observation).toMatchObject({ amountMinor: 1500, currency: 'JPY' });
  });

  it('processing is still clearing', () => {
    expect(stripeVerdict(200, intent({ status: 'processing', amount_received: 0 }))).toEqual({ kind: 'clearing', providerStatus: 'processing' });
  });

  it('requires_payment_method with last_payment_error is a decline, reason decline_code, then code, then message', () => {
    expect(stripeVerdict(200, intent({ status: 'requires_payment_method', amount_received: 0, last_payment_error: cardDeclined }))).toEqual({
      kind: 'declined',
      providerStatus: 'requires_payment_method',
      reason: 'insufficient_funds',
    });
    const noDeclineCode = { ...cardDeclined, decline_code: null, code: 'expired_card' };
    const byCode = stripeVerdict(200, intent({ status: 'requires_payment_method', last_payment_error: noDeclineCode }));
    expect(byCode.kind === 'declined' && byCode.reason).toBe('expired_card');
    const messageOnly = { type: 'card_error', message: 'Your card was declined.' };
    const byMessage = stripeVerdict(200, intent({ status: 'requires_payment_method', last_payment_error: messageOnly }));
    expect(byMessage.kind === 'declined' && byMessage.reason).toBe('Your card was declined.');
  });

  it.each(['requires_payment_method', 'requires_confirmation', 'requires_action', 'requires_capture'])(
    '%s without an error is an open intent: clearing, never a failure',
    (status) => {
      expect(stripeVerdict(200, intent({ status, amount_received: 0 }))).toEqual({ kind: 'clearing', providerStatus: status });
    },
  );

  it('canceled is a definitive decline with its cancellation reason', () => {
    expect(stripeVerdict(200, intent({ status: 'canceled', amount_received: 0, cancellation_reason: 'abandoned' }))).toEqual({
      kind: 'declined',
      providerStatus: 'canceled',
      reason: 'abandoned',
    });
    const bare = stripeVerdict(200, intent({ status: 'canceled', amount_received: 0 }));
    expect(bare.kind === 'declined' && bare.reason).toBe('canceled');
  });

  it('404 resource_missing is not_found; another 404 is unreachable', () => {
    const missing = {
      error: {
        code: 'resource_missing',
        doc_url: 'https://stripe.com/docs/error-codes/resource-missing',
        message: "No such payment_intent: 'pi_123'",
        param: 'intent',
        type: 'invalid_request_error',
      },
    };
    expect(stripeVerdict(404, JSON.stringify(missing))).toEqual({ kind: 'not_found' });
    expect(stripeVerdict(404, JSON.stringify({ error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } }))).toEqual({
      kind: 'unreachable',
      cause: 'PROVIDER.UNEXPECTED_STATUS_404',
    });
  });

  it('401 is AUTH_REJECTED; 500, unknown statuses and malformed bodies are unreachable', () => {
    const invalidKey = { error: { message: 'Invalid API Key provided: sk_test_****1234', type: 'invalid_request_error' } };
    expect(stripeVerdict(401, JSON.stringify(invalidKey))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.AUTH_REJECTED' });
    expect(stripeVerdict(500, JSON.stringify({ error: { type: 'api_error' } }))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.UNEXPECTED_STATUS_500' });
    expect(stripeVerdict(200, intent({ status: 'requires_magic' }))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.UNKNOWN_STATUS' });
    expect(stripeVerdict(200, '<html>')).toEqual({ kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' });
    expect(stripeVerdict(200, intent({ amount_received: 19.99 }))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' });
    expect(stripeVerdict(200, intent({ amount: '2000' }))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' });
    expect(stripeVerdict(200, intent({ amount_received: null }))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' });
    expect(stripeVerdict(200, intent({ id: undefined }))).toEqual({ kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' });
  });
});

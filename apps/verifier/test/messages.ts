import { randomUUID } from 'node:crypto';
import type { BatchItem, TypedEvent } from '@settle/messaging';
import type { ProviderName, VerificationTrigger } from '@settle/domain';

/** Test messages of the transaction-events stream, as the verifier receives them. */
const base = (reference: string) => ({ event_id: randomUUID(), occurred_at: Date.now(), correlation_id: `corr-${reference}`, reference });

/** A Paystack checkout of NGN 2 500.00 (250 000 kobo), with the customer's email. */
export const registered = (reference: string): TypedEvent => registeredWith(reference, {});

/** {@link registered}, with some of its terms changed. */
export function registeredWith(reference: string, fields: { provider?: ProviderName; amount_minor?: number; access_period?: string | null }): TypedEvent {
  return {
    type: 'CheckoutRegistered',
    payload: {
      ...base(reference),
      provider: 'paystack',
      amount_minor: 250_000,
      currency: 'NGN',
      user_id: `user-${reference}`,
      customer_email: `${reference}@example.com`,
      customer_phone: null,
      entitlement: 'pro',
      access_period: 'P1M',
      ...fields,
    },
  };
}

export function webhook(reference: string): TypedEvent {
  return {
    type: 'ProviderWebhookReceived',
    payload: { ...base(reference), provider: 'paystack', provider_event_type: 'charge.success', body_sha256: 'a'.repeat(64) },
  };
}

export function requested(reference: string, trigger: VerificationTrigger): TypedEvent {
  return { type: 'VerificationRequested', payload: { ...base(reference), trigger, requested_by: 'test' } };
}

/** Messages as one fetched batch of partition 0, in offset order. */
export const batchOf = (events: TypedEvent[]): BatchItem[] =>
  events.map((event, i) => ({ event, context: { topic: 't', partition: 0, offset: String(i), key: event.payload.reference, timestamp: 0, headers: {} } }));

/** `n` references never used before. */
export const fresh = (n: number) => Array.from({ length: n }, () => `ref_${randomUUID().slice(0, 12)}`);

/** An operator closing the unmatched payment of `reference` as a test payment. */
export function closeRequested(reference: string): TypedEvent {
  return { type: 'UnmatchedPaymentCloseRequested', payload: { ...base(reference), reason: 'test_payment', note: 'QA card', closed_by: 'ops@example.com' } };
}

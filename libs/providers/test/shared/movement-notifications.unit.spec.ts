/**
 * Provider notifications about a settled payment's money (refunds, disputes) as webhook triggers:
 * through `PROVIDER_REGISTRY[...].webhook.trigger(Buffer)`, a Paystack or Stripe refund or
 * dispute event names the payment it concerns (not the refund's or dispute's own id) and is
 * flagged `movement: true`; a payment event keeps its trigger as before; `isMovementEventType`
 * and `movementNotificationOf` tell the money notifications from the rest.
 */
import { describe, expect, it } from 'vitest';
import { PROVIDERS } from '@settle/domain';
import {
  bodyDigest,
  isMovementEventType,
  movementNotificationOf,
  PAYSTACK_MOVEMENT_NOTIFICATIONS,
  PROVIDER_REGISTRY,
  STRIPE_MOVEMENT_NOTIFICATIONS,
} from '@settle/providers';

const raw = (body: unknown) => Buffer.from(JSON.stringify(body));
const paystack = (body: unknown) => PROVIDER_REGISTRY.paystack.webhook.trigger(raw(body));
const stripe = (body: unknown) => PROVIDER_REGISTRY.stripe.webhook.trigger(raw(body));

// Shapes as Paystack documents its notifications (fields Settle does not read left out).
const paystackRefund = (event: string, data: Record<string, unknown> = {}) => ({
  event,
  data: {
    status: event.split('.')[1],
    transaction_reference: 'ref_paid_1',
    refund_reference: null,
    amount: '10000',
    currency: 'NGN',
    id: '1234567',
    domain: 'live',
    ...data,
  },
});
const paystackDispute = (event: string, data: Record<string, unknown> = {}) => ({
  event,
  data: {
    id: 2867,
    refund_amount: 1002,
    currency: 'NGN',
    status: 'awaiting-merchant-feedback',
    domain: 'live',
    transaction: { id: 5991760, domain: 'live', status: 'success', reference: 'ref_paid_2', amount: 39100, currency: 'NGN' },
    transaction_reference: null,
    category: 'chargeback',
    ...data,
  },
});

// Shapes as Stripe documents its events: the object is the refund, charge or dispute.
/** A Stripe event; `id: null` leaves the event id out. */
const stripeEvent = (type: string, object: Record<string, unknown>, id: string | null = 'evt_1') => ({
  ...(id === null ? {} : { id }),
  object: 'event',
  type,
  data: { object },
});
const stripeRefund = { id: 're_1', object: 'refund', amount: 1000, charge: 'ch_1', currency: 'usd', payment_intent: 'pi_paid_1', status: 'succeeded' };
const stripeCharge = { id: 'ch_1', object: 'charge', amount: 2000, amount_refunded: 2000, payment_intent: 'pi_paid_1', refunded: true };
const stripeDispute = { id: 'dp_1', object: 'dispute', amount: 2000, charge: 'ch_1', payment_intent: 'pi_paid_1', status: 'lost', reason: 'fraudulent' };

describe('Paystack money notifications as triggers', () => {
  it.each(['refund.processed', 'refund.pending', 'refund.failed'])('%s names the payment at data.transaction_reference', (event) => {
    const body = paystackRefund(event);
    expect(paystack(body)).toEqual({ reference: 'ref_paid_1', eventType: event, movement: true, dedupeKey: bodyDigest(raw(body)) });
  });

  it.each(['charge.dispute.create', 'charge.dispute.remind', 'charge.dispute.resolve'])(
    '%s names the payment at data.transaction.reference (data.transaction_reference is null)',
    (event) => {
      const body = paystackDispute(event);
      expect(paystack(body)).toEqual({ reference: 'ref_paid_2', eventType: event, movement: true, dedupeKey: bodyDigest(raw(body)) });
    },
  );

  it('falls back to data.transaction_reference for a dispute whose transaction names no reference', () => {
    const body = paystackDispute('charge.dispute.create', { transaction: { id: 5991760 }, transaction_reference: 'ref_paid_3' });
    expect(paystack(body)).toMatchObject({ reference: 'ref_paid_3', movement: true });
  });

  it('keeps charge.success as before: the payment at data.reference, no movement flag', () => {
    const body = { event: 'charge.success', data: { reference: 'ref_paid_1', amount: 40000, status: 'success' } };
    expect(paystack(body)).toEqual({ reference: 'ref_paid_1', eventType: 'charge.success', dedupeKey: bodyDigest(raw(body)) });
  });

  it('gives no trigger for a refund notification that names no payment at all', () => {
    expect(paystack(paystackRefund('refund.processed', { transaction_reference: null }))).toBeNull();
    expect(paystack(paystackRefund('refund.processed', { transaction_reference: '' }))).toBeNull();
  });
});

describe('Stripe money notifications as triggers', () => {
  it.each([
    ['refund.created', stripeRefund],
    ['refund.updated', stripeRefund],
    ['charge.refund.updated', stripeRefund],
    ['charge.refunded', stripeCharge],
    ['charge.dispute.created', stripeDispute],
    ['charge.dispute.closed', stripeDispute],
  ] as const)('%s names the payment at data.object.payment_intent, not the object’s own id', (type, object) => {
    expect(stripe(stripeEvent(type, object))).toEqual({ reference: 'pi_paid_1', eventType: type, movement: true, dedupeKey: 'evt_1' });
  });

  it('keeps payment_intent.succeeded as before: the PaymentIntent at data.object.id, no movement flag', () => {
    expect(stripe(stripeEvent('payment_intent.succeeded', { id: 'pi_paid_1', object: 'payment_intent', status: 'succeeded' }))).toEqual({
      reference: 'pi_paid_1',
      eventType: 'payment_intent.succeeded',
      dedupeKey: 'evt_1',
    });
  });

  it('gives no trigger for a money notification without an event id (nothing to de-duplicate on)', () => {
    expect(stripe(stripeEvent('refund.created', stripeRefund, null))).toBeNull();
    expect(stripe(stripeEvent('charge.dispute.closed', stripeDispute, null))).toBeNull();
    expect(stripe(stripeEvent('refund.created', stripeRefund, ''))).toBeNull();
  });
});

describe('isMovementEventType and movementNotificationOf', () => {
  it("tells each provider's money notifications from its payment events", () => {
    const ps = PROVIDER_REGISTRY.paystack.webhook.movementNotifications;
    const st = PROVIDER_REGISTRY.stripe.webhook.movementNotifications;
    expect(ps).toBe(PAYSTACK_MOVEMENT_NOTIFICATIONS);
    expect(st).toBe(STRIPE_MOVEMENT_NOTIFICATIONS);
    for (const type of ['refund.processed', 'refund.failed', 'charge.dispute.create', 'charge.dispute.resolve'])
      expect(isMovementEventType(ps, type)).toBe(true);
    for (const type of ['charge.success', 'transfer.success', 'charge.disputed', 'subscription.create', '']) expect(isMovementEventType(ps, type)).toBe(false);
    for (const type of ['refund.created', 'charge.refunded', 'charge.refund.updated', 'charge.dispute.created', 'charge.dispute.closed']) {
      expect(isMovementEventType(st, type)).toBe(true);
    }
    for (const type of ['payment_intent.succeeded', 'charge.succeeded', 'charge.captured', 'payment_intent.payment_failed'])
      expect(isMovementEventType(st, type)).toBe(false);
  });

  it('knows no money notification of a provider that sends none', () => {
    const silent = PROVIDERS.filter((p) => PROVIDER_REGISTRY[p].webhook.movementNotifications === undefined);
    expect(silent).not.toContain('paystack');
    expect(silent).not.toContain('stripe');
    for (const name of silent) {
      const notifications = PROVIDER_REGISTRY[name].webhook.movementNotifications;
      expect(isMovementEventType(notifications, 'refund.processed'), name).toBe(false);
      expect(movementNotificationOf(notifications, paystackRefund('refund.processed')), name).toBeNull();
    }
    expect(isMovementEventType(undefined, 'refund.processed')).toBe(false);
  });

  it('reads an untrusted body without throwing: the payment and the event type, or null', () => {
    expect(movementNotificationOf(PAYSTACK_MOVEMENT_NOTIFICATIONS, paystackDispute('charge.dispute.create'))).toEqual({
      reference: 'ref_paid_2',
      eventType: 'charge.dispute.create',
    });
    expect(movementNotificationOf(STRIPE_MOVEMENT_NOTIFICATIONS, stripeEvent('charge.refunded', stripeCharge))).toEqual({
      reference: 'pi_paid_1',
      eventType: 'charge.refunded',
    });
    for (const body of [
      undefined,
      null,
      42,
      'refund.processed',
      [],
      { event: 'charge.success', data: { reference: 'x' } },
      { event: 'refund.processed' },
      { event: 7 },
    ]) {
      expect(movementNotificationOf(PAYSTACK_MOVEMENT_NOTIFICATIONS, body)).toBeNull();
    }
    expect(
      movementNotificationOf(STRIPE_MOVEMENT_NOTIFICATIONS, stripeEvent('refund.created', { ...stripeRefund, payment_intent: 'x'.repeat(201) })),
    ).toBeNull();
    expect(movementNotificationOf(undefined, paystackRefund('refund.processed'))).toBeNull();
  });

  it('gives no trigger for a body that is not JSON', () => {
    expect(PROVIDER_REGISTRY.paystack.webhook.trigger(Buffer.from('{not json'))).toBeNull();
    expect(PROVIDER_REGISTRY.stripe.webhook.trigger(Buffer.from('{not json'))).toBeNull();
  });
});

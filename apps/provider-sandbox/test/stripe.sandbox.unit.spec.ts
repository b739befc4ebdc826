import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import type { SandboxTransaction } from '../src/sandbox.core.js';
import { StripeSimulator, stripeExpansions } from '../src/stripe.sandbox.js';
import type { Notifier, OutgoingWebhook } from '../src/webhook-sender.js';

const key = `sk_test_${randomBytes(16).toString('hex')}`;
const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
const auth = `Bearer ${key}`;
const NOW = Date.parse('2026-03-04T05:06:07Z');

function setup(withWebhook = true) {
  const sent: Array<() => OutgoingWebhook> = [];
  const notifier: Notifier = { dispatch: (_tx, _provider, build) => sent.push(build) };
  const stripe = new StripeSimulator(
    { secretKey: new Secret(key), webhook: withWebhook ? { url: 'http://127.0.0.1:9/v1/webhooks/stripe', secret: new Secret(webhookSecret) } : null },
    notifier,
    () => NOW,
  );
  const create = (body: Record<string, unknown>): SandboxTransaction => {
    const outcome = stripe.create({ amount: 2_000, currency: 'USD', email: 'ada@example.com', ...body });
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.body));
    return outcome.transaction;
  };
  const retrieve = (id: string, expand: string[] = []) => stripe.retrieve(auth, id, expand) as { kind: 'json'; status: number; body: Record<string, unknown> };
  return { stripe, sent, create, retrieve };
}

/** Verifies `Stripe-Signature` as Stripe's libraries do: HMAC-SHA256 of "t.body" with the endpoint secret. */
function stripeSignatureValid(header: string, body: string, secret: string): boolean {
  const parts = new Map(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = parts.get('t');
  const v1 = Buffer.from(parts.get('v1') ?? '', 'hex');
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return t !== undefined && v1.length === expected.length && timingSafeEqual(v1, expected);
}

describe('Stripe simulator', () => {
  it('uses the pi_ id as the reference, assigning one when none is given', () => {
    const { create, stripe } = setup();
    expect(create({}).reference).toMatch(/^pi_[A-Za-z0-9]{24}$/);
    expect(create({ reference: 'pi_3Mtw' }).reference).toBe('pi_3Mtw');
    expect(stripe.create({ reference: 'order-1', amount: 1, currency: 'USD', email: 'a@example.com' }).ok).toBe(false);
  });

  it('answers a real PaymentIntent shape in each state', () => {
    const { stripe, create, retrieve } = setup();
    const tx = create({ phone: '+15555550100' });
    const unpaid = retrieve(tx.reference);
    expect(unpaid.status).toBe(200);
    expect(unpaid.body).toMatchObject({
      id: tx.reference,
      object: 'payment_intent',
      amount: 2_000,
      amount_received: 0,
      currency: 'usd',
      status: 'requires_payment_method',
      last_payment_error: null,
      latest_charge: null,
      receipt_email: 'ada@example.com',
      metadata: { phone: '+15555550100' },
      created: Math.floor(NOW / 1000),
      livemode: false,
    });
    stripe.pay(tx.reference);
    const paid = retrieve(tx.reference).body;
    expect(paid).toMatchObject({ status: 'succeeded', amount: 2_000, amount_received: 2_000 });
    expect(paid.latest_charge).toMatch(/^ch_/);
    expect(paid.payment_method).toMatch(/^pm_/);
  });

  it('returns a decline to requires_payment_method with last_payment_error, and shows clearing as processing', () => {
    const { stripe, create, retrieve } = setup();
    const declined = create({ behaviour: { outcome: 'declined', decline: 'wrong_pin' } });
    stripe.pay(declined.reference);
    const body = retrieve(declined.reference).body;
    expect(body).toMatchObject({
      status: 'requires_payment_method',
      amount_received: 0,
      payment_method: null,
      last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'incorrect_pin' },
    });
    expect((body.last_payment_error as { charge: string }).charge).toBe(body.latest_charge);
    const clearing = create({ behaviour: { outcome: 'clearing_then_success', clearing_checks: 1 } });
    stripe.pay(clearing.reference);
    expect(retrieve(clearing.reference).body).toMatchObject({ status: 'processing', amount_received: 0 });
    expect(retrieve(clearing.reference).body).toMatchObject({ status: 'succeeded', amount_received: 2_000 });
  });

  it('embeds the latest Charge when expand names latest_charge: billing email, failed for a decline, pending while clearing', () => {
    const { stripe, create, retrieve } = setup();
    const paid = create({ receipt_email: false });
    const declined = create({ behaviour: { outcome: 'declined' } });
    const clearing = create({ behaviour: { outcome: 'clearing_then_success', clearing_checks: 5 } });
    for (const tx of [paid, declined, clearing]) stripe.pay(tx.reference);
    const intent = retrieve(paid.reference, ['latest_charge']).body;
    expect(intent.receipt_email).toBeNull();
    expect(intent.latest_charge).toMatchObject({
      object: 'charge',
      id: retrieve(paid.reference).body.latest_charge,
      status: 'succeeded',
      paid: true,
      captured: true,
      amount: 2_000,
      currency: 'usd',
      payment_intent: paid.reference,
      billing_details: { email: 'ada@example.com' },
      payment_method_details: { type: 'card', card: { last4: '4242' } },
    });
    expect(retrieve(declined.reference, ['latest_charge']).body.latest_charge).toMatchObject({
      status: 'failed',
      paid: false,
      failure_code: 'card_declined',
      outcome: { type: 'issuer_declined', reason: 'insufficient_funds' },
      payment_method_details: { card: { last4: '9995' } },
    });
    expect(retrieve(clearing.reference, ['latest_charge']).body.latest_charge).toMatchObject({ status: 'pending', paid: false, captured: false });
    expect(retrieve(create({}).reference, ['latest_charge']).body.latest_charge).toBeNull();
  });

  it('reads expand[] as Fastify parses the query: expand[]=, expand[0]=, expand=, once or repeated', () => {
    expect(stripeExpansions({ 'expand[]': 'latest_charge' })).toEqual(['latest_charge']);
    expect(stripeExpansions({ 'expand[0]': 'latest_charge', 'expand[1]': 'customer' })).toEqual(['latest_charge', 'customer']);
    expect(stripeExpansions({ expand: ['latest_charge', 'payment_method'] })).toEqual(['latest_charge', 'payment_method']);
    expect(stripeExpansions({ expanded: 'latest_charge', 'expand[x]': 'customer' })).toEqual([]);
    expect(stripeExpansions(undefined)).toEqual([]);
  });

  it('reports the outcome knobs in Stripe terms (minor units, lower-case currency)', () => {
    const { stripe, create, retrieve } = setup();
    const lower = create({ behaviour: { outcome: 'lower_amount' } });
    const currency = create({ behaviour: { outcome: 'other_currency' } });
    const customer = create({ behaviour: { outcome: 'other_customer' } });
    for (const tx of [lower, currency, customer]) stripe.pay(tx.reference);
    expect(retrieve(lower.reference).body).toMatchObject({ amount: 1_000, amount_received: 1_000 });
    expect(retrieve(currency.reference).body).toMatchObject({ currency: 'ngn' });
    expect(retrieve(customer.reference).body).toMatchObject({ receipt_email: 'someone.else@example.net' });
  });

  it('refuses a missing or wrong key with 401 and an unknown id with 404 resource_missing', () => {
    const { stripe } = setup();
    expect(stripe.retrieve(undefined, 'pi_x')).toMatchObject({ status: 401, body: { error: { type: 'invalid_request_error' } } });
    expect(stripe.retrieve(`Bearer sk_test_${randomBytes(16).toString('hex')}`, 'pi_x')).toMatchObject({
      status: 401,
      body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } },
    });
    expect(stripe.retrieve(auth, 'pi_unknown')).toMatchObject({ status: 404, body: { error: { code: 'resource_missing', type: 'invalid_request_error' } } });
  });

  it('serves injected gateway failures in Stripe error shape', () => {
    const { create, retrieve, stripe } = setup();
    const tx = create({ behaviour: { failures: { mode: '502', times: 1 } } });
    expect(retrieve(tx.reference)).toMatchObject({ status: 502, body: { error: { type: 'api_error' } } });
    const hung = create({ behaviour: { failures: { mode: 'timeout', times: 1 } } });
    expect(stripe.retrieve(auth, hung.reference)).toMatchObject({ kind: 'hang', after: { status: 504 } });
  });

  it('signs payment_intent events with Stripe-Signature (a wrong secret when spoofing)', () => {
    const { stripe, create, sent } = setup();
    const good = create({});
    const spoofed = create({ behaviour: { webhook: 'spoof' } });
    const declined = create({ behaviour: { outcome: 'declined' } });
    for (const tx of [good, spoofed, declined]) stripe.pay(tx.reference);
    const [g, s, d] = sent.map((build) => build());
    const header = g!.headers['stripe-signature']!;
    expect(header).toMatch(new RegExp(`^t=${Math.floor(NOW / 1000)},v1=[0-9a-f]{64}$`));
    expect(stripeSignatureValid(header, g!.body, webhookSecret)).toBe(true);
    expect(stripeSignatureValid(header, g!.body.replace('2000', '20'), webhookSecret)).toBe(false);
    expect(JSON.parse(g!.body)).toMatchObject({
      object: 'event',
      type: 'payment_intent.succeeded',
      data: { object: { id: good.reference, status: 'succeeded', amount_received: 2_000 } },
    });
    expect(JSON.parse(g!.body).id).toMatch(/^evt_/);
    expect(stripeSignatureValid(s!.headers['stripe-signature']!, s!.body, webhookSecret)).toBe(false);
    expect(JSON.parse(d!.body)).toMatchObject({ type: 'payment_intent.payment_failed', data: { object: { status: 'requires_payment_method' } } });
  });

  it('sends no event when no webhook URL is configured', () => {
    const { stripe, create, sent } = setup(false);
    stripe.pay(create({}).reference);
    expect(sent).toHaveLength(0);
  });
});

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import type { SandboxDispute, SandboxRefund, SandboxTransaction } from '../src/sandbox.core.js';
import { StripeSimulator } from '../src/stripe.sandbox.js';
import { listStripeMovements, retrieveStripeDispute, retrieveStripeRefund } from '../src/stripe.movements.js';
import type { Notifier, OutgoingWebhook } from '../src/webhook-sender.js';

const key = `sk_test_${randomBytes(16).toString('hex')}`;
const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
const auth = `Bearer ${key}`;
const NOW = Date.parse('2026-03-04T05:06:07Z');

function setup(clock: () => number = () => NOW) {
  const sent: Array<{ tx: SandboxTransaction; build: () => OutgoingWebhook }> = [];
  const notifier: Notifier = { dispatch: (tx, _provider, build) => sent.push({ tx, build }) };
  const stripe = new StripeSimulator(
    { secretKey: new Secret(key), webhook: { url: 'http://127.0.0.1:9/v1/webhooks/stripe', secret: new Secret(webhookSecret) } },
    notifier,
    clock,
  );
  const paid = (): SandboxTransaction => {
    const outcome = stripe.create({ amount: 2_000, currency: 'USD', email: 'ada@example.com', behaviour: { webhook: 'drop' } });
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.body));
    stripe.pay(outcome.transaction.reference);
    sent.length = 0; // the payment's own notification (this test notifier ignores its knobs)
    return outcome.transaction;
  };
  const value = <T>(outcome: { ok: true; value: T } | { ok: false; status: number; body: unknown }): T => {
    if (!outcome.ok) throw new Error(`${outcome.status} ${JSON.stringify(outcome.body)}`);
    return outcome.value;
  };
  return { stripe, sent, paid, value };
}

function signed(webhook: OutgoingWebhook, secret: string): boolean {
  const parts = new Map(webhook.headers['stripe-signature']!.split(',').map((p) => p.split('=', 2) as [string, string]));
  const expected = createHmac('sha256', secret)
    .update(`${parts.get('t')}.${webhook.body}`)
    .digest();
  const v1 = Buffer.from(parts.get('v1') ?? '', 'hex');
  return v1.length === expected.length && timingSafeEqual(v1, expected);
}

const event = (webhook: OutgoingWebhook) => JSON.parse(webhook.body) as { type: string; data: { object: Record<string, unknown> } };

describe('Stripe simulator: refunds and disputes', () => {
  it('refunds part of a paid intent: a Refund object naming the intent, and a signed refund.created', () => {
    const { stripe, sent, paid, value } = setup();
    const tx = paid();
    const refund: SandboxRefund = value(stripe.refund(tx.reference, { amount: 500 }));
    expect(refund.id).toMatch(/^re_/);
    expect(retrieveStripeRefund(stripe.book, refund.id)).toEqual({
      kind: 'json',
      status: 200,
      body: expect.objectContaining({
        id: refund.id,
        object: 'refund',
        amount: 500,
        currency: 'usd',
        status: 'succeeded',
        payment_intent: tx.reference,
        created: NOW / 1000,
      }),
    });
    expect(sent).toHaveLength(1);
    const webhook = sent[0]!.build();
    expect(signed(webhook, webhookSecret)).toBe(true);
    expect(event(webhook)).toMatchObject({ type: 'refund.created', data: { object: { id: refund.id, payment_intent: tx.reference } } });
  });

  it('refuses a refund of more than is left, or of an unpaid intent', () => {
    const { stripe, paid, value } = setup();
    const tx = paid();
    value(stripe.refund(tx.reference, { amount: 1_500 }));
    expect(stripe.refund(tx.reference, { amount: 501 })).toMatchObject({ ok: false, status: 409 });
    expect(value(stripe.refund(tx.reference, {})).amount).toBe(500);
    const unpaid = stripe.create({ amount: 100, currency: 'USD', email: 'a@example.com' });
    expect(unpaid.ok && stripe.refund(unpaid.transaction.reference, {})).toMatchObject({ ok: false, status: 409 });
    expect(stripe.refund('pi_unknown', {})).toMatchObject({ ok: false, status: 404 });
  });

  it('a refund that fails after it succeeded: status failed, refund.failed, and it is final', () => {
    const { stripe, sent, paid, value } = setup();
    const tx = paid();
    const refund = value(stripe.refund(tx.reference, {}));
    value(stripe.updateRefund(refund.id, { status: 'failed' }));
    expect(event(sent[1]!.build())).toMatchObject({ type: 'refund.failed', data: { object: { status: 'failed', failure_reason: 'lost_or_stolen_card' } } });
    expect(stripe.updateRefund(refund.id, { status: 'succeeded' })).toMatchObject({ ok: false, status: 409 });
  });

  it('a dispute opens as needs_response and closes as lost, each with its charge.dispute event; a spoofed one is signed with another secret', () => {
    const { stripe, sent, paid, value } = setup();
    const tx = paid();
    const dispute: SandboxDispute = value(stripe.openDispute(tx.reference, { webhook: 'spoof' }));
    expect(retrieveStripeDispute(stripe.book, dispute.id)).toMatchObject({
      status: 200,
      body: { object: 'dispute', status: 'needs_response', amount: 2_000, payment_intent: tx.reference, reason: 'fraudulent' },
    });
    const spoofed = sent[0]!.build();
    expect(event(spoofed).type).toBe('charge.dispute.created');
    expect(signed(spoofed, webhookSecret)).toBe(false);
    value(stripe.resolveDispute(dispute.id, { outcome: 'lost' }));
    const closed = sent[1]!.build();
    expect(signed(closed, webhookSecret)).toBe(true);
    expect(event(closed)).toMatchObject({ type: 'charge.dispute.closed', data: { object: { id: dispute.id, status: 'lost' } } });
    expect(stripe.resolveDispute(dispute.id, { outcome: 'won' })).toMatchObject({ ok: false, status: 409 });
  });

  it('a dropped notification sends nothing; the objects still show', () => {
    const { stripe, sent, paid, value } = setup();
    const tx = paid();
    value(stripe.refund(tx.reference, { webhook: 'drop' }));
    expect(sent).toEqual([]);
    expect(listStripeMovements(stripe.book, 'refunds', { payment_intent: tx.reference })).toMatchObject({
      status: 200,
      body: { object: 'list', has_more: false, data: [{ amount: 2_000 }] },
    });
  });

  it('lists a payment refunds and disputes newest first, with the key checked, and refuses what it does not simulate', () => {
    const { stripe, paid, value } = setup();
    const tx = paid();
    const first = value(stripe.refund(tx.reference, { amount: 100 }));
    const second = value(stripe.refund(tx.reference, { amount: 200 }));
    const listed = stripe.movements(auth, (book) => listStripeMovements(book, 'refunds', { payment_intent: tx.reference, limit: '1' }));
    expect(listed).toMatchObject({ status: 200, body: { has_more: true, data: [{ id: second.id }] } });
    expect(stripe.movements(auth, (book) => listStripeMovements(book, 'refunds', { payment_intent: tx.reference })).kind === 'json').toBe(true);
    expect(stripe.movements('Bearer sk_test_wrong', (book) => listStripeMovements(book, 'refunds', { payment_intent: tx.reference }))).toMatchObject({
      status: 401,
    });
    expect(listStripeMovements(stripe.book, 'refunds', { payment_intent: tx.reference, starting_after: second.id })).toMatchObject({
      status: 200,
      body: { has_more: false, data: [{ id: first.id }] },
    });
    expect(listStripeMovements(stripe.book, 'refunds', { starting_after: 're_nope' })).toMatchObject({
      status: 400,
      body: { error: { code: 'resource_missing', param: 'starting_after' } },
    });
    expect(listStripeMovements(stripe.book, 'disputes', { payment_intent: tx.reference, ending_before: first.id })).toMatchObject({ status: 400 });
    expect(listStripeMovements(stripe.book, 'refunds', { 'created[gte]': 'yesterday' })).toMatchObject({ status: 400 });
    expect(retrieveStripeRefund(stripe.book, 're_nope')).toMatchObject({ status: 404, body: { error: { code: 'resource_missing' } } });
  });

  it("lists every payment's refunds and disputes created in a window, newest first, paged by starting_after", () => {
    let now = NOW;
    const { stripe, paid, value } = setup(() => now);
    const [a, b] = [paid(), paid()];
    const made = [0, 1, 2, 3, 4].map((n) => {
      now = NOW + n * 60_000;
      return value(stripe.refund(n % 2 === 0 ? a.reference : b.reference, { amount: 100 }));
    });
    now = NOW + 2 * 60_000 + 30_000;
    const dispute = value(stripe.openDispute(a.reference, {}));
    // [NOW + 1 min, NOW + 4 min): the refunds made at minutes 1, 2 and 3, newest first.
    const window = { 'created[gte]': String(NOW / 1000 + 60), 'created[lt]': String(NOW / 1000 + 240) };
    const first = listStripeMovements(stripe.book, 'refunds', { ...window, limit: '2' });
    expect(first).toMatchObject({ status: 200, body: { object: 'list', has_more: true, url: '/v1/refunds' } });
    const firstPage = (first as { body: { data: Array<{ id: string; payment_intent: string }> } }).body.data;
    expect(firstPage.map((r) => [r.id, r.payment_intent])).toEqual([
      [made[3]!.id, b.reference],
      [made[2]!.id, a.reference],
    ]);
    expect(listStripeMovements(stripe.book, 'refunds', { ...window, limit: '2', starting_after: made[2]!.id })).toMatchObject({
      body: { has_more: false, data: [{ id: made[1]!.id }] },
    });
    expect(listStripeMovements(stripe.book, 'disputes', window)).toMatchObject({
      body: { has_more: false, data: [{ id: dispute.id, payment_intent: a.reference }] },
    });
    expect(listStripeMovements(stripe.book, 'refunds', { ...window, payment_intent: a.reference })).toMatchObject({ body: { data: [{ id: made[2]!.id }] } });
  });
});

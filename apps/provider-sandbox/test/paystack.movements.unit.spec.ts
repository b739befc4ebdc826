import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import { listPaystackMovements, retrievePaystackDispute, retrievePaystackRefund } from '../src/paystack.movements.js';
import { PaystackSimulator } from '../src/paystack.sandbox.js';
import type { SandboxTransaction } from '../src/sandbox.core.js';
import type { Notifier, OutgoingWebhook } from '../src/webhook-sender.js';

const key = `sk_test_${randomBytes(16).toString('hex')}`;
const auth = `Bearer ${key}`;
const NOW = Date.parse('2026-03-04T05:06:07.089Z');

function setup(clock: () => number = () => NOW) {
  const sent: Array<() => OutgoingWebhook> = [];
  const notifier: Notifier = { dispatch: (_tx, _provider, build) => sent.push(build) };
  const paystack = new PaystackSimulator({ secretKey: new Secret(key), webhookUrl: 'http://127.0.0.1:9/v1/webhooks/paystack' }, notifier, clock);
  const paid = (reference: string): SandboxTransaction => {
    const created = paystack.create({ reference, amount: 40_000, currency: 'NGN', email: 'ada@example.com' });
    if (!created.ok) throw new Error(JSON.stringify(created.body));
    paystack.pay(reference);
    sent.length = 0;
    return created.transaction;
  };
  const value = <T>(outcome: { ok: true; value: T } | { ok: false; status: number; body: unknown }): T => {
    if (!outcome.ok) throw new Error(`${outcome.status} ${JSON.stringify(outcome.body)}`);
    return outcome.value;
  };
  return { paystack, sent, paid, value };
}

const signedWith = (webhook: OutgoingWebhook, secret: string) => {
  const expected = createHmac('sha512', secret).update(webhook.body).digest();
  const given = Buffer.from(webhook.headers['x-paystack-signature'] ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
};

describe('Paystack simulator: refunds and disputes', () => {
  it('a processed refund: the refund object names the transaction id, the transaction shows reversed, refund.processed names only the reference', () => {
    const { paystack, sent, paid, value } = setup();
    const tx = paid('ref_refund');
    const refund = value(paystack.refund('ref_refund', { amount: 10_000 }));
    expect(retrievePaystackRefund(paystack.book, refund.id)).toMatchObject({
      status: 200,
      body: {
        status: true,
        data: {
          id: Number(refund.id),
          transaction: tx.id,
          transaction_reference: 'ref_refund',
          dispute: null,
          amount: 10_000,
          currency: 'NGN',
          status: 'processed',
        },
      },
    });
    const verify = paystack.verify(auth, 'ref_refund') as { body: { data: { status: string } } };
    expect(verify.body.data.status).toBe('reversed');
    const webhook = sent[0]!();
    expect(signedWith(webhook, key)).toBe(true);
    const body = JSON.parse(webhook.body) as { event: string; data: Record<string, unknown> };
    expect(body).toMatchObject({ event: 'refund.processed', data: { transaction_reference: 'ref_refund', amount: '10000', status: 'processed' } });
    expect(body.data).not.toHaveProperty('id');
  });

  it('a refund that fails turns the transaction back to success, with refund.failed', () => {
    const { paystack, sent, paid, value } = setup();
    paid('ref_failed');
    const refund = value(paystack.refund('ref_failed', {}));
    value(paystack.updateRefund(refund.id, { status: 'failed' }));
    expect((JSON.parse(sent[1]!().body) as { event: string }).event).toBe('refund.failed');
    expect((paystack.verify(auth, 'ref_failed') as { body: { data: { status: string } } }).body.data.status).toBe('success');
  });

  it('a dispute: charge.dispute.create with the dispute and its transaction, then resolve with the resolution; a spoofed one is signed with another key', () => {
    const { paystack, sent, paid, value } = setup();
    paid('ref_dispute');
    const dispute = value(paystack.openDispute('ref_dispute', { webhook: 'spoof' }));
    const created = sent[0]!();
    expect(signedWith(created, key)).toBe(false);
    expect(JSON.parse(created.body)).toMatchObject({
      event: 'charge.dispute.create',
      data: {
        id: Number(dispute.id),
        status: 'awaiting-merchant-feedback',
        transaction: { reference: 'ref_dispute' },
        transaction_reference: null,
        created_at: expect.any(String),
      },
    });
    value(paystack.resolveDispute(dispute.id, { outcome: 'lost' }));
    expect(JSON.parse(sent[1]!().body)).toMatchObject({ event: 'charge.dispute.resolve', data: { status: 'resolved', resolution: 'merchant-accepted' } });
    expect(retrievePaystackDispute(paystack.book, dispute.id)).toMatchObject({ status: 200, body: { data: { resolvedAt: new Date(NOW).toISOString() } } });
  });

  it('lists a payment refunds by transaction id, with the key checked', () => {
    const { paystack, paid, value } = setup();
    const tx = paid('ref_list');
    value(paystack.refund('ref_list', { amount: 1 }));
    expect(paystack.movements(auth, (book) => listPaystackMovements(book, 'refunds', { transaction: String(tx.id) }))).toMatchObject({
      status: 200,
      body: { data: [{ amount: 1 }], meta: { total: 1 } },
    });
    expect(paystack.movements('Bearer sk_test_wrong', (book) => listPaystackMovements(book, 'refunds', { transaction: String(tx.id) }))).toMatchObject({
      status: 401,
    });
    expect(listPaystackMovements(paystack.book, 'disputes', { from: 'yesterday' })).toMatchObject({ status: 400 });
    expect(listPaystackMovements(paystack.book, 'refunds', { transaction: 'abc' })).toMatchObject({ status: 400 });
    expect(retrievePaystackRefund(paystack.book, '999999')).toMatchObject({ status: 404, body: { status: false } });
  });

  it("lists every payment's refunds and disputes created from `from` to `to`, newest first, paged", () => {
    let now = NOW;
    const { paystack, paid, value } = setup(() => now);
    paid('ref_window_a');
    paid('ref_window_b');
    const made = [0, 1, 2, 3, 4].map((n) => {
      now = NOW + n * 60_000;
      return value(paystack.refund(n % 2 === 0 ? 'ref_window_a' : 'ref_window_b', { amount: 100 }));
    });
    const window = { from: new Date(NOW + 60_000).toISOString(), to: new Date(NOW + 3 * 60_000).toISOString() };
    const first = paystack.movements(auth, (book) => listPaystackMovements(book, 'refunds', { ...window, perPage: '2', page: '1' }));
    expect(first).toMatchObject({ status: 200, body: { meta: { total: 3, perPage: 2, page: 1, pageCount: 2 } } });
    const rows = (first as { body: { data: Array<{ id: number; transaction_reference: string; createdAt: string }> } }).body.data;
    expect(rows.map((r) => [String(r.id), r.transaction_reference])).toEqual([
      [made[3]!.id, 'ref_window_b'],
      [made[2]!.id, 'ref_window_a'],
    ]);
    expect(listPaystackMovements(paystack.book, 'refunds', { ...window, perPage: '2', page: '2' })).toMatchObject({
      body: { data: [{ id: Number(made[1]!.id) }], meta: { page: 2, pageCount: 2 } },
    });
    now = NOW + 2 * 60_000;
    const dispute = value(paystack.openDispute('ref_window_a', {}));
    expect(listPaystackMovements(paystack.book, 'disputes', window)).toMatchObject({
      body: { data: [{ id: Number(dispute.id), transaction: { reference: 'ref_window_a' } }], meta: { total: 1 } },
    });
  });
});

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import { FlutterwaveSimulator } from '../src/flutterwave.sandbox.js';
import { listFlutterwaveMovements } from '../src/flutterwave.movements.js';
import type { Notifier, OutgoingWebhook } from '../src/webhook-sender.js';

const key = `FLWSECK_TEST-${randomBytes(16).toString('hex')}-X`;
const auth = `Bearer ${key}`;

function setup() {
  const sent: Array<() => OutgoingWebhook> = [];
  const notifier: Notifier = { dispatch: (_tx, _provider, build) => sent.push(build) };
  const flw = new FlutterwaveSimulator(
    { secretKey: new Secret(key), webhook: { url: 'http://127.0.0.1:9/v1/webhooks/flutterwave', secretHash: new Secret('hash') } },
    notifier,
  );
  const created = flw.create({ reference: 'tx_refunded', amount: 12_345, currency: 'NGN', email: 'ada@example.com' });
  if (!created.ok) throw new Error(JSON.stringify(created.body));
  flw.pay('tx_refunded');
  sent.length = 0;
  return { flw, sent, tx: created.transaction };
}

describe('Flutterwave simulator: refunds and chargebacks', () => {
  it('lists a refund by transaction id in major units, with no currency and no notification', () => {
    const { flw, sent, tx } = setup();
    const refund = flw.refund('tx_refunded', { amount: 2_345 });
    expect(refund.ok).toBe(true);
    expect(sent).toEqual([]);
    expect(flw.movements(auth, (book) => listFlutterwaveMovements(book, 'refunds', { id: String(tx.id) }))).toMatchObject({
      status: 200,
      body: {
        status: 'success',
        data: [{ amount_refunded: 23.45, status: 'completed', transaction_id: tx.id }],
        meta: { page_info: { total: 1, page_size: 20 } },
      },
    });
  });

  it("lists a chargeback by the transaction's flw_ref, accepted once lost", () => {
    const { flw, tx } = setup();
    const opened = flw.openDispute('tx_refunded', {});
    if (!opened.ok) throw new Error('not opened');
    expect(listFlutterwaveMovements(flw.book, 'chargebacks', { flw_ref: String(tx.details?.flw_ref) })).toMatchObject({
      body: { data: [{ status: 'initiated', amount: 123.45, tx_ref: 'tx_refunded' }] },
    });
    flw.resolveDispute(opened.value.id, { outcome: 'lost' });
    expect(listFlutterwaveMovements(flw.book, 'chargebacks', { flw_ref: String(tx.details?.flw_ref) })).toMatchObject({
      body: { data: [{ status: 'accepted' }] },
    });
  });

  it('refuses a list without its transaction, and a wrong key', () => {
    const { flw, tx } = setup();
    expect(listFlutterwaveMovements(flw.book, 'refunds', { from: '2026-01-01' })).toMatchObject({ status: 400 });
    expect(listFlutterwaveMovements(flw.book, 'chargebacks', {})).toMatchObject({ status: 400 });
    expect(flw.movements('Bearer FLWSECK_TEST-wrong', (book) => listFlutterwaveMovements(book, 'refunds', { id: String(tx.id) }))).toMatchObject({
      status: 401,
    });
  });
});

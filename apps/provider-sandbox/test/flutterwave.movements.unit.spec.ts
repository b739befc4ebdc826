import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import { FlutterwaveSimulator } from '../src/flutterwave.sandbox.js';
import { listFlutterwaveMovements } from '../src/flutterwave.movements.js';
import type { Notifier, OutgoingWebhook } from '../src/webhook-sender.js';

const key = `FLWSECK_TEST-${randomBytes(16).toString('hex')}-X`;
const auth = `Bearer ${key}`;

function setup(clock?: () => number) {
  const sent: Array<() => OutgoingWebhook> = [];
  const notifier: Notifier = { dispatch: (_tx, _provider, build) => sent.push(build) };
  const flw = new FlutterwaveSimulator(
    { secretKey: new Secret(key), webhook: { url: 'http://127.0.0.1:9/v1/webhooks/flutterwave', secretHash: new Secret('hash') } },
    notifier,
    clock,
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

  it('refuses dates that are not dates, an id that is no number, and a wrong key', () => {
    const { flw, tx } = setup();
    expect(listFlutterwaveMovements(flw.book, 'refunds', { from: '2026-01-01T00:00:00Z' })).toMatchObject({ status: 400 });
    expect(listFlutterwaveMovements(flw.book, 'refunds', { id: 'tx_refunded' })).toMatchObject({ status: 400 });
    expect(listFlutterwaveMovements(flw.book, 'chargebacks', { page: '0' })).toMatchObject({ status: 400 });
    expect(flw.movements('Bearer FLWSECK_TEST-wrong', (book) => listFlutterwaveMovements(book, 'refunds', { id: String(tx.id) }))).toMatchObject({
      status: 401,
    });
  });

  it("lists every transaction's refunds and chargebacks created on the dates from `from` to `to`, newest first, 20 a page", () => {
    const DAY = 86_400_000;
    const start = Date.parse('2026-05-01T22:00:00Z');
    let now = start;
    const { flw, tx } = setup(() => now);
    // 23 refunds, an hour apart: 2 on May 1st, 21 on May 2nd (UTC).
    const made = Array.from({ length: 23 }, (_, n) => {
      now = start + n * 3_600_000;
      const refund = flw.refund('tx_refunded', { amount: 1 });
      if (!refund.ok) throw new Error('not refunded');
      return refund.value;
    });
    now = start + DAY;
    const chargeback = flw.openDispute('tx_refunded', { amount: 5 });
    if (!chargeback.ok) throw new Error('not opened');
    const page = (query: Record<string, string>) =>
      flw.movements(auth, (book) => listFlutterwaveMovements(book, 'refunds', query)) as {
        status: number;
        body: { data: Array<{ id: number; created_at: string }>; meta: { page_info: Record<string, number> } };
      };
    const first = page({ from: '2026-05-02', to: '2026-05-02' });
    expect(first.body.meta.page_info).toMatchObject({ total: 21, current_page: 1, total_pages: 2, page_size: 20 });
    expect(first.body.data.map((r) => String(r.id))).toEqual(
      made
        .slice(2)
        .reverse()
        .slice(0, 20)
        .map((r) => r.id),
    );
    expect(page({ from: '2026-05-02', to: '2026-05-02', page: '2' }).body.data.map((r) => String(r.id))).toEqual([made[2]!.id]);
    expect(page({ from: '2026-05-01', to: '2026-05-01' }).body.meta.page_info).toMatchObject({ total: 2, total_pages: 1 });
    expect(listFlutterwaveMovements(flw.book, 'chargebacks', { from: '2026-05-02', to: '2026-05-02' })).toMatchObject({
      body: { data: [{ id: Number(chargeback.value.id), tx_ref: 'tx_refunded', transaction_id: tx.id }], meta: { page_info: { total: 1 } } },
    });
  });
});

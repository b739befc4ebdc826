import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { Secret } from '@settle/config';
import { FlutterwaveSimulator } from '../src/flutterwave.sandbox.js';
import { MpesaSimulator } from '../src/mpesa.sandbox.js';
import { PaystackSimulator } from '../src/paystack.sandbox.js';
import { behaviourSchema, TimeIndex, TransactionBook, type SandboxAnswer, type SandboxTransaction } from '../src/sandbox.core.js';
import { listPaystackMovements, paystackDispute, paystackRefund, retrievePaystackDispute, retrievePaystackRefund } from '../src/paystack.movements.js';
import { BULK_MOVEMENT_DELAY_MS, outcomeDraw } from '../src/sandbox.list.js';
import { StripeSimulator } from '../src/stripe.sandbox.js';
import type { Notifier } from '../src/webhook-sender.js';

const keys = {
  paystack: `sk_test_${randomBytes(16).toString('hex')}`,
  stripe: `sk_test_${randomBytes(16).toString('hex')}`,
  flutterwave: `FLWSECK_TEST-${randomBytes(16).toString('hex')}-X`,
};
const bearer = (key: string) => `Bearer ${key}`;
const notifier: Notifier = { dispatch: () => undefined };
const T0 = Date.UTC(2026, 2, 1);
const HOUR = 3_600_000;

/** A settable clock for the simulators. */
function clock(start = T0) {
  let now = start;
  return { now: () => now, set: (ms: number) => (now = ms) };
}

const paystack = (now = clock().now) => new PaystackSimulator({ secretKey: new Secret(keys.paystack), webhookUrl: 'http://127.0.0.1:9/p' }, notifier, now);
const stripe = (now = clock().now) => new StripeSimulator({ secretKey: new Secret(keys.stripe), webhook: null }, notifier, now);
const flutterwave = (now = clock().now) => new FlutterwaveSimulator({ secretKey: new Secret(keys.flutterwave), webhook: null }, notifier, now);

function body(answer: SandboxAnswer): Record<string, unknown> {
  if (answer.kind !== 'json') throw new Error('expected a JSON answer');
  return answer.body as Record<string, unknown>;
}

const iso = (ms: number) => new Date(ms).toISOString();
const refs = (data: unknown) => (data as Array<{ reference?: string; id?: string; tx_ref?: string }>).map((d) => d.reference ?? d.tx_ref ?? d.id);

describe('the time index of a book', () => {
  const tx = (id: number) => ({ id }) as SandboxTransaction;

  it('finds a window by binary search and pages it newest first', () => {
    const index = new TimeIndex();
    for (let i = 0; i < 10; i++) index.add(1_000 + i * 10, tx(i));
    expect(index.range(1_020, 1_060)).toEqual({ lo: 2, hi: 6 });
    expect(index.newestFirst(2, 6, 0, 3).map((t) => t.id)).toEqual([5, 4, 3]);
    expect(index.newestFirst(2, 6, 3, 3).map((t) => t.id)).toEqual([2]);
    expect(index.range(2_000, 3_000)).toEqual({ lo: 10, hi: 10 });
    expect(index.range(1_050, 1_050)).toEqual({ lo: 5, hi: 5 });
  });

  it('orders ties by id and sorts once after an append out of order', () => {
    const index = new TimeIndex();
    const [a, b, c, d] = [tx(1), tx(2), tx(3), tx(4)];
    index.add(500, c);
    index.add(500, d);
    index.add(100, b);
    index.add(500, a);
    expect(index.newestFirst(0, index.size, 0, 10).map((t) => t.id)).toEqual([4, 3, 1, 2]);
    expect(index.positionOf(a, 500)).toBe(1);
    expect(index.positionOf(d, 500)).toBe(3);
    expect(index.positionOf(b, 500)).toBe(-1);
  });
});

describe('listing consumes nothing of verification', () => {
  it('peek reads the state without counting a verify call, serving a failure or using a clearing check', () => {
    const book = new TransactionBook(1);
    const tx = book.create({
      reference: 'r',
      amount: 100,
      currency: 'NGN',
      behaviour: behaviourSchema.parse({ outcome: 'clearing_then_success', clearing_checks: 1, failures: { mode: '502', times: 1 } }),
    });
    expect(book.peek(tx)).toBe('unpaid');
    book.pay(tx);
    expect(book.peek(tx)).toBe('clearing');
    expect(book.peek(tx)).toBe('clearing');
    expect(tx).toMatchObject({ verifyCalls: 0, failuresServed: 0, clearingServed: 0, webhookDue: false });
    expect(book.check(tx)).toEqual({ kind: 'failure', mode: '502' });
    expect(book.check(tx)).toEqual({ kind: 'state', state: 'clearing', clearedNow: false });
    expect(book.peek(tx)).toBe('succeeded');
  });

  it('a Paystack list call leaves the next verify answer as it was', () => {
    const sim = paystack();
    sim.create({
      reference: 'stl_1',
      amount: 40_000,
      currency: 'NGN',
      email: 'ada@example.com',
      behaviour: { outcome: 'clearing_then_success', failures: { mode: '504', times: 1 } },
    });
    sim.pay('stl_1');
    expect(body(sim.list(bearer(keys.paystack), {})).data).toMatchObject([{ reference: 'stl_1', status: 'pending' }]);
    expect(sim.verify(bearer(keys.paystack), 'stl_1')).toMatchObject({ status: 504 });
    expect(body(sim.verify(bearer(keys.paystack), 'stl_1'))).toMatchObject({ data: { status: 'pending' } });
    expect(body(sim.verify(bearer(keys.paystack), 'stl_1'))).toMatchObject({ data: { status: 'success' } });
    expect(body(sim.list(bearer(keys.paystack), {})).data).toMatchObject([{ reference: 'stl_1', status: 'success' }]);
  });
});

describe('Paystack GET /transaction (simulated)', () => {
  function seeded(count: number) {
    const sim = paystack();
    const seed = sim.bulk({ count, from: iso(T0), until: iso(T0 + count * HOUR), reference_prefix: 'stl_', outcomes: { success: 1 } });
    expect(seed).toMatchObject({ ok: true, value: { created: count, existing: 0, first_reference: 'stl_0', last_reference: `stl_${count - 1}` } });
    return sim;
  }

  it('refuses a wrong key in its own shape', () => {
    expect(paystack().list('Bearer sk_test_wrong', {})).toEqual({ kind: 'json', status: 401, body: { status: false, message: 'Invalid key' } });
  });

  it("lists newest first, perPage a page, with the documented meta; items are verify's data with created_at", () => {
    const sim = seeded(5);
    const first = body(sim.list(bearer(keys.paystack), { perPage: '2', page: '1' }));
    expect(refs(first.data)).toEqual(['stl_4', 'stl_3']);
    expect(first.meta).toEqual({ total: 5, skipped: 0, perPage: 2, page: 1, pageCount: 3 });
    const last = body(sim.list(bearer(keys.paystack), { perPage: '2', page: '3' }));
    expect(refs(last.data)).toEqual(['stl_0']);
    expect(last.meta).toEqual({ total: 5, skipped: 4, perPage: 2, page: 3, pageCount: 3 });
    const tx = sim.book.get('stl_0')!;
    expect((last.data as unknown[])[0]).toEqual({ ...sim.data(tx, 'success'), created_at: iso(T0) });
    expect(body(sim.list(bearer(keys.paystack), { perPage: '2', page: '4' })).data).toEqual([]);
  });

  it('filters by creation time: from and to inclusive, instants or whole UTC days', () => {
    const sim = seeded(5);
    const list = (query: Record<string, string>) => refs(body(sim.list(bearer(keys.paystack), query)).data);
    expect(list({ from: iso(T0 + HOUR), to: iso(T0 + 3 * HOUR) })).toEqual(['stl_3', 'stl_2', 'stl_1']);
    expect(list({ from: iso(T0 + HOUR + 1), to: iso(T0 + 3 * HOUR - 1) })).toEqual(['stl_2']);
    expect(list({ from: '2026-03-01', to: '2026-03-01' })).toEqual(['stl_4', 'stl_3', 'stl_2', 'stl_1', 'stl_0']);
    expect(list({ from: '2026-03-02' })).toEqual([]);
    expect(sim.list(bearer(keys.paystack), { from: 'yesterday' })).toMatchObject({ status: 400 });
    expect(sim.list(bearer(keys.paystack), { perPage: 'ten' })).toMatchObject({ status: 400 });
    expect(body(sim.list(bearer(keys.paystack), { perPage: '1000' })).meta).toMatchObject({ perPage: 100 });
  });

  it('shows each state: abandoned, failed, pending, success, reversed; status filters', () => {
    const sim = paystack();
    const add = (reference: string, behaviour: object, pay = true) => {
      sim.create({ reference, amount: 100, currency: 'NGN', email: 'a@b.co', behaviour });
      if (pay) sim.pay(reference);
    };
    add('unpaid', {}, false);
    add('declined', { outcome: 'declined' });
    add('clearing', { outcome: 'clearing_then_success' });
    add('paid', {});
    add('reversed', {});
    expect(sim.reverse('reversed')).toMatchObject({ ok: true });
    const statuses = (body(sim.list(bearer(keys.paystack), {})).data as Array<{ reference: string; status: string }>).map((d) => [d.reference, d.status]);
    expect(statuses).toEqual([
      ['reversed', 'reversed'],
      ['paid', 'success'],
      ['clearing', 'pending'],
      ['declined', 'failed'],
      ['unpaid', 'abandoned'],
    ]);
    expect(body(sim.verify(bearer(keys.paystack), 'reversed'))).toMatchObject({ data: { status: 'reversed' } });
    const failed = body(sim.list(bearer(keys.paystack), { status: 'failed', perPage: '1' }));
    expect(refs(failed.data)).toEqual(['declined']);
    expect(failed.meta).toMatchObject({ total: 1, pageCount: 1 });
  });

  it('a reversal needs a succeeded payment', () => {
    const sim = paystack();
    sim.create({ reference: 'r', amount: 100, currency: 'NGN', email: 'a@b.co' });
    expect(sim.reverse('r')).toMatchObject({ ok: false, status: 409 });
    expect(sim.reverse('nope')).toMatchObject({ ok: false, status: 404 });
    sim.pay('r');
    expect(sim.reverse('r')).toMatchObject({ ok: true, value: { reversedAt: expect.any(String) } });
  });

  it('the failure knob answers the next N list calls with 429 and Retry-After, after the credential check', () => {
    const sim = seeded(1);
    expect(sim.failLists({ times: 2, retry_after_seconds: 3 })).toEqual({ ok: true, value: { status: 429, times: 2, retry_after_seconds: 3 } });
    expect(sim.list('Bearer wrong', {})).toMatchObject({ status: 401 });
    const limited = sim.list(bearer(keys.paystack), {});
    expect(limited).toEqual({ kind: 'json', status: 429, body: { status: false, message: expect.any(String) }, headers: { 'retry-after': '3' } });
    expect(sim.list(bearer(keys.paystack), {})).toMatchObject({ status: 429 });
    expect(sim.list(bearer(keys.paystack), {})).toMatchObject({ status: 200 });
    sim.failLists({ status: 500, times: 1 });
    expect(sim.list(bearer(keys.paystack), {})).toEqual({ kind: 'json', status: 500, body: { status: false, message: 'An error occurred' } });
    expect(sim.failLists({ status: 418, times: 1 })).toMatchObject({ ok: false, status: 400 });
  });
});

describe('bulk seeding', () => {
  it('validates its body and refuses a provider without a list', () => {
    const sim = paystack();
    expect(sim.bulk({ count: 0, from: iso(T0), until: iso(T0 + 1), reference_prefix: 'x' })).toMatchObject({ ok: false, status: 400 });
    expect(sim.bulk({ count: 1, from: iso(T0 + 1), until: iso(T0), reference_prefix: 'x' })).toMatchObject({ ok: false, status: 400 });
    expect(sim.bulk({ count: 1, from: iso(T0), until: iso(T0 + 1), reference_prefix: 'x', outcomes: { success: 0 } })).toMatchObject({
      ok: false,
      status: 400,
    });
    expect(sim.bulk({ count: 1, from: iso(T0), until: iso(T0 + 1), reference_prefix: 'has space' })).toMatchObject({ ok: false, status: 400 });
    const mpesa = new MpesaSimulator(
      { consumerKey: new Secret('k'), consumerSecret: new Secret('s'), passkey: new Secret('p'), shortcode: '174379', tokenTtlMs: 1_000, callbackUrl: null },
      notifier,
    );
    expect(mpesa.lists).toBe(false);
    expect(mpesa.bulk({ count: 1, from: iso(T0), until: iso(T0 + 1), reference_prefix: 'x' })).toMatchObject({ ok: false, status: 404 });
    expect(mpesa.failLists({ times: 1 })).toMatchObject({ ok: false, status: 404 });
  });

  it('draws the outcome mix by weight, the same for the same seed, and leaves references already held', () => {
    const draw = (seed: number) => {
      const next = outcomeDraw({ success: 8, declined: 1, unpaid: 1 }, seed);
      return Array.from({ length: 10_000 }, next);
    };
    const outcomes = draw(7);
    expect(draw(7)).toEqual(outcomes);
    const share = (o: string) => outcomes.filter((x) => x === o).length / outcomes.length;
    expect(share('success')).toBeCloseTo(0.8, 1);
    expect(share('declined')).toBeCloseTo(0.1, 1);
    expect(share('clearing')).toBe(0);
    const sim = paystack();
    sim.create({ reference: 'stl_1', amount: 5, currency: 'NGN', email: 'a@b.co' });
    expect(sim.bulk({ count: 3, from: iso(T0), until: iso(T0 + 3), reference_prefix: 'stl_' })).toMatchObject({ ok: true, value: { created: 2, existing: 1 } });
    expect(sim.book.get('stl_1')!.amount).toBe(5);
  });

  it('draws what it drew before refunded and disputed existed when a body does not weigh them', () => {
    // Drawn by the seed before the two outcomes were added (seed 3, 16 draws).
    const before = [
      'unpaid',
      'success',
      'declined',
      'success',
      'unpaid',
      'declined',
      'declined',
      'success',
      'success',
      'clearing',
      'success',
      'success',
      'unpaid',
      'declined',
      'unpaid',
      'reversed',
    ];
    const weights = { success: 2, declined: 1, clearing: 1, unpaid: 1, reversed: 1 };
    expect(Array.from({ length: 16 }, outcomeDraw(weights, 3))).toEqual(before);
    expect(Array.from({ length: 16 }, outcomeDraw({ ...weights, refunded: 0, disputed: 0 }, 3))).toEqual(before);
    const sim = paystack();
    expect(sim.bulk({ count: 200, from: iso(T0), until: iso(T0 + HOUR), reference_prefix: 'stl_', outcomes: weights, seed: 3 })).toMatchObject({ ok: true });
    expect(sim.book.refundsCreated(0, Number.MAX_SAFE_INTEGER)).toEqual([]);
    expect(sim.book.disputesCreated(0, Number.MAX_SAFE_INTEGER)).toEqual([]);
  });

  it('refunded: paid, then one succeeded refund of the whole amount 1 s later, as the control API refunds; Paystack shows it reversed', () => {
    const sim = paystack();
    const count = 300;
    expect(
      sim.bulk({ count, from: iso(T0), until: iso(T0 + HOUR), reference_prefix: 'stl_', outcomes: { success: 1, refunded: 1, disputed: 1 }, amount: 40_000 }),
    ).toMatchObject({ ok: true, value: { created: count } });
    const txs = Array.from({ length: count }, (_, n) => sim.book.get(`stl_${n}`)!);
    const refunded = txs.filter((tx) => tx.refunds.length > 0);
    expect(refunded.length).toBeGreaterThan(70);
    expect(refunded.length).toBeLessThan(130);
    for (const tx of refunded) {
      expect(tx.paidAt).toBe(tx.createdAt);
      expect(tx.disputes).toEqual([]);
      const movedAt = iso(Date.parse(tx.createdAt) + BULK_MOVEMENT_DELAY_MS);
      expect(tx.refunds).toEqual([{ id: expect.stringMatching(/^\d+$/), amount: 40_000, status: 'succeeded', createdAt: movedAt, updatedAt: movedAt }]);
      expect(sim.book.refundable(tx)).toBe(0);
      expect(body(retrievePaystackRefund(sim.book, tx.refunds[0]!.id))).toMatchObject({
        data: { transaction: tx.id, transaction_reference: tx.reference, amount: 40_000, status: 'processed', fully_deducted: true },
      });
      expect(body(sim.verify(bearer(keys.paystack), tx.reference))).toMatchObject({ data: { status: 'reversed' } });
    }
    // The list shows each refunded payment reversed; the refund list names every one, newest first.
    const statuses = new Map(
      (body(sim.list(bearer(keys.paystack), { from: iso(T0), to: iso(T0 + HOUR), perPage: '100' })).data as Array<{ reference: string; status: string }>).map(
        (d) => [d.reference, d.status],
      ),
    );
    for (const tx of refunded.filter((t) => statuses.has(t.reference))) expect(statuses.get(tx.reference)).toBe('reversed');
    const window = { from: iso(T0), to: iso(T0 + HOUR + BULK_MOVEMENT_DELAY_MS), perPage: '100' };
    const listed = body(listPaystackMovements(sim.book, 'refunds', window));
    expect(listed.meta).toMatchObject({ total: refunded.length, pageCount: 1 });
    expect((listed.data as Array<{ transaction_reference: string }>).map((r) => r.transaction_reference)).toEqual(refunded.map((tx) => tx.reference).reverse());
    // The same objects as a refund made through the control API (`POST .../:reference/refunds`), ids and times aside.
    const made = sim.create({ reference: 'by_control', amount: 40_000, currency: 'NGN', email: 'payer@example.com' });
    if (!made.ok) throw new Error('create refused');
    sim.pay('by_control');
    const control = sim.refund('by_control', { webhook: 'drop' });
    if (!control.ok) throw new Error('refund refused');
    const shape = (o: Record<string, unknown>) => ({
      ...o,
      id: 0,
      transaction: 0,
      transaction_reference: '',
      refunded_at: '',
      expected_at: '',
      createdAt: '',
      updatedAt: '',
    });
    expect(shape(paystackRefund(refunded[0]!, refunded[0]!.refunds[0]!))).toEqual(shape(paystackRefund(made.transaction, control.value)));
  });

  it('disputed: paid, then a dispute of the whole amount opened 1 s later and still open, as the control API opens it', () => {
    const sim = paystack();
    const count = 300;
    expect(
      sim.bulk({ count, from: iso(T0), until: iso(T0 + HOUR), reference_prefix: 'stl_', outcomes: { success: 1, disputed: 1 }, amount: 40_000, seed: 5 }),
    ).toMatchObject({ ok: true, value: { created: count } });
    const disputed = Array.from({ length: count }, (_, n) => sim.book.get(`stl_${n}`)!).filter((tx) => tx.disputes.length > 0);
    expect(disputed.length).toBeGreaterThan(100);
    expect(disputed.length).toBeLessThan(200);
    for (const tx of disputed) {
      expect(tx.refunds).toEqual([]);
      const openedAt = iso(Date.parse(tx.createdAt) + BULK_MOVEMENT_DELAY_MS);
      expect(tx.disputes).toEqual([
        { id: expect.stringMatching(/^\d+$/), amount: 40_000, status: 'open', reason: 'fraudulent', createdAt: openedAt, resolvedAt: null },
      ]);
      expect(body(retrievePaystackDispute(sim.book, tx.disputes[0]!.id))).toMatchObject({
        data: { status: 'awaiting-merchant-feedback', resolution: null, refund_amount: 40_000, transaction: { id: tx.id, reference: tx.reference } },
      });
      // A dispute leaves the payment as Paystack shows it: success.
      expect(body(sim.verify(bearer(keys.paystack), tx.reference))).toMatchObject({ data: { status: 'success' } });
    }
    const listed = body(listPaystackMovements(sim.book, 'disputes', { from: iso(T0), to: iso(T0 + HOUR + BULK_MOVEMENT_DELAY_MS), perPage: '100', page: '2' }));
    expect(listed.meta).toMatchObject({ total: disputed.length, page: 2, pageCount: Math.ceil(disputed.length / 100) });
    expect((listed.data as Array<{ transaction: { reference: string } }>).map((d) => d.transaction.reference)).toEqual(
      disputed
        .map((tx) => tx.reference)
        .reverse()
        .slice(100, 200),
    );
    expect(body(listPaystackMovements(sim.book, 'refunds', { from: iso(T0), to: iso(T0 + 2 * HOUR) })).meta).toMatchObject({ total: 0 });
    const made = sim.create({ reference: 'by_control', amount: 40_000, currency: 'NGN', email: 'payer@example.com' });
    if (!made.ok) throw new Error('create refused');
    sim.pay('by_control');
    const control = sim.openDispute('by_control', { webhook: 'drop' });
    if (!control.ok) throw new Error('dispute refused');
    const shape = (o: Record<string, unknown>) => ({ ...o, id: 0, transaction: null, dueAt: '', createdAt: '', updatedAt: '' });
    expect(shape(paystackDispute(disputed[0]!, disputed[0]!.disputes[0]!))).toEqual(shape(paystackDispute(made.transaction, control.value)));
  });

  it("Stripe and Flutterwave: a seeded refund or dispute has the provider's own id", () => {
    const outcomes = { refunded: 1, disputed: 1 };
    const s = stripe();
    expect(s.bulk({ count: 20, from: iso(T0), until: iso(T0 + HOUR), reference_prefix: 'stl', outcomes })).toMatchObject({ ok: true });
    const intents = Array.from({ length: 20 }, (_, n) => s.book.get(`pi_stl${n}`)!);
    expect(intents.flatMap((tx) => tx.refunds.map((r) => r.id)).every((id) => id.startsWith('re_'))).toBe(true);
    expect(intents.flatMap((tx) => tx.disputes.map((d) => d.id)).every((id) => id.startsWith('dp_'))).toBe(true);
    expect(intents.every((tx) => tx.refunds.length + tx.disputes.length === 1)).toBe(true);
    const f = flutterwave();
    expect(f.bulk({ count: 20, from: iso(T0), until: iso(T0 + HOUR), reference_prefix: 'stl_', outcomes })).toMatchObject({ ok: true });
    expect(f.book.refundsCreated(T0, T0 + 2 * HOUR).length + f.book.disputesCreated(T0, T0 + 2 * HOUR).length).toBe(20);
  });

  it('Stripe: ids pi_<prefix><n>, letters and digits only, created in seconds at each creation instant', () => {
    const sim = stripe();
    expect(sim.bulk({ count: 1, from: iso(T0), until: iso(T0 + 1), reference_prefix: 'stl_' })).toMatchObject({ ok: false, status: 400 });
    expect(sim.bulk({ count: 2, from: iso(T0 + 1_500), until: iso(T0 + 2_500), reference_prefix: 'stl' })).toMatchObject({
      ok: true,
      value: { created: 2, first_reference: 'pi_stl0', last_reference: 'pi_stl1' },
    });
    expect(sim.paymentIntent(sim.book.get('pi_stl1')!, 'succeeded')).toMatchObject({ created: (T0 + 2_000) / 1000 });
  });
});

describe('Stripe GET /v1/payment_intents (simulated)', () => {
  it('refuses a missing or wrong key in its own shape; limit 1 to 100', () => {
    const sim = stripe();
    expect(sim.list(undefined, {})).toMatchObject({ status: 401, body: { error: { type: 'invalid_request_error' } } });
    expect(sim.list('Bearer sk_test_wrong', {})).toMatchObject({ status: 401, body: { error: { message: 'Invalid API Key provided.' } } });
    expect(sim.list(bearer(keys.stripe), { limit: '101' })).toMatchObject({ status: 400, body: { error: { param: 'limit' } } });
    expect(sim.list(bearer(keys.stripe), { 'created[gte]': 'soon' })).toMatchObject({ status: 400, body: { error: { param: 'created[gte]' } } });
    expect(sim.list(bearer(keys.stripe), { starting_after: 'pi_nope' })).toMatchObject({ status: 400, body: { error: { code: 'resource_missing' } } });
  });

  it('pages newest first with starting_after, stable while intents are created during the run; has_more on the last page is false', () => {
    const time = clock(T0);
    const sim = stripe(time.now);
    for (let i = 0; i < 5; i++) {
      time.set(T0 + i * 1_000);
      sim.create({ reference: `pi_a${i}`, amount: 100, currency: 'USD', email: 'a@b.co' });
    }
    const window = { 'created[gte]': String(T0 / 1000), 'created[lt]': String(T0 / 1000 + 10) };
    const first = body(sim.list(bearer(keys.stripe), { ...window, limit: '2' }));
    expect(refs(first.data)).toEqual(['pi_a4', 'pi_a3']);
    expect(first).toMatchObject({ object: 'list', has_more: true, url: '/v1/payment_intents' });
    time.set(T0 + 5_000);
    sim.create({ reference: 'pi_new', amount: 100, currency: 'USD', email: 'a@b.co' });
    const second = body(sim.list(bearer(keys.stripe), { ...window, limit: '2', starting_after: 'pi_a3' }));
    expect(refs(second.data)).toEqual(['pi_a2', 'pi_a1']);
    const third = body(sim.list(bearer(keys.stripe), { ...window, limit: '2', starting_after: 'pi_a1' }));
    expect(refs(third.data)).toEqual(['pi_a0']);
    expect(third.has_more).toBe(false);
  });

  it('reads created in whole seconds: gte, gt, lte, lt', () => {
    const time = clock(T0);
    const sim = stripe(time.now);
    for (const at of [0, 1_500, 2_000, 3_999]) {
      time.set(T0 + at);
      sim.create({ reference: `pi_${at}`, amount: 100, currency: 'USD', email: 'a@b.co' });
    }
    const s = T0 / 1000;
    const list = (query: Record<string, string>) => refs(body(sim.list(bearer(keys.stripe), { limit: '100', ...query })).data);
    expect(list({ 'created[gte]': String(s + 1), 'created[lt]': String(s + 3) })).toEqual(['pi_2000', 'pi_1500']);
    expect(list({ 'created[gt]': String(s + 1), 'created[lte]': String(s + 3) })).toEqual(['pi_3999', 'pi_2000']);
    expect(list({ created: String(s + 1) })).toEqual(['pi_1500']);
  });

  it('an item is the PaymentIntent of retrieval in its current state; a reversal leaves it succeeded', () => {
    const sim = stripe();
    const tx = sim.create({ amount: 2_500, currency: 'USD', email: 'a@b.co', metadata: { settle: 'yes' } });
    expect(tx.ok).toBe(true);
    const id = tx.ok ? tx.transaction.reference : '';
    sim.pay(id);
    sim.reverse(id);
    const [item] = body(sim.list(bearer(keys.stripe), {})).data as Array<Record<string, unknown>>;
    expect(item).toEqual({ ...sim.paymentIntent(sim.book.get(id)!, 'succeeded'), metadata: { settle: 'yes' } });
    expect(item!.status).toBe('succeeded');
  });
});

describe('Flutterwave GET /v3/transactions (simulated)', () => {
  it('lists paid transactions by their created_at (the payment time), whole UTC days, 10 a page', () => {
    const time = clock(T0);
    const sim = flutterwave(time.now);
    for (let i = 0; i < 25; i++) {
      time.set(T0 + i * HOUR);
      sim.create({ reference: `stl_${i}`, amount: 10_050, currency: 'NGN', email: 'a@b.co' });
      sim.pay(`stl_${i}`);
    }
    sim.create({ reference: 'stl_unpaid', amount: 100, currency: 'NGN', email: 'a@b.co' });
    const list = (query: Record<string, string>) => body(sim.list(bearer(keys.flutterwave), query));
    const first = list({ from: '2026-03-01', to: '2026-03-01' });
    expect(first.meta).toEqual({ page_info: { total: 24, current_page: 1, total_pages: 3 } });
    expect(refs(first.data)).toEqual(['stl_23', 'stl_22', 'stl_21', 'stl_20', 'stl_19', 'stl_18', 'stl_17', 'stl_16', 'stl_15', 'stl_14']);
    expect((first.data as Array<Record<string, unknown>>)[0]).toMatchObject({ amount: 100.5, status: 'successful', created_at: iso(T0 + 23 * HOUR) });
    expect(refs(list({ from: '2026-03-01', to: '2026-03-01', page: '3' }).data)).toEqual(['stl_3', 'stl_2', 'stl_1', 'stl_0']);
    expect(refs(list({ from: '2026-03-02', to: '2026-03-02' }).data)).toEqual(['stl_24']);
    expect(list({}).meta).toMatchObject({ page_info: { total: 25 } });
    expect(sim.list(bearer(keys.flutterwave), { from: '01/03/2026' })).toMatchObject({ status: 400, body: { status: 'error' } });
    expect(sim.list('Bearer FLWSECK_TEST-wrong', {})).toEqual({
      kind: 'json',
      status: 401,
      body: { status: 'error', message: 'Invalid authorization key', data: null },
    });
  });
});

describe('a million transactions', () => {
  it('are seeded in one bulk call and paged by binary search and a slice, never a scan', () => {
    const sim = paystack();
    const span = 30 * 24 * HOUR;
    const started = performance.now();
    const seed = sim.bulk({
      count: 1_000_000,
      from: iso(T0),
      until: iso(T0 + span),
      reference_prefix: 'stl_',
      outcomes: { success: 90, declined: 5, unpaid: 4, reversed: 1 },
    });
    const seededMs = performance.now() - started;
    expect(seed).toMatchObject({ ok: true, value: { created: 1_000_000 } });
    const fromMs = T0 + 10 * 24 * HOUR;
    const toMs = T0 + 11 * 24 * HOUR - 1;
    let expected = 0;
    let newest = -1;
    for (let n = 0; n < 1_000_000; n++) {
      const at = T0 + Math.floor((n * span) / 1_000_000);
      if (at >= fromMs && at <= toMs) {
        expected += 1;
        newest = n;
      }
    }
    const window = { from: iso(fromMs), to: iso(toMs), perPage: '100' };
    const scan = vi.spyOn(TimeIndex.prototype, 'get');
    const pageStarted = performance.now();
    const first = body(sim.list(bearer(keys.paystack), { ...window, page: '1' }));
    let last: Record<string, unknown> = first;
    for (let page = 2; page <= 50; page++) last = body(sim.list(bearer(keys.paystack), { ...window, page: String(page) }));
    const perPageMs = (performance.now() - pageStarted) / 50;
    expect(scan).not.toHaveBeenCalled();
    scan.mockRestore();
    expect(first.meta).toEqual({ total: expected, skipped: 0, perPage: 100, page: 1, pageCount: Math.ceil(expected / 100) });
    expect(refs(first.data)[0]).toBe(`stl_${newest}`);
    expect(refs(last.data)[0]).toBe(`stl_${newest - 4_900}`);
    expect((last.data as unknown[]).length).toBe(100);
    expect(perPageMs).toBeLessThan(50);
    console.log(`seeded 1,000,000 in ${seededMs.toFixed(0)} ms; a page of 100 in ${perPageMs.toFixed(3)} ms`);
  }, 120_000);
});

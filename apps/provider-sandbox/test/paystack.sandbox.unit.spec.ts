import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Secret } from '@settle/config';
import { PaystackSimulator } from '../src/paystack.sandbox.js';
import type { Notifier, OutgoingWebhook } from '../src/webhook-sender.js';

const key = `sk_test_${randomBytes(16).toString('hex')}`;
const auth = `Bearer ${key}`;

function setup() {
  const sent: Array<() => OutgoingWebhook> = [];
  const notifier: Notifier = { dispatch: (_tx, _provider, build) => sent.push(build) };
  const paystack = new PaystackSimulator({ secretKey: new Secret(key), webhookUrl: 'http://127.0.0.1:9/v1/webhooks/paystack' }, notifier);
  return { paystack, sent };
}

describe('Paystack simulator', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-03-04T05:06:07.089Z'));
  });
  afterEach(() => vi.useRealTimers());

  it("answers verify with the exact shape the pipeline depends on (every key of Paystack's published sample, in its order)", () => {
    const { paystack } = setup();
    paystack.create({ reference: 'ref_exact', amount: 40_000, currency: 'NGN', email: 'ada@example.com' });
    paystack.pay('ref_exact');
    const answer = paystack.verify(auth, 'ref_exact') as {
      kind: string;
      status: number;
      body: { status: boolean; message: string; data: Record<string, unknown> };
    };
    expect(answer).toMatchObject({ kind: 'json', status: 200, body: { status: true, message: 'Verification successful' } });
    const at = '2026-03-04T05:06:07.089Z';
    expect(answer.body.data).toStrictEqual({
      id: 4_099_260_000,
      domain: 'test',
      status: 'success',
      reference: 'ref_exact',
      receipt_number: null,
      amount: 40_000,
      message: null,
      gateway_response: 'Successful',
      paid_at: at,
      created_at: at,
      channel: 'card',
      currency: 'NGN',
      ip_address: '127.0.0.1',
      metadata: '',
      log: {
        start_time: Math.floor(Date.parse(at) / 1000),
        time_spent: 4,
        attempts: 1,
        errors: 0,
        success: true,
        mobile: false,
        input: [],
        history: [
          { type: 'action', message: 'Attempted to pay with card', time: 3 },
          { type: 'success', message: 'Successfully paid with card', time: 4 },
        ],
      },
      fees: 600,
      fees_split: null,
      authorization: {
        authorization_code: expect.stringMatching(/^AUTH_[0-9a-f]{10}$/),
        bin: '408408',
        last4: '4081',
        exp_month: '12',
        exp_year: '2030',
        channel: 'card',
        card_type: 'visa ',
        bank: 'TEST BANK',
        country_code: 'NG',
        brand: 'visa',
        reusable: true,
        signature: expect.stringMatching(/^SIG_[0-9a-f]{20}$/),
        account_name: null,
      },
      customer: {
        id: 180_000_000 + (4_099_260_000 % 1_000_000),
        first_name: null,
        last_name: null,
        email: 'ada@example.com',
        customer_code: 'CUS_4099260000',
        phone: null,
        metadata: null,
        risk_action: 'default',
        international_format_phone: null,
      },
      plan: null,
      split: {},
      order_id: null,
      paidAt: at,
      createdAt: at,
      requested_amount: 40_000,
      pos_transaction_data: null,
      source: null,
      fees_breakdown: null,
      connect: null,
      transaction_date: at,
      plan_object: {},
      subaccount: {},
    });
    // The order of Paystack's sample, as a reader of the raw JSON sees it.
    expect(Object.keys(answer.body.data).slice(0, 6)).toEqual(['id', 'domain', 'status', 'reference', 'receipt_number', 'amount']);
  });

  it('gives a declined or pending charge its card authorization (not reusable) and an abandoned one none', () => {
    const { paystack } = setup();
    const data = (reference: string) => (paystack.verify(auth, reference) as { body: { data: Record<string, unknown> } }).body.data;
    paystack.create({ reference: 'r_failed', amount: 100, currency: 'NGN', email: 'a@example.com', behaviour: { outcome: 'declined' } });
    paystack.create({
      reference: 'r_pending',
      amount: 100,
      currency: 'NGN',
      email: 'a@example.com',
      behaviour: { outcome: 'clearing_then_success', clearing_checks: 5 },
    });
    paystack.create({ reference: 'r_abandoned', amount: 100, currency: 'NGN', email: 'a@example.com' });
    paystack.pay('r_failed');
    paystack.pay('r_pending');
    for (const reference of ['r_failed', 'r_pending']) {
      expect(data(reference)).toMatchObject({ paid_at: null, fees: null, authorization: { channel: 'card', last4: '4081', reusable: false } });
    }
    expect(data('r_failed').log).toMatchObject({ success: false, errors: 1 });
    expect(data('r_abandoned')).toMatchObject({ status: 'abandoned', authorization: {}, log: null, created_at: '2026-03-04T05:06:07.089Z' });
    expect(data('r_failed').customer).toMatchObject({ id: expect.any(Number), customer_code: expect.stringMatching(/^CUS_/) });
  });

  it('maps each state to a Paystack status', () => {
    const { paystack } = setup();
    const status = (reference: string) => (paystack.verify(auth, reference) as { body: { data: { status: string } } }).body.data.status;
    paystack.create({ reference: 'r1', amount: 100, currency: 'NGN', email: 'a@example.com' });
    expect(status('r1')).toBe('abandoned');
    paystack.create({ reference: 'r2', amount: 100, currency: 'NGN', email: 'a@example.com', behaviour: { outcome: 'declined' } });
    paystack.pay('r2');
    expect(status('r2')).toBe('failed');
    paystack.create({ reference: 'r3', amount: 100, currency: 'NGN', email: 'a@example.com', behaviour: { outcome: 'clearing_then_success' } });
    paystack.pay('r3');
    expect([status('r3'), status('r3')]).toEqual(['pending', 'success']);
  });

  it('refuses a wrong or missing key, and answers 400 for an unknown reference', () => {
    const { paystack } = setup();
    expect(paystack.verify(`Bearer ${key}x`, 'r')).toEqual({ kind: 'json', status: 401, body: { status: false, message: 'Invalid key' } });
    expect(paystack.verify(undefined, 'r')).toMatchObject({ status: 401 });
    expect(paystack.verify(auth, 'nope')).toEqual({ kind: 'json', status: 400, body: { status: false, message: 'Transaction reference not found' } });
  });

  it('signs charge.success with HMAC-SHA512 of the body (a wrong key when spoofing), and sends none on decline', () => {
    const { paystack, sent } = setup();
    paystack.create({ reference: 'good', amount: 100, currency: 'NGN', email: 'a@example.com' });
    paystack.create({ reference: 'spoof', amount: 100, currency: 'NGN', email: 'a@example.com', behaviour: { webhook: 'spoof' } });
    paystack.create({ reference: 'no', amount: 100, currency: 'NGN', email: 'a@example.com', behaviour: { outcome: 'declined' } });
    for (const r of ['good', 'spoof', 'no']) paystack.pay(r);
    expect(sent).toHaveLength(2);
    const verifies = (w: OutgoingWebhook) => {
      const expected = createHmac('sha512', key).update(w.body).digest();
      const given = Buffer.from(w.headers['x-paystack-signature'] ?? '', 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    };
    const [good, spoof] = sent.map((build) => build());
    expect(JSON.parse(good!.body)).toMatchObject({ event: 'charge.success', data: { reference: 'good', status: 'success' } });
    expect(verifies(good!)).toBe(true);
    expect(verifies(spoof!)).toBe(false);
  });
});

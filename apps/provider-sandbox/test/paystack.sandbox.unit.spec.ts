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

  it('answers verify with the exact shape the pipeline depends on', () => {
    const { paystack } = setup();
    paystack.create({ reference: 'ref_exact', amount: 40_000, currency: 'NGN', email: 'ada@example.com' });
    paystack.pay('ref_exact');
    const answer = paystack.verify(auth, 'ref_exact');
    expect(JSON.stringify(answer)).toBe(
      JSON.stringify({
        kind: 'json',
        status: 200,
        body: {
          status: true,
          message: 'Verification successful',
          data: {
            id: 4_099_260_000,
            domain: 'test',
            status: 'success',
            reference: 'ref_exact',
            amount: 40_000,
            requested_amount: 40_000,
            currency: 'NGN',
            gateway_response: 'Successful',
            paid_at: '2026-03-04T05:06:07.089Z',
            channel: 'card',
            fees: 600,
            customer: { email: 'ada@example.com', phone: null, customer_code: 'CUS_4099260000' },
            metadata: null,
          },
        },
      }),
    );
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

import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signPaystack, SignatureConfigError, verifyPaystackWebhook } from '@settle/providers';

// Vectors computed here: hex HMAC-SHA512 of the raw body keyed with the secret key.
const newKey = () => `sk_test_${randomBytes(16).toString('hex')}`;
const secret = newKey();
const previous = newKey();
const body = Buffer.from('{"event":"charge.success","data":{"reference":"ref_1","amount":40000}}');
const sign = (b: Buffer, key = secret) => createHmac('sha512', key).update(b).digest('hex');

describe('x-paystack-signature against candidate secret keys', () => {
  it('accepts the current key, and a previous one during rotation, reporting which matched', () => {
    expect(verifyPaystackWebhook(body, sign(body), [secret])).toEqual({ ok: true, secretIndex: 0 });
    expect(verifyPaystackWebhook(body, sign(body, previous), [secret, previous])).toEqual({ ok: true, secretIndex: 1 });
    expect(verifyPaystackWebhook(body, signPaystack(body, secret), [secret, previous])).toEqual({ ok: true, secretIndex: 0 });
  });

  it('refuses an unknown key, a tampered body (even re-serialised) and a tampered header', () => {
    expect(verifyPaystackWebhook(body, sign(body, newKey()), [secret, previous])).toEqual({ ok: false, reason: 'MISMATCH' });
    const reformatted = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 1));
    expect(verifyPaystackWebhook(reformatted, sign(body), [secret])).toEqual({ ok: false, reason: 'MISMATCH' });
    const good = sign(body);
    expect(verifyPaystackWebhook(body, `${good[0] === 'a' ? 'b' : 'a'}${good.slice(1)}`, [secret])).toEqual({ ok: false, reason: 'MISMATCH' });
  });

  it('distinguishes missing from malformed headers', () => {
    expect(verifyPaystackWebhook(body, undefined, [secret])).toEqual({ ok: false, reason: 'MISSING_HEADER' });
    expect(verifyPaystackWebhook(body, '', [secret])).toEqual({ ok: false, reason: 'MISSING_HEADER' });
    expect(verifyPaystackWebhook(body, sign(body).slice(0, 64), [secret])).toEqual({ ok: false, reason: 'MALFORMED_HEADER' });
    expect(verifyPaystackWebhook(body, 'z'.repeat(128), [secret])).toEqual({ ok: false, reason: 'MALFORMED_HEADER' });
    expect(verifyPaystackWebhook(body, [sign(body), sign(body)], [secret])).toEqual({ ok: false, reason: 'MALFORMED_HEADER' });
  });

  it('throws a configuration error for no or empty keys', () => {
    expect(() => verifyPaystackWebhook(body, sign(body), [])).toThrow(SignatureConfigError);
    expect(() => verifyPaystackWebhook(body, sign(body), [''])).toThrow(SignatureConfigError);
  });
});

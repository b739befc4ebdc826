import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyPaystackSignature } from '@settle/providers';

// Vectors computed in the test from a random key: HMAC-SHA512 of the raw body, hex.
const secret = `sk_test_${randomBytes(16).toString('hex')}`;
const body = Buffer.from('{"event":"charge.success","data":{"reference":"ref_1","amount":40000}}');
const sign = (b: Buffer, key = secret) => createHmac('sha512', key).update(b).digest('hex');

describe('x-paystack-signature (hex HMAC-SHA512 of the raw body)', () => {
  it('accepts the signature of the exact bytes, in either hex case', () => {
    expect(verifyPaystackSignature(body, sign(body), secret)).toBe(true);
    expect(verifyPaystackSignature(body, sign(body).toUpperCase(), secret)).toBe(true);
  });

  it('rejects a tampered body, even one that parses to the same JSON', () => {
    const reformatted = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 1));
    expect(verifyPaystackSignature(reformatted, sign(body), secret)).toBe(false);
    const tampered = Buffer.from(body.toString().replace('40000', '1'));
    expect(verifyPaystackSignature(tampered, sign(body), secret)).toBe(false);
  });

  it('rejects a tampered, truncated, missing or non-hex header, and a wrong secret', () => {
    const good = sign(body);
    const flipped = (good[0] === 'a' ? 'b' : 'a') + good.slice(1);
    expect(verifyPaystackSignature(body, flipped, secret)).toBe(false);
    expect(verifyPaystackSignature(body, good.slice(0, 64), secret)).toBe(false);
    expect(verifyPaystackSignature(body, undefined, secret)).toBe(false);
    expect(verifyPaystackSignature(body, 'z'.repeat(128), secret)).toBe(false);
    expect(verifyPaystackSignature(body, sign(body, 'sk_test_other'), secret)).toBe(false);
  });
});

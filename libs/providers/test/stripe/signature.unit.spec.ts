import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseStripeSignatureHeader, signStripe, SignatureConfigError, STRIPE_DEFAULT_TOLERANCE_MS, verifyStripeSignature } from '@settle/providers';

// Vectors computed here, independently of the module: hex HMAC-SHA256 of `${t}.${raw body}`,
// keyed with the whole `whsec_...` string as UTF-8 (Stripe's published scheme).
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const secret = newSecret();
const previous = newSecret();
const t = 1_700_000_000;
const nowMs = t * 1000;
const body = Buffer.from('{"id":"evt_1","type":"payment_intent.succeeded","data":{"object":{"id":"pi_1","amount":4000}}}');
const v1 = (b: Buffer, key = secret, ts = t) => createHmac('sha256', key).update(`${ts}.`).update(b).digest('hex');
const header = (b: Buffer = body, key = secret, ts = t) => `t=${ts},v1=${v1(b, key, ts)}`;
const verify = (h: string | readonly string[] | undefined, opts: { b?: Buffer; secrets?: string[]; now?: number; toleranceMs?: number } = {}) =>
  verifyStripeSignature(opts.b ?? body, h, opts.secrets ?? [secret], {
    nowMs: opts.now ?? nowMs,
    ...(opts.toleranceMs === undefined ? {} : { toleranceMs: opts.toleranceMs }),
  });

describe('Stripe-Signature (t=<unix>,v1=<hex HMAC-SHA256 of "t.body">)', () => {
  it('accepts the signature of the exact bytes, in either hex case', () => {
    expect(verify(header())).toEqual({ ok: true, secretIndex: 0 });
    expect(verify(`t=${t},v1=${v1(body).toUpperCase()}`)).toEqual({ ok: true, secretIndex: 0 });
  });

  it('signs the raw bytes, not a decoded string (a body with invalid UTF-8 still verifies)', () => {
    const binary = Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    expect(verify(header(binary), { b: binary })).toEqual({ ok: true, secretIndex: 0 });
    expect(verify(header(binary), { b: Buffer.from(binary.toString('utf8')) })).toEqual({ ok: false, reason: 'MISMATCH' });
  });

  it('rejects a tampered body, even one that parses to the same JSON', () => {
    const reformatted = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 2));
    expect(JSON.parse(reformatted.toString())).toEqual(JSON.parse(body.toString()));
    expect(verify(header(), { b: reformatted })).toEqual({ ok: false, reason: 'MISMATCH' });
    const tampered = Buffer.from(body.toString().replace('4000', '1'));
    expect(verify(header(), { b: tampered })).toEqual({ ok: false, reason: 'MISMATCH' });
  });

  it('rejects a tampered header: a flipped signature digit, or another timestamp', () => {
    const good = v1(body);
    const flipped = good[10] === 'a' ? 'b' : 'a';
    expect(verify(`t=${t},v1=${good.slice(0, 10)}${flipped}${good.slice(11)}`)).toEqual({ ok: false, reason: 'MISMATCH' });
    expect(verify(`t=${t + 1},v1=${good}`)).toEqual({ ok: false, reason: 'MISMATCH' });
  });

  it('rejects a wrong secret', () => {
    expect(verify(header(body, newSecret()))).toEqual({ ok: false, reason: 'MISMATCH' });
  });

  it('accepts a previous secret during rotation, reporting which candidate matched, and refuses an unknown one', () => {
    expect(verify(header(body, previous), { secrets: [secret, previous] })).toEqual({ ok: true, secretIndex: 1 });
    expect(verify(header(body, secret), { secrets: [secret, previous] })).toEqual({ ok: true, secretIndex: 0 });
    expect(verify(header(body, newSecret()), { secrets: [secret, previous] })).toEqual({ ok: false, reason: 'MISMATCH' });
    // Several candidates matching (both signed, as Stripe does mid-rotation): the first one is reported.
    expect(verify(signStripe(body, [previous, secret], t), { secrets: [secret, previous] })).toEqual({ ok: true, secretIndex: 0 });
    expect(verify(header(), { secrets: [newSecret(), secret, secret] })).toEqual({ ok: true, secretIndex: 1 });
    // The previous secret alone no longer verifies once it has left the candidate list.
    expect(verify(header(body, previous), { secrets: [secret] })).toEqual({ ok: false, reason: 'MISMATCH' });
  });

  it('accepts when any of several v1 entries matches any candidate, and ignores v0', () => {
    const unknown = v1(body, newSecret());
    expect(verify(`t=${t},v1=${unknown},v1=${v1(body, previous)}`, { secrets: [secret, previous] })).toEqual({ ok: true, secretIndex: 1 });
    expect(verify(`t=${t},v1=${v1(body, secret)},v1=${unknown}`)).toEqual({ ok: true, secretIndex: 0 });
    expect(verify(`t=${t},v1=${unknown},v1=${unknown}`)).toEqual({ ok: false, reason: 'MISMATCH' });
    expect(verify(`t=${t},v1=${v1(body)},v0=${'0'.repeat(64)}`)).toEqual({ ok: true, secretIndex: 0 });
    // A v0 entry is not a signature we accept, even if it holds the right digest.
    expect(verify(`t=${t},v0=${v1(body)},v1=${unknown}`)).toEqual({ ok: false, reason: 'MISMATCH' });
  });

  it('honours the tolerance at the exact boundaries (default 300 000 ms, both ways)', () => {
    const h = header();
    const tol = STRIPE_DEFAULT_TOLERANCE_MS;
    expect(tol).toBe(300_000);
    expect(verify(h, { now: nowMs + tol })).toEqual({ ok: true, secretIndex: 0 });
    expect(verify(h, { now: nowMs + tol + 1 })).toEqual({ ok: false, reason: 'STALE_TIMESTAMP' });
    expect(verify(h, { now: nowMs - tol })).toEqual({ ok: true, secretIndex: 0 });
    expect(verify(h, { now: nowMs - tol - 1 })).toEqual({ ok: false, reason: 'FUTURE_TIMESTAMP' });
  });

  it('honours a configured tolerance in milliseconds, including 0', () => {
    const h = header();
    expect(verify(h, { now: nowMs + 10_000, toleranceMs: 10_000 })).toEqual({ ok: true, secretIndex: 0 });
    expect(verify(h, { now: nowMs + 10_001, toleranceMs: 10_000 })).toEqual({ ok: false, reason: 'STALE_TIMESTAMP' });
    expect(verify(h, { now: nowMs - 10_001, toleranceMs: 10_000 })).toEqual({ ok: false, reason: 'FUTURE_TIMESTAMP' });
    expect(verify(h, { now: nowMs, toleranceMs: 0 })).toEqual({ ok: true, secretIndex: 0 });
    expect(verify(h, { now: nowMs + 1, toleranceMs: 0 })).toEqual({ ok: false, reason: 'STALE_TIMESTAMP' });
  });

  it('reports a forged signature as MISMATCH whatever its timestamp (signature checked first)', () => {
    const forged = `t=${t},v1=${v1(body, newSecret())}`;
    expect(verify(forged, { now: nowMs + 10 * STRIPE_DEFAULT_TOLERANCE_MS })).toEqual({ ok: false, reason: 'MISMATCH' });
    expect(verify(forged, { now: nowMs - 10 * STRIPE_DEFAULT_TOLERANCE_MS })).toEqual({ ok: false, reason: 'MISMATCH' });
  });

  it('reports a missing header, and refuses a repeated one', () => {
    expect(verify(undefined)).toEqual({ ok: false, reason: 'MISSING_HEADER' });
    expect(verify('')).toEqual({ ok: false, reason: 'MISSING_HEADER' });
    expect(verify([])).toEqual({ ok: false, reason: 'MISSING_HEADER' });
    expect(verify([header()])).toEqual({ ok: true, secretIndex: 0 });
    expect(verify([header(), header()])).toEqual({ ok: false, reason: 'MALFORMED_HEADER' });
  });

  it.each([
    ['not key=value', 'garbage'],
    ['no t', `v1=${'a'.repeat(64)}`],
    ['no v1', `t=${t}`],
    ['only v0', `t=${t},v0=${'a'.repeat(64)}`],
    ['t not a number', `t=abc,v1=${'a'.repeat(64)}`],
    ['t negative', `t=-1,v1=${'a'.repeat(64)}`],
    ['t with a leading zero', `t=0${t},v1=${'a'.repeat(64)}`],
    ['t longer than 15 digits', `t=${'1'.repeat(16)},v1=${'a'.repeat(64)}`],
    ['two t', `t=${t},t=${t},v1=${'a'.repeat(64)}`],
    ['v1 too short', `t=${t},v1=${'a'.repeat(63)}`],
    ['v1 too long', `t=${t},v1=${'a'.repeat(66)}`],
    ['v1 not hex', `t=${t},v1=${'z'.repeat(64)}`],
    ['v1 in base64', `t=${t},v1=${Buffer.alloc(32, 7).toString('base64')}`],
    ['a space after the comma', `t=${t}, v1=${'a'.repeat(64)}`],
    ['an empty item', `t=${t},,v1=${'a'.repeat(64)}`],
    ['a trailing comma', `t=${t},v1=${'a'.repeat(64)},`],
    ['an empty key', `t=${t},=x,v1=${'a'.repeat(64)}`],
    ['an oversized header', `t=${t}${`,v1=${'a'.repeat(64)}`.repeat(200)}`],
  ])('refuses a malformed header without comparing: %s', (_label, h) => {
    expect(verify(h)).toEqual({ ok: false, reason: 'MALFORMED_HEADER' });
  });

  it('parses the header into the timestamp and the decoded v1 digests', () => {
    const parsed = parseStripeSignatureHeader(`t=${t},v1=${'ab'.repeat(32)},v0=x,v1=${'CD'.repeat(32)}`);
    expect(parsed?.timestampSeconds).toBe(t);
    expect(parsed?.v1.map((d) => d.toString('hex'))).toEqual(['ab'.repeat(32), 'cd'.repeat(32)]);
  });

  it('signStripe builds the header Stripe sends, one v1 per secret', () => {
    expect(signStripe(body, secret, t)).toBe(header());
    expect(signStripe(body.toString(), secret, t)).toBe(header());
    expect(signStripe(body, [secret, previous], t)).toBe(`t=${t},v1=${v1(body, secret)},v1=${v1(body, previous)}`);
    expect(verify(signStripe(body, [newSecret(), previous], t), { secrets: [previous] })).toEqual({ ok: true, secretIndex: 0 });
    expect(() => signStripe(body, secret, 1.5)).toThrow(SignatureConfigError);
    expect(() => signStripe(body, [], t)).toThrow(SignatureConfigError);
  });

  it('throws a configuration error (naming no secret) for no or empty secrets, or bad clock options', () => {
    expect(() => verify(header(), { secrets: [] })).toThrow(SignatureConfigError);
    expect(() => verify(header(), { secrets: [secret, ''] })).toThrow(SignatureConfigError);
    expect(() => verify(header(), { toleranceMs: -1 })).toThrow(SignatureConfigError);
    expect(() => verify(header(), { toleranceMs: Number.POSITIVE_INFINITY })).toThrow(SignatureConfigError);
    expect(() => verify(header(), { now: Number.NaN })).toThrow(SignatureConfigError);
    // Configuration is checked before the request: even a missing header throws.
    expect(() => verify(undefined, { secrets: [] })).toThrow(SignatureConfigError);
    try {
      verify(header(), { secrets: [secret, ''] });
    } catch (error) {
      expect(String(error)).not.toContain(secret);
    }
  });
});

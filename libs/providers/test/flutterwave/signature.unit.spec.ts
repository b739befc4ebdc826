import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  FLUTTERWAVE_HMAC_SCHEME,
  FLUTTERWAVE_VERIF_HASH_MAX_LENGTH,
  type FlutterwaveSignatureMode,
  type FlutterwaveWebhookHeaders,
  signFlutterwave,
  SignatureConfigError,
  verifyFlutterwaveWebhook,
} from '@settle/providers';

// Vectors computed here, independently of the module: the legacy header is the secret hash
// itself; the newer one is base64 HMAC-SHA256 of the raw body keyed with the secret hash.
const newHash = () => randomBytes(18).toString('base64url');
const secretHash = newHash();
const previous = newHash();
const body = Buffer.from('{"event":"charge.completed","data":{"id":285959875,"tx_ref":"ref_1","amount":100,"currency":"NGN","status":"successful"}}');
const hmac = (b: Buffer, key = secretHash) => createHmac('sha256', key).update(b).digest('base64');
const verify = (mode: FlutterwaveSignatureMode, headers: FlutterwaveWebhookHeaders, opts: { b?: Buffer; hashes?: string[] } = {}) =>
  verifyFlutterwaveWebhook(opts.b ?? body, headers, opts.hashes ?? [secretHash], { mode });

describe("Flutterwave legacy 'verif-hash' (header equals the secret hash)", () => {
  it('accepts the configured secret hash', () => {
    expect(verify('verif-hash', { 'verif-hash': secretHash })).toEqual({ ok: true, secretIndex: 0 });
  });

  it('refuses a wrong hash, a prefix or extension of the right one, and a change of case', () => {
    expect(verify('verif-hash', { 'verif-hash': newHash() })).toEqual({ ok: false, reason: 'MISMATCH' });
    expect(verify('verif-hash', { 'verif-hash': secretHash.slice(0, -1) })).toEqual({ ok: false, reason: 'MISMATCH' });
    expect(verify('verif-hash', { 'verif-hash': `${secretHash}x` })).toEqual({ ok: false, reason: 'MISMATCH' });
    expect(verify('verif-hash', { 'verif-hash': ` ${secretHash}` })).toEqual({ ok: false, reason: 'MISMATCH' });
    const swapped = secretHash.replace(/[a-z]/, (c) => c.toUpperCase());
    if (swapped !== secretHash) expect(verify('verif-hash', { 'verif-hash': swapped })).toEqual({ ok: false, reason: 'MISMATCH' });
  });

  it('accepts a previous hash during rotation and refuses an unknown one', () => {
    expect(verify('verif-hash', { 'verif-hash': previous }, { hashes: [secretHash, previous] })).toEqual({ ok: true, secretIndex: 1 });
    expect(verify('verif-hash', { 'verif-hash': newHash() }, { hashes: [secretHash, previous] })).toEqual({ ok: false, reason: 'MISMATCH' });
  });

  it('does not cover the body: the same header authenticates any body (a trigger only)', () => {
    expect(verify('verif-hash', { 'verif-hash': secretHash }, { b: Buffer.from('{"tampered":true}') })).toEqual({ ok: true, secretIndex: 0 });
  });

  it('reports missing, repeated and oversized headers', () => {
    expect(verify('verif-hash', {})).toEqual({ ok: false, reason: 'MISSING_HEADER' });
    expect(verify('verif-hash', { 'verif-hash': '' })).toEqual({ ok: false, reason: 'MISSING_HEADER' });
    expect(verify('verif-hash', { 'verif-hash': [secretHash, secretHash] })).toEqual({ ok: false, reason: 'MALFORMED_HEADER' });
    expect(verify('verif-hash', { 'verif-hash': 'x'.repeat(FLUTTERWAVE_VERIF_HASH_MAX_LENGTH + 1) })).toEqual({ ok: false, reason: 'MALFORMED_HEADER' });
  });

  it('reads only its own header: a valid flutterwave-signature does not help', () => {
    expect(verify('verif-hash', { 'flutterwave-signature': hmac(body) })).toEqual({ ok: false, reason: 'MISSING_HEADER' });
  });
});

describe("Flutterwave 'flutterwave-signature' (base64 HMAC-SHA256 of the raw body, unconfirmed)", () => {
  it('keeps the unconfirmed algorithm in one constant', () => {
    expect(FLUTTERWAVE_HMAC_SCHEME).toEqual({ algorithm: 'sha256', encoding: 'base64', digestBytes: 32 });
    expect(signFlutterwave(body, secretHash)).toBe(hmac(body));
  });

  it('accepts the signature of the exact bytes', () => {
    expect(verify('hmac', { 'flutterwave-signature': hmac(body) })).toEqual({ ok: true, secretIndex: 0 });
  });

  it('rejects a tampered body, even one that parses to the same JSON', () => {
    const reformatted = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 1));
    expect(verify('hmac', { 'flutterwave-signature': hmac(body) }, { b: reformatted })).toEqual({ ok: false, reason: 'MISMATCH' });
    const tampered = Buffer.from(body.toString().replace('"amount":100', '"amount":1'));
    expect(verify('hmac', { 'flutterwave-signature': hmac(body) }, { b: tampered })).toEqual({ ok: false, reason: 'MISMATCH' });
  });

  it('rejects a tampered header and a wrong secret hash', () => {
    const good = hmac(body);
    const flipped = `${good[0] === 'A' ? 'B' : 'A'}${good.slice(1)}`;
    expect(verify('hmac', { 'flutterwave-signature': flipped })).toEqual({ ok: false, reason: 'MISMATCH' });
    expect(verify('hmac', { 'flutterwave-signature': hmac(body, newHash()) })).toEqual({ ok: false, reason: 'MISMATCH' });
  });

  it('accepts a previous hash during rotation and refuses an unknown one', () => {
    expect(verify('hmac', { 'flutterwave-signature': hmac(body, previous) }, { hashes: [secretHash, previous] })).toEqual({ ok: true, secretIndex: 1 });
    expect(verify('hmac', { 'flutterwave-signature': hmac(body, newHash()) }, { hashes: [secretHash, previous] })).toEqual({ ok: false, reason: 'MISMATCH' });
  });

  it('refuses headers of the wrong length or alphabet without comparing', () => {
    const good = hmac(body);
    const digest = Buffer.from(good, 'base64');
    const malformed = [
      digest.toString('hex'), // hex instead of base64
      good.replace(/=+$/, ''), // unpadded
      digest.toString('base64url'), // base64url alphabet (unpadded)
      good.slice(0, -4), // truncated
      Buffer.concat([digest, Buffer.alloc(3)]).toString('base64'), // too long
      `${good.slice(0, 42)}${String.fromCharCode(good.charCodeAt(42) + 1)}=`, // non-canonical last character
      `${good.slice(0, 10)}*${good.slice(11)}`, // foreign character
    ];
    for (const header of malformed) {
      expect(verify('hmac', { 'flutterwave-signature': header }), header).toEqual({ ok: false, reason: 'MALFORMED_HEADER' });
    }
  });

  it('reports missing and repeated headers, and reads only its own header', () => {
    expect(verify('hmac', {})).toEqual({ ok: false, reason: 'MISSING_HEADER' });
    expect(verify('hmac', { 'verif-hash': secretHash })).toEqual({ ok: false, reason: 'MISSING_HEADER' });
    expect(verify('hmac', { 'flutterwave-signature': [hmac(body), hmac(body)] })).toEqual({ ok: false, reason: 'MALFORMED_HEADER' });
  });

  it('accepts Node request headers as they are', () => {
    const headers: IncomingHttpHeaders = { 'content-type': 'application/json', 'flutterwave-signature': hmac(body) };
    expect(verifyFlutterwaveWebhook(body, headers, [secretHash], { mode: 'hmac' })).toEqual({ ok: true, secretIndex: 0 });
  });
});

describe('Flutterwave configuration errors', () => {
  it('throws for no or empty secret hashes and for an unknown mode', () => {
    expect(() => verify('hmac', { 'flutterwave-signature': hmac(body) }, { hashes: [] })).toThrow(SignatureConfigError);
    expect(() => verify('verif-hash', { 'verif-hash': '' }, { hashes: [''] })).toThrow(SignatureConfigError);
    expect(() => verify('sha512' as FlutterwaveSignatureMode, {})).toThrow(SignatureConfigError);
  });
});

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  MPESA_CALLBACK_MAX_BYTES,
  MPESA_CALLBACK_TOKEN_MAX_LENGTH,
  mpesaCallbackToken,
  parseMpesaStkCallback,
  SignatureConfigError,
  SourceAllowlist,
  verifyMpesaCallback,
  verifyMpesaCallbackToken,
} from '@settle/providers';

const newToken = () => randomBytes(24).toString('base64url');
const token = newToken();
const previous = newToken();
const path = (t: string) => `/webhooks/mpesa/callback/${t}`;
const gate = (p: string, opts: { tokens?: string[]; source?: string | undefined; allowlist?: SourceAllowlist | null } = {}) =>
  verifyMpesaCallback(
    { path: p, sourceAddress: 'source' in opts ? opts.source : '196.201.214.200' },
    { tokens: opts.tokens ?? [token], allowlist: opts.allowlist ?? null },
  );

describe('M-Pesa callback token (last path segment of the callback URL)', () => {
  it('accepts the right token, with a query string, fragment or trailing slash', () => {
    expect(gate(path(token))).toEqual({ ok: true, secretIndex: 0 });
    expect(gate(`${path(token)}?source=daraja`)).toEqual({ ok: true, secretIndex: 0 });
    expect(gate(`${path(token)}/`)).toEqual({ ok: true, secretIndex: 0 });
    expect(gate(`${path(token)}#x`)).toEqual({ ok: true, secretIndex: 0 });
  });

  it('refuses a wrong token, a prefix or extension of the right one, and the token elsewhere in the path', () => {
    expect(gate(path(newToken()))).toEqual({ ok: false, reason: 'MISMATCH' });
    expect(gate(path(token.slice(0, -1)))).toEqual({ ok: false, reason: 'MISMATCH' });
    expect(gate(path(`${token}x`))).toEqual({ ok: false, reason: 'MISMATCH' });
    expect(gate(`/webhooks/mpesa/${token}/callback`)).toEqual({ ok: false, reason: 'MISMATCH' });
    expect(gate(`/webhooks/mpesa/callback?token=${token}`)).toEqual({ ok: false, reason: 'MISMATCH' });
  });

  it('accepts a previous token during rotation and refuses an unknown one', () => {
    expect(gate(path(previous), { tokens: [token, previous] })).toEqual({ ok: true, secretIndex: 1 });
    expect(gate(path(newToken()), { tokens: [token, previous] })).toEqual({ ok: false, reason: 'MISMATCH' });
  });

  it('percent-decodes the segment, and refuses invalid encoding or an oversized segment without comparing', () => {
    const odd = 'tok en/ü';
    expect(gate(path(encodeURIComponent(odd)), { tokens: [odd] })).toEqual({ ok: true, secretIndex: 0 });
    expect(gate(path('%E0%A4%A'))).toEqual({ ok: false, reason: 'MALFORMED_TOKEN' });
    expect(gate(path('a'.repeat(MPESA_CALLBACK_TOKEN_MAX_LENGTH + 1)))).toEqual({ ok: false, reason: 'MALFORMED_TOKEN' });
  });

  it('reports a path with no segment as a missing token', () => {
    expect(gate('/')).toEqual({ ok: false, reason: 'MISSING_TOKEN' });
    expect(gate('')).toEqual({ ok: false, reason: 'MISSING_TOKEN' });
    expect(gate(`/?t=${token}`)).toEqual({ ok: false, reason: 'MISSING_TOKEN' });
    expect(verifyMpesaCallbackToken(undefined, [token])).toEqual({ ok: false, reason: 'MISSING_TOKEN' });
    expect(verifyMpesaCallbackToken('', [token])).toEqual({ ok: false, reason: 'MISSING_TOKEN' });
  });

  it('compares a token taken from a route parameter directly', () => {
    expect(verifyMpesaCallbackToken(token, [newToken(), token])).toEqual({ ok: true, secretIndex: 1 });
    expect(verifyMpesaCallbackToken(newToken(), [token])).toEqual({ ok: false, reason: 'MISMATCH' });
    expect(mpesaCallbackToken('/a/b%20c/?x')).toEqual({ ok: true, token: 'b c' });
  });

  it('throws a configuration error for no or empty tokens', () => {
    expect(() => gate(path(token), { tokens: [] })).toThrow(SignatureConfigError);
    expect(() => gate(path(token), { tokens: [token, ''] })).toThrow(SignatureConfigError);
    expect(() => verifyMpesaCallbackToken(token, [])).toThrow(SignatureConfigError);
  });
});

describe('M-Pesa source-address allowlist (node:net BlockList)', () => {
  const allowlist = SourceAllowlist.from(['196.201.214.200', ' 196.201.213.0/24 ', '2001:db8::1', '2001:db8:100::/40']);

  it('allows exact addresses and CIDR ranges, IPv4 and IPv6', () => {
    for (const address of ['196.201.214.200', '196.201.213.0', '196.201.213.255', '2001:db8::1', '2001:0db8:0000::0001', '2001:db8:1ff:ffff::9']) {
      expect(allowlist.allows(address), address).toBe(true);
    }
  });

  it('allows an IPv4 peer reported as IPv4-mapped IPv6 by a dual-stack socket', () => {
    expect(allowlist.allows('::ffff:196.201.213.7')).toBe(true);
    expect(allowlist.allows('::ffff:196.201.212.7')).toBe(false);
  });

  it('refuses addresses just outside the ranges, and absent or garbled sources', () => {
    for (const address of ['196.201.214.201', '196.201.212.255', '196.201.214.0', '2001:db8::2', '2001:db8:200::1', '10.0.0.1', '::1']) {
      expect(allowlist.allows(address), address).toBe(false);
    }
    for (const address of [undefined, '', 'localhost', '196.201.213', '196.201.213.7/24', ' 196.201.214.200', 'fe80::1%eth0']) {
      expect(allowlist.allows(address), String(address)).toBe(false);
    }
  });

  it('gates on the source before the token', () => {
    expect(gate(path(token), { allowlist, source: '196.201.213.42' })).toEqual({ ok: true, secretIndex: 0 });
    expect(gate(path(token), { allowlist, source: '196.201.215.42' })).toEqual({ ok: false, reason: 'SOURCE_NOT_ALLOWED' });
    expect(gate(path(token), { allowlist, source: undefined })).toEqual({ ok: false, reason: 'SOURCE_NOT_ALLOWED' });
    expect(gate(path(newToken()), { allowlist, source: '196.201.215.42' })).toEqual({ ok: false, reason: 'SOURCE_NOT_ALLOWED' });
    expect(gate(path(newToken()), { allowlist, source: '196.201.213.42' })).toEqual({ ok: false, reason: 'MISMATCH' });
    // Without an allowlist, any source (even none) reaches the token check.
    expect(gate(path(token), { source: undefined })).toEqual({ ok: true, secretIndex: 0 });
  });

  it('keeps the configured entries, trimmed', () => {
    expect(allowlist.entries).toEqual(['196.201.214.200', '196.201.213.0/24', '2001:db8::1', '2001:db8:100::/40']);
  });

  it.each([
    [[]],
    [['not-an-ip']],
    [['196.201.213.0/33']],
    [['2001:db8::/129']],
    [['196.201.213.0/']],
    [['196.201.213.0/08']],
    [['196.201.213.0/24/1']],
    [['196.201.213.0/-1']],
    [['fe80::1%eth0']],
    [['196.201.213']],
  ])('throws a configuration error for %j', (entries) => {
    expect(() => SourceAllowlist.from(entries)).toThrow(SignatureConfigError);
  });
});

describe('M-Pesa STK callback body (a trigger for a status query, nothing more)', () => {
  const checkoutRequestId = 'ws_CO_191220191020363925';
  const success = {
    Body: {
      stkCallback: {
        MerchantRequestID: '29115-34620561-1',
        CheckoutRequestID: checkoutRequestId,
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        CallbackMetadata: {
          Item: [
            { Name: 'Amount', Value: 1 },
            { Name: 'MpesaReceiptNumber', Value: 'NLJ7RT61SV' },
            { Name: 'TransactionDate', Value: 20191219102115 },
            { Name: 'PhoneNumber', Value: 254708374149 },
          ],
        },
      },
    },
  };
  const withCallback = (stkCallback: Record<string, unknown>) => JSON.stringify({ Body: { stkCallback } });

  it('extracts only the CheckoutRequestID and the ResultCode', () => {
    expect(parseMpesaStkCallback(Buffer.from(JSON.stringify(success)))).toEqual({ ok: true, value: { checkoutRequestId, resultCode: 0 } });
    expect(parseMpesaStkCallback(withCallback({ CheckoutRequestID: checkoutRequestId, ResultCode: 1032, ResultDesc: 'Request cancelled by user' }))).toEqual({
      ok: true,
      value: { checkoutRequestId, resultCode: 1032 },
    });
  });

  it('tolerates a ResultCode sent as a digit string', () => {
    expect(parseMpesaStkCallback(withCallback({ CheckoutRequestID: checkoutRequestId, ResultCode: '2001' }))).toEqual({
      ok: true,
      value: { checkoutRequestId, resultCode: 2001 },
    });
  });

  it.each([
    ['null', 'null'],
    ['an array', '[]'],
    ['no Body', '{"stkCallback":{}}'],
    ['no stkCallback', '{"Body":{}}'],
    ['no CheckoutRequestID', withCallback({ ResultCode: 0 })],
    ['no ResultCode', withCallback({ CheckoutRequestID: checkoutRequestId })],
    ['a numeric CheckoutRequestID', withCallback({ CheckoutRequestID: 42, ResultCode: 0 })],
    ['a path-like CheckoutRequestID', withCallback({ CheckoutRequestID: 'ws_CO_../../etc/passwd', ResultCode: 0 })],
    ['a CheckoutRequestID without the ws_CO_ prefix', withCallback({ CheckoutRequestID: '191220191020363925', ResultCode: 0 })],
    ['a negative ResultCode', withCallback({ CheckoutRequestID: checkoutRequestId, ResultCode: -1 })],
    ['a fractional ResultCode', withCallback({ CheckoutRequestID: checkoutRequestId, ResultCode: 0.5 })],
    ['a non-numeric ResultCode', withCallback({ CheckoutRequestID: checkoutRequestId, ResultCode: 'ok' })],
    ['a null ResultCode', withCallback({ CheckoutRequestID: checkoutRequestId, ResultCode: null })],
  ])('refuses a body with %s as INVALID_SHAPE, naming the field', (_label, text) => {
    const result = parseMpesaStkCallback(Buffer.from(text));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toBe('INVALID_SHAPE');
      expect(result.message.length).toBeGreaterThan(0);
      expect(result.message).not.toContain('passwd');
    }
  });

  it('names the offending path in the message', () => {
    const result = parseMpesaStkCallback(withCallback({ CheckoutRequestID: checkoutRequestId }));
    expect(!result.ok && result.message).toContain('Body.stkCallback.ResultCode');
  });

  it('refuses non-JSON, non-UTF-8 and oversized bodies without throwing', () => {
    expect(parseMpesaStkCallback(Buffer.from('{not json'))).toMatchObject({ ok: false, error: 'NOT_JSON' });
    expect(parseMpesaStkCallback(Buffer.from(''))).toMatchObject({ ok: false, error: 'NOT_JSON' });
    expect(parseMpesaStkCallback(Buffer.from([0x7b, 0xff, 0x7d]))).toMatchObject({ ok: false, error: 'NOT_UTF8' });
    const padded = JSON.stringify({ ...success, pad: 'x'.repeat(MPESA_CALLBACK_MAX_BYTES) });
    expect(parseMpesaStkCallback(Buffer.from(padded))).toMatchObject({ ok: false, error: 'TOO_LARGE' });
    expect(parseMpesaStkCallback(padded)).toMatchObject({ ok: false, error: 'TOO_LARGE' });
  });
});

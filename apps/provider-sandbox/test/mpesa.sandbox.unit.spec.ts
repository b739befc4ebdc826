import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import { darajaTimestamp, MpesaSimulator, withCallbackToken } from '../src/mpesa.sandbox.js';
import type { SandboxAnswer, SandboxTransaction } from '../src/sandbox.core.js';
import type { Notifier, OutgoingWebhook } from '../src/webhook-sender.js';

const consumerKey = randomBytes(18).toString('base64url');
const consumerSecret = randomBytes(12).toString('base64url');
const passkey = randomBytes(32).toString('hex');
const shortcode = '174379';
const callbackToken = randomBytes(16).toString('hex');
const callbackUrl = `http://127.0.0.1:9/v1/webhooks/mpesa/${callbackToken}`;
const basic = (user = consumerKey, password = consumerSecret) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
/** The Lipa na M-Pesa Online password, computed here from its definition. */
const password = (timestamp: string, key = passkey) => Buffer.from(`${shortcode}${key}${timestamp}`).toString('base64');
const TIMESTAMP = '20260304080607';

type Json = { kind: 'json'; status: number; body: Record<string, unknown> };

function setup(ttlMs = 3_599_000) {
  let clock = Date.parse('2026-03-04T05:06:07Z');
  const sent: Array<() => OutgoingWebhook> = [];
  const notifier: Notifier = { dispatch: (_tx, _provider, build) => sent.push(build) };
  const mpesa = new MpesaSimulator(
    {
      consumerKey: new Secret(consumerKey),
      consumerSecret: new Secret(consumerSecret),
      passkey: new Secret(passkey),
      shortcode,
      tokenTtlMs: ttlMs,
      callbackUrl: new Secret(callbackUrl),
    },
    notifier,
    () => clock,
  );
  const token = () => (mpesa.oauth(basic(), 'client_credentials') as Json).body.access_token as string;
  const create = (body: Record<string, unknown> = {}): SandboxTransaction => {
    const outcome = mpesa.create({ amount: 150_000, currency: 'KES', phone: '254712345678', ...body });
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.body));
    return outcome.transaction;
  };
  const query = (checkoutRequestId: string, overrides: Record<string, unknown> = {}, bearer = token()): SandboxAnswer =>
    mpesa.query(`Bearer ${bearer}`, {
      BusinessShortCode: shortcode,
      Password: password(TIMESTAMP),
      Timestamp: TIMESTAMP,
      CheckoutRequestID: checkoutRequestId,
      ...overrides,
    });
  return { mpesa, sent, token, create, query, advance: (ms: number) => (clock += ms) };
}

describe('M-Pesa OAuth', () => {
  it('issues a token for the right Basic credentials, with expires_in as a string', () => {
    const { mpesa } = setup();
    const answer = mpesa.oauth(basic(), 'client_credentials') as Json;
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ access_token: expect.any(String), expires_in: '3599' });
  });

  it('refuses wrong credentials and a wrong grant type', () => {
    const { mpesa } = setup();
    expect(mpesa.oauth(basic(consumerKey, 'wrong'), 'client_credentials')).toMatchObject({ status: 400, body: { errorCode: '400.008.01' } });
    expect(mpesa.oauth(basic('wrong', consumerSecret), 'client_credentials')).toMatchObject({ status: 400 });
    expect(mpesa.oauth(undefined, 'client_credentials')).toMatchObject({ status: 400 });
    expect(mpesa.oauth(basic(), 'password')).toMatchObject({ status: 400, body: { errorCode: '400.008.02' } });
  });

  it('rejects an expired or unknown token with 401 404.001.03', () => {
    const { create, query, token, advance } = setup(60_000);
    const tx = create();
    const bearer = token();
    expect(query(tx.reference, {}, bearer)).toMatchObject({ status: 500 });
    advance(59_999);
    expect(query(tx.reference, {}, bearer)).toMatchObject({ status: 500 });
    advance(1);
    expect(query(tx.reference, {}, bearer)).toMatchObject({ status: 401, body: { errorCode: '404.001.03', errorMessage: 'Invalid Access Token' } });
    expect(query(tx.reference, {}, 'not-a-token')).toMatchObject({ status: 401, body: { errorCode: '404.001.03' } });
    expect(query(tx.reference)).toMatchObject({ status: 500 });
  });

  it('expires every live token on demand', () => {
    const { mpesa, create, query, token } = setup();
    const tx = create();
    const bearer = token();
    expect(mpesa.expireTokens()).toBe(1);
    expect(query(tx.reference, {}, bearer)).toMatchObject({ status: 401 });
  });
});

describe('M-Pesa STK push query', () => {
  it('checks Password = base64(shortcode + passkey + timestamp)', () => {
    const { create, query } = setup();
    const tx = create();
    expect(query(tx.reference)).toMatchObject({ status: 500, body: { errorCode: '500.001.1001' } });
    expect(query(tx.reference, { Password: password(TIMESTAMP, `${passkey}0`) })).toMatchObject({
      status: 400,
      body: { errorCode: '400.002.02', errorMessage: expect.stringContaining('Password') },
    });
    expect(query(tx.reference, { Password: password('20260304080608') })).toMatchObject({ status: 400 });
    expect(query(tx.reference, { Timestamp: '2026-03-04', Password: password('2026-03-04') })).toMatchObject({
      status: 400,
      body: { errorMessage: 'Bad Request - Invalid Timestamp' },
    });
    expect(query(tx.reference, { BusinessShortCode: 600_000 })).toMatchObject({
      status: 400,
      body: { errorMessage: 'Bad Request - Invalid BusinessShortCode' },
    });
    expect(query(tx.reference, { BusinessShortCode: Number(shortcode) })).toMatchObject({ status: 500 });
    expect(query('ws_CO_unknown')).toMatchObject({ status: 400, body: { errorMessage: 'Bad Request - Invalid CheckoutRequestID' } });
    expect(tx.verifyCalls).toBe(2);
  });

  it('answers 500.001.1001 while waiting or clearing, then the ResultCode as a string', () => {
    const { mpesa, create, query } = setup();
    const tx = create({ behaviour: { outcome: 'clearing_then_success', clearing_checks: 1 } });
    expect(tx.reference).toMatch(/^ws_CO_\d{20}$/);
    const processing = query(tx.reference) as Json;
    expect(processing).toMatchObject({ status: 500, body: { errorCode: '500.001.1001', errorMessage: 'The transaction is being processed' } });
    expect(processing.body.requestId).toEqual(expect.any(String));
    mpesa.pay(tx.reference);
    expect(query(tx.reference)).toMatchObject({ status: 500 });
    expect(query(tx.reference)).toEqual({
      kind: 'json',
      status: 200,
      body: {
        ResponseCode: '0',
        ResponseDescription: expect.any(String),
        MerchantRequestID: tx.details?.MerchantRequestID,
        CheckoutRequestID: tx.reference,
        ResultCode: '0',
        ResultDesc: 'The service request is processed successfully.',
      },
    });
  });

  it('answers ResultCode 1 or 2001 for a decline', () => {
    const { mpesa, create, query } = setup();
    const funds = create({ behaviour: { outcome: 'declined' } });
    const pin = create({ behaviour: { outcome: 'declined', decline: 'wrong_pin' } });
    mpesa.pay(funds.reference);
    mpesa.pay(pin.reference);
    expect(query(funds.reference)).toMatchObject({ status: 200, body: { ResultCode: '1' } });
    expect(query(pin.reference)).toMatchObject({ status: 200, body: { ResultCode: '2001' } });
  });

  it('only accepts whole-shilling KES transactions with a Kenyan phone, and no other_currency', () => {
    const { mpesa } = setup();
    const base = { amount: 10_000, currency: 'KES', phone: '254712345678' };
    expect(mpesa.create(base).ok).toBe(true);
    expect(mpesa.create({ ...base, currency: 'USD' }).ok).toBe(false);
    expect(mpesa.create({ ...base, amount: 10_050 }).ok).toBe(false);
    expect(mpesa.create({ ...base, phone: undefined }).ok).toBe(false);
    expect(mpesa.create({ ...base, behaviour: { outcome: 'other_currency' } }).ok).toBe(false);
    expect(mpesa.create({ ...base, reference: 'order-1' }).ok).toBe(false);
  });
});

describe('M-Pesa STK callback', () => {
  it('carries the amount in KES major units, the phone as a number and the receipt', () => {
    const { mpesa, create, sent } = setup();
    const tx = create({ phone: '+254712345678' });
    mpesa.pay(tx.reference);
    const callback = sent[0]!();
    expect(callback.url).toBe(callbackUrl);
    expect(callback.target).not.toContain(callbackToken);
    expect(callback.headers).toEqual({});
    expect(JSON.parse(callback.body)).toEqual({
      Body: {
        stkCallback: {
          MerchantRequestID: tx.details?.MerchantRequestID,
          CheckoutRequestID: tx.reference,
          ResultCode: 0,
          ResultDesc: 'The service request is processed successfully.',
          CallbackMetadata: {
            Item: [
              { Name: 'Amount', Value: 1500 },
              { Name: 'MpesaReceiptNumber', Value: tx.details?.MpesaReceiptNumber },
              { Name: 'TransactionDate', Value: 20260304080607 },
              { Name: 'PhoneNumber', Value: 254712345678 },
            ],
          },
        },
      },
    });
  });

  it('reports a decline without metadata, the outcome knobs, and a wrong token when spoofing', () => {
    const { mpesa, create, sent } = setup();
    const declined = create({ behaviour: { outcome: 'declined', decline: 'wrong_pin' } });
    const lower = create({ amount: 150_100, behaviour: { outcome: 'lower_amount' } });
    const other = create({ behaviour: { outcome: 'other_customer' } });
    const spoofed = create({ behaviour: { webhook: 'spoof' } });
    for (const tx of [declined, lower, other, spoofed]) mpesa.pay(tx.reference);
    const [d, l, o, s] = sent.map((build) => build());
    expect(JSON.parse(d!.body).Body.stkCallback).toEqual({
      MerchantRequestID: declined.details?.MerchantRequestID,
      CheckoutRequestID: declined.reference,
      ResultCode: 2001,
      ResultDesc: 'The initiator information is invalid.',
    });
    const item = (w: OutgoingWebhook, name: string) =>
      (JSON.parse(w.body).Body.stkCallback.CallbackMetadata.Item as Array<{ Name: string; Value: unknown }>).find((i) => i.Name === name)?.Value;
    expect(item(l!, 'Amount')).toBe(750);
    expect(item(o!, 'PhoneNumber')).toBe(254712340123);
    expect(s!.url).not.toContain(callbackToken);
    expect(s!.url.startsWith('http://127.0.0.1:9/v1/webhooks/mpesa/')).toBe(true);
    expect(s!.url.length).toBe(callbackUrl.length);
  });

  it('formats Daraja timestamps in Nairobi time and swaps only the token segment', () => {
    expect(darajaTimestamp(new Date('2026-01-02T21:30:00Z'))).toBe('20260103003000');
    expect(withCallbackToken('http://h:1/a/b/tok/', () => 'X')).toBe('http://h:1/a/b/X/');
  });
});

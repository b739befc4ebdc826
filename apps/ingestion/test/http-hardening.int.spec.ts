/**
 * Ingestion's HTTP edge against abuse and sloppy integrations (docs/reliability.md, "Hardening
 * against abuse"), the app built in-process over a real PostgreSQL: ambiguous JSON, amounts not
 * written as integers, webhooks of any content type, ambiguous signed webhooks, and the
 * `WWW-Authenticate` of every 401; and every successful answer of every route conforming to the
 * OpenAPI document (docs/api/ingestion-openapi.json).
 */
import { randomBytes } from 'node:crypto';
import { PROVIDERS, type ProviderName } from '@settle/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders, startIngestionTestApp, webhookUrl, type IngestionTestApp } from './ingestion-test-app.js';

let t: IngestionTestApp;

beforeAll(async () => {
  t = await startIngestionTestApp();
});

afterAll(async () => {
  await t?.close();
});

const reference = () => `ref_${randomBytes(6).toString('hex')}`;

/** A checkout registration body, as text, with `amount` written as given. */
const registration = (ref: string, amountText = '5000') =>
  `{"provider": "paystack", "reference": "${ref}", "amount": ${amountText}, "currency": "NGN", "user_id": "user-1", ` +
  `"customer": {"email": "payer@example.com"}, "entitlement": "pro", "access_period": "P1M"}`;

const register = (body: string) =>
  t.app.inject({ method: 'POST', url: '/v1/checkouts', payload: body, headers: { 'content-type': 'application/json', authorization: t.apiAuthorization } });

/** A webhook event body of a provider's shape, naming a reference. */
function eventBody(provider: ProviderName, ref: string): string {
  switch (provider) {
    case 'paystack':
      return JSON.stringify({ event: 'charge.success', data: { reference: ref, amount: 5000, currency: 'NGN' } });
    case 'stripe':
      return JSON.stringify({ id: `evt_${randomBytes(8).toString('hex')}`, type: 'payment_intent.succeeded', data: { object: { id: ref } } });
    case 'flutterwave':
      return JSON.stringify({
        event: 'charge.completed',
        data: { id: Number.parseInt(randomBytes(3).toString('hex'), 16), tx_ref: ref, status: 'successful', amount: 50.0 },
      });
    case 'mpesa':
      return JSON.stringify({ Body: { stkCallback: { MerchantRequestID: 'm-1', CheckoutRequestID: ref, ResultCode: 0, ResultDesc: 'ok' } } });
  }
}

const postWebhook = (provider: ProviderName, body: string, headers: Record<string, string>) =>
  t.app.inject({
    method: 'POST',
    url: webhookUrl(provider, t.secrets),
    payload: Buffer.from(body),
    headers: { ...signedHeaders(provider, t.secrets[provider], body), ...headers },
  });

async function rowsOf(sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
  return (await t.pool.query(sql, params)).rows;
}

describe('checkout registration refuses ambiguous JSON', () => {
  it('registers a well-written checkout', async () => {
    const res = await register(registration(reference()));
    expect(res.statusCode).toBe(202);
  });

  it('refuses `amount` twice, naming the path, and registers nothing', async () => {
    const ref = reference();
    const res = await register(registration(ref).replace('"amount": 5000', '"amount": 5000, "amount": 1'));
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ code: 'REQUEST.DUPLICATE_KEY', errors: [{ path: '/amount' }] });
    expect(await rowsOf('SELECT 1 FROM ingestion.checkouts WHERE reference = $1', [ref])).toEqual([]);
  });

  it('refuses `reference` twice', async () => {
    const res = await register(registration(reference()).replace('"currency"', `"reference": "${reference()}", "currency"`));
    expect(res.json()).toMatchObject({ status: 400, code: 'REQUEST.DUPLICATE_KEY', errors: [{ path: '/reference' }] });
  });

  it.each(['5000.0', '5e3', '5000.0000000000000001', '5.0e3'])('refuses the amount %s (JSON.parse reads 5000), never rounding it', async (text) => {
    const ref = reference();
    const res = await register(registration(ref, text));
    expect(res.json()).toMatchObject({ status: 400, code: 'REQUEST.AMBIGUOUS_NUMBER', errors: [{ path: '/amount' }] });
    expect(await rowsOf('SELECT 1 FROM ingestion.checkouts WHERE reference = $1', [ref])).toEqual([]);
  });

  it('answers a form-encoded registration 415, not a validation error', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/checkouts',
      payload: 'provider=paystack&amount=5000',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: t.apiAuthorization },
    });
    expect(res.json()).toMatchObject({ status: 415, code: 'REQUEST.UNSUPPORTED_MEDIA_TYPE' });
  });
});

describe('text that could not be stored as sent is 400 REQUEST.INVALID_CHARACTER, never a 500 (docs/errors.md)', () => {
  it.each([
    ['user_id', '"user_id": "user-1"', '"user_id": "user\\u0000-1"', '/user_id'],
    ['entitlement', '"entitlement": "pro"', '"entitlement": "p\\u0000ro"', '/entitlement'],
    [
      'the customer email (a lone surrogate, which would be stored as U+FFFD)',
      '"email": "payer@example.com"',
      '"email": "pa\\ud800yer@example.com"',
      '/customer/email',
    ],
  ])('a registration with %s holding one registers nothing', async (_, from, to, path) => {
    const ref = reference();
    const res = await register(registration(ref).replace(from, to));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'REQUEST.INVALID_CHARACTER', errors: [{ path }] });
    expect(await rowsOf('SELECT 1 FROM ingestion.checkouts WHERE reference = $1', [ref])).toEqual([]);
  });

  it("a user's entitlements, a checkout's status and a reconciliation with %00 in the path", async () => {
    for (const [method, url, authorization] of [
      ['GET', '/v1/users/user%00-1/entitlements', t.apiAuthorization],
      ['GET', '/v1/checkouts/ref_%00', t.apiAuthorization],
      ['POST', '/v1/admin/checkouts/ref_%00/reconcile', t.adminAuthorization],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: { authorization } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toMatchObject({ code: 'REQUEST.INVALID_CHARACTER', errors: [{ path: expect.stringMatching(/^path\./) }] });
    }
  });

  it('a correctly signed webhook holding a NUL is refused, stored as nothing, and its known checkout verified by REST', async () => {
    const known = reference();
    expect((await register(registration(known))).statusCode).toBe(202);
    const body = `{"event": "charge.success", "data": {"reference": "${known}", "amount": 5000, "metadata": {"note": "a\\u0000b"}}}`;
    const res = await postWebhook('paystack', body, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'REQUEST.INVALID_CHARACTER', errors: [{ path: '/data/metadata/note' }] });
    expect(await rowsOf('SELECT 1 FROM ingestion.webhook_inbox WHERE reference = $1 AND signature_valid', [known])).toEqual([]);
    const requested = await rowsOf(
      `SELECT payload->>'trigger' AS trigger FROM ingestion.outbox WHERE event_type = 'VerificationRequested' AND message_key = $1`,
      [known],
    );
    expect(requested).toEqual([{ trigger: 'webhook_signature_rejected' }]);
  });
});

describe('webhooks are verified on their raw bytes whatever the content type (docs/webhooks.md, "Content types")', () => {
  it.each(
    PROVIDERS.flatMap((provider) => [
      [provider, 'text/plain'],
      [provider, 'application/x-www-form-urlencoded'],
      [provider, 'application/json; charset=utf-8'],
      [provider, undefined],
    ]),
  )('%s with %s: stored and acknowledged', async (provider, type) => {
    const ref = provider === 'mpesa' ? `ws_CO_${randomBytes(6).toString('hex')}` : reference();
    const body = eventBody(provider, ref);
    const res = await postWebhook(provider, body, type ? { 'content-type': type } : {});
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true });
    expect(await rowsOf('SELECT provider FROM ingestion.webhook_inbox WHERE reference = $1 AND signature_valid', [ref])).toEqual([{ provider }]);
  });

  it('a body that is really absent is still an empty body', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/webhooks/paystack',
      headers: { 'content-type': 'text/plain', ...signedHeaders('paystack', t.secrets.paystack, '') },
    });
    expect(res.json()).toMatchObject({ status: 400, code: 'WEBHOOK.EMPTY_BODY' });
  });

  it('a badly signed body of any type is 401 with a WWW-Authenticate challenge', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/webhooks/paystack',
      payload: eventBody('paystack', reference()),
      headers: { 'content-type': 'text/plain', 'x-paystack-signature': 'ab'.repeat(64) },
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Signature realm="settle-webhooks"');
    expect(res.json()).toMatchObject({ code: 'WEBHOOK.SIGNATURE_INVALID' });
  });
});

describe('a correctly signed webhook with a repeated key (docs/webhooks.md, "Ambiguous bodies")', () => {
  it('is refused 400 and not stored as an event; each known checkout it names gets a REST verification', async () => {
    const known = reference();
    const unknown = reference();
    expect((await register(registration(known))).statusCode).toBe(202);
    const body = `{"event": "charge.success", "data": {"reference": "${known}", "amount": 5000, "reference": "${unknown}"}}`;
    const res = await postWebhook('paystack', body, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'REQUEST.DUPLICATE_KEY', errors: [{ path: '/data/reference' }] });
    expect(await rowsOf('SELECT reference FROM ingestion.webhook_inbox WHERE reference = ANY($1) AND signature_valid', [[known, unknown]])).toEqual([]);
    const requested = await rowsOf(
      `SELECT message_key, payload->>'trigger' AS trigger FROM ingestion.outbox WHERE event_type = 'VerificationRequested' AND message_key = ANY($1)`,
      [[known, unknown]],
    );
    expect(requested).toEqual([{ message_key: known, trigger: 'webhook_signature_rejected' }]);
    // The provider's retry of the same bytes requests nothing more.
    expect((await postWebhook('paystack', body, { 'content-type': 'application/json' })).statusCode).toBe(400);
    expect(await rowsOf(`SELECT 1 FROM ingestion.outbox WHERE event_type = 'VerificationRequested' AND message_key = $1`, [known])).toHaveLength(1);
  });

  it("keeps a provider's major-unit amounts as they are (100.00 is not ambiguous in a webhook)", async () => {
    const ref = reference();
    const body = `{"event": "charge.completed", "data": {"id": 77, "tx_ref": "${ref}", "status": "successful", "amount": 100.00}}`;
    const res = await postWebhook('flutterwave', body, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(200);
  });
});

describe('every 401 carries WWW-Authenticate', () => {
  it.each([
    ['POST', '/v1/checkouts', 'AUTH.MISSING_API_KEY'],
    ['GET', `/v1/checkouts/ref_x`, 'AUTH.MISSING_API_KEY'],
    ['POST', '/v1/admin/checkouts/ref_x/reconcile', 'AUTH.MISSING_API_KEY'],
  ])('%s %s', async (method, url, code) => {
    const res = await t.app.inject({ method: method as 'GET' | 'POST', url });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code });
    expect(res.headers['www-authenticate']).toBe('Bearer realm="settle"');
  });
});

describe('GET /metrics', () => {
  it("serves the default process metrics, and each request's latency under its route template, never its reference", async () => {
    const ref = reference();
    expect((await register(registration(ref))).statusCode).toBe(202);
    expect((await t.app.inject({ method: 'GET', url: `/v1/checkouts/${ref}`, headers: { authorization: t.apiAuthorization } })).statusCode).toBeLessThan(500);
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/^process_cpu_seconds_total \d/m);
    expect(res.body).toMatch(/^settle_http_request_duration_seconds_count\{method="POST",route="\/v1\/checkouts",status_code="202"\} [1-9]/m);
    expect(res.body).toMatch(/^settle_http_request_duration_seconds_count\{method="GET",route="\/v1\/checkouts\/:reference",status_code="\d{3}"\} 1$/m);
    expect(res.body).not.toContain(ref);
  });
});

describe('answers', () => {
  it('conform to the schemas of the OpenAPI document (docs/api/ingestion-openapi.json) on every route', async () => {
    const auth = { authorization: t.apiAuthorization };
    const ref = reference();
    expect((await register(registration(ref))).statusCode).toBe(202);
    const calls: Array<[method: 'GET' | 'POST', url: string, headers: Record<string, string>, status: number]> = [
      ['POST', `/v1/checkouts/${ref}/complete`, auth, 202],
      ['GET', `/v1/checkouts/${ref}`, auth, 200],
      ['POST', `/v1/checkouts/${ref}/verify?wait_ms=0`, auth, 200],
      ['POST', `/v1/checkouts/${ref}/attempts?wait_ms=0`, auth, 200],
      ['POST', `/v1/admin/checkouts/${ref}/reconcile?wait_ms=0`, { authorization: t.adminAuthorization }, 200],
      ['GET', '/v1/users/user-1/entitlements', auth, 200],
      ['GET', '/v1/admin/unmatched-payments', { authorization: t.adminAuthorization }, 200],
    ];
    for (const [method, url, headers, status] of calls) expect((await t.app.inject({ method, url, headers })).statusCode, url).toBe(status);
    expect(t.answers.violations).toEqual([]);
    expect([...t.answers.checked].sort()).toEqual([
      'GET /v1/admin/unmatched-payments',
      'GET /v1/checkouts/:reference',
      'GET /v1/users/:userId/entitlements',
      'POST /v1/admin/checkouts/:reference/reconcile',
      'POST /v1/checkouts',
      'POST /v1/checkouts/:reference/attempts',
      'POST /v1/checkouts/:reference/complete',
      'POST /v1/checkouts/:reference/verify',
      'POST /v1/webhooks/:provider',
      'POST /v1/webhooks/:provider/:token',
    ]);
  });
});

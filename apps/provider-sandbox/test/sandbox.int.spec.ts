import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSandboxConfig } from '../src/config.js';
import { createLogger } from '@settle/platform';
import { createSandboxApp, type SandboxApp } from '../src/app.js';

// Starts the sandbox's Nest app in-process on 127.0.0.1, port 0, with every provider
// configured and a local receiver for its webhooks, then drives one happy path per provider
// over HTTP. Secrets are generated per run.
const secrets = {
  paystack: `sk_test_${randomBytes(16).toString('hex')}`,
  stripe: `sk_test_${randomBytes(16).toString('hex')}`,
  stripeWebhook: `whsec_${randomBytes(24).toString('base64')}`,
  flutterwave: `FLWSECK_TEST-${randomBytes(16).toString('hex')}-X`,
  flutterwaveHash: randomBytes(16).toString('hex'),
  consumerKey: randomBytes(18).toString('base64url'),
  consumerSecret: randomBytes(12).toString('base64url'),
  passkey: randomBytes(32).toString('hex'),
  callbackToken: randomBytes(16).toString('hex'),
};
const TOKEN_TTL_MS = 1_000;

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let receiver: Server;
const received: Received[] = [];
let sandbox: SandboxApp;
let base: string;

async function call(method: string, path: string, options: { headers?: Record<string, string>; body?: unknown } = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const webhookAt = (prefix: string) => waitFor(`a webhook at ${prefix}`, () => received.find((r) => r.path.startsWith(prefix)));

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const config = loadSandboxConfig({
    PAYSTACK_SECRET_KEY: secrets.paystack,
    SANDBOX_WEBHOOK_URL: `${hooks}/paystack`,
    SANDBOX_TIMEOUT_HOLD_MS: '100',
    STRIPE_SECRET_KEY: secrets.stripe,
    STRIPE_WEBHOOK_SECRET: secrets.stripeWebhook,
    SANDBOX_STRIPE_WEBHOOK_URL: `${hooks}/stripe`,
    FLUTTERWAVE_SECRET_KEY: secrets.flutterwave,
    FLUTTERWAVE_SECRET_HASH: secrets.flutterwaveHash,
    SANDBOX_FLUTTERWAVE_WEBHOOK_URL: `${hooks}/flutterwave`,
    MPESA_CONSUMER_KEY: secrets.consumerKey,
    MPESA_CONSUMER_SECRET: secrets.consumerSecret,
    MPESA_PASSKEY: secrets.passkey,
    SANDBOX_MPESA_CALLBACK_URL: `${hooks}/mpesa/${secrets.callbackToken}`,
    SANDBOX_MPESA_TOKEN_TTL_MS: String(TOKEN_TTL_MS),
  });
  sandbox = await createSandboxApp(config, createLogger('provider-sandbox-test', 'silent'));
  await sandbox.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(sandbox.app.getHttpServer().address() as AddressInfo).port}`;
});

afterAll(async () => {
  await sandbox?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('provider sandbox over HTTP', () => {
  it('Paystack: unchanged control API, verify and signed charge.success', async () => {
    const reference = `ref_${randomBytes(6).toString('hex')}`;
    expect(
      (await call('POST', '/_sandbox/paystack/transactions', { body: { reference, amount: 40_000, currency: 'NGN', email: 'ada@example.com' } })).status,
    ).toBe(201);
    expect((await call('POST', `/_sandbox/paystack/transactions/${reference}/pay`)).status).toBe(200);
    const verified = await call('GET', `/transaction/verify/${reference}`, { headers: { authorization: `Bearer ${secrets.paystack}` } });
    expect(verified).toMatchObject({ status: 200, body: { status: true, data: { status: 'success', amount: 40_000 } } });
    const hook = await webhookAt('/paystack');
    expect(hook.headers['x-paystack-signature']).toBe(createHmac('sha512', secrets.paystack).update(hook.body).digest('hex'));
    const view = await waitFor('webhooksSent', async () => {
      const v = await call('GET', `/_sandbox/paystack/transactions/${reference}`);
      return v.body.webhooksSent === 1 ? v : undefined;
    });
    expect(view.body).toMatchObject({ reference, paid: true, verifyCalls: 1 });
    expect((await call('GET', '/_sandbox/health')).body).toMatchObject({ status: 'ok', transactions: 1, providers: { stripe: { transactions: 0 } } });
  });

  it('Stripe: PaymentIntent retrieval with the secret key and a Stripe-Signature event', async () => {
    const created = await call('POST', '/_sandbox/stripe/transactions', { body: { amount: 2_000, currency: 'USD', email: 'ada@example.com' } });
    expect(created.status).toBe(201);
    const id: string = created.body.reference;
    expect(id).toMatch(/^pi_/);
    expect((await call('GET', `/v1/payment_intents/${id}`, { headers: { authorization: `Bearer sk_test_${randomBytes(16).toString('hex')}` } })).status).toBe(
      401,
    );
    expect((await call('GET', '/v1/payment_intents/pi_missing', { headers: { authorization: `Bearer ${secrets.stripe}` } })).body).toMatchObject({
      error: { code: 'resource_missing' },
    });
    await call('POST', `/_sandbox/stripe/transactions/${id}/pay`);
    const intent = await call('GET', `/v1/payment_intents/${id}`, { headers: { authorization: `Bearer ${secrets.stripe}` } });
    expect(intent).toMatchObject({ status: 200, body: { id, object: 'payment_intent', status: 'succeeded', amount_received: 2_000, currency: 'usd' } });
    const hook = await webhookAt('/stripe');
    const header = String(hook.headers['stripe-signature']);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) ?? [];
    const expected = createHmac('sha256', secrets.stripeWebhook).update(`${t}.${hook.body}`).digest();
    expect(v1).toBeDefined();
    expect(timingSafeEqual(Buffer.from(v1!, 'hex'), expected)).toBe(true);
    expect(Math.abs(Date.now() / 1000 - Number(t))).toBeLessThan(300);
    expect(JSON.parse(hook.body)).toMatchObject({ type: 'payment_intent.succeeded', data: { object: { id } } });
  });

  it('Stripe: an injected time-out holds the connection, then answers 504', async () => {
    const created = await call('POST', '/_sandbox/stripe/transactions', {
      body: { amount: 2_000, currency: 'USD', email: 'ada@example.com', behaviour: { failures: { mode: 'timeout', times: 1 } } },
    });
    const started = Date.now();
    const answer = await call('GET', `/v1/payment_intents/${created.body.reference}`, { headers: { authorization: `Bearer ${secrets.stripe}` } });
    expect(answer.status).toBe(504);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  it('Flutterwave: verify by tx_ref and by id in major units, and a verif-hash webhook', async () => {
    const reference = `tx_${randomBytes(6).toString('hex')}`;
    const created = await call('POST', '/_sandbox/flutterwave/transactions', {
      body: { reference, amount: 12_345, currency: 'NGN', email: 'ada@example.com' },
    });
    expect(created.status).toBe(201);
    const auth = { authorization: `Bearer ${secrets.flutterwave}` };
    expect((await call('GET', `/v3/transactions/verify_by_reference?tx_ref=${reference}`, { headers: auth })).status).toBe(400);
    await call('POST', `/_sandbox/flutterwave/transactions/${reference}/pay`);
    const byRef = await call('GET', `/v3/transactions/verify_by_reference?tx_ref=${reference}`, { headers: auth });
    expect(byRef).toMatchObject({
      status: 200,
      body: { status: 'success', data: { tx_ref: reference, amount: 123.45, currency: 'NGN', status: 'successful' } },
    });
    const byId = await call('GET', `/v3/transactions/${created.body.id}/verify`, { headers: auth });
    expect(byId.body.data.id).toBe(created.body.id);
    expect((await call('GET', '/v3/transactions/1/verify', { headers: auth })).body).toEqual({
      status: 'error',
      message: 'No transaction was found for this id',
      data: null,
    });
    const hook = await webhookAt('/flutterwave');
    expect(hook.headers['verif-hash']).toBe(secrets.flutterwaveHash);
    expect(JSON.parse(hook.body)).toMatchObject({ event: 'charge.completed', data: { tx_ref: reference, status: 'successful' } });
  });

  it('M-Pesa: OAuth, STK query with the password scheme, callback to the tokened URL, and token expiry', async () => {
    const basic = `Basic ${Buffer.from(`${secrets.consumerKey}:${secrets.consumerSecret}`).toString('base64')}`;
    const token = async () => {
      const answer = await call('GET', '/oauth/v1/generate?grant_type=client_credentials', { headers: { authorization: basic } });
      expect(answer.body.expires_in).toBe(String(Math.floor(TOKEN_TTL_MS / 1000)));
      return answer.body.access_token as string;
    };
    const timestamp = '20260304080607';
    const query = async (checkoutRequestId: string, bearer: string) =>
      call('POST', '/mpesa/stkpushquery/v1/query', {
        headers: { authorization: `Bearer ${bearer}` },
        body: {
          BusinessShortCode: '174379',
          Password: Buffer.from(`174379${secrets.passkey}${timestamp}`).toString('base64'),
          Timestamp: timestamp,
          CheckoutRequestID: checkoutRequestId,
        },
      });

    const created = await call('POST', '/_sandbox/mpesa/transactions', { body: { amount: 150_000, currency: 'KES', phone: '254712345678' } });
    expect(created.status).toBe(201);
    const checkoutRequestId: string = created.body.reference;
    expect(checkoutRequestId).toMatch(/^ws_CO_/);
    expect((await query(checkoutRequestId, await token())).body).toMatchObject({ errorCode: '500.001.1001' });
    await call('POST', `/_sandbox/mpesa/transactions/${checkoutRequestId}/pay`);
    const answered = await query(checkoutRequestId, await token());
    expect(answered).toMatchObject({ status: 200, body: { ResponseCode: '0', CheckoutRequestID: checkoutRequestId, ResultCode: '0' } });
    const hook = await webhookAt(`/mpesa/${secrets.callbackToken}`);
    expect(JSON.parse(hook.body).Body.stkCallback).toMatchObject({
      CheckoutRequestID: checkoutRequestId,
      ResultCode: 0,
      CallbackMetadata: {
        Item: expect.arrayContaining([
          { Name: 'Amount', Value: 1500 },
          { Name: 'PhoneNumber', Value: 254712345678 },
        ]),
      },
    });

    // The token dies after its lifetime; a new one works.
    const issuedAt = Date.now();
    const expiring = await token();
    expect((await query(checkoutRequestId, expiring)).status).toBe(200);
    const expired = await waitFor('the token to expire', async () => {
      const answer = await query(checkoutRequestId, expiring);
      return answer.status === 401 ? answer : undefined;
    });
    expect(Date.now() - issuedAt).toBeGreaterThanOrEqual(TOKEN_TTL_MS - 50);
    expect(expired.body).toMatchObject({ errorCode: '404.001.03', errorMessage: 'Invalid Access Token' });
    expect((await query(checkoutRequestId, await token())).status).toBe(200);

    // And on demand, through the control API.
    const live = await token();
    expect((await call('POST', '/_sandbox/mpesa/oauth/expire')).body.expired).toBeGreaterThanOrEqual(1);
    expect((await query(checkoutRequestId, live)).status).toBe(401);
  });

  it("answers an unknown route under a provider's API in that provider's error shape, and the framework's 404 elsewhere", async () => {
    const stripe = await call('GET', '/v1/no_such_resource', { headers: { authorization: `Bearer ${secrets.stripe}` } });
    expect(stripe).toMatchObject({
      status: 404,
      body: { error: { type: 'invalid_request_error', message: expect.stringContaining('Unrecognized request URL (GET: /v1/no_such_resource)') } },
    });
    expect(await call('POST', '/charge')).toEqual({ status: 404, body: { status: false, message: 'No route found for POST /charge' } });
    expect(await call('GET', '/transaction/verify')).toMatchObject({ status: 404, body: { status: false, message: expect.any(String) } });
    expect(await call('GET', '/v3/no_such_resource')).toEqual({
      status: 404,
      body: { status: 'error', message: 'No route found for GET /v3/no_such_resource', data: null },
    });
    expect(await call('GET', '/elsewhere')).toMatchObject({ status: 404, body: { statusCode: 404, error: 'Not Found' } });
    // A route's own 404 is its own: the control API's unknown transaction.
    expect(await call('GET', '/_sandbox/stripe/transactions/pi_missing')).toEqual({ status: 404, body: { error: 'not found' } });
  });

  it("routes Flutterwave's //v3/... (its Node client's paths) as /v3/...", async () => {
    const reference = `tx_${randomBytes(6).toString('hex')}`;
    const created = await call('POST', '/_sandbox/flutterwave/transactions', { body: { reference, amount: 5_000, currency: 'NGN', email: 'ada@example.com' } });
    await call('POST', `/_sandbox/flutterwave/transactions/${reference}/pay`);
    const auth = { authorization: `Bearer ${secrets.flutterwave}` };
    expect(await call('GET', `//v3/transactions/${created.body.id}/verify`, { headers: auth })).toMatchObject({
      status: 200,
      body: { data: { tx_ref: reference } },
    });
    expect(await call('GET', `//v3/transactions/verify_by_reference?tx_ref=${reference}`, { headers: auth })).toMatchObject({
      status: 200,
      body: { data: { id: created.body.id } },
    });
    expect(await call('GET', '//v3/no_such_resource', { headers: auth })).toMatchObject({ status: 404, body: { status: 'error', data: null } });
  });

  it('answers 503 for a provider without credentials', async () => {
    const bare = await createSandboxApp(
      loadSandboxConfig({ PAYSTACK_SECRET_KEY: secrets.paystack, SANDBOX_WEBHOOK_URL: 'http://127.0.0.1:9/paystack' }),
      createLogger('provider-sandbox-test', 'silent'),
    );
    await bare.app.listen(0, '127.0.0.1');
    try {
      const url = `http://127.0.0.1:${(bare.app.getHttpServer().address() as AddressInfo).port}`;
      const stripe = await fetch(`${url}/v1/payment_intents/pi_x`, { headers: { authorization: 'Bearer sk_test_x' } });
      expect(stripe.status).toBe(503);
      expect(await stripe.json()).toMatchObject({ error: 'provider_not_configured', message: expect.stringContaining('STRIPE_SECRET_KEY') });
      expect((await fetch(`${url}/oauth/v1/generate?grant_type=client_credentials`)).status).toBe(503);
      expect((await fetch(`${url}/v3/transactions/1/verify`)).status).toBe(503);
      expect((await fetch(`${url}/_sandbox/mpesa/transactions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(
        503,
      );
      expect(
        (await fetch(`${url}/_sandbox/nowhere/transactions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status,
      ).toBe(404);
    } finally {
      await bare.close();
    }
  });
});

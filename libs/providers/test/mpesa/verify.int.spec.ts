import { Secret } from '@settle/config';
import { afterEach, describe, expect, it } from 'vitest';
import { MpesaProvider, ProviderMetrics } from '@settle/providers';
import { Registry } from 'prom-client';
import { expectation } from '../fixtures.js';
import { sendJson, startLocalServer, type LocalServer } from '../local-server.js';

const SHORTCODE = '174379';
const PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';
const CHECKOUT = 'ws_CO_191220191020363925';

let server: LocalServer | undefined;
const providers: MpesaProvider[] = [];

afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
  await server?.close();
  server = undefined;
});

/** A Daraja stand-in: issues `token-1`, `token-2`, ... and answers queries with `query(token)`. */
async function daraja(query: (token: string, body: Record<string, unknown>) => { status: number; body: unknown }) {
  let issued = 0;
  server = await startLocalServer((req, res) => {
    if (req.url === '/oauth/v1/generate?grant_type=client_credentials') {
      issued += 1;
      return sendJson(res, 200, { access_token: `token-${issued}`, expires_in: '3599' });
    }
    if (req.method === 'POST' && req.url === '/mpesa/stkpushquery/v1/query') {
      const answer = query(String(req.headers.authorization).replace(/^Bearer /, ''), JSON.parse(req.body) as Record<string, unknown>);
      return sendJson(res, answer.status, answer.body);
    }
    sendJson(res, 404, { errorMessage: 'no route' });
  });
  return server;
}

const paid = {
  status: 200,
  body: {
    ResponseCode: '0',
    ResponseDescription: 'accepted',
    MerchantRequestID: '22205-34066-1',
    CheckoutRequestID: CHECKOUT,
    ResultCode: '0',
    ResultDesc: 'The service request is processed successfully.',
  },
};
const invalidToken = { status: 404, body: { requestId: 'r1', errorCode: '404.001.03', errorMessage: 'Invalid Access Token' } };

function mpesa(baseUrl: string, clock: { now: number }, metrics?: ProviderMetrics): MpesaProvider {
  const provider = new MpesaProvider({
    baseUrl,
    consumerKey: new Secret('consumer-key'),
    consumerSecret: new Secret('consumer-secret'),
    businessShortCode: SHORTCODE,
    passKey: new Secret(PASSKEY),
    timeoutMs: 2000,
    retry: { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 5 },
    now: () => clock.now,
    metrics,
  });
  providers.push(provider);
  return provider;
}

const request = { reference: CHECKOUT, expectation: expectation() };
const tokenCalls = () => server!.requests.filter((r) => r.url.startsWith('/oauth/')).length;
const queryCalls = () => server!.requests.filter((r) => r.url.startsWith('/mpesa/')).length;

describe('M-Pesa adapter over HTTP (Daraja OAuth + STK query)', () => {
  it('sends Basic credentials, then the query with Bearer token, shortcode, Password and Nairobi Timestamp', async () => {
    const clock = { now: Date.parse('2024-01-31T21:30:05Z') };
    await daraja(() => paid);
    const verdict = await mpesa(server!.baseUrl, clock).verify(request);
    expect(verdict).toEqual({
      kind: 'cleared',
      observation: {
        reference: CHECKOUT,
        amountMinor: 150_000,
        currency: 'KES',
        customer: { phone: '+254712345678' },
        providerTransactionId: '22205-34066-1',
        providerStatus: '0',
      },
    });
    const [oauth, query] = server!.requests;
    expect(oauth!.headers.authorization).toBe(`Basic ${Buffer.from('consumer-key:consumer-secret').toString('base64')}`);
    expect(query!.headers.authorization).toBe('Bearer token-1');
    expect(JSON.parse(query!.body)).toEqual({
      BusinessShortCode: SHORTCODE,
      Password: Buffer.from(`${SHORTCODE}${PASSKEY}20240201003005`).toString('base64'),
      Timestamp: '20240201003005',
      CheckoutRequestID: CHECKOUT,
    });
  });

  it('observes the token and the query calls apart, by operation', async () => {
    await daraja(() => paid);
    const metrics = new ProviderMetrics(new Registry());
    const provider = mpesa(server!.baseUrl, { now: Date.parse('2024-01-31T21:30:05Z') }, metrics);
    await provider.verify(request);
    await provider.verify(request);
    const counts = (await metrics.callDuration.get()).values
      .filter((v) => v.metricName === 'settle_provider_request_duration_seconds_count')
      .map((v) => [v.labels.provider, v.labels.operation, v.labels.outcome, v.value]);
    expect(counts).toEqual([
      ['mpesa', 'token', 'answered', 1],
      ['mpesa', 'verify', 'answered', 2],
    ]);
  });

  it('caches the token until shortly before expires_in, then fetches a new one', async () => {
    const clock = { now: Date.parse('2024-01-31T21:30:05Z') };
    const tokens: string[] = [];
    await daraja((token) => (tokens.push(token), paid));
    const provider = mpesa(server!.baseUrl, clock);
    await Promise.all([provider.verify(request), provider.verify(request)]);
    clock.now += 3_599_000 - 60_000 - 1;
    await provider.verify(request);
    expect(tokenCalls()).toBe(1);
    clock.now += 1;
    await provider.verify(request);
    expect(tokenCalls()).toBe(2);
    expect(tokens).toEqual(['token-1', 'token-1', 'token-1', 'token-2']);
  });

  it.each([
    ['404.001.03', invalidToken],
    ['401', { status: 401, body: { errorCode: '401.002.01', errorMessage: 'Error Occurred - Invalid Access Token' } }],
  ])('a rejected token (%s) is refreshed once and the query repeated', async (_label, rejection) => {
    await daraja((token) => (token === 'token-1' ? rejection : paid));
    const verdict = await mpesa(server!.baseUrl, { now: Date.now() }).verify(request);
    expect(verdict.kind).toBe('cleared');
    expect(tokenCalls()).toBe(2);
    expect(queryCalls()).toBe(2);
  });

  it('a token still rejected after the refresh is AUTH_REJECTED, with no further refresh', async () => {
    await daraja(() => invalidToken);
    expect(await mpesa(server!.baseUrl, { now: Date.now() }).verify(request)).toEqual({ kind: 'unreachable', cause: 'PROVIDER.AUTH_REJECTED' });
    expect(tokenCalls()).toBe(2);
    expect(queryCalls()).toBe(2);
  });

  it('500.001.1001 "being processed" is clearing, answered at once (not retried)', async () => {
    await daraja(() => ({ status: 500, body: { requestId: 'r', errorCode: '500.001.1001', errorMessage: 'The transaction is being processed' } }));
    expect(await mpesa(server!.baseUrl, { now: Date.now() }).verify(request)).toEqual({ kind: 'clearing', providerStatus: '500.001.1001' });
    expect(queryCalls()).toBe(1);
  });

  it('rejected consumer credentials are AUTH_REJECTED, not retried, and no query is sent', async () => {
    server = await startLocalServer((req, res) =>
      sendJson(res, 400, { requestId: 'r', errorCode: '400.008.01', errorMessage: 'Invalid Authentication passed' }),
    );
    expect(await mpesa(server.baseUrl, { now: Date.now() }).verify(request)).toEqual({ kind: 'unreachable', cause: 'PROVIDER.AUTH_REJECTED' });
    expect(server.requests).toHaveLength(1);
  });

  it('a 503 from Daraja is retried', async () => {
    let calls = 0;
    await daraja(() => (++calls === 1 ? { status: 503, body: 'down' } : paid));
    expect((await mpesa(server!.baseUrl, { now: Date.now() }).verify(request)).kind).toBe('cleared');
    expect(queryCalls()).toBe(2);
    expect(tokenCalls()).toBe(1);
  });
});

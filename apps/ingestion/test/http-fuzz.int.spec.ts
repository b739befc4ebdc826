/**
 * Fuzzing of ingestion's public HTTP API, the app built in-process over a real PostgreSQL
 * (docs/reliability.md, "Hardening against abuse"): checkout registration, a checkout's
 * complete, status, verify and attempts, every provider's webhooks (signed and not, any content
 * type), the admin reconciliation, entitlements, and any method on any path, with strings,
 * path segments, query values and headers that hold NUL, lone surrogates, other control
 * characters or are very long (libs/testing/src/http-fuzz.ts). Every answer is
 * below 500 and every 4xx an RFC 9457 problem with a stable code (`expectWellFormedAnswer`);
 * every success of a documented route conforms to the OpenAPI document.
 * Bounded for CI; `SETTLE_FUZZ_RUNS`, `SETTLE_FUZZ_TIME_MS` and `SETTLE_FUZZ_SEED` make a longer
 * run or replay one (libs/testing/src/http-fuzz.ts). Then the largest accepted bodies, sent
 * repeatedly, leave the heap where it was (loosely: a retained body or syntax tree per request
 * would be far over the bound).
 */
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PROVIDERS, type ProviderName } from '@settle/domain';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bodyArb,
  contentTypeArb,
  expectWellFormedAnswer,
  extraHeadersArb,
  fuzzBounds,
  fuzzParameters,
  hostileFieldArb,
  hostileStringArb,
  pathSegmentArb,
  percentEncoded,
  queryValueArb,
  type FuzzAnswer,
  type FuzzRequest,
} from '@settle/testing';
import { signedHeaders, startIngestionTestApp, webhookUrl, type IngestionTestApp } from './ingestion-test-app.js';

let t: IngestionTestApp;
const bounds = fuzzBounds('ingestion');

beforeAll(async () => {
  t = await startIngestionTestApp();
});

afterAll(async () => {
  await t?.close();
});

async function send(request: FuzzRequest): Promise<FuzzAnswer> {
  const res = await t.app.inject({
    method: request.method,
    url: request.url,
    headers: request.headers,
    ...(request.payload ? { payload: request.payload } : {}),
  });
  return { statusCode: res.statusCode, headers: res.headers, body: res.body };
}

async function expectWellFormed(request: FuzzRequest): Promise<FuzzAnswer> {
  const answer = await send(request);
  expectWellFormedAnswer(request, answer);
  return answer;
}

/** Which credentials a request carries. */
const authArb = fc.constantFrom<'api' | 'admin' | 'none' | 'wrong' | 'garbage'>('api', 'api', 'admin', 'none', 'wrong', 'garbage');

function authorization(kind: 'api' | 'admin' | 'none' | 'wrong' | 'garbage'): Record<string, string> {
  switch (kind) {
    case 'api':
      return { authorization: t.apiAuthorization };
    case 'admin':
      return { authorization: t.adminAuthorization };
    case 'none':
      return {};
    case 'wrong':
      return { authorization: `Bearer ${randomBytes(8).toString('hex')}` };
    case 'garbage':
      return { authorization: 'Basic Og==, Bearer' };
  }
}

const headersOf = (contentType: string | undefined, extra: Record<string, string>, auth: Record<string, string>) => ({
  ...extra,
  ...(contentType === undefined ? {} : { 'content-type': contentType }),
  ...auth,
});

const waitMsArb = fc.oneof(fc.constantFrom('0', '', 'x', '-1', '1.5', '99999999', '1e2', '0x10', '%20', 'Infinity', '%00'), queryValueArb);

/** Registrations of the API's shape, valid and not. */
const registrationArb = fc.record({
  provider: fc.oneof(fc.constantFrom(...PROVIDERS), fc.string({ maxLength: 12 })),
  reference: fc.oneof(fc.stringMatching(/^ref_[a-z0-9]{6,20}$/), fc.string({ maxLength: 120 })),
  amount: fc.oneof(fc.integer({ min: -10, max: 10_000_000 }), fc.double(), fc.string({ maxLength: 8 })),
  currency: fc.constantFrom('NGN', 'USD', 'KES', 'ngn', 'XXX', 'ABCD', ''),
  user_id: fc.string({ maxLength: 30 }),
  customer: fc.oneof(
    fc.record({ email: fc.constantFrom('payer@example.com', 'not-an-email', '') }),
    fc.record({ phone: fc.constantFrom('+2348012345678', '0801', '') }),
  ),
  entitlement: fc.string({ maxLength: 20 }),
  access_period: fc.constantFrom('P1M', 'P30D', 'P1Y', 'P100Y', 'forever', ''),
});

/** Webhook events of each provider's shape. */
function eventArb(provider: ProviderName): fc.Arbitrary<Record<string, unknown>> {
  const ref = fc.oneof(fc.stringMatching(/^ref_[a-z0-9]{6,16}$/), fc.string({ maxLength: 30 }));
  switch (provider) {
    case 'paystack':
      return fc.record({ event: fc.constantFrom('charge.success', 'charge.failed', ''), data: fc.record({ reference: ref, amount: fc.integer() }) });
    case 'stripe':
      return fc.record({
        id: fc.stringMatching(/^evt_[a-z0-9]{8}$/),
        type: fc.constantFrom('payment_intent.succeeded', 'x'),
        data: fc.record({ object: fc.record({ id: ref }) }),
      });
    case 'flutterwave':
      return fc.record({
        event: fc.constant('charge.completed'),
        data: fc.record({ id: fc.integer(), tx_ref: ref, status: fc.constantFrom('successful', 'failed'), amount: fc.double() }),
      });
    case 'mpesa':
      return fc.record({
        Body: fc.record({
          stkCallback: fc.record({
            CheckoutRequestID: fc.oneof(fc.stringMatching(/^ws_CO_[0-9]{6,12}$/), ref),
            ResultCode: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })),
          }),
        }),
      });
  }
}

describe(`ingestion's public API under fuzzing (seed ${bounds.seed})`, () => {
  it('POST /v1/checkouts: any body, content type, credentials and headers', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb(registrationArb), contentTypeArb, extraHeadersArb, authArb, async (payload, type, extra, auth) => {
        await expectWellFormed({ method: 'POST', url: '/v1/checkouts', payload, headers: headersOf(type, extra, authorization(auth)) });
      }),
      fuzzParameters(bounds),
    );
  });

  it('a checkout by reference: complete, status, verify, attempts, admin reconcile, entitlements', async () => {
    const routes = fc.constantFrom(
      { method: 'POST' as const, path: (r: string, w: string) => `/v1/checkouts/${r}/complete?wait_ms=${w}` },
      { method: 'GET' as const, path: (r: string) => `/v1/checkouts/${r}` },
      { method: 'POST' as const, path: (r: string, w: string) => `/v1/checkouts/${r}/verify?wait_ms=${w}` },
      { method: 'POST' as const, path: (r: string, w: string) => `/v1/checkouts/${r}/attempts?wait_ms=${w}` },
      { method: 'POST' as const, path: (r: string, w: string) => `/v1/admin/checkouts/${r}/reconcile?wait_ms=${w}` },
      { method: 'GET' as const, path: (r: string) => `/v1/users/${r}/entitlements` },
    );
    await fc.assert(
      fc.asyncProperty(
        routes,
        pathSegmentArb,
        waitMsArb,
        authArb,
        extraHeadersArb,
        fc.option(bodyArb(registrationArb)),
        contentTypeArb,
        async (route, segment, wait, auth, extra, payload, type) => {
          await expectWellFormed({
            method: route.method,
            url: route.path(segment, wait),
            headers: headersOf(payload ? type : undefined, extra, authorization(auth)),
            ...(payload && route.method === 'POST' ? { payload } : {}),
          });
        },
      ),
      fuzzParameters(bounds),
    );
  });

  it('valid, authenticated requests with hostile text in one place: a body field or key, a path segment, a query value, a header', async () => {
    const json = { 'content-type': 'application/json' };
    const validRegistration = fc.record({
      provider: fc.constant('paystack'),
      reference: fc.stringMatching(/^ref_[a-z0-9]{8,16}$/),
      amount: fc.integer({ min: 100, max: 10_000_000 }),
      currency: fc.constant('NGN'),
      user_id: fc.stringMatching(/^user-[a-z0-9]{4,10}$/),
      customer: fc.constant({ email: 'payer@example.com' }),
      entitlement: fc.constant('pro'),
      access_period: fc.constantFrom('P1M', 'P1Y'),
    });
    const byReference = [
      (r: string, q: string) => ({ method: 'POST' as const, url: `/v1/checkouts/${r}/complete?wait_ms=${q}`, admin: false }),
      (r: string) => ({ method: 'GET' as const, url: `/v1/checkouts/${r}`, admin: false }),
      (r: string, q: string) => ({ method: 'POST' as const, url: `/v1/checkouts/${r}/verify?wait_ms=${q}`, admin: false }),
      (r: string, q: string) => ({ method: 'POST' as const, url: `/v1/checkouts/${r}/attempts?wait_ms=${q}`, admin: false }),
      (r: string, q: string) => ({ method: 'POST' as const, url: `/v1/admin/checkouts/${r}/reconcile?wait_ms=${q}`, admin: true }),
      (r: string) => ({ method: 'GET' as const, url: `/v1/users/${r}/entitlements`, admin: false }),
    ];
    const request: fc.Arbitrary<FuzzRequest> = fc.oneof(
      fc.tuple(hostileFieldArb(validRegistration), extraHeadersArb).map(([body, extra]) => ({
        method: 'POST' as const,
        url: '/v1/checkouts',
        payload: Buffer.from(JSON.stringify(body)),
        headers: { ...extra, ...json, ...authorization('api') },
      })),
      fc.tuple(fc.constantFrom(...byReference), hostileStringArb(), fc.boolean(), extraHeadersArb).map(([route, text, inPath, extra]) => {
        const r = route(inPath ? percentEncoded(text) : 'ref_fuzzknown', inPath ? '0' : percentEncoded(text));
        return { method: r.method, url: r.url, headers: { ...extra, ...authorization(r.admin ? 'admin' : 'api') } };
      }),
    );
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        await expectWellFormed(r);
      }),
      // Four times the runs: one place of many is hostile, and each request is cheap.
      { ...fuzzParameters(bounds), numRuns: bounds.numRuns * 4 },
    );
  });

  it.each(PROVIDERS)('POST the %s webhook: signed and unsigned bodies of any content type', async (provider) => {
    const signing = fc.constantFrom<'valid' | 'none' | 'forged'>('valid', 'valid', 'none', 'forged');
    await fc.assert(
      fc.asyncProperty(bodyArb(eventArb(provider)), signing, contentTypeArb, extraHeadersArb, async (payload, sign, type, extra) => {
        const text = payload.toString('latin1');
        const signature =
          sign === 'valid'
            ? signedHeaders(provider, t.secrets[provider], text)
            : sign === 'forged'
              ? signedHeaders(provider, `forged-${randomBytes(8).toString('hex')}`, text)
              : {};
        const url = provider === 'mpesa' && sign !== 'valid' ? `/v1/webhooks/mpesa/${randomBytes(8).toString('hex')}` : webhookUrl(provider, t.secrets);
        const answer = await expectWellFormed({ method: 'POST', url, payload, headers: { ...headersOf(type, extra, {}), ...signature } });
        // An unsigned or forged body is never accepted: refused for its signature, or before it is
        // read at all (an empty body 400 WEBHOOK.EMPTY_BODY, a wrong M-Pesa token 404, too large
        // 413, a header holding a NUL 400 REQUEST.INVALID_CHARACTER at the edge).
        const atEdge = answer.statusCode === 400 && (JSON.parse(answer.body) as { code?: string }).code === 'REQUEST.INVALID_CHARACTER';
        if (sign !== 'valid' && !atEdge) expect(payload.length === 0 ? [400, 404] : [401, 403, 404, 413]).toContain(answer.statusCode);
      }),
      fuzzParameters(bounds),
    );
  });

  it('any method on any path', async () => {
    const method = fc.constantFrom<FuzzRequest['method']>('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS');
    const prefix = fc.constantFrom('/v1/checkouts', '/v1/webhooks', '/v1/admin/checkouts', '/v1/users', '/health', '/metrics', '', '/v2');
    await fc.assert(
      fc.asyncProperty(
        method,
        prefix,
        fc.array(pathSegmentArb, { maxLength: 4 }),
        authArb,
        fc.option(bodyArb(registrationArb)),
        contentTypeArb,
        async (m, p, segments, auth, payload, type) => {
          const canHaveBody = m !== 'GET' && m !== 'HEAD';
          await expectWellFormed({
            method: m,
            url: [p, ...segments].join('/') || '/',
            headers: headersOf(payload && canHaveBody ? type : undefined, {}, authorization(auth)),
            ...(payload && canHaveBody ? { payload } : {}),
          });
        },
      ),
      fuzzParameters(bounds),
    );
  });

  it('answered every success of a documented route as the OpenAPI document states (docs/api/ingestion-openapi.json)', () => {
    expect(t.answers.violations).toEqual([]);
    expect(t.answers.checked.size).toBeGreaterThan(0);
  });
});

/** The V8 garbage collector, exposed for this check only. */
function collectGarbage(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('the largest accepted bodies, sent repeatedly', () => {
  it('leave the heap where it was (loose bound: a retained body per request would exceed it)', async () => {
    const gc = collectGarbage();
    const limit = t.bodyLimitBytes;
    // Just under the limit: a long string, the widest array of numbers (the most syntax nodes), a signed webhook.
    const padded = Buffer.from(JSON.stringify({ reference: 'ref_mem', pad: 'x'.repeat(limit - 64) }));
    const numbers = Buffer.from(`[${Array.from({ length: Math.floor((limit - 2) / 2) }, () => '1').join(',')}]`);
    const requests = (round: number): FuzzRequest[] => {
      const event = JSON.stringify({ event: 'charge.success', data: { reference: `ref_mem_${round}`, pad: 'y'.repeat(limit - 120) } });
      return [
        { method: 'POST', url: '/v1/checkouts', payload: padded, headers: { 'content-type': 'application/json', authorization: t.apiAuthorization } },
        { method: 'POST', url: '/v1/checkouts', payload: numbers, headers: { 'content-type': 'application/json', authorization: t.apiAuthorization } },
        {
          method: 'POST',
          url: '/v1/webhooks/paystack',
          payload: Buffer.from(event),
          headers: { 'content-type': 'application/json', ...signedHeaders('paystack', t.secrets.paystack, event) },
        },
      ];
    };
    expect(padded.length).toBeLessThanOrEqual(limit);
    expect(numbers.length).toBeLessThanOrEqual(limit);
    const statuses = new Set<number>();
    const run = async (from: number, rounds: number) => {
      for (let round = from; round < from + rounds; round++) {
        for (const request of requests(round)) statuses.add((await expectWellFormed(request)).statusCode);
      }
    };
    await run(0, 10);
    gc();
    const before = process.memoryUsage().heapUsed;
    const rounds = 80;
    await run(10, rounds);
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    const sentBytes = rounds * (padded.length + numbers.length + limit);
    console.log(`[memory] sent ${(sentBytes / 2 ** 20).toFixed(0)} MiB in ${rounds * 3} requests; heap grew ${(grown / 2 ** 20).toFixed(1)} MiB`);
    // Every request was read in full: the checkouts refused by validation, the webhooks stored.
    expect([...statuses].sort()).toEqual([200, 400]);
    expect(grown).toBeLessThan(sentBytes / 2);
  });
});

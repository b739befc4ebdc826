/**
 * Fuzzing of the dispatcher's admin API, the app built in-process over a real PostgreSQL
 * (docs/reliability.md, "Hardening against abuse"): endpoints (create, list, read, update,
 * delete, enable, disable, rotate-secret, recover), an event's deliveries and resend, the
 * deliveries list, and any method on any path, with strings, ids, query values and headers that
 * hold NUL, lone surrogates, other control characters or are very long. Every answer is below 500 and every 4xx an
 * RFC 9457 problem with a stable code; a 401 carries `WWW-Authenticate`. Bounded like
 * ingestion's (libs/testing/src/http-fuzz.ts: `SETTLE_FUZZ_RUNS`, `SETTLE_FUZZ_TIME_MS`,
 * `SETTLE_FUZZ_SEED`). Nothing is delivered: no scheduler runs, so no endpoint URL is ever called.
 * Every successful answer, fuzzed or not, conforms to the OpenAPI document
 * (docs/api/dispatcher-openapi.json; libs/testing/src/answer-conformance.ts), and a last pass
 * reaches every route's success.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AvroCodec, Outbox, topicNames } from '@settle/messaging';
import { LEDGER_MIGRATIONS, PostgresReceiptProofs } from '@settle/ledger';
import { createPool, HealthProbes, migrateSchemas, postgresProbe, type Pool } from '@settle/platform';
import { CredentialsVault, generateKey, MasterKeyRing, PostgresVaultStore, vaultMigrations } from '@settle/vault';
import fc from 'fast-check';
import { pino } from 'pino';
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
  type FuzzRequest,
  watchAnswers,
  type AnswerConformance,
  createTestDatabase,
  infra,
} from '@settle/testing';
import { DeliveryAdmin } from '../src/deliveries/delivery-admin.js';
import { DeliveryRepository } from '../src/deliveries/delivery.repository.js';
import { DispatcherMetrics } from '../src/dispatcher.metrics.js';
import { EndpointSecrets } from '../src/endpoints/endpoint-secrets.js';
import { EndpointRepository } from '../src/endpoints/endpoint.repository.js';
import { EndpointService } from '../src/endpoints/endpoint.service.js';
import { ADMIN_API_CONTROLLERS, createAdminApi } from '../src/http/admin-api.module.js';
import { dispatcherOpenApiDocument } from '../src/http/openapi/document.js';
import { DISPATCHER_MIGRATIONS, ENDPOINT_VAULT_SCHEMA } from '../src/schema.js';
import { entitlementGrant } from './entitlement-events.js';

const bounds = fuzzBounds('dispatcher');
const ADMIN_KEY = `admin-${randomBytes(12).toString('hex')}`;

let pool: Pool;
let drop: () => Promise<void>;
let app: NestFastifyApplication;
let answers: AnswerConformance;
/** Ids of endpoints that exist, so that fuzzing also reaches past the 404s. */
const endpointIds: string[] = [];

beforeAll(async () => {
  const database = await createTestDatabase('settle_dispatcher_fuzz');
  drop = database.drop;
  pool = createPool(database.url, 6);
  await migrateSchemas(pool, [DISPATCHER_MIGRATIONS, vaultMigrations(ENDPOINT_VAULT_SCHEMA), LEDGER_MIGRATIONS]);
  const logger = pino({ level: 'silent' });
  const vault = new CredentialsVault(new PostgresVaultStore(pool, ENDPOINT_VAULT_SCHEMA), MasterKeyRing.from([['v1', generateKey()]]));
  const endpoints = new EndpointService(
    new EndpointRepository(pool),
    new EndpointSecrets(vault),
    { allowHttp: true, allowPrivateNetworks: false, rotationOverlapMs: 60_000 },
    logger,
  );
  app = await createAdminApi({
    adminApiKeySha256: [createHash('sha256').update(ADMIN_KEY).digest('hex')],
    apiKeySha256: [],
    receipts: new PostgresReceiptProofs(pool),
    logger,
    pool,
    endpoints,
    deliveries: new DeliveryAdmin(pool, { wake: () => undefined }),
    metrics: new DispatcherMetrics(),
    health: new HealthProbes([postgresProbe(pool)]),
  });
  answers = watchAnswers(app, dispatcherOpenApiDocument(app, 'test', ADMIN_API_CONTROLLERS), ADMIN_API_CONTROLLERS);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  for (let i = 0; i < 3; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/admin/endpoints',
      payload: { url: `https://receiver-${i}.example.invalid/webhook`, event_kinds: ['subscription_started'] },
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(res.statusCode).toBe(201);
    endpointIds.push(res.json<{ id: string }>().id);
  }
});

afterAll(async () => {
  await app?.close();
  await pool?.end();
  await drop?.();
});

async function expectWellFormed(request: FuzzRequest): Promise<number> {
  const res = await app.inject({
    method: request.method,
    url: request.url,
    headers: request.headers,
    ...(request.payload ? { payload: request.payload } : {}),
  });
  expectWellFormedAnswer(request, { statusCode: res.statusCode, headers: res.headers, body: res.body });
  return res.statusCode;
}

const authArb = fc.constantFrom<'admin' | 'none' | 'wrong'>('admin', 'admin', 'admin', 'none', 'wrong');
const authorization = (kind: 'admin' | 'none' | 'wrong'): Record<string, string> =>
  kind === 'admin' ? { authorization: `Bearer ${ADMIN_KEY}` } : kind === 'wrong' ? { authorization: `Bearer ${randomBytes(8).toString('hex')}` } : {};

/** Bodies of the admin API's shapes (create, update, rotate-secret, recover, resend), valid and not. */
const adminBodyArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record(
    {
      url: fc.oneof(fc.constantFrom('https://a.example.invalid/hook', 'http://127.0.0.1:1/x', 'ftp://x', 'https://10.0.0.1/', ''), fc.webUrl()),
      event_kinds: fc.array(fc.constantFrom('subscription_started', 'subscription_renewed', 'nope', ''), { maxLength: 3 }),
      description: fc.oneof(hostileStringArb(), fc.constant(null)),
    },
    { requiredKeys: [] },
  ),
  fc.record({ previous_secret_valid_for_ms: fc.oneof(fc.integer({ min: -5, max: 8 * 86_400_000 }), fc.double()) }, { requiredKeys: [] }),
  fc.record({
    since: fc.oneof(
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.string({ maxLength: 30 }),
    ),
  }),
  fc.record({ endpoint_id: fc.oneof(fc.uuid(), fc.string({ maxLength: 10 })) }, { requiredKeys: [] }),
);

/** An id in a path: an existing endpoint's, a random UUID, or fuzzed text. */
const idArb = fc.oneof(
  fc.constantFrom(0, 1, 2).map((i) => endpointIds[i] ?? randomUUID()),
  fc.uuid(),
  pathSegmentArb,
);

const queryArb = fc.oneof(
  fc.constant(''),
  fc
    .record(
      {
        state: fc.constantFrom('pending', 'failed', 'x', ''),
        limit: fc.constantFrom('1', '0', '501', 'x', '1e2', '-1'),
        before: fc.constantFrom('1', '0', 'x', '9007199254740993'),
        endpoint_id: fc.oneof(fc.uuid(), fc.string({ maxLength: 5 })),
      },
      { requiredKeys: [] },
    )
    .map((q) => `?${new URLSearchParams(q as Record<string, string>).toString()}`),
  fc
    .tuple(fc.constantFrom('state', 'limit', 'before', 'endpoint_id'), queryValueArb, queryValueArb)
    .map(([name, value, other]) => `?${name}=${value}&${other}=${value}`),
);

describe(`the dispatcher's admin API under fuzzing (seed ${bounds.seed})`, () => {
  it('every route, with any id, body, content type, credentials and query', async () => {
    const route = fc.constantFrom(
      { method: 'POST' as const, path: () => '/v1/admin/endpoints' },
      { method: 'GET' as const, path: () => '/v1/admin/endpoints' },
      { method: 'GET' as const, path: (id: string) => `/v1/admin/endpoints/${id}` },
      { method: 'PATCH' as const, path: (id: string) => `/v1/admin/endpoints/${id}` },
      { method: 'DELETE' as const, path: (id: string) => `/v1/admin/endpoints/${id}` },
      { method: 'POST' as const, path: (id: string) => `/v1/admin/endpoints/${id}/enable` },
      { method: 'POST' as const, path: (id: string) => `/v1/admin/endpoints/${id}/disable` },
      { method: 'POST' as const, path: (id: string) => `/v1/admin/endpoints/${id}/rotate-secret` },
      { method: 'POST' as const, path: (id: string) => `/v1/admin/endpoints/${id}/recover` },
      { method: 'GET' as const, path: (id: string) => `/v1/admin/events/${id}/deliveries` },
      { method: 'POST' as const, path: (id: string) => `/v1/admin/events/${id}/resend` },
      { method: 'GET' as const, path: () => '/v1/admin/deliveries' },
    );
    await fc.assert(
      fc.asyncProperty(
        route,
        idArb,
        fc.option(bodyArb(adminBodyArb)),
        contentTypeArb,
        authArb,
        extraHeadersArb,
        queryArb,
        async (r, id, payload, type, auth, extra, query) => {
          const withBody = payload !== null && r.method !== 'GET';
          await expectWellFormed({
            method: r.method,
            url: `${r.path(id)}${query}`,
            headers: { ...extra, ...(withBody && type !== undefined ? { 'content-type': type } : {}), ...authorization(auth) },
            ...(withBody ? { payload } : {}),
          });
        },
      ),
      fuzzParameters(bounds),
    );
  });

  it('valid, authenticated requests with hostile text in one place: a body field or key, an id, a query value, a header', async () => {
    const admin = { authorization: `Bearer ${ADMIN_KEY}` };
    const json = { 'content-type': 'application/json' };
    // Each route with a valid body of its own, so that the hostile text reaches past validation.
    const withBody = fc.constantFrom(
      {
        method: 'POST' as const,
        url: () => '/v1/admin/endpoints',
        body: { url: 'https://hostile.example.invalid/hook', event_kinds: ['subscription_started'], description: 'a receiver' },
      },
      { method: 'PATCH' as const, url: (id: string) => `/v1/admin/endpoints/${id}`, body: { description: 'renamed', event_kinds: ['subscription_renewed'] } },
      { method: 'POST' as const, url: (id: string) => `/v1/admin/endpoints/${id}/recover`, body: { since: new Date(Date.now() - 60_000).toISOString() } },
      { method: 'POST' as const, url: (id: string) => `/v1/admin/events/${id}/resend`, body: { endpoint_id: endpointIds[0] } },
    );
    const byId = [
      (id: string, q: string) => ({ method: 'GET' as const, url: `/v1/admin/endpoints/${id}?state=${q}` }),
      (id: string) => ({ method: 'POST' as const, url: `/v1/admin/endpoints/${id}/enable` }),
      (id: string) => ({ method: 'GET' as const, url: `/v1/admin/events/${id}/deliveries` }),
      (_: string, q: string) => ({ method: 'GET' as const, url: `/v1/admin/deliveries?endpoint_id=${q}&limit=5` }),
      (_: string, q: string) => ({ method: 'GET' as const, url: `/v1/admin/deliveries?state=${q}` }),
    ];
    const request: fc.Arbitrary<FuzzRequest> = fc.oneof(
      withBody.chain((route) =>
        fc.tuple(hostileFieldArb(fc.constant(route.body as Record<string, unknown>)), extraHeadersArb).map(([body, extra]) => ({
          method: route.method,
          url: route.url(endpointIds[0]!),
          payload: Buffer.from(JSON.stringify(body)),
          headers: { ...extra, ...json, ...admin },
        })),
      ),
      fc.tuple(fc.constantFrom(...byId), hostileStringArb(), fc.boolean(), extraHeadersArb).map(([route, text, inPath, extra]) => ({
        ...route(inPath ? percentEncoded(text) : endpointIds[1]!, inPath ? 'failed' : percentEncoded(text)),
        headers: { ...extra, ...admin },
      })),
    );
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        await expectWellFormed(r);
      }),
      // Four times the runs: one place of many is hostile, and each request is cheap.
      { ...fuzzParameters(bounds), numRuns: bounds.numRuns * 4 },
    );
  });

  it('any method on any path', async () => {
    const method = fc.constantFrom<FuzzRequest['method']>('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS');
    const prefix = fc.constantFrom('/v1/admin/endpoints', '/v1/admin/events', '/v1/admin/deliveries', '/v1/admin', '/health', '/metrics', '');
    await fc.assert(
      fc.asyncProperty(method, prefix, fc.array(pathSegmentArb, { maxLength: 3 }), authArb, async (m, p, segments, auth) => {
        await expectWellFormed({ method: m, url: [p, ...segments].join('/') || '/', headers: authorization(auth) });
      }),
      fuzzParameters(bounds),
    );
  });

  it('refuses ambiguous JSON and answers every 401 with a Bearer challenge', async () => {
    const admin = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    const rotate = await app.inject({
      method: 'POST',
      url: `/v1/admin/endpoints/${endpointIds[0]}/rotate-secret`,
      payload: '{"previous_secret_valid_for_ms": 6e4}',
      headers: admin,
    });
    expect(rotate.json()).toMatchObject({ status: 400, code: 'REQUEST.AMBIGUOUS_NUMBER', errors: [{ path: '/previous_secret_valid_for_ms' }] });
    const twice = await app.inject({
      method: 'PATCH',
      url: `/v1/admin/endpoints/${endpointIds[0]}`,
      payload: '{"url": "https://a.example.invalid/x", "url": "http://127.0.0.1/"}',
      headers: admin,
    });
    expect(twice.json()).toMatchObject({ status: 400, code: 'REQUEST.DUPLICATE_KEY', errors: [{ path: '/url' }] });
    const anonymous = await app.inject({ method: 'GET', url: '/v1/admin/endpoints' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="settle"');
  });
});

describe('answers', () => {
  it('conform to the schemas of the OpenAPI document (docs/api/dispatcher-openapi.json) on every route', async () => {
    const admin = { authorization: `Bearer ${ADMIN_KEY}` };
    const call = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, status: number, payload?: Record<string, unknown>) => {
      const res = await app.inject({ method, url, headers: admin, ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${url}: ${res.body.slice(0, 200)}`).toBe(status);
      return res;
    };
    const id = (await call('POST', '/v1/admin/endpoints', 201, { url: 'https://conformance.example.invalid/hook' })).json<{ id: string }>().id;
    // An entitlement event recorded as the Kafka consumer records it, with a delivery to the endpoint.
    const topics = topicNames('dispatcher-conformance');
    const event = entitlementGrant('user-conformance', Date.now());
    await new DeliveryRepository(pool, new Outbox('dispatcher', topics, AvroCodec.connect(infra.registryUrl, topics))).recordEvents([
      { event, publishedAt: Date.now() },
    ]);
    await call('GET', '/v1/admin/endpoints', 200);
    await call('GET', `/v1/admin/endpoints/${id}`, 200);
    await call('PATCH', `/v1/admin/endpoints/${id}`, 200, { description: 'conformance' });
    await call('POST', `/v1/admin/endpoints/${id}/disable`, 200);
    await call('POST', `/v1/admin/endpoints/${id}/enable`, 200);
    await call('POST', `/v1/admin/endpoints/${id}/rotate-secret`, 200);
    await call('POST', `/v1/admin/endpoints/${id}/recover`, 200, { since: new Date(Date.now() - 60_000).toISOString() });
    const deliveries = (await call('GET', `/v1/admin/events/${event.event_id}/deliveries`, 200)).json<{ deliveries: Array<{ endpoint_id: string }> }>();
    expect(deliveries.deliveries.map((d) => d.endpoint_id)).toContain(id);
    await call('POST', `/v1/admin/events/${event.event_id}/resend`, 200, { endpoint_id: id });
    await call('GET', `/v1/admin/deliveries?endpoint_id=${id}&limit=1`, 200);
    await call('DELETE', `/v1/admin/endpoints/${id}`, 204);
    expect(answers.violations).toEqual([]);
    expect([...answers.checked].sort()).toEqual([
      'DELETE /v1/admin/endpoints/:id',
      'GET /v1/admin/deliveries',
      'GET /v1/admin/endpoints',
      'GET /v1/admin/endpoints/:id',
      'GET /v1/admin/events/:eventId/deliveries',
      'PATCH /v1/admin/endpoints/:id',
      'POST /v1/admin/endpoints',
      'POST /v1/admin/endpoints/:id/disable',
      'POST /v1/admin/endpoints/:id/enable',
      'POST /v1/admin/endpoints/:id/recover',
      'POST /v1/admin/endpoints/:id/rotate-secret',
      'POST /v1/admin/events/:eventId/resend',
    ]);
  });
});

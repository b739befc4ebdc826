/**
 * Fuzzing of the dispatcher's admin API, the app built in-process over a real PostgreSQL
 * (docs/reliability.md, "Hardening against abuse"): endpoints (create, list, read, update,
 * delete, enable, disable, rotate-secret, recover), an event's deliveries and resend, the
 * deliveries list, and any method on any path. Every answer is below 500 and every 4xx an
 * RFC 9457 problem with a stable code; a 401 carries `WWW-Authenticate`. Bounded like
 * ingestion's (scripts/harness/http-fuzz.ts: `SETTLE_FUZZ_RUNS`, `SETTLE_FUZZ_TIME_MS`,
 * `SETTLE_FUZZ_SEED`). Nothing is delivered: no scheduler runs, so no endpoint URL is ever called.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
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
  pathSegmentArb,
  type FuzzRequest,
} from '../../../scripts/harness/http-fuzz.js';
import { createTestDatabase } from '../../../scripts/harness/infra.js';
import { DeliveryAdmin } from '../src/deliveries/delivery-admin.js';
import { DispatcherMetrics } from '../src/dispatcher.metrics.js';
import { EndpointSecrets } from '../src/endpoints/endpoint-secrets.js';
import { EndpointRepository } from '../src/endpoints/endpoint.repository.js';
import { EndpointService } from '../src/endpoints/endpoint.service.js';
import { createAdminApi } from '../src/http/admin-api.module.js';
import { DISPATCHER_MIGRATIONS, ENDPOINT_VAULT_SCHEMA } from '../src/schema.js';

const bounds = fuzzBounds('dispatcher');
const ADMIN_KEY = `admin-${randomBytes(12).toString('hex')}`;

let pool: Pool;
let drop: () => Promise<void>;
let app: NestFastifyApplication;
/** Ids of endpoints that exist, so that fuzzing also reaches past the 404s. */
const endpointIds: string[] = [];

beforeAll(async () => {
  const database = await createTestDatabase('settle_dispatcher_fuzz');
  drop = database.drop;
  pool = createPool(database.url, 6);
  await migrateSchemas(pool, [DISPATCHER_MIGRATIONS, vaultMigrations(ENDPOINT_VAULT_SCHEMA)]);
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
    logger,
    pool,
    endpoints,
    deliveries: new DeliveryAdmin(pool, { wake: () => undefined }),
    metrics: new DispatcherMetrics(),
    health: new HealthProbes([postgresProbe(pool)]),
  });
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
      description: fc.oneof(fc.string({ maxLength: 40 }), fc.constant(null)),
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

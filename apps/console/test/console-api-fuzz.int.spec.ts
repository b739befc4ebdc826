/**
 * Fuzzing of the console's HTTP API and pages, the app built in-process over a real PostgreSQL
 * (docs/reliability.md, "Hardening against abuse"), with ingestion and the dispatcher as local
 * stand-ins reached through the console's real adapters: sign-in (unauthenticated), the session,
 * transactions (search, filters, a transaction, reconciliation), the review queues, the
 * overview, the Deliveries API (reads and actions), the audit view, user management, the web
 * app's routes and the OpenAPI pages; and any method on any path. Requests are signed in as an
 * admin (with the CSRF token) or not, and carry strings, path segments, query values and headers
 * holding NUL, lone surrogates, other control characters or very long text
 * (libs/testing/src/http-fuzz.ts). Every answer is below 500 and every 4xx an RFC 9457 problem
 * with a stable code. Bounded like the other apps' (`SETTLE_FUZZ_RUNS`, `SETTLE_FUZZ_TIME_MS`,
 * `SETTLE_FUZZ_SEED`).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Secret } from '@settle/config';
import { LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS } from '@settle/ledger';
import { createPool, migrateSchemas, type Pool } from '@settle/platform';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, it } from 'vitest';
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
  createTestDatabase,
} from '@settle/testing';
import { AuthService } from '../src/auth/auth.service.js';
import { startConsoleTestApp } from './console-test-app.js';
import { PostgresAuthStore } from '../src/auth/postgres-auth-store.js';
import { DispatcherDeliveryAdmin } from '../src/deliveries/dispatcher-delivery-admin.js';
import { IngestionReconciler } from '../src/reconcile/ingestion-reconciler.js';
import { CONSOLE_MIGRATIONS } from '../src/schema.js';
import { EVENT, HEALTHY, startDispatcherStandIn, type DispatcherStandIn } from './dispatcher-stand-in.js';

const INGESTION_MIGRATIONS_DIR = fileURLToPath(new URL('../../ingestion/migrations/ingestion', import.meta.url));
const SWEEPER_MIGRATIONS_DIR = fileURLToPath(new URL('../../sweeper/migrations/sweeper', import.meta.url));
const DISPATCHER_MIGRATIONS_DIR = fileURLToPath(new URL('../../dispatcher/migrations/dispatcher', import.meta.url));
const INGESTION_KEY = `ingestion-${randomUUID()}`;
const DISPATCHER_KEY = `dispatcher-${randomUUID()}`;
const PASSWORD = 'correct horse battery staple';
/** The admin the fuzzed requests are signed in as; never the target of a user change. */
const ADMIN = 'admin@example.com';
/** A user the fuzzed user changes may touch. */
const TARGET = 'target@example.com';

const bounds = fuzzBounds('console');

let pool: Pool;
let drop: () => Promise<void>;
let app: NestFastifyApplication;
let ingestion: Server;
let dispatcher: DispatcherStandIn;
let webDir: string;
let admin: { cookie: string; csrf: string };

beforeAll(async () => {
  const database = await createTestDatabase('settle_console_fuzz');
  drop = database.drop;
  pool = createPool(database.url, 6);
  await migrateSchemas(pool, [
    CONSOLE_MIGRATIONS,
    LEDGER_MIGRATIONS,
    READ_MODEL_MIGRATIONS,
    { schema: 'ingestion', dir: INGESTION_MIGRATIONS_DIR },
    { schema: 'sweeper', dir: SWEEPER_MIGRATIONS_DIR },
    { schema: 'dispatcher', dir: DISPATCHER_MIGRATIONS_DIR },
  ]);
  // Ingestion's admin reconciliation as ingestion answers it: 404 for an unknown checkout.
  ingestion = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${INGESTION_KEY}`) {
      res.writeHead(401, { 'content-type': 'application/problem+json' }).end('{"code":"AUTH.INVALID_API_KEY"}');
      return;
    }
    res.writeHead(404, { 'content-type': 'application/problem+json' }).end('{"code":"CHECKOUT.NOT_FOUND"}');
  });
  await new Promise<void>((resolve) => ingestion.listen(0, '127.0.0.1', resolve));
  dispatcher = await startDispatcherStandIn(DISPATCHER_KEY);
  webDir = await mkdtemp(join(tmpdir(), 'console-fuzz-web-'));
  await writeFile(join(webDir, 'index.html'), '<!doctype html><title>Settle console</title>');

  const logger = pino({ level: 'silent' });
  const auth = new AuthService(new PostgresAuthStore(pool), { sessionTtlMs: 8 * 3_600_000 });
  await auth.createUser(ADMIN, PASSWORD, 'admin');
  await auth.createUser(TARGET, PASSWORD, 'viewer');
  ({ app } = await startConsoleTestApp(pool, {
    logger,
    auth,
    reconciler: new IngestionReconciler({ baseUrl: `http://127.0.0.1:${(ingestion.address() as AddressInfo).port}`, adminApiKey: new Secret(INGESTION_KEY) }),
    deliveryAdmin: new DispatcherDeliveryAdmin({ baseUrl: dispatcher.url, adminApiKey: new Secret(DISPATCHER_KEY) }),
    webDir,
  }));
  const signIn = await app.inject({ method: 'POST', url: '/api/v1/session', payload: { email: ADMIN, password: PASSWORD } });
  admin = { cookie: String(signIn.headers['set-cookie']).split(';')[0]!, csrf: signIn.json<{ csrfToken: string }>().csrfToken };
});

afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => ingestion?.close(resolve));
  await dispatcher?.close();
  await pool?.end();
  await drop?.();
  if (webDir) await rm(webDir, { recursive: true, force: true });
});

async function expectWellFormed(request: FuzzRequest): Promise<void> {
  const res = await app.inject({
    method: request.method,
    url: request.url,
    headers: request.headers,
    ...(request.payload ? { payload: request.payload } : {}),
  });
  expectWellFormedAnswer(request, { statusCode: res.statusCode, headers: res.headers, body: res.body });
}

const signedIn = (): Record<string, string> => ({ cookie: admin.cookie, 'x-csrf-token': admin.csrf });
const json = { 'content-type': 'application/json' };

/** Each route that takes a body, with a valid body of its own, so that hostile text reaches past validation. */
const BODY_ROUTES: ReadonlyArray<{ method: FuzzRequest['method']; url: string; body: Record<string, unknown>; session: boolean }> = [
  { method: 'POST', url: '/api/v1/session', body: { email: 'someone@example.com', password: 'not the password' }, session: false },
  { method: 'POST', url: '/api/v1/users', body: { email: 'new-user@example.com', role: 'viewer' }, session: true },
  { method: 'PATCH', url: `/api/v1/users/${TARGET}`, body: { role: 'viewer', disabled: false }, session: true },
  { method: 'POST', url: `/api/v1/events/${EVENT}/resend`, body: { endpointId: HEALTHY }, session: true },
  { method: 'POST', url: `/api/v1/endpoints/${HEALTHY}/recover`, body: { since: new Date(Date.now() - 60_000).toISOString() }, session: true },
];

/** Each route that takes a path segment or a query value: `(segment, query value) => URL`. */
const TEXT_ROUTES: ReadonlyArray<{ method: FuzzRequest['method']; url: (segment: string, value: string) => string }> = [
  { method: 'GET', url: (_, v) => `/api/v1/transactions?q=${v}&limit=10` },
  { method: 'GET', url: (_, v) => `/api/v1/transactions?state=${v}&provider=paystack` },
  { method: 'GET', url: (_, v) => `/api/v1/transactions?from=${v}&cursor=${v}` },
  { method: 'GET', url: (s) => `/api/v1/transactions/${s}` },
  { method: 'POST', url: (s) => `/api/v1/transactions/${s}/reconcile` },
  { method: 'GET', url: (_, v) => `/api/v1/queues/held-in-review?cursor=${v}` },
  { method: 'GET', url: (_, v) => `/api/v1/queues/manual-review?limit=${v}` },
  { method: 'GET', url: (_, v) => `/api/v1/queues/state-mismatch?cursor=${v}&limit=5` },
  { method: 'GET', url: () => '/api/v1/overview' },
  { method: 'GET', url: () => '/api/v1/endpoints' },
  { method: 'GET', url: (s) => `/api/v1/endpoints/${s}` },
  { method: 'POST', url: (s) => `/api/v1/endpoints/${s}/enable` },
  { method: 'POST', url: (s) => `/api/v1/endpoints/${s}/disable` },
  { method: 'GET', url: (_, v) => `/api/v1/deliveries?state=${v}&endpointId=${v}` },
  { method: 'GET', url: (_, v) => `/api/v1/deliveries?cursor=${v}&limit=3` },
  { method: 'GET', url: (s) => `/api/v1/events/${s}/deliveries` },
  { method: 'POST', url: (s) => `/api/v1/events/${s}/resend` },
  { method: 'GET', url: (_, v) => `/api/v1/audit?actor=${v}` },
  { method: 'GET', url: (_, v) => `/api/v1/audit?targetKind=user&targetId=${v}&cursor=${v}` },
  { method: 'GET', url: () => '/api/v1/users' },
  { method: 'PATCH', url: (s) => `/api/v1/users/${s}` },
  { method: 'POST', url: (s) => `/api/v1/users/${s}/password` },
  { method: 'GET', url: () => '/api/v1/session' },
  { method: 'GET', url: (s, v) => `/transactions/${s}?tab=${v}` },
  { method: 'GET', url: (s) => `/${s}` },
  { method: 'GET', url: (_, v) => `/api/openapi.json?x=${v}` },
];

describe(`the console's API and pages under fuzzing (seed ${bounds.seed})`, () => {
  it('valid requests with hostile text in one place: a body field or key, a path segment, a query value, a header', async () => {
    const request: fc.Arbitrary<FuzzRequest> = fc.oneof(
      fc.constantFrom(...BODY_ROUTES).chain((route) =>
        fc.tuple(hostileFieldArb(fc.constant(route.body)), extraHeadersArb).map(([body, extra]) => ({
          method: route.method,
          url: route.url,
          payload: Buffer.from(JSON.stringify(body)),
          headers: { ...extra, ...json, ...(route.session ? signedIn() : {}) },
        })),
      ),
      fc.tuple(fc.constantFrom(...TEXT_ROUTES), hostileStringArb(), fc.boolean(), extraHeadersArb).map(([route, text, inPath, extra]) => ({
        method: route.method,
        url: route.url(inPath ? percentEncoded(text) || 'x' : 'REF-1', inPath ? '' : percentEncoded(text)),
        headers: { ...extra, ...signedIn() },
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

  it('every route with any body, content type, credentials, query and headers', async () => {
    const shapes = fc.oneof(...BODY_ROUTES.map((r) => fc.constant(r.body)));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...BODY_ROUTES.map((r) => ({ method: r.method, url: () => r.url })), ...TEXT_ROUTES),
        pathSegmentArb,
        queryValueArb,
        fc.option(bodyArb(shapes)),
        contentTypeArb,
        fc.constantFrom<'admin' | 'no-csrf' | 'none' | 'forged'>('admin', 'admin', 'no-csrf', 'none', 'forged'),
        extraHeadersArb,
        async (route, segment, value, payload, type, auth, extra) => {
          const credentials =
            auth === 'admin'
              ? signedIn()
              : auth === 'no-csrf'
                ? { cookie: admin.cookie }
                : auth === 'forged'
                  ? { cookie: 'settle_console_session=forged' }
                  : {};
          const withBody = payload !== null && route.method !== 'GET';
          await expectWellFormed({
            method: route.method,
            url: route.url(segment, value),
            headers: { ...extra, ...(withBody && type !== undefined ? { 'content-type': type } : {}), ...credentials },
            ...(withBody ? { payload } : {}),
          });
        },
      ),
      fuzzParameters(bounds),
    );
  });

  it('any method on any path', async () => {
    const method = fc.constantFrom<FuzzRequest['method']>('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS');
    const prefix = fc.constantFrom(
      '/api/v1',
      '/api/v1/transactions',
      '/api/v1/users',
      '/api/v1/endpoints',
      '/api/docs',
      '/api',
      '/assets',
      '/health',
      '/metrics',
      '',
    );
    await fc.assert(
      fc.asyncProperty(method, prefix, fc.array(pathSegmentArb, { maxLength: 3 }), fc.boolean(), async (m, p, segments, withSession) => {
        await expectWellFormed({ method: m, url: [p, ...segments].join('/') || '/', headers: withSession ? signedIn() : {} });
      }),
      fuzzParameters(bounds),
    );
  });
});

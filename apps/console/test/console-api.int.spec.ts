/**
 * The console's API against a real PostgreSQL, the Nest app built in-process (`inject`):
 * sign-in, cookie flags, lockout, CSRF, roles, reconciliation through an ingestion stand-in
 * (a local HTTP server that records the call), keyset pages with filters, and a transaction's
 * detail with its ledger timeline. The other apps' schemas are made by their own migrations.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Secret } from '@settle/config';
import { LEDGER_MIGRATIONS, PostgresLedger, READ_MODEL_MIGRATIONS, transactionStream, type TransactionOutcomeData } from '@settle/ledger';
import { createPool, migrateSchemas, type Pool } from '@settle/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '@settle/testing';
import { PROVIDER_REGISTRY } from '@settle/providers';
import { type AnswerConformance } from './answer-conformance.js';
import { PostgresAuditLog } from '../src/audit/postgres-audit-log.js';
import { AuthService } from '../src/auth/auth.service.js';
import { consoleTestDeps, startConsoleTestApp } from './console-test-app.js';
import { PostgresAuthStore } from '../src/auth/postgres-auth-store.js';
import { createConsoleApp } from '../src/console-app.js';
import { IngestionReconciler } from '../src/reconcile/ingestion-reconciler.js';
import { CONSOLE_MIGRATIONS } from '../src/schema.js';

const INGESTION_MIGRATIONS_DIR = fileURLToPath(new URL('../../ingestion/migrations/ingestion', import.meta.url));
const SWEEPER_MIGRATIONS_DIR = fileURLToPath(new URL('../../sweeper/migrations/sweeper', import.meta.url));
const DISPATCHER_MIGRATIONS_DIR = fileURLToPath(new URL('../../dispatcher/migrations/dispatcher', import.meta.url));
const ADMIN_KEY = `console-test-${randomUUID()}`;
const PASSWORD = 'correct horse battery staple';

let pool: Pool;
let drop: () => Promise<void>;
let app: NestFastifyApplication;
let ingestion: Server;
let webDir: string;
let answers: AnswerConformance;
const ingestionCalls: Array<{ method: string; url: string; authorization: string | undefined }> = [];

/** The console over this test's database, reconciling through the ingestion stand-in at `ingestionUrl`. */
const deps = (auth: AuthService, ingestionUrl: string) =>
  consoleTestDeps(pool, { auth, reconciler: new IngestionReconciler({ baseUrl: ingestionUrl, adminApiKey: new Secret(ADMIN_KEY) }) });

/** Signs in; the session cookie (`name=value`) and the CSRF token. */
async function signIn(email: string, target = app): Promise<{ cookie: string; csrf: string }> {
  const res = await target.inject({ method: 'POST', url: '/api/v1/session', payload: { email, password: PASSWORD } });
  expect(res.statusCode).toBe(200);
  const setCookie = String(res.headers['set-cookie']);
  return { cookie: setCookie.split(';')[0]!, csrf: res.json().csrfToken };
}

async function seedTransaction(row: {
  reference: string;
  state: string;
  entitlement: string;
  provider?: string;
  updatedAt: string;
  userId?: string;
  email?: string | null;
  phone?: string | null;
}): Promise<void> {
  await pool.query(
    `INSERT INTO ingestion.checkouts (reference, provider, amount_minor, currency, user_id, customer_email, customer_phone, entitlement,
                                      request_sha256, correlation_id, registered_at, access_period)
     VALUES ($1, $2, 5000, 'NGN', $3, $4, $5, 'pro', 'x', 'c', $6, 'P1M')`,
    [row.reference, row.provider ?? 'paystack', row.userId ?? `user-${row.reference}`, row.email ?? null, row.phone ?? null, row.updatedAt],
  );
  await pool.query(
    `INSERT INTO read_model.transaction_status (reference, provider, state, entitlement_status, amount_minor, currency, checks, last_verdict, last_trigger, ledger_revision, updated_at)
     VALUES ($1, $2, $3, $4, 5000, 'NGN', NULL, NULL, NULL, 0, $5)`,
    [row.reference, row.provider ?? 'paystack', row.state, row.entitlement, row.updatedAt],
  );
}

function outcome(reference: string, state: TransactionOutcomeData['state'], verdict: TransactionOutcomeData['verdict']): TransactionOutcomeData {
  return {
    reference,
    provider: 'paystack',
    outcome: state === 'SETTLED_CONSENSUS' ? 'SETTLED_CONSENSUS' : 'RECOVERING',
    state,
    entitlement_status: state === 'SETTLED_CONSENSUS' ? 'UNLOCKED' : 'HELD_IN_REVIEW',
    trigger: 'webhook_received',
    verdict,
    provider_status: verdict === 'cleared' ? 'success' : 'pending',
    detail: `${verdict} by the provider`,
    checks: [
      { check: 'transaction_identity', passed: true, code: null, expected: reference, observed: reference },
      { check: 'currency', passed: true, code: null, expected: 'NGN', observed: 'NGN' },
      { check: 'amount', passed: true, code: null, expected: '5000', observed: '5000' },
      { check: 'customer', passed: true, code: null, expected: 'user-1', observed: 'user-1' },
    ],
    expected: { amount_minor: 5000, currency: 'NGN', user_id: 'user-1', entitlement: 'pro' },
    observed: { amount_minor: 5000, charged_amount_minor: 5000, currency: 'NGN', provider_transaction_id: 'ps_1' },
    decided_at: Date.parse('2026-11-01T10:00:00Z'),
  };
}

beforeAll(async () => {
  const database = await createTestDatabase('settle_console');
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

  ingestion = createServer((req, res) => {
    ingestionCalls.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    const reference = /\/v1\/admin\/checkouts\/([^/]+)\/reconcile/.exec(req.url ?? '')?.[1];
    if (req.headers.authorization !== `Bearer ${ADMIN_KEY}`) {
      res.writeHead(401, { 'content-type': 'application/problem+json' }).end('{"code":"AUTH.INVALID_API_KEY"}');
    } else if (!reference || reference === 'UNKNOWN-REF') {
      res.writeHead(404, { 'content-type': 'application/problem+json' }).end('{"code":"CHECKOUT.NOT_FOUND"}');
    } else {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ reference, state: 'RECOVERING', entitlement_status: 'HELD_IN_REVIEW', verification: 'pending', verdict: null }));
    }
  });
  await new Promise<void>((resolve) => ingestion.listen(0, '127.0.0.1', resolve));
  const ingestionUrl = `http://127.0.0.1:${(ingestion.address() as AddressInfo).port}`;

  const auth = new AuthService(new PostgresAuthStore(pool), { sessionTtlMs: 8 * 3_600_000 });
  for (const [email, role] of [
    ['viewer@example.com', 'viewer'],
    ['operator@example.com', 'operator'],
    ['admin@example.com', 'admin'],
    ['locked@example.com', 'viewer'],
  ] as const) {
    await auth.createUser(email, PASSWORD, role);
  }
  ({ app, answers } = await startConsoleTestApp(pool, deps(auth, ingestionUrl)));

  webDir = await mkdtemp(join(tmpdir(), 'console-web-'));
  await writeFile(join(webDir, 'index.html'), '<!doctype html><title>Settle console</title>');
  await mkdir(join(webDir, 'assets'));
  await writeFile(join(webDir, 'assets', 'app.js'), 'console.log("app")');
});

afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => ingestion?.close(resolve));
  await pool?.end();
  await drop?.();
  if (webDir) await rm(webDir, { recursive: true, force: true });
});

describe('session', () => {
  it('signs in with the right password: the user, a CSRF token and an HttpOnly, SameSite=Strict session cookie', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/session', payload: { email: 'Operator@Example.com', password: PASSWORD } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({ user: { email: 'operator@example.com', role: 'operator' }, csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^settle_console_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/');
    expect(cookie).toMatch(/Max-Age=(28800|2879\d);/);
    expect(cookie).toContain('Expires=');
    expect(cookie).not.toContain('Secure');
    // Only the token's SHA-256 is stored.
    const token = cookie.split(';')[0]!.split('=')[1]!;
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM console.sessions');
    expect(rows.map((r) => r.id)).not.toContain(token);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.id))).toBe(true);

    const current = await app.inject({ method: 'GET', url: '/api/v1/session', headers: { cookie: cookie.split(';')[0]! } });
    expect(current.statusCode).toBe(200);
    expect(current.json()).toEqual(body);
  });

  it('answers 401 CONSOLE.INVALID_CREDENTIALS for a wrong password and for an unknown email alike', async () => {
    for (const payload of [
      { email: 'viewer@example.com', password: 'wrong password!!' },
      { email: 'nobody@example.com', password: PASSWORD },
    ]) {
      const res = await app.inject({ method: 'POST', url: '/api/v1/session', payload });
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json()).toMatchObject({ status: 401, code: 'CONSOLE.INVALID_CREDENTIALS' });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('locks an email after 5 failures within 15 minutes: 429 CONSOLE.LOGIN_LOCKED with Retry-After, even for the right password', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await app.inject({ method: 'POST', url: '/api/v1/session', payload: { email: 'locked@example.com', password: `guess number ${i}` } });
      expect(res.statusCode).toBe(401);
    }
    const locked = await app.inject({ method: 'POST', url: '/api/v1/session', payload: { email: 'locked@example.com', password: PASSWORD } });
    expect(locked.statusCode).toBe(429);
    expect(locked.json()).toMatchObject({ status: 429, code: 'CONSOLE.LOGIN_LOCKED' });
    const retryAfter = Number(locked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(850);
    expect(retryAfter).toBeLessThanOrEqual(900);
    // Other emails are not locked.
    await signIn('viewer@example.com');
  });

  it('answers 401 CONSOLE.UNAUTHENTICATED without a session, or with an unknown cookie', async () => {
    for (const headers of [{}, { cookie: 'settle_console_session=not-a-session' }]) {
      const res = await app.inject({ method: 'GET', url: '/api/v1/session', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ code: 'CONSOLE.UNAUTHENTICATED' });
    }
    const overview = await app.inject({ method: 'GET', url: '/api/v1/overview' });
    expect(overview.json()).toMatchObject({ status: 401, code: 'CONSOLE.UNAUTHENTICATED' });
    // RFC 9110, section 11.6.1: every 401 names a challenge; the console's is its session cookie.
    expect(overview.headers['www-authenticate']).toBe('Cookie realm="settle-console", cookie-name="settle_console_session"');
    const wrongPassword = await app.inject({
      method: 'POST',
      url: '/api/v1/session',
      payload: { email: 'viewer@example.com', password: 'wrong password 123' },
    });
    expect(wrongPassword.statusCode).toBe(401);
    expect(wrongPassword.headers['www-authenticate']).toBe('Cookie realm="settle-console", cookie-name="settle_console_session"');
  });

  it('refuses a state-changing request without or with a wrong CSRF token (403 CONSOLE.CSRF_REJECTED), signs out with it', async () => {
    const { cookie, csrf } = await signIn('admin@example.com');
    for (const headers of [{ cookie }, { cookie, 'x-csrf-token': 'wrong' }, { cookie, 'x-csrf-token': `${csrf}x` }]) {
      const res = await app.inject({ method: 'DELETE', url: '/api/v1/session', headers });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'CONSOLE.CSRF_REJECTED' });
    }
    const reconcile = await app.inject({ method: 'POST', url: '/api/v1/transactions/REF-A/reconcile', headers: { cookie } });
    expect(reconcile.statusCode).toBe(403);
    expect(reconcile.json()).toMatchObject({ code: 'CONSOLE.CSRF_REJECTED' });

    const out = await app.inject({ method: 'DELETE', url: '/api/v1/session', headers: { cookie, 'x-csrf-token': csrf } });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^settle_console_session=;/);
    const after = await app.inject({ method: 'GET', url: '/api/v1/session', headers: { cookie } });
    expect(after.statusCode).toBe(401);
  });

  it('sets the Secure flag when configured, and serves the built web app at /', async () => {
    const auth = new AuthService(new PostgresAuthStore(pool), { sessionTtlMs: 60_000 });
    const secured = await createConsoleApp({ ...deps(auth, 'http://127.0.0.1:9'), cookies: { secure: true }, webDir });
    await secured.init();
    await secured.getHttpAdapter().getInstance().ready();
    try {
      const res = await secured.inject({ method: 'POST', url: '/api/v1/session', payload: { email: 'viewer@example.com', password: PASSWORD } });
      expect(String(res.headers['set-cookie'])).toContain('Secure');
      expect(String(res.headers['set-cookie'])).toMatch(/Max-Age=(59|60);/);
      const page = await secured.inject({ method: 'GET', url: '/' });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('Settle console');
      expect(page.headers['x-frame-options']).toBe('DENY');
      const asset = await secured.inject({ method: 'GET', url: '/assets/app.js' });
      expect(asset.statusCode).toBe(200);
      expect(asset.body).toBe('console.log("app")');
      // The app's own routes load index.html; unknown API paths and missing files stay 404 problems.
      const deepLink = await secured.inject({ method: 'GET', url: '/transactions/REF-A?tab=timeline' });
      expect(deepLink.statusCode).toBe(200);
      expect(deepLink.body).toContain('Settle console');
      for (const url of ['/api/v1/nope', '/assets/missing.js']) {
        const missing = await secured.inject({ method: 'GET', url });
        expect(missing.statusCode).toBe(404);
        expect(missing.json()).toMatchObject({ code: 'REQUEST.NOT_FOUND' });
      }
    } finally {
      await secured.close();
    }
  });

  it("answers / and the app's routes with 503 CONSOLE.WEB_NOT_BUILT when the web app is not built", async () => {
    for (const url of ['/', '/transactions/REF-A']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ code: 'CONSOLE.WEB_NOT_BUILT' });
    }
    // The health routes are the API's, not the web app's.
    for (const url of ['/health', '/health/ready']) {
      const health = await app.inject({ method: 'GET', url });
      expect(health.json(), url).toMatchObject({ status: 'ok', details: { postgres: { status: 'up' } } });
    }
    expect((await app.inject({ method: 'GET', url: '/health/live' })).json()).toEqual({ status: 'ok', info: {}, error: {}, details: {} });
  });
});

describe('transactions', () => {
  beforeAll(async () => {
    // Seven transactions; two pairs share updated_at to the microsecond (ties broken by reference).
    await seedTransaction({
      reference: 'REF-A',
      state: 'SETTLED_CONSENSUS',
      entitlement: 'UNLOCKED',
      updatedAt: '2026-11-01T10:00:00.000001Z',
      email: 'Ada@Example.com',
      phone: '+2348000000001',
      userId: 'user-ada',
    });
    await seedTransaction({ reference: 'REF-B', state: 'RECOVERING', entitlement: 'HELD_IN_REVIEW', updatedAt: '2026-11-01T10:00:00.000002Z' });
    await seedTransaction({
      reference: 'REF-C',
      state: 'MANUAL_REVIEW',
      entitlement: 'HELD_IN_REVIEW',
      updatedAt: '2026-11-01T10:00:00.000002Z',
      provider: 'stripe',
    });
    await seedTransaction({ reference: 'REF-D', state: 'STATE_MISMATCH', entitlement: 'LOCKED', updatedAt: '2026-11-02T10:00:00Z', userId: 'user-ada' });
    await seedTransaction({ reference: 'REF-E', state: 'PENDING', entitlement: 'LOCKED', updatedAt: '2026-11-03T10:00:00Z' });
    await seedTransaction({ reference: 'OTHER-F', state: 'PENDING', entitlement: 'LOCKED', updatedAt: '2026-11-03T10:00:00Z' });
    await seedTransaction({ reference: 'OTHER-G', state: 'FAILED_DECLINED', entitlement: 'LOCKED', updatedAt: '2026-11-04T10:00:00Z', provider: 'stripe' });
    const ledger = new PostgresLedger(pool);
    await ledger.append(
      transactionStream('REF-A'),
      [
        {
          eventId: randomUUID(),
          type: 'PaymentHeldInReview',
          data: outcome('REF-A', 'RECOVERING', 'clearing'),
          metadata: { correlationId: 'c-1', causationId: 'k-1' },
        },
        {
          eventId: randomUUID(),
          type: 'TransactionSettled',
          data: outcome('REF-A', 'SETTLED_CONSENSUS', 'cleared'),
          metadata: { correlationId: 'c-1', causationId: 'k-2' },
        },
      ],
      'no_stream',
    );
    await pool.query(
      `UPDATE read_model.transaction_status SET checks = $2::jsonb, last_verdict = 'cleared', last_trigger = 'webhook_received' WHERE reference = $1`,
      ['REF-A', JSON.stringify(outcome('REF-A', 'SETTLED_CONSENSUS', 'cleared').checks)],
    );
  });

  it('counts the book per state and entitlement status, the queues, and says what is not configured', async () => {
    const { cookie } = await signIn('viewer@example.com');
    const res = await app.inject({ method: 'GET', url: '/api/v1/overview', headers: { cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({
      states: { PENDING: 2, RECOVERING: 1, MANUAL_REVIEW: 1, SETTLED_CONSENSUS: 1, FAILED_DECLINED: 1, STATE_MISMATCH: 1 },
      entitlements: { LOCKED: 4, UNLOCKED: 1, HELD_IN_REVIEW: 2 },
      // The held-in-review queue's size: REF-C is held too, but in manual review.
      heldInReview: 1,
      manualReview: 1,
      stateMismatch: 1,
      total: 7,
      deadLetteredDeliveries: 0,
      deadLetteredMessages: { status: 'not_configured' },
      consumerLag: { status: 'not_configured' },
      ledgerChains: { status: 'pending' },
    });
  });

  it('pages newest first by cursor, every row once, ties broken by reference', async () => {
    const { cookie } = await signIn('viewer@example.com');
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `/api/v1/transactions?limit=3${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await app.inject({ method: 'GET', url, headers: { cookie } });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      seen.push(...body.items.map((i: { reference: string }) => i.reference));
      cursor = body.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(['OTHER-G', 'REF-E', 'OTHER-F', 'REF-D', 'REF-C', 'REF-B', 'REF-A']);
  });

  it('filters by state, provider, entitlement and q (reference prefix, user id, email, phone)', async () => {
    const { cookie } = await signIn('viewer@example.com');
    const refs = async (query: string) => {
      const res = await app.inject({ method: 'GET', url: `/api/v1/transactions?${query}`, headers: { cookie } });
      expect(res.statusCode).toBe(200);
      return res.json().items.map((i: { reference: string }) => i.reference);
    };
    expect(await refs('state=PENDING')).toEqual(['REF-E', 'OTHER-F']);
    expect(await refs('provider=stripe')).toEqual(['OTHER-G', 'REF-C']);
    expect(await refs('entitlement=HELD_IN_REVIEW&provider=paystack')).toEqual(['REF-B']);
    expect(await refs('q=OTHER')).toEqual(['OTHER-G', 'OTHER-F']);
    expect(await refs('q=user-ada')).toEqual(['REF-D', 'REF-A']);
    expect(await refs('q=ada%40example.com')).toEqual(['REF-A']);
    expect(await refs('q=%2B2348000000001')).toEqual(['REF-A']);
    expect(await refs('q=REF&state=PENDING&limit=1')).toEqual(['REF-E']);
    const first = await app.inject({ method: 'GET', url: '/api/v1/transactions?state=PENDING&limit=1', headers: { cookie } });
    const second = await app.inject({
      method: 'GET',
      url: `/api/v1/transactions?state=PENDING&limit=1&cursor=${first.json().nextCursor}`,
      headers: { cookie },
    });
    expect(second.json()).toEqual({ items: [expect.objectContaining({ reference: 'OTHER-F' })], nextCursor: null });
  });

  it('filters by the time of the last change: from inclusive, to exclusive, with the other filters and pages', async () => {
    const { cookie } = await signIn('viewer@example.com');
    const refs = async (query: string) => {
      const res = await app.inject({ method: 'GET', url: `/api/v1/transactions?${query}`, headers: { cookie } });
      expect(res.statusCode).toBe(200);
      return res.json().items.map((i: { reference: string }) => i.reference);
    };
    expect(await refs('from=2026-11-03T10:00:00Z')).toEqual(['OTHER-G', 'REF-E', 'OTHER-F']);
    expect(await refs('to=2026-11-03T10:00:00Z')).toEqual(['REF-D', 'REF-C', 'REF-B', 'REF-A']);
    expect(await refs('from=2026-11-02T00:00:00Z&to=2026-11-04T00:00:00Z')).toEqual(['REF-E', 'OTHER-F', 'REF-D']);
    // An offset other than Z is the same instant.
    expect(await refs('from=2026-11-03T11:00:00%2B01:00&state=PENDING')).toEqual(['REF-E', 'OTHER-F']);
    const first = await app.inject({ method: 'GET', url: '/api/v1/transactions?from=2026-11-02T00:00:00Z&limit=2', headers: { cookie } });
    const rest = await app.inject({
      method: 'GET',
      url: `/api/v1/transactions?from=2026-11-02T00:00:00Z&limit=2&cursor=${first.json().nextCursor}`,
      headers: { cookie },
    });
    expect([...first.json().items, ...rest.json().items].map((i: { reference: string }) => i.reference)).toEqual(['OTHER-G', 'REF-E', 'OTHER-F', 'REF-D']);
    expect(rest.json().nextCursor).toBeNull();
  });

  it('refuses a bad filter, limit or cursor with 400 problem details', async () => {
    const { cookie } = await signIn('viewer@example.com');
    for (const query of [
      'state=NOPE',
      'limit=0',
      'limit=101',
      'cursor=bm90LWEtY3Vyc29y',
      'from=yesterday',
      'to=2026-11-03',
      'from=2026-11-03T10:00:00Z&to=2026-11-03T10:00:00Z',
    ]) {
      const res = await app.inject({ method: 'GET', url: `/api/v1/transactions?${query}`, headers: { cookie } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED' });
    }
  });

  it('answers a transaction with its checkout, checks and ledger timeline; 404 for an unknown one', async () => {
    const { cookie } = await signIn('viewer@example.com');
    const res = await app.inject({ method: 'GET', url: '/api/v1/transactions/REF-A', headers: { cookie } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.transaction).toEqual({
      reference: 'REF-A',
      provider: 'paystack',
      state: 'SETTLED_CONSENSUS',
      entitlementStatus: 'UNLOCKED',
      amountMinor: 5000,
      currency: 'NGN',
      userId: 'user-ada',
      email: 'Ada@Example.com',
      updatedAt: '2026-11-01T10:00:00.000Z',
      entitlement: 'pro',
      accessPeriod: 'P1M',
      // Each check with the provider field its observed value was read from (Paystack's, here).
      checks: outcome('REF-A', 'SETTLED_CONSENSUS', 'cleared').checks.map((c) => ({
        ...c,
        providerField: PROVIDER_REGISTRY.paystack.observedFields[c.check],
      })),
      lastVerdict: 'cleared',
      lastTrigger: 'webhook_received',
      moneyState: 'none',
      returnedMinor: 0,
      resolution: null,
    });
    expect(body.timeline).toEqual([
      expect.objectContaining({
        revision: 0,
        type: 'PaymentHeldInReview',
        trigger: 'webhook_received',
        verdict: 'clearing',
        state: 'RECOVERING',
        detail: 'clearing by the provider',
      }),
      expect.objectContaining({
        revision: 1,
        type: 'TransactionSettled',
        trigger: 'webhook_received',
        verdict: 'cleared',
        state: 'SETTLED_CONSENSUS',
        detail: 'cleared by the provider',
      }),
    ]);
    expect(body.timeline[1].position).toBeGreaterThan(body.timeline[0].position);
    expect(Number.isNaN(Date.parse(body.timeline[0].recordedAt))).toBe(false);

    const none = await app.inject({ method: 'GET', url: '/api/v1/transactions/REF-NONE', headers: { cookie } });
    expect(none.statusCode).toBe(404);
    expect(none.json()).toMatchObject({ code: 'CONSOLE.TRANSACTION_NOT_FOUND' });
    const empty = await app.inject({ method: 'GET', url: '/api/v1/transactions/REF-B', headers: { cookie } });
    expect(empty.json().timeline).toEqual([]);
  });
  it('answers a prefix shared by more than a thousand references by walking the newest-first index, and a narrow one from its candidates, both newest first', async () => {
    const { cookie } = await signIn('viewer@example.com');
    // 1,200 references BULK-0001..BULK-1200, newer with the number; no checkout rows (the join is a left join).
    await pool.query(
      `INSERT INTO read_model.transaction_status (reference, provider, state, entitlement_status, amount_minor, currency, ledger_revision, updated_at)
       SELECT 'BULK-' || lpad(n::text, 4, '0'), 'paystack', 'SETTLED_CONSENSUS', 'UNLOCKED', 100, 'NGN', 0, timestamptz '2026-10-01' + make_interval(secs => n)
         FROM generate_series(1, 1200) AS n`,
    );
    try {
      const refs = async (query: string) => {
        const res = await app.inject({ method: 'GET', url: `/api/v1/transactions?${query}`, headers: { cookie } });
        expect(res.statusCode).toBe(200);
        return res.json().items.map((i: { reference: string }) => i.reference);
      };
      // Broad (1,200 > 1,000 matches): the newest first.
      expect(await refs('q=BULK-&limit=3')).toEqual(['BULK-1200', 'BULK-1199', 'BULK-1198']);
      // Narrow: BULK-1000..BULK-1009 are the ten references starting with BULK-100.
      expect(await refs('q=BULK-100&limit=20')).toEqual([
        'BULK-1009',
        'BULK-1008',
        'BULK-1007',
        'BULK-1006',
        'BULK-1005',
        'BULK-1004',
        'BULK-1003',
        'BULK-1002',
        'BULK-1001',
        'BULK-1000',
      ]);
      // Neither path lets another reference in.
      expect(await refs('q=BULK-12&limit=50')).toEqual(['BULK-1200']);
    } finally {
      await pool.query(`DELETE FROM read_model.transaction_status WHERE reference LIKE 'BULK-%'`);
    }
  });
});

describe('reconciliation', () => {
  it('refuses a viewer: 403 CONSOLE.FORBIDDEN, and ingestion is not called', async () => {
    const { cookie, csrf } = await signIn('viewer@example.com');
    const before = ingestionCalls.length;
    const res = await app.inject({ method: 'POST', url: '/api/v1/transactions/REF-B/reconcile', headers: { cookie, 'x-csrf-token': csrf } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'CONSOLE.FORBIDDEN' });
    expect(ingestionCalls.length).toBe(before);
  });

  it("runs an operator's reconciliation through ingestion's admin API with the admin key: 202 with the state", async () => {
    const { cookie, csrf } = await signIn('operator@example.com');
    const before = ingestionCalls.length;
    const res = await app.inject({ method: 'POST', url: '/api/v1/transactions/REF-B/reconcile', headers: { cookie, 'x-csrf-token': csrf } });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ reference: 'REF-B', state: 'RECOVERING' });
    expect(ingestionCalls.slice(before)).toEqual([
      { method: 'POST', url: '/v1/admin/checkouts/REF-B/reconcile?wait_ms=0', authorization: `Bearer ${ADMIN_KEY}` },
    ]);
  });

  it("leaves an audit entry with the operator as the actor and ingestion's state as the result", async () => {
    const { cookie, csrf } = await signIn('operator@example.com');
    const res = await app.inject({ method: 'POST', url: '/api/v1/transactions/REF-AUDITED/reconcile', headers: { cookie, 'x-csrf-token': csrf } });
    expect(res.statusCode).toBe(202);
    const { items } = await new PostgresAuditLog(pool).list({ limit: 10, target: { kind: 'transaction', id: 'REF-AUDITED' } });
    expect(items).toEqual([
      expect.objectContaining({
        action: 'transaction.reconcile',
        actor: { email: 'operator@example.com', role: 'operator' },
        target: { kind: 'transaction', id: 'REF-AUDITED' },
        outcome: 'succeeded',
        errorCode: null,
        result: { state: 'RECOVERING' },
      }),
    ]);
  });

  it("shows the reconciliation on the transaction's timeline with its actor and outcome, merged in by ledger position", async () => {
    const { cookie, csrf } = await signIn('operator@example.com');
    const before = (await app.inject({ method: 'GET', url: '/api/v1/transactions/REF-A', headers: { cookie } })).json().timeline as Array<{ type: string }>;
    expect(before.map((e) => e.type)).toEqual(['PaymentHeldInReview', 'TransactionSettled']);
    expect((await app.inject({ method: 'POST', url: '/api/v1/transactions/REF-A/reconcile', headers: { cookie, 'x-csrf-token': csrf } })).statusCode).toBe(202);
    // The verifier's answer lands after the request.
    await new PostgresLedger(pool).append(
      transactionStream('REF-A'),
      [
        {
          eventId: randomUUID(),
          type: 'TransactionSettled',
          data: outcome('REF-A', 'SETTLED_CONSENSUS', 'cleared'),
          metadata: { correlationId: 'c-2', causationId: 'k-3' },
        },
      ],
      1,
    );
    const { timeline } = (await app.inject({ method: 'GET', url: '/api/v1/transactions/REF-A', headers: { cookie } })).json();
    expect(timeline.map((e: { type: string }) => e.type)).toEqual(['PaymentHeldInReview', 'TransactionSettled', 'AdminActionRequested', 'TransactionSettled']);
    expect(timeline[2]).toEqual({
      position: expect.any(Number),
      revision: 0,
      type: 'AdminActionRequested',
      recordedAt: expect.any(String),
      trigger: null,
      verdict: null,
      state: null,
      detail: 'Manual reconciliation requested by operator@example.com (operator)',
      actor: { email: 'operator@example.com', role: 'operator' },
      adminAction: { action: 'transaction.reconcile', outcome: 'succeeded', errorCode: null, completedAt: expect.any(String) },
    });
    const positions = timeline.map((e: { position: number }) => e.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(timeline[3]).not.toHaveProperty('actor');
  });

  it('lets an admin reconcile too, and answers 404 when ingestion knows no such checkout', async () => {
    const { cookie, csrf } = await signIn('admin@example.com');
    const ok = await app.inject({ method: 'POST', url: '/api/v1/transactions/REF-C/reconcile', headers: { cookie, 'x-csrf-token': csrf } });
    expect(ok.statusCode).toBe(202);
    const missing = await app.inject({ method: 'POST', url: '/api/v1/transactions/UNKNOWN-REF/reconcile', headers: { cookie, 'x-csrf-token': csrf } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'CONSOLE.TRANSACTION_NOT_FOUND' });
  });

  it('answers 503 CONSOLE.INGESTION_UNAVAILABLE when ingestion does not answer', async () => {
    const auth = new AuthService(new PostgresAuthStore(pool), { sessionTtlMs: 60_000 });
    const down = await createConsoleApp({ ...deps(auth, 'http://127.0.0.1:9'), cookies: { secure: false }, webDir });
    await down.init();
    await down.getHttpAdapter().getInstance().ready();
    try {
      const { cookie, csrf } = await signIn('operator@example.com', down);
      const res = await down.inject({ method: 'POST', url: '/api/v1/transactions/REF-B/reconcile', headers: { cookie, 'x-csrf-token': csrf } });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ code: 'CONSOLE.INGESTION_UNAVAILABLE' });
      expect(res.headers['retry-after']).toBe('5');
    } finally {
      await down.close();
    }
  });
});

describe('answers', () => {
  it('conform to the schemas of the OpenAPI document (docs/api/console-openapi.json)', () => {
    expect(answers.violations).toEqual([]);
    for (const route of [
      'POST /api/v1/session',
      'GET /api/v1/session',
      'GET /api/v1/overview',
      'GET /api/v1/transactions',
      'GET /api/v1/transactions/:reference',
      'POST /api/v1/transactions/:reference/reconcile',
    ]) {
      expect(answers.checked.has(route), route).toBe(true);
    }
  });
});

// After "answers": these answers are the HTTP edge's, outside the OpenAPI document's routes.
describe('the HTTP edge (docs/reliability.md, "Hardening against abuse")', () => {
  const expectProblem = (res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, code: string) => {
    expect(res.statusCode).toBe(status);
    expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
    expect(res.body).not.toMatch(/fastify|FST_|Cannot (GET|POST)/i);
    expect(JSON.parse(res.body)).toMatchObject({ status, code });
  };

  it('refuses a sign-in with a repeated key, or as a form, before reading it', async () => {
    const twice = await app.inject({
      method: 'POST',
      url: '/api/v1/session',
      payload: `{"email": "viewer@example.com", "password": "x", "password": ${JSON.stringify(PASSWORD)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(twice, 400, 'REQUEST.DUPLICATE_KEY');
    const form = await app.inject({
      method: 'POST',
      url: '/api/v1/session',
      payload: `email=viewer%40example.com&password=${encodeURIComponent(PASSWORD)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectProblem(form, 415, 'REQUEST.UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers an unknown route 404, a wrong method 405 with Allow, an over-long URL 414', async () => {
    expectProblem(await app.inject({ method: 'GET', url: '/api/v1/nothing' }), 404, 'REQUEST.NOT_FOUND');
    const wrongMethod = await app.inject({ method: 'PUT', url: '/api/v1/session' });
    expectProblem(wrongMethod, 405, 'REQUEST.METHOD_NOT_ALLOWED');
    expect(String(wrongMethod.headers.allow).split(', ').sort()).toEqual(expect.arrayContaining(['DELETE', 'GET', 'POST']));
    expectProblem(await app.inject({ method: 'POST', url: '/api/v1/nothing' }), 404, 'REQUEST.NOT_FOUND');
    expectProblem(await app.inject({ method: 'GET', url: `/api/v1/transactions?q=${'r'.repeat(9_000)}` }), 414, 'REQUEST.URI_TOO_LONG');
  });
});

/**
 * The console's Deliveries API against a real PostgreSQL (sessions, the ledger the audit trail
 * writes to) and a dispatcher stand-in (a local HTTP server answering the dispatcher's admin API
 * as apps/dispatcher does, recording every call): reads for every role, actions by role and
 * CSRF, each action recorded in the ledger with its actor, the error mapping, and a console
 * without a dispatcher.
 */
import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Secret } from '@settle/config';
import { adminActionStream, LEDGER_MIGRATIONS, PostgresLedger, READ_MODEL_MIGRATIONS } from '@settle/ledger';
import { createPool, migrateSchemas, type Pool } from '@settle/platform';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AnswerConformance } from './answer-conformance.js';
import { createTestDatabase } from '@settle/testing';
import { PostgresAuditLog } from '../src/audit/postgres-audit-log.js';
import { AuthService } from '../src/auth/auth.service.js';
import { consoleTestDeps, startConsoleTestApp } from './console-test-app.js';
import { PostgresAuthStore } from '../src/auth/postgres-auth-store.js';
import { createConsoleApp } from '../src/console-app.js';
import { DispatcherDeliveryAdmin } from '../src/deliveries/dispatcher-delivery-admin.js';
import { CONSOLE_MIGRATIONS } from '../src/schema.js';
import { EVENT, FAILING, HEALTHY, startDispatcherStandIn, UNKNOWN, type DispatcherStandIn, type StandInCall } from './dispatcher-stand-in.js';

const ADMIN_KEY = `dispatcher-test-${randomUUID()}`;
const PASSWORD = 'correct horse battery staple';

let answers: AnswerConformance;
let pool: Pool;
let drop: () => Promise<void>;
let app: NestFastifyApplication;
let bare: NestFastifyApplication;
let dispatcher: DispatcherStandIn;
let dispatcherUrl: string;
let calls: StandInCall[];

/** The console over this test's database, with `deliveryAdmin` as its dispatcher (`null`: none configured). */
const deps = (auth: AuthService, deliveryAdmin: DispatcherDeliveryAdmin | null) => consoleTestDeps(pool, { auth, deliveryAdmin });

async function signIn(email: string, target = app): Promise<{ cookie: string; csrf: string }> {
  const res = await target.inject({ method: 'POST', url: '/api/v1/session', payload: { email, password: PASSWORD } });
  expect(res.statusCode).toBe(200);
  return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json().csrfToken };
}

/** The audit entries of a target, newest first, as the audit view reads them from `ledger.events`. */
function auditOf(kind: 'event' | 'endpoint', id: string) {
  return new PostgresAuditLog(pool).list({ limit: 10, target: { kind, id } });
}

beforeAll(async () => {
  const database = await createTestDatabase('settle_console_deliveries');
  drop = database.drop;
  pool = createPool(database.url, 6);
  await migrateSchemas(pool, [CONSOLE_MIGRATIONS, LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS]);
  dispatcher = await startDispatcherStandIn(ADMIN_KEY);
  dispatcherUrl = dispatcher.url;
  calls = dispatcher.calls;

  const auth = new AuthService(new PostgresAuthStore(pool), { sessionTtlMs: 8 * 3_600_000 });
  for (const [email, role] of [
    ['viewer@example.com', 'viewer'],
    ['operator@example.com', 'operator'],
    ['admin@example.com', 'admin'],
  ] as const) {
    await auth.createUser(email, PASSWORD, role);
  }
  ({ app, answers } = await startConsoleTestApp(pool, {
    auth,
    deliveryAdmin: new DispatcherDeliveryAdmin({ baseUrl: dispatcherUrl, adminApiKey: new Secret(ADMIN_KEY) }),
  }));
  ({ app: bare } = await startConsoleTestApp(pool, { auth, deliveryAdmin: null }));
});

beforeEach(() => {
  dispatcher.reset();
});

afterAll(async () => {
  await app?.close();
  await bare?.close();
  await dispatcher?.close();
  await pool?.end();
  await drop?.();
});

describe('deliveries: reads', () => {
  it('answers 401 without a session', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/v1/endpoints' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'CONSOLE.UNAUTHENTICATED' });
  });

  it('lists the endpoints for a viewer, disabled first, in camelCase and never with a secret', async () => {
    const { cookie } = await signIn('viewer@example.com');
    const res = await app.inject({ method: 'GET', url: '/api/v1/endpoints', headers: { cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).not.toContain('whsec_');
    expect(res.body).not.toContain('secret');
    expect(res.json().items).toEqual([
      expect.objectContaining({ id: FAILING, enabled: false, disabledReason: 'failing', failingSince: '2026-11-15T10:00:00.000Z' }),
      expect.objectContaining({
        id: HEALTHY,
        url: 'https://customer.example/webhook/settle',
        enabled: true,
        eventKinds: ['subscription_started', 'subscription_renewed'],
      }),
    ]);
    expect(calls.at(-1)).toMatchObject({ method: 'GET', url: '/v1/admin/endpoints', authorization: `Bearer ${ADMIN_KEY}` });
  });

  it('answers an endpoint with its recent deliveries, and 404 for an unknown or malformed id', async () => {
    const { cookie } = await signIn('viewer@example.com');
    const res = await app.inject({ method: 'GET', url: `/api/v1/endpoints/${FAILING}`, headers: { cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('whsec_');
    expect(res.json()).toEqual({
      endpoint: expect.objectContaining({ id: FAILING, url: 'https://legacy.example/hooks' }),
      recentDeliveries: [expect.objectContaining({ deliveryId: 2, state: 'failed', endpointUrl: 'https://legacy.example/hooks', lastStatus: 500 })],
    });
    expect(calls.at(-1)!.url).toBe(`/v1/admin/deliveries?limit=20&endpoint_id=${FAILING}`);
    for (const id of [UNKNOWN, 'not-a-uuid']) {
      const missing = await app.inject({ method: 'GET', url: `/api/v1/endpoints/${id}`, headers: { cookie } });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toMatchObject({ code: 'CONSOLE.ENDPOINT_NOT_FOUND' });
    }
  });

  it('lists dead-lettered deliveries with their endpoint URL, by keyset pages', async () => {
    const { cookie } = await signIn('viewer@example.com');
    const failed = await app.inject({ method: 'GET', url: '/api/v1/deliveries?state=failed', headers: { cookie } });
    expect(failed.statusCode).toBe(200);
    expect(failed.json()).toEqual({
      items: [
        expect.objectContaining({
          deliveryId: 2,
          eventId: EVENT,
          state: 'failed',
          endpointUrl: 'https://legacy.example/hooks',
          lastError: 'HTTP_500',
          attemptCount: 4,
        }),
      ],
      nextCursor: null,
    });
    const first = await app.inject({ method: 'GET', url: '/api/v1/deliveries?limit=1', headers: { cookie } });
    expect(first.json()).toMatchObject({ items: [{ deliveryId: 2 }], nextCursor: '2' });
    const second = await app.inject({ method: 'GET', url: '/api/v1/deliveries?limit=1&cursor=2', headers: { cookie } });
    expect(second.json()).toMatchObject({ items: [{ deliveryId: 1, endpointUrl: 'https://customer.example/webhook/settle' }], nextCursor: '1' });
    for (const query of ['state=lost', 'limit=0', 'limit=101', 'cursor=abc', 'endpointId=nope']) {
      const bad = await app.inject({ method: 'GET', url: `/api/v1/deliveries?${query}`, headers: { cookie } });
      expect(bad.statusCode, query).toBe(400);
      expect(bad.json()).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED' });
    }
  });

  it("answers an event's deliveries with every attempt, and 404 CONSOLE.EVENT_NOT_FOUND for an unknown event", async () => {
    const { cookie } = await signIn('viewer@example.com');
    const res = await app.inject({ method: 'GET', url: `/api/v1/events/${EVENT}/deliveries`, headers: { cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.json().eventId).toBe(EVENT);
    expect(res.json().deliveries[0]).toMatchObject({
      endpointId: HEALTHY,
      endpointUrl: 'https://customer.example/webhook/settle',
      state: 'delivered',
      attempts: [
        {
          attempt: 1,
          at: '2026-11-15T10:00:00.000Z',
          outcome: 'delivered',
          httpStatus: 200,
          durationMs: 42,
          error: null,
          responseExcerpt: '{"received":true}',
        },
      ],
    });
    const missing = await app.inject({ method: 'GET', url: `/api/v1/events/${UNKNOWN}/deliveries`, headers: { cookie } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'CONSOLE.EVENT_NOT_FOUND' });
  });
});

describe('deliveries: actions, each recorded in the ledger with its actor', () => {
  it('refuses a resend from a viewer (403 CONSOLE.FORBIDDEN) and without the CSRF token, calling nothing and recording nothing', async () => {
    const viewer = await signIn('viewer@example.com');
    const before = calls.length;
    const refused = await app.inject({
      method: 'POST',
      url: `/api/v1/events/${EVENT}/resend`,
      headers: { cookie: viewer.cookie, 'x-csrf-token': viewer.csrf },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'CONSOLE.FORBIDDEN' });
    const operator = await signIn('operator@example.com');
    const noCsrf = await app.inject({ method: 'POST', url: `/api/v1/events/${EVENT}/resend`, headers: { cookie: operator.cookie } });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json()).toMatchObject({ code: 'CONSOLE.CSRF_REJECTED' });
    expect(calls.length).toBe(before);
    expect((await auditOf('event', EVENT)).items.filter((e) => e.actor.email === 'viewer@example.com')).toEqual([]);
  });

  it("resends an operator's event to one endpoint, recorded as AdminActionRequested then AdminActionCompleted with the actor", async () => {
    const { cookie, csrf } = await signIn('operator@example.com');
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/events/${EVENT}/resend`,
      headers: { cookie, 'x-csrf-token': csrf },
      payload: { endpointId: HEALTHY },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ eventId: EVENT, requeued: 1 });
    expect(calls.at(-1)).toMatchObject({ method: 'POST', url: `/v1/admin/events/${EVENT}/resend`, body: { endpoint_id: HEALTHY } });

    const stream = await new PostgresLedger(pool).readStream(adminActionStream('event', EVENT));
    expect(stream.map((e) => e.type)).toEqual(['AdminActionRequested', 'AdminActionCompleted']);
    expect(stream[0]!.data).toMatchObject({
      action: 'delivery.resend',
      actor: { email: 'operator@example.com', role: 'operator' },
      target: { kind: 'event', id: EVENT },
      parameters: { endpointId: HEALTHY },
    });
    const [entry] = (await auditOf('event', EVENT)).items;
    expect(entry).toMatchObject({
      action: 'delivery.resend',
      actor: { email: 'operator@example.com', role: 'operator' },
      outcome: 'succeeded',
      result: { requeued: 1 },
      errorCode: null,
    });
  });

  it('resends to every endpoint without a body, and records a failed resend with its code (404 for an unknown event)', async () => {
    const { cookie, csrf } = await signIn('admin@example.com');
    const all = await app.inject({ method: 'POST', url: `/api/v1/events/${EVENT}/resend`, headers: { cookie, 'x-csrf-token': csrf } });
    expect(all.json()).toEqual({ eventId: EVENT, requeued: 2 });
    const missing = await app.inject({ method: 'POST', url: `/api/v1/events/${UNKNOWN}/resend`, headers: { cookie, 'x-csrf-token': csrf } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'CONSOLE.EVENT_NOT_FOUND' });
    expect((await auditOf('event', UNKNOWN)).items).toEqual([
      expect.objectContaining({
        action: 'delivery.resend',
        actor: { email: 'admin@example.com', role: 'admin' },
        outcome: 'failed',
        errorCode: 'CONSOLE.EVENT_NOT_FOUND',
      }),
    ]);
    const badBody = await app.inject({
      method: 'POST',
      url: `/api/v1/events/${EVENT}/resend`,
      headers: { cookie, 'x-csrf-token': csrf },
      payload: { endpointId: 'x' },
    });
    expect(badBody.statusCode).toBe(400);
  });

  it("recovers an operator's endpoint since a time; refuses a time in the future or older than 30 days before calling or recording anything", async () => {
    const { cookie, csrf } = await signIn('operator@example.com');
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/endpoints/${FAILING}/recover`,
      headers: { cookie, 'x-csrf-token': csrf },
      payload: { since },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ endpointId: FAILING, since, requeued: 3 });
    expect(calls.at(-1)).toMatchObject({ method: 'POST', url: `/v1/admin/endpoints/${FAILING}/recover`, body: { since } });
    const before = calls.length;
    for (const bad of [new Date(Date.now() + 3_600_000).toISOString(), new Date(Date.now() - 31 * 86_400_000).toISOString(), 'yesterday']) {
      const refused = await app.inject({
        method: 'POST',
        url: `/api/v1/endpoints/${FAILING}/recover`,
        headers: { cookie, 'x-csrf-token': csrf },
        payload: { since: bad },
      });
      expect(refused.statusCode, bad).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED', errors: [{ path: 'since' }] });
    }
    expect(calls.length).toBe(before);
    expect((await auditOf('endpoint', FAILING)).items).toEqual([
      expect.objectContaining({ action: 'endpoint.recover', parameters: { since }, outcome: 'succeeded', result: { requeued: 3 } }),
    ]);
  });

  it('re-enables and disables an endpoint for an admin only, each recorded', async () => {
    const operator = await signIn('operator@example.com');
    const refused = await app.inject({
      method: 'POST',
      url: `/api/v1/endpoints/${HEALTHY}/disable`,
      headers: { cookie: operator.cookie, 'x-csrf-token': operator.csrf },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'CONSOLE.FORBIDDEN' });

    const { cookie, csrf } = await signIn('admin@example.com');
    const disabled = await app.inject({ method: 'POST', url: `/api/v1/endpoints/${HEALTHY}/disable`, headers: { cookie, 'x-csrf-token': csrf } });
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json()).toMatchObject({ id: HEALTHY, enabled: false, disabledReason: 'admin' });
    expect(disabled.body).not.toContain('whsec_');
    const enabled = await app.inject({ method: 'POST', url: `/api/v1/endpoints/${HEALTHY}/enable`, headers: { cookie, 'x-csrf-token': csrf } });
    expect(enabled.json()).toMatchObject({ id: HEALTHY, enabled: true, disabledReason: null });
    expect((await auditOf('endpoint', HEALTHY)).items.map((e) => [e.action, e.actor.email, e.outcome, e.result])).toEqual([
      ['endpoint.enable', 'admin@example.com', 'succeeded', { enabled: true, disabledReason: null }],
      ['endpoint.disable', 'admin@example.com', 'succeeded', { enabled: false, disabledReason: 'admin' }],
    ]);
    const missing = await app.inject({ method: 'POST', url: `/api/v1/endpoints/${UNKNOWN}/enable`, headers: { cookie, 'x-csrf-token': csrf } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'CONSOLE.ENDPOINT_NOT_FOUND' });
  });
});

describe('deliveries: the dispatcher away', () => {
  it('answers 503 CONSOLE.DELIVERY_NOT_CONFIGURED without a dispatcher, and records no action', async () => {
    const { cookie, csrf } = await signIn('admin@example.com', bare);
    const read = await bare.inject({ method: 'GET', url: '/api/v1/endpoints', headers: { cookie } });
    expect(read.statusCode).toBe(503);
    expect(read.json()).toMatchObject({ code: 'CONSOLE.DELIVERY_NOT_CONFIGURED' });
    const other = '5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e';
    const action = await bare.inject({ method: 'POST', url: `/api/v1/events/${other}/resend`, headers: { cookie, 'x-csrf-token': csrf } });
    expect(action.statusCode).toBe(503);
    expect(action.json()).toMatchObject({ code: 'CONSOLE.DELIVERY_NOT_CONFIGURED' });
    expect((await auditOf('event', other)).items).toEqual([]);
  });

  it('answers 503 CONSOLE.DISPATCHER_UNAVAILABLE when the dispatcher does not answer, and 500 CONSOLE.DISPATCHER_REJECTED for a wrong key', async () => {
    const auth = new AuthService(new PostgresAuthStore(pool), { sessionTtlMs: 60_000 });
    for (const [deliveryAdmin, status, code] of [
      [new DispatcherDeliveryAdmin({ baseUrl: 'http://127.0.0.1:9', adminApiKey: new Secret(ADMIN_KEY) }), 503, 'CONSOLE.DISPATCHER_UNAVAILABLE'],
      [new DispatcherDeliveryAdmin({ baseUrl: dispatcherUrl, adminApiKey: new Secret('a-wrong-key') }), 500, 'CONSOLE.DISPATCHER_REJECTED'],
    ] as const) {
      const other = await createConsoleApp({ ...deps(auth, deliveryAdmin) });
      await other.init();
      await other.getHttpAdapter().getInstance().ready();
      try {
        const { cookie } = await signIn('viewer@example.com', other);
        const res = await other.inject({ method: 'GET', url: '/api/v1/deliveries?state=failed', headers: { cookie } });
        expect(res.statusCode).toBe(status);
        expect(res.json()).toMatchObject({ code });
        expect(res.body).not.toContain(ADMIN_KEY);
      } finally {
        await other.close();
      }
    }
  });
});

describe('answers', () => {
  it('conform to the schemas of the OpenAPI document (docs/api/console-openapi.json)', () => {
    expect(answers.violations).toEqual([]);
    for (const route of [
      'GET /api/v1/endpoints',
      'GET /api/v1/endpoints/:id',
      'GET /api/v1/deliveries',
      'GET /api/v1/events/:eventId/deliveries',
      'POST /api/v1/events/:eventId/resend',
      'POST /api/v1/endpoints/:id/recover',
      'POST /api/v1/endpoints/:id/enable',
      'POST /api/v1/endpoints/:id/disable',
    ]) {
      expect(answers.checked.has(route), route).toBe(true);
    }
  });
});

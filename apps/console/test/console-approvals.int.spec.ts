/**
 * Two people for money decisions through the console's API (docs/approvals.md), against a real
 * PostgreSQL and an ingestion stand-in (an HTTP server answering its admin match route): an
 * operator proposes matching an unmatched payment, the proposer cannot approve it, a second admin
 * does, the match runs once through ingestion with the proposed terms, and every command is in
 * the audit trail with its actor.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Secret } from '@settle/config';
import { LEDGER_MIGRATIONS, PostgresLedger, READ_MODEL_MIGRATIONS, upsertUnmatchedPayments, type UnmatchedPaymentRow } from '@settle/ledger';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { createTestDatabase, recordedUnmatchedPayment } from '@settle/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth.service.js';
import { PostgresAuthStore } from '../src/auth/postgres-auth-store.js';
import { ConsoleMetrics } from '../src/metrics/console.metrics.js';
import { ReviewQueues } from '../src/queues/review-queues.js';
import { CONSOLE_MIGRATIONS } from '../src/schema.js';
import { TransactionRepository } from '../src/transactions/transaction.repository.js';
import type { AnswerConformance } from './answer-conformance.js';
import { startConsoleTestApp } from './console-test-app.js';

const PASSWORD = 'correct horse battery staple';
let pool: Pool;
let drop: () => Promise<void>;
let app: NestFastifyApplication;
let answers: AnswerConformance;
let ingestion: Server;
/** What the ingestion stand-in received: path, authorization and body of each request. */
const received: Array<{ url: string; authorization: string | undefined; body: unknown }> = [];

interface Session {
  cookie: string;
  csrf: string;
}
const sessions: Record<'operator' | 'admin' | 'otherAdmin' | 'viewer', Session> = {} as never;

const recorded = (reference: string): UnmatchedPaymentRow => recordedUnmatchedPayment(reference, { customer_email_masked: 'p•••@example.com' });

async function signIn(email: string): Promise<Session> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/session', payload: { email, password: PASSWORD } });
  return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json<{ csrfToken: string }>().csrfToken };
}

const send = (session: Session, method: 'GET' | 'POST', url: string, payload?: unknown) =>
  app.inject({
    method,
    url,
    headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

const terms = {
  amount: 250_000,
  currency: 'NGN',
  user_id: 'user-42',
  customer: { email: 'payer@example.com' },
  entitlement: 'pro-monthly',
  access_period: 'P1M',
};

beforeAll(async () => {
  ingestion = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ url: req.url ?? '', authorization: req.headers.authorization, body: text ? (JSON.parse(text) as unknown) : null });
      const [, reference, route] = /\/v1\/admin\/unmatched-payments\/([^/]+)\/(match|close)$/.exec(req.url ?? '') ?? [];
      res.setHeader('content-type', 'application/json');
      res.statusCode = reference ? 202 : 404;
      res.end(JSON.stringify(!reference ? { code: 'NOT_FOUND' } : route === 'match' ? { reference, state: 'PENDING' } : { reference, status: 'closing' }));
    });
  });
  await new Promise<void>((resolve) => ingestion.listen(0, '127.0.0.1', resolve));
  const database = await createTestDatabase('settle_console_approvals');
  drop = database.drop;
  pool = createPool(database.url, 4);
  for (const migrations of [CONSOLE_MIGRATIONS, LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS]) await migrateSchema(pool, migrations);
  await upsertUnmatchedPayments(pool, [recorded('ref_open'), recorded('ref_other')]);
  const auth = new AuthService(new PostgresAuthStore(pool), { sessionTtlMs: 3_600_000 });
  await auth.createUser('ops@example.com', PASSWORD, 'operator');
  await auth.createUser('lead@example.com', PASSWORD, 'admin');
  await auth.createUser('cfo@example.com', PASSWORD, 'admin');
  await auth.createUser('viewer@example.com', PASSWORD, 'viewer');
  const port = (ingestion.address() as AddressInfo).port;
  ({ app, answers } = await startConsoleTestApp(pool, { auth }, { baseUrl: `http://127.0.0.1:${port}`, adminApiKey: new Secret('console-admin-key') }));
  sessions.operator = await signIn('ops@example.com');
  sessions.admin = await signIn('lead@example.com');
  sessions.otherAdmin = await signIn('cfo@example.com');
  sessions.viewer = await signIn('viewer@example.com');
});

afterAll(async () => {
  await app?.close();
  await pool?.end();
  await drop?.();
  await new Promise((resolve) => ingestion?.close(resolve));
});

describe('matching an unmatched payment takes two people', () => {
  it('an operator proposes; the proposer cannot approve; a second admin approves and the match runs once, with the proposed terms', async () => {
    const proposed = await send(sessions.operator, 'POST', '/api/v1/unmatched-payments/ref_open/match-proposals', terms);
    expect(proposed.statusCode).toBe(201);
    const proposal = proposed.json<{ id: string; status: string }>();
    expect(proposal).toMatchObject({
      status: 'pending',
      action: 'unmatched_payment.match',
      target: { kind: 'unmatched_payment', id: 'ref_open' },
      parameters: terms,
    });
    expect(received).toEqual([]);
    expect((await send(sessions.viewer, 'GET', '/api/v1/proposals')).json()).toEqual({ items: [expect.objectContaining({ id: proposal.id })] });

    const byOperator = await send(sessions.operator, 'POST', `/api/v1/proposals/${proposal.id}/approve`);
    expect(byOperator.statusCode).toBe(403);
    expect(byOperator.json()).toMatchObject({ code: 'CONSOLE.FORBIDDEN' });

    const approved = await send(sessions.admin, 'POST', `/api/v1/proposals/${proposal.id}/approve`);
    expect(approved.statusCode).toBe(200);
    expect(approved.json()).toMatchObject({
      proposal: { status: 'approved', decidedBy: { email: 'lead@example.com' } },
      result: { reference: 'ref_open', state: 'PENDING' },
    });
    expect(received).toEqual([{ url: '/v1/admin/unmatched-payments/ref_open/match', authorization: 'Bearer console-admin-key', body: terms }]);

    const audit = (await send(sessions.admin, 'GET', '/api/v1/audit?targetKind=proposal&targetId=' + proposal.id)).json<{
      items: Array<{ action: string; actor: { email: string } }>;
    }>();
    expect(audit.items.map((i) => [i.action, i.actor.email]).reverse()).toEqual([
      ['proposal.create', 'ops@example.com'],
      ['proposal.approve', 'lead@example.com'],
    ]);
  });

  it('an admin proposer cannot approve their own proposal through the API either; a rejected one never runs', async () => {
    const proposal = (await send(sessions.admin, 'POST', '/api/v1/unmatched-payments/ref_other/match-proposals', terms)).json<{ id: string }>();
    const self = await send(sessions.admin, 'POST', `/api/v1/proposals/${proposal.id}/approve`);
    expect(self.statusCode).toBe(403);
    expect(self.json()).toMatchObject({ code: 'APPROVAL.SELF_APPROVAL' });
    const again = await send(sessions.operator, 'POST', '/api/v1/unmatched-payments/ref_other/match-proposals', terms);
    expect(again.json()).toMatchObject({ status: 409, code: 'CONSOLE.PROPOSAL_PENDING' });
    const rejected = await send(sessions.otherAdmin, 'POST', `/api/v1/proposals/${proposal.id}/reject`, { reason: 'not our customer' });
    expect(rejected.json()).toMatchObject({ status: 'rejected', reason: 'not our customer', decidedBy: { email: 'cfo@example.com' } });
    expect((await send(sessions.otherAdmin, 'POST', `/api/v1/proposals/${proposal.id}/approve`)).json()).toMatchObject({ code: 'APPROVAL.CLOSED' });
    expect(received.filter((r) => r.url.includes('ref_other'))).toEqual([]);
  });

  it('refuses a viewer, invalid terms, an unknown payment or proposal, and a missing CSRF token, each as problem details', async () => {
    expect((await send(sessions.viewer, 'POST', '/api/v1/unmatched-payments/ref_open/match-proposals', terms)).json()).toMatchObject({
      code: 'CONSOLE.FORBIDDEN',
    });
    const invalid = await send(sessions.operator, 'POST', '/api/v1/unmatched-payments/ref_open/match-proposals', { ...terms, amount: 2.5 });
    expect(invalid.json()).toMatchObject({ status: 400, code: 'REQUEST.VALIDATION_FAILED', errors: [expect.objectContaining({ path: 'amount' })] });
    expect((await send(sessions.operator, 'POST', '/api/v1/unmatched-payments/ref_nowhere/match-proposals', terms)).json()).toMatchObject({
      status: 404,
      code: 'CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND',
    });
    expect((await send(sessions.admin, 'POST', '/api/v1/proposals/not-a-uuid/approve')).json()).toMatchObject({ status: 404, code: 'APPROVAL.UNKNOWN' });
    const noCsrf = await app.inject({
      method: 'POST',
      url: '/api/v1/unmatched-payments/ref_open/match-proposals',
      headers: { cookie: sessions.operator.cookie },
      payload: terms,
    });
    expect(noCsrf.json()).toMatchObject({ status: 403, code: 'CONSOLE.CSRF_REJECTED' });
    expect(answers.violations).toEqual([]);
  });
});

describe('closing an unmatched payment takes one operator, recorded with the actor', () => {
  it('closes through ingestion with the reason, the note and the operator; refuses a viewer and an unknown reason', async () => {
    const closed = await send(sessions.operator, 'POST', '/api/v1/unmatched-payments/ref_other/close', { reason: 'test_payment', note: 'QA card' });
    expect(closed.statusCode).toBe(202);
    expect(closed.json()).toEqual({ reference: 'ref_other', status: 'closing' });
    expect(received.at(-1)).toEqual({
      url: '/v1/admin/unmatched-payments/ref_other/close',
      authorization: 'Bearer console-admin-key',
      body: { reason: 'test_payment', note: 'QA card', closed_by: 'ops@example.com' },
    });
    const audit = (await send(sessions.admin, 'GET', '/api/v1/audit?targetKind=unmatched_payment&targetId=ref_other')).json<{
      items: Array<{ action: string; actor: { email: string }; outcome: string }>;
    }>();
    expect(audit.items.map((i) => [i.action, i.actor.email, i.outcome])).toEqual([['unmatched_payment.close', 'ops@example.com', 'succeeded']]);
    expect((await send(sessions.viewer, 'POST', '/api/v1/unmatched-payments/ref_other/close', { reason: 'test_payment' })).json()).toMatchObject({
      code: 'CONSOLE.FORBIDDEN',
    });
    expect((await send(sessions.operator, 'POST', '/api/v1/unmatched-payments/ref_other/close', { reason: 'because' })).json()).toMatchObject({
      status: 400,
      code: 'REQUEST.VALIDATION_FAILED',
    });
    expect(answers.violations).toEqual([]);
  });
});

describe('open unmatched payments as metrics (the age alert, docs/unmatched-payments.md)', () => {
  it('counts the open ones and the age of the oldest since the provider confirmed it', async () => {
    const metrics = new ConsoleMetrics(new Registry());
    const queues = new ReviewQueues(pool, new TransactionRepository(pool, new PostgresLedger(pool)));
    const counting = metrics.reviewCounting(queues, pino({ level: 'silent' }), 30_000, () => Date.parse('2026-11-28T13:00:00.000Z'));
    await counting.runOnce();
    expect(await metrics.unmatchedOpen.get()).toMatchObject({ values: [{ value: 2 }] });
    expect(await metrics.oldestUnmatchedAge.get()).toMatchObject({ values: [{ value: 3_600 }] });
  });
});

/**
 * Resolving a State Mismatch through the console's API (docs/state-machine.md, "Resolving a State
 * Mismatch"; docs/approvals.md), against a real PostgreSQL and an ingestion stand-in (an HTTP
 * server that records each request to its admin API and answers as ingestion would):
 * - accepting one as paid takes two people: proposed (operator or admin) with a note, never
 *   approved by its proposer, run once a second admin approves, with the proposal and both people;
 * - closing one as refund due takes one admin, and is in the transaction's audit trail;
 * - what the read model shows (not a State Mismatch, money returned) refuses a proposal before it
 *   exists, and ingestion's refusals are the console's.
 * The read-model rows are written by the read model's own writers, as the projector does.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Secret } from '@settle/config';
import { adminActionStream, LEDGER_MIGRATIONS, PostgresLedger, READ_MODEL_MIGRATIONS, updateMoneyStates, upsertLedgerStatuses } from '@settle/ledger';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { createTestDatabase } from '@settle/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth.service.js';
import { PostgresAuthStore } from '../src/auth/postgres-auth-store.js';
import { CONSOLE_MIGRATIONS } from '../src/schema.js';
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
/** Problems the stand-in answers instead of 202, by reference (ingestion's own refusals). */
const refusals = new Map<string, { status: number; code: string }>();

interface Session {
  cookie: string;
  csrf: string;
}
const sessions: Record<'operator' | 'admin' | 'otherAdmin' | 'viewer', Session> = {} as never;

async function signIn(email: string): Promise<Session> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/session', payload: { email, password: PASSWORD } });
  expect(res.statusCode).toBe(200);
  return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json<{ csrfToken: string }>().csrfToken };
}

const send = (session: Session, method: 'GET' | 'POST', url: string, payload?: unknown) =>
  app.inject({
    method,
    url,
    headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

/** Transactions as the read model holds them. */
const MISMATCH_ACCEPTED_BY_TWO = 'ref_mm_accept';
const MISMATCH_PROPOSED_BY_OPERATOR = 'ref_mm_operator';
const MISMATCH_CLOSED = 'ref_mm_close';
const MISMATCH_CLOSED_NO_NOTE = 'ref_mm_close_bare';
const MISMATCH_REFUNDED_IN_PART = 'ref_mm_returned';
const MISMATCH_RESOLVED_MEANWHILE = 'ref_mm_race';
const SETTLED = 'ref_mm_settled';

const resolveUrl = (reference: string) => `/v1/admin/checkouts/${reference}/resolve-mismatch`;
const INGESTION_KEY = 'Bearer console-admin-key';

beforeAll(async () => {
  ingestion = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const body = text ? (JSON.parse(text) as { resolution?: string }) : null;
      received.push({ url: req.url ?? '', authorization: req.headers.authorization, body });
      const reference = /^\/v1\/admin\/checkouts\/([^/]+)\/resolve-mismatch$/.exec(req.url ?? '')?.[1];
      const refusal = reference ? refusals.get(decodeURIComponent(reference)) : undefined;
      if (!reference) {
        res.writeHead(404, { 'content-type': 'application/problem+json' }).end('{"status":404,"code":"NOT_FOUND"}');
      } else if (refusal) {
        res.writeHead(refusal.status, { 'content-type': 'application/problem+json' }).end(JSON.stringify(refusal));
      } else {
        res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ reference, resolution: body?.resolution, status: 'resolving' }));
      }
    });
  });
  await new Promise<void>((resolve) => ingestion.listen(0, '127.0.0.1', resolve));
  const database = await createTestDatabase('settle_console_mismatch');
  drop = database.drop;
  pool = createPool(database.url, 4);
  for (const migrations of [CONSOLE_MIGRATIONS, LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS]) await migrateSchema(pool, migrations);
  const row = (reference: string, state: string) => ({
    reference,
    provider: 'paystack',
    state,
    entitlementStatus: state === 'SETTLED_CONSENSUS' ? 'UNLOCKED' : 'LOCKED',
    amountMinor: 500_000,
    currency: 'NGN',
    checks: null,
    lastVerdict: 'cleared',
    lastTrigger: 'webhook_received',
    ledgerRevision: 0,
    updatedAt: new Date('2027-03-01T09:00:00.000Z'),
  });
  await upsertLedgerStatuses(pool, [
    ...[
      MISMATCH_ACCEPTED_BY_TWO,
      MISMATCH_PROPOSED_BY_OPERATOR,
      MISMATCH_CLOSED,
      MISMATCH_CLOSED_NO_NOTE,
      MISMATCH_REFUNDED_IN_PART,
      MISMATCH_RESOLVED_MEANWHILE,
    ].map((r) => row(r, 'STATE_MISMATCH')),
    row(SETTLED, 'SETTLED_CONSENSUS'),
  ]);
  await updateMoneyStates(pool, [{ reference: MISMATCH_REFUNDED_IN_PART, moneyState: 'partially_refunded', returnedMinor: 100_000, ledgerRevision: 1 }]);
  // Resolved by another admin after the proposal: the read model has not caught up, ingestion refuses.
  refusals.set(MISMATCH_RESOLVED_MEANWHILE, { status: 409, code: 'MISMATCH.ALREADY_RESOLVED' });

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

const requestsFor = (reference: string) => received.filter((r) => r.url === resolveUrl(reference));

type AuditItem = { action: string; actor: { email: string }; outcome: string | null; errorCode: string | null; parameters: unknown; result: unknown };
async function auditOf(kind: string, id: string): Promise<AuditItem[]> {
  const answer = await send(sessions.admin, 'GET', `/api/v1/audit?targetKind=${kind}&targetId=${id}`);
  expect(answer.statusCode).toBe(200);
  // Oldest first.
  return answer.json<{ items: AuditItem[] }>().items.reverse();
}

describe('accepting a State Mismatch as paid takes two people', () => {
  const note = 'underpaid by NGN 500, within the tolerance the merchant accepts';

  it('an admin proposes (201); the proposer cannot approve (403); a second admin approves and ingestion gets the proposal and both people', async () => {
    const proposed = await send(sessions.admin, 'POST', `/api/v1/transactions/${MISMATCH_ACCEPTED_BY_TWO}/accept-as-paid-proposals`, { note });
    expect(proposed.statusCode, proposed.body).toBe(201);
    const proposal = proposed.json<{ id: string }>();
    expect(proposal).toMatchObject({
      status: 'pending',
      action: 'state_mismatch.accept_as_paid',
      target: { kind: 'transaction', id: MISMATCH_ACCEPTED_BY_TWO },
      parameters: { note },
    });
    // Nothing runs on a proposal.
    expect(requestsFor(MISMATCH_ACCEPTED_BY_TWO)).toEqual([]);

    const self = await send(sessions.admin, 'POST', `/api/v1/proposals/${proposal.id}/approve`);
    expect(self.statusCode).toBe(403);
    expect(self.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(self.json()).toMatchObject({ code: 'APPROVAL.SELF_APPROVAL' });
    expect(requestsFor(MISMATCH_ACCEPTED_BY_TWO)).toEqual([]);
    expect((await send(sessions.viewer, 'GET', `/api/v1/proposals/${proposal.id}`)).json()).toMatchObject({ status: 'pending' });

    const approved = await send(sessions.otherAdmin, 'POST', `/api/v1/proposals/${proposal.id}/approve`);
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json()).toMatchObject({
      proposal: { id: proposal.id, status: 'approved', decidedBy: { email: 'cfo@example.com' } },
      result: { reference: MISMATCH_ACCEPTED_BY_TWO, resolution: 'accept_as_paid' },
    });
    expect(requestsFor(MISMATCH_ACCEPTED_BY_TWO)).toEqual([
      {
        url: resolveUrl(MISMATCH_ACCEPTED_BY_TWO),
        authorization: INGESTION_KEY,
        body: { resolution: 'accept_as_paid', proposal_id: proposal.id, proposed_by: 'lead@example.com', approved_by: 'cfo@example.com', note },
      },
    ]);
    // The same approval again (a double click) answers the approved proposal and runs nothing again.
    const again = await send(sessions.otherAdmin, 'POST', `/api/v1/proposals/${proposal.id}/approve`);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ proposal: { status: 'approved' }, result: {} });
    expect(requestsFor(MISMATCH_ACCEPTED_BY_TWO)).toHaveLength(1);

    expect((await auditOf('proposal', proposal.id)).map((i) => [i.action, i.actor.email, i.outcome])).toEqual([
      ['proposal.create', 'lead@example.com', 'succeeded'],
      ['proposal.approve', 'lead@example.com', 'failed'],
      ['proposal.approve', 'cfo@example.com', 'succeeded'],
      ['proposal.approve', 'cfo@example.com', 'succeeded'],
    ]);
    expect(answers.violations).toEqual([]);
  });

  it('an operator proposes too, cannot approve (not an admin), and an admin’s approval names the operator as proposer', async () => {
    const proposal = (
      await send(sessions.operator, 'POST', `/api/v1/transactions/${MISMATCH_PROPOSED_BY_OPERATOR}/accept-as-paid-proposals`, {
        note: 'accepted by the merchant',
      })
    ).json<{ id: string; status: string }>();
    expect(proposal.status).toBe('pending');
    // A second proposal of the same while it waits.
    expect(
      (await send(sessions.admin, 'POST', `/api/v1/transactions/${MISMATCH_PROPOSED_BY_OPERATOR}/accept-as-paid-proposals`, { note: 'again' })).json(),
    ).toMatchObject({ status: 409, code: 'CONSOLE.PROPOSAL_PENDING' });
    expect((await send(sessions.operator, 'POST', `/api/v1/proposals/${proposal.id}/approve`)).json()).toMatchObject({
      status: 403,
      code: 'CONSOLE.FORBIDDEN',
    });
    expect(requestsFor(MISMATCH_PROPOSED_BY_OPERATOR)).toEqual([]);
    expect((await send(sessions.admin, 'POST', `/api/v1/proposals/${proposal.id}/approve`)).statusCode).toBe(200);
    expect(requestsFor(MISMATCH_PROPOSED_BY_OPERATOR).map((r) => r.body)).toEqual([
      {
        resolution: 'accept_as_paid',
        proposal_id: proposal.id,
        proposed_by: 'ops@example.com',
        approved_by: 'lead@example.com',
        note: 'accepted by the merchant',
      },
    ]);
  });

  it('refuses a proposal for a transaction not in State Mismatch (409), one whose money went back (409), an unknown one (404), no note (400), a viewer (403)', async () => {
    const propose = (session: Session, reference: string, body: unknown = { note: 'accept it' }) =>
      send(session, 'POST', `/api/v1/transactions/${reference}/accept-as-paid-proposals`, body);
    const cases: Array<[Session, string, unknown, number, string]> = [
      [sessions.operator, SETTLED, { note: 'accept it' }, 409, 'CONSOLE.NOT_STATE_MISMATCH'],
      [sessions.admin, MISMATCH_REFUNDED_IN_PART, { note: 'accept it' }, 409, 'CONSOLE.MISMATCH_MONEY_RETURNED'],
      [sessions.admin, 'ref_mm_nowhere', { note: 'accept it' }, 404, 'CONSOLE.TRANSACTION_NOT_FOUND'],
      [sessions.admin, MISMATCH_CLOSED, {}, 400, 'REQUEST.VALIDATION_FAILED'],
      [sessions.admin, MISMATCH_CLOSED, { note: '   ' }, 400, 'REQUEST.VALIDATION_FAILED'],
      [sessions.admin, MISMATCH_CLOSED, { note: 'x'.repeat(501) }, 400, 'REQUEST.VALIDATION_FAILED'],
      [sessions.viewer, MISMATCH_CLOSED, { note: 'accept it' }, 403, 'CONSOLE.FORBIDDEN'],
    ];
    for (const [session, reference, body, status, code] of cases) {
      const answer = await propose(session, reference, body);
      expect(answer.statusCode, `${reference} ${JSON.stringify(body)}`).toBe(status);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(answer.json()).toMatchObject({ status, code });
    }
    // None of them became a proposal.
    const pending = (await send(sessions.viewer, 'GET', '/api/v1/proposals')).json<{ items: Array<{ target: { id: string } }> }>();
    expect(pending.items.map((p) => p.target.id).filter((id) => [SETTLED, MISMATCH_REFUNDED_IN_PART, MISMATCH_CLOSED].includes(id))).toEqual([]);
    const noCsrf = await app.inject({
      method: 'POST',
      url: `/api/v1/transactions/${MISMATCH_CLOSED}/accept-as-paid-proposals`,
      headers: { cookie: sessions.operator.cookie },
      payload: { note: 'accept it' },
    });
    expect(noCsrf.json()).toMatchObject({ status: 403, code: 'CONSOLE.CSRF_REJECTED' });
    expect(answers.violations).toEqual([]);
  });

  it('ingestion refusing the approved resolution (resolved meanwhile) is the console’s 409, and the proposal stays pending', async () => {
    const proposal = (
      await send(sessions.operator, 'POST', `/api/v1/transactions/${MISMATCH_RESOLVED_MEANWHILE}/accept-as-paid-proposals`, { note: 'accept it' })
    ).json<{ id: string }>();
    const approved = await send(sessions.admin, 'POST', `/api/v1/proposals/${proposal.id}/approve`);
    expect(approved.statusCode).toBe(409);
    expect(approved.json()).toMatchObject({ code: 'CONSOLE.MISMATCH_RESOLVED' });
    expect(requestsFor(MISMATCH_RESOLVED_MEANWHILE)).toHaveLength(1);
    expect((await send(sessions.viewer, 'GET', `/api/v1/proposals/${proposal.id}`)).json()).toMatchObject({ status: 'pending' });
  });
});

describe('closing a State Mismatch as refund due takes one admin, recorded in the transaction’s audit trail', () => {
  const closeUrl = (reference: string) => `/api/v1/transactions/${reference}/close-refund-due`;

  it('an operator is refused (403) and nothing is sent; an admin closes it (202), ingestion gets refund_due with who closed it', async () => {
    const byOperator = await send(sessions.operator, 'POST', closeUrl(MISMATCH_CLOSED), { note: 'refund it' });
    expect(byOperator.statusCode).toBe(403);
    expect(byOperator.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(byOperator.json()).toMatchObject({ code: 'CONSOLE.FORBIDDEN' });
    expect(requestsFor(MISMATCH_CLOSED)).toEqual([]);

    const closed = await send(sessions.admin, 'POST', closeUrl(MISMATCH_CLOSED), { note: 'the customer wants the money back' });
    expect(closed.statusCode, closed.body).toBe(202);
    expect(closed.json()).toEqual({ reference: MISMATCH_CLOSED, status: 'closing' });
    expect(requestsFor(MISMATCH_CLOSED)).toEqual([
      {
        url: resolveUrl(MISMATCH_CLOSED),
        authorization: INGESTION_KEY,
        body: { resolution: 'refund_due', closed_by: 'lead@example.com', note: 'the customer wants the money back' },
      },
    ]);

    const audit = await auditOf('transaction', MISMATCH_CLOSED);
    expect(audit).toEqual([
      expect.objectContaining({
        action: 'state_mismatch.refund_due',
        actor: { email: 'lead@example.com', role: 'admin' },
        target: { kind: 'transaction', id: MISMATCH_CLOSED },
        parameters: { note: 'the customer wants the money back' },
        outcome: 'succeeded',
        result: { resolution: 'refund_due' },
      }),
    ]);
    // In the ledger: the admin stream of the transaction, request then outcome.
    const stream = await new PostgresLedger(pool).readStream(adminActionStream('transaction', MISMATCH_CLOSED));
    expect(stream.map((e) => [e.type, e.data.action])).toEqual([
      ['AdminActionRequested', 'state_mismatch.refund_due'],
      ['AdminActionCompleted', 'state_mismatch.refund_due'],
    ]);
    expect(answers.violations).toEqual([]);
  });

  it('without a note, none is sent', async () => {
    expect((await send(sessions.otherAdmin, 'POST', closeUrl(MISMATCH_CLOSED_NO_NOTE), {})).statusCode).toBe(202);
    expect(requestsFor(MISMATCH_CLOSED_NO_NOTE).map((r) => r.body)).toEqual([{ resolution: 'refund_due', closed_by: 'cfo@example.com' }]);
    expect((await auditOf('transaction', MISMATCH_CLOSED_NO_NOTE)).map((i) => [i.action, i.parameters, i.outcome])).toEqual([
      ['state_mismatch.refund_due', { note: null }, 'succeeded'],
    ]);
  });

  it('a transaction not in State Mismatch: 409, audited as failed with its code, nothing sent', async () => {
    const answer = await send(sessions.admin, 'POST', closeUrl(SETTLED), { note: 'refund it' });
    expect(answer.statusCode).toBe(409);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answer.json()).toMatchObject({ code: 'CONSOLE.NOT_STATE_MISMATCH' });
    expect(requestsFor(SETTLED)).toEqual([]);
    expect((await auditOf('transaction', SETTLED)).map((i) => [i.action, i.actor.email, i.outcome, i.errorCode])).toEqual([
      ['state_mismatch.refund_due', 'lead@example.com', 'failed', 'CONSOLE.NOT_STATE_MISMATCH'],
    ]);
  });
});

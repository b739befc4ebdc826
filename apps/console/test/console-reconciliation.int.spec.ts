/**
 * The console's Reconciliation API (docs/console.md, "Reconciliation"; docs/reconciliation.md)
 * against a real PostgreSQL and an ingestion stand-in (an HTTP server answering its admin
 * reconciliation routes as ingestion does): runs and exceptions read from the ledger's read
 * models (seeded by their own writer, `upsertReconciliation`, as the projector does) in keyset
 * pages and as CSV; starting a run and resolving an exception reach ingestion with the operator
 * named, are refused to viewers, and are in the audit trail with their actor; every error is
 * problem details with its code.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Secret } from '@settle/config';
import {
  EXCEPTION_CSV_COLUMNS,
  LEDGER_MIGRATIONS,
  READ_MODEL_MIGRATIONS,
  upsertReconciliation,
  type ReconciliationExceptionRow,
  type ReconciliationRunRow,
} from '@settle/ledger';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { createTestDatabase } from '@settle/testing';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
/** How the stand-in answers the next request: a status and a body (default: ingestion's 202). */
let nextAnswer: { status: number; body: unknown } | null = null;

interface Session {
  cookie: string;
  csrf: string;
}
const sessions: Record<'operator' | 'admin' | 'viewer', Session> = {} as never;

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

const at = (minute: number) => new Date(Date.UTC(2026, 10, 28, 12, minute)).toISOString();
const runId = (n: number) => `rcr_00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const exceptionId = (n: number) => `rex_00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const run = (
  n: number,
  provider: 'paystack' | 'stripe',
  overrides: Partial<ReconciliationRunRow['data']> = {},
  status: ReconciliationRunRow['status'] = 'completed',
): ReconciliationRunRow => ({
  status,
  ledgerRevision: 2,
  data: {
    run_id: runId(n),
    provider,
    kind: 'on_demand',
    window_from: at(0),
    window_until: at(60),
    dry_run: false,
    started_by: 'ops@example.com',
    pages: 3,
    total_pages: 3,
    listed: 120,
    out_of_scope: 4,
    too_recent: 1,
    classes: { matches: 113, stuck: 1, terms_differ: 1 },
    exceptions_raised: 2,
    exceptions_resolved: 0,
    started_at: at(60 + n),
    finished_at: at(61 + n),
    error: null,
    ...overrides,
  },
});

const TERMS = exceptionId(1);
const STUCK = exceptionId(2);
const OTHER_RUN = exceptionId(3);

const raised = (
  id: string,
  reference: string,
  cls: 'stuck' | 'terms_differ',
  minute: number,
  evidence: Array<{ field: 'status' | 'amount' | 'currency'; provider: string; settle: string }>,
  run = runId(1),
): ReconciliationExceptionRow => ({
  kind: 'raised',
  ledgerRevision: 0,
  data: {
    exception_id: id,
    reference,
    provider: 'paystack',
    class: cls,
    evidence,
    run_id: run,
    provider_transaction_id: `4099${minute}`,
    provider_status: 'success',
    amount_minor: 250_000,
    currency: 'NGN',
    raised_at: at(minute),
  },
});

beforeAll(async () => {
  ingestion = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
      received.push({ url: req.url ?? '', authorization: req.headers.authorization, body });
      res.setHeader('content-type', 'application/json');
      if (nextAnswer) {
        res.statusCode = nextAnswer.status;
        res.end(JSON.stringify(nextAnswer.body));
        nextAnswer = null;
        return;
      }
      const [, id] = /\/v1\/admin\/reconciliation-exceptions\/([^/]+)\/resolve$/.exec(req.url ?? '') ?? [];
      if (id) {
        res.statusCode = 202;
        res.end(JSON.stringify({ exception_id: id, status: 'resolving' }));
      } else if (req.url === '/v1/admin/reconciliation-runs') {
        res.statusCode = 202;
        res.end(
          JSON.stringify({
            run_id: runId(99),
            status: 'requested',
            window: { since: new Date(String(body?.since)).toISOString(), until: '2026-11-28T00:00:00.000Z' },
          }),
        );
      } else {
        res.statusCode = 404;
        res.end(JSON.stringify({ code: 'REQUEST.NOT_FOUND' }));
      }
    });
  });
  await new Promise<void>((resolve) => ingestion.listen(0, '127.0.0.1', resolve));
  const database = await createTestDatabase('settle_console_reconciliation');
  drop = database.drop;
  pool = createPool(database.url, 4);
  for (const migrations of [CONSOLE_MIGRATIONS, LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS]) await migrateSchema(pool, migrations);
  await upsertReconciliation(
    pool,
    [run(1, 'paystack'), run(2, 'stripe', { kind: 'daily', started_by: 'scheduler', error: 'PROVIDER.UNREACHABLE', finished_at: at(63) }, 'failed')],
    [
      raised(STUCK, 'ref_r_stuck', 'stuck', 1, [{ field: 'status', provider: 'succeeded (success)', settle: 'PENDING' }]),
      raised(TERMS, 'ref_r_terms', 'terms_differ', 2, [
        { field: 'amount', provider: '250000', settle: '200000' },
        { field: 'currency', provider: 'NGN', settle: 'GHS' },
      ]),
      raised(OTHER_RUN, 'ref_r_other', 'stuck', 3, [{ field: 'status', provider: 'succeeded (success)', settle: 'RECOVERING' }], runId(2)),
      {
        kind: 'resolved',
        ledgerRevision: 1,
        data: {
          exception_id: OTHER_RUN,
          reference: 'ref_r_other',
          provider: 'paystack',
          class: 'stuck',
          resolved_at: at(30),
          resolution: 'operator',
          note: 'refunded by hand',
          resolved_by: 'lead@example.com',
          run_id: null,
        },
      },
    ],
  );
  const auth = new AuthService(new PostgresAuthStore(pool), { sessionTtlMs: 3_600_000 });
  await auth.createUser('ops@example.com', PASSWORD, 'operator');
  await auth.createUser('lead@example.com', PASSWORD, 'admin');
  await auth.createUser('viewer@example.com', PASSWORD, 'viewer');
  const port = (ingestion.address() as AddressInfo).port;
  ({ app, answers } = await startConsoleTestApp(pool, { auth }, { baseUrl: `http://127.0.0.1:${port}`, adminApiKey: new Secret('console-admin-key') }));
  sessions.operator = await signIn('ops@example.com');
  sessions.admin = await signIn('lead@example.com');
  sessions.viewer = await signIn('viewer@example.com');
});

afterAll(async () => {
  expect(answers?.violations ?? []).toEqual([]);
  await app?.close();
  await pool?.end();
  await drop?.();
  await new Promise((resolve) => ingestion?.close(resolve));
});

beforeEach(() => {
  received.length = 0;
  nextAnswer = null;
});

describe('reading runs and exceptions (any role)', () => {
  it('lists runs newest first in keyset pages, with their counts per class, who started them and why one failed', async () => {
    const first = await send(sessions.viewer, 'GET', '/api/v1/reconciliation/runs?limit=1');
    expect(first.statusCode).toBe(200);
    const page = first.json<{ items: Array<Record<string, unknown>>; nextCursor: string }>();
    expect(page.items).toEqual([
      expect.objectContaining({ runId: runId(2), provider: 'stripe', kind: 'daily', status: 'failed', startedBy: 'scheduler', error: 'PROVIDER.UNREACHABLE' }),
    ]);
    const second = (await send(sessions.viewer, 'GET', `/api/v1/reconciliation/runs?limit=1&cursor=${page.nextCursor}`)).json<typeof page>();
    expect(second.items).toEqual([
      {
        runId: runId(1),
        provider: 'paystack',
        kind: 'on_demand',
        status: 'completed',
        window: { since: at(0), until: at(60) },
        dryRun: false,
        startedBy: 'ops@example.com',
        pages: 3,
        totalPages: 3,
        listed: 120,
        outOfScope: 4,
        tooRecent: 1,
        classes: { matches: 113, stuck: 1, terms_differ: 1 },
        exceptionsRaised: 2,
        exceptionsResolved: 0,
        startedAt: at(61),
        finishedAt: at(62),
        error: null,
      },
    ]);
    expect(second.nextCursor).toBeNull();
    expect((await send(sessions.viewer, 'GET', '/api/v1/reconciliation/runs?provider=paystack')).json<typeof page>().items.map((r) => r.runId)).toEqual([
      runId(1),
    ]);
  });

  it('shows one run, and 404 with its code for one not recorded (or not a run id)', async () => {
    expect((await send(sessions.viewer, 'GET', `/api/v1/reconciliation/runs/${runId(1)}`)).json()).toMatchObject({ runId: runId(1), listed: 120 });
    for (const id of [runId(404), 'not-a-run']) {
      const missing = await send(sessions.viewer, 'GET', `/api/v1/reconciliation/runs/${id}`);
      expect(missing.statusCode).toBe(404);
      expect(missing.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(missing.json()).toMatchObject({ code: 'CONSOLE.RECONCILIATION_RUN_NOT_FOUND' });
    }
  });

  it('lists exceptions newest first with their evidence side by side and their resolution, filtered by status, class, provider and run', async () => {
    const all = (await send(sessions.viewer, 'GET', '/api/v1/reconciliation/exceptions')).json<{
      items: Array<Record<string, unknown>>;
      nextCursor: string | null;
    }>();
    expect(all.items.map((e) => e.exceptionId)).toEqual([OTHER_RUN, TERMS, STUCK]);
    expect(all.items[1]).toEqual({
      exceptionId: TERMS,
      reference: 'ref_r_terms',
      provider: 'paystack',
      class: 'terms_differ',
      status: 'open',
      evidence: [
        { field: 'amount', provider: '250000', settle: '200000' },
        { field: 'currency', provider: 'NGN', settle: 'GHS' },
      ],
      runId: runId(1),
      providerTransactionId: '40992',
      providerStatus: 'success',
      amountMinor: 250_000,
      currency: 'NGN',
      raisedAt: at(2),
      resolved: null,
    });
    expect(all.items[0]).toMatchObject({
      status: 'resolved',
      resolved: { at: at(30), resolution: 'operator', note: 'refunded by hand', by: 'lead@example.com' },
    });

    const ids = async (query: string) =>
      (await send(sessions.viewer, 'GET', `/api/v1/reconciliation/exceptions?${query}`)).json<typeof all>().items.map((e) => e.exceptionId);
    expect(await ids('status=open')).toEqual([TERMS, STUCK]);
    expect(await ids('class=stuck')).toEqual([OTHER_RUN, STUCK]);
    expect(await ids(`runId=${runId(1)}`)).toEqual([TERMS, STUCK]);
    expect(await ids('provider=stripe')).toEqual([]);
    expect(await ids('status=&class=')).toEqual([OTHER_RUN, TERMS, STUCK]);

    const first = (await send(sessions.viewer, 'GET', '/api/v1/reconciliation/exceptions?status=open&limit=1')).json<typeof all>();
    expect(first.items.map((e) => e.exceptionId)).toEqual([TERMS]);
    const second = (await send(sessions.viewer, 'GET', `/api/v1/reconciliation/exceptions?status=open&limit=1&cursor=${first.nextCursor}`)).json<typeof all>();
    expect(second.items.map((e) => e.exceptionId)).toEqual([STUCK]);
    expect(second.nextCursor).toBeNull();
  });

  it('downloads the filtered exceptions as CSV, the columns of the export, one row each', async () => {
    const answer = await send(sessions.viewer, 'GET', `/api/v1/reconciliation/exceptions?format=csv&status=open&runId=${runId(1)}`);
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/csv/);
    expect(answer.headers['content-disposition']).toBe('attachment; filename="reconciliation-exceptions.csv"');
    expect(answer.headers['cache-control']).toBe('no-store');
    const header = answer.body.split('\n')[0]!.trim();
    expect(header).toBe(EXCEPTION_CSV_COLUMNS.join(','));
    const rows: Array<Record<string, string>> = parse(answer.body, { columns: true });
    expect(rows.map((r) => [r.exception_id, r.class, r.amount_minor, r.evidence])).toEqual([
      [TERMS, 'terms_differ', '250000', 'amount: provider 250000 / settle 200000; currency: provider NGN / settle GHS'],
      [STUCK, 'stuck', '250000', 'status: provider succeeded (success) / settle PENDING'],
    ]);
  });

  it('refuses filters and cursors it does not know, and a request without a session, as problem details', async () => {
    for (const query of ['status=closed', 'class=matches', 'provider=paypal', 'runId=42', 'format=xml', 'limit=0', 'cursor=nonsense']) {
      const answer = await send(sessions.viewer, 'GET', `/api/v1/reconciliation/exceptions?${query}`);
      expect(answer.statusCode, query).toBe(400);
      expect(answer.json(), query).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED' });
    }
    const anonymous = await app.inject({ method: 'GET', url: '/api/v1/reconciliation/runs' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ code: 'CONSOLE.UNAUTHENTICATED' });
  });
});

describe('starting a run (operators and admins), through ingestion with the operator named', () => {
  it('asks ingestion with the window, dry run and the operator as requested_by; answers the run id; recorded in the audit trail', async () => {
    const started = await send(sessions.operator, 'POST', '/api/v1/reconciliation/runs', {
      provider: 'stripe',
      since: '2026-11-27T00:00:00+01:00',
      until: '2026-11-28T00:00:00Z',
      dryRun: true,
    });
    expect(started.statusCode, started.body).toBe(202);
    expect(started.json()).toEqual({ runId: runId(99), status: 'requested', window: { since: '2026-11-26T23:00:00.000Z', until: '2026-11-28T00:00:00.000Z' } });
    expect(received).toEqual([
      {
        url: '/v1/admin/reconciliation-runs',
        authorization: 'Bearer console-admin-key',
        body: { provider: 'stripe', since: '2026-11-27T00:00:00+01:00', until: '2026-11-28T00:00:00Z', dry_run: true, requested_by: 'ops@example.com' },
      },
    ]);
    const audit = (await send(sessions.admin, 'GET', '/api/v1/audit?targetKind=provider&targetId=stripe')).json<{
      items: Array<{ action: string; actor: { email: string }; parameters: unknown; outcome: string; result: unknown }>;
    }>();
    expect(audit.items.map((i) => [i.action, i.actor.email, i.parameters, i.outcome, i.result])).toEqual([
      [
        'reconciliation.run_start',
        'ops@example.com',
        { since: '2026-11-27T00:00:00+01:00', until: '2026-11-28T00:00:00Z', dryRun: true },
        'succeeded',
        { runId: runId(99), since: '2026-11-26T23:00:00.000Z', until: '2026-11-28T00:00:00.000Z' },
      ],
    ]);
  });

  it('leaves out until and dry run when not given (ingestion reads now, and no dry run)', async () => {
    expect((await send(sessions.admin, 'POST', '/api/v1/reconciliation/runs', { provider: 'paystack', since: '2026-11-27T00:00:00Z' })).statusCode).toBe(202);
    expect(received.map((r) => r.body)).toEqual([{ provider: 'paystack', since: '2026-11-27T00:00:00Z', dry_run: false, requested_by: 'lead@example.com' }]);
  });

  it("answers ingestion's refusals of the provider and the window with the console's codes, recorded as failed actions", async () => {
    nextAnswer = {
      status: 422,
      body: { status: 422, code: 'RECONCILIATION.PROVIDER_CANNOT_LIST', detail: 'mpesa has no transaction list to reconcile against' },
    };
    const mpesa = await send(sessions.operator, 'POST', '/api/v1/reconciliation/runs', { provider: 'mpesa', since: '2026-11-27T00:00:00Z' });
    expect(mpesa.statusCode).toBe(400);
    expect(mpesa.json()).toMatchObject({ code: 'CONSOLE.RECONCILIATION_PROVIDER_CANNOT_LIST', detail: 'mpesa has no transaction list to reconcile against' });
    nextAnswer = { status: 422, body: { status: 422, code: 'RECONCILIATION.INVALID_WINDOW' } };
    const long = await send(sessions.operator, 'POST', '/api/v1/reconciliation/runs', {
      provider: 'paystack',
      since: '2026-09-01T00:00:00Z',
      until: '2026-11-27T00:00:00Z',
    });
    expect(long.statusCode).toBe(400);
    expect(long.json()).toMatchObject({ code: 'CONSOLE.RECONCILIATION_INVALID_WINDOW' });
    const audit = (await send(sessions.admin, 'GET', '/api/v1/audit?targetKind=provider&targetId=mpesa')).json<{
      items: Array<{ outcome: string; errorCode: string }>;
    }>();
    expect(audit.items).toEqual([expect.objectContaining({ outcome: 'failed', errorCode: 'CONSOLE.RECONCILIATION_PROVIDER_CANNOT_LIST' })]);
    nextAnswer = { status: 503, body: { code: 'SERVICE.UNAVAILABLE' } };
    expect(
      (await send(sessions.operator, 'POST', '/api/v1/reconciliation/runs', { provider: 'paystack', since: '2026-11-27T00:00:00Z' })).json(),
    ).toMatchObject({
      status: 503,
      code: 'CONSOLE.INGESTION_UNAVAILABLE',
    });
    nextAnswer = { status: 401, body: { code: 'AUTH.INVALID_API_KEY' } };
    expect(
      (await send(sessions.operator, 'POST', '/api/v1/reconciliation/runs', { provider: 'paystack', since: '2026-11-27T00:00:00Z' })).json(),
    ).toMatchObject({
      status: 500,
      code: 'CONSOLE.INGESTION_REJECTED',
    });
  });

  it('refuses a viewer, a missing CSRF token and an invalid body before asking ingestion or recording anything', async () => {
    const body = { provider: 'paystack', since: '2026-11-27T00:00:00Z' };
    expect((await send(sessions.viewer, 'POST', '/api/v1/reconciliation/runs', body)).json()).toMatchObject({ status: 403, code: 'CONSOLE.FORBIDDEN' });
    const noCsrf = await app.inject({ method: 'POST', url: '/api/v1/reconciliation/runs', headers: { cookie: sessions.operator.cookie }, payload: body });
    expect(noCsrf.json()).toMatchObject({ status: 403, code: 'CONSOLE.CSRF_REJECTED' });
    for (const [invalid, path] of [
      [{ ...body, since: 'yesterday' }, 'since'],
      [{ ...body, provider: 'paypal' }, 'provider'],
      [{ ...body, until: '2026-11-26T00:00:00Z' }, 'until'],
      [{ ...body, dry_run: true }, '(body)'],
    ] as const) {
      const answer = await send(sessions.operator, 'POST', '/api/v1/reconciliation/runs', invalid);
      expect(answer.statusCode, JSON.stringify(invalid)).toBe(400);
      expect(answer.json()).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED', errors: [expect.objectContaining({ path })] });
    }
    expect(received).toEqual([]);
    const audit = (await send(sessions.admin, 'GET', '/api/v1/audit?actor=viewer@example.com')).json<{ items: unknown[] }>();
    expect(audit.items).toEqual([]);
  });
});

describe('resolving an exception with a reason (operators and admins), through ingestion with the operator named', () => {
  it('asks ingestion with the reason and the operator as resolved_by; recorded in the audit trail with the actor', async () => {
    const resolved = await send(sessions.operator, 'POST', `/api/v1/reconciliation/exceptions/${STUCK}/resolve`, {
      reason: '  refunded at the provider on 28 Nov  ',
    });
    expect(resolved.statusCode, resolved.body).toBe(202);
    expect(resolved.json()).toEqual({ exceptionId: STUCK, status: 'resolving' });
    expect(received).toEqual([
      {
        url: `/v1/admin/reconciliation-exceptions/${STUCK}/resolve`,
        authorization: 'Bearer console-admin-key',
        body: { reason: 'refunded at the provider on 28 Nov', resolved_by: 'ops@example.com' },
      },
    ]);
    const audit = (await send(sessions.admin, 'GET', `/api/v1/audit?targetKind=reconciliation_exception&targetId=${STUCK}`)).json<{
      items: Array<{ action: string; actor: { email: string; role: string }; parameters: unknown; outcome: string }>;
    }>();
    expect(audit.items.map((i) => [i.action, i.actor, i.parameters, i.outcome])).toEqual([
      ['reconciliation_exception.resolve', { email: 'ops@example.com', role: 'operator' }, { reason: 'refunded at the provider on 28 Nov' }, 'succeeded'],
    ]);
  });

  it("answers ingestion's not found and not open with the console's codes", async () => {
    nextAnswer = { status: 409, body: { code: 'RECONCILIATION.EXCEPTION_NOT_OPEN' } };
    const closed = await send(sessions.admin, 'POST', `/api/v1/reconciliation/exceptions/${OTHER_RUN}/resolve`, { reason: 'again' });
    expect(closed.json()).toMatchObject({ status: 409, code: 'CONSOLE.RECONCILIATION_EXCEPTION_NOT_OPEN' });
    nextAnswer = { status: 404, body: { code: 'RECONCILIATION.EXCEPTION_NOT_FOUND' } };
    const unknown = await send(sessions.admin, 'POST', `/api/v1/reconciliation/exceptions/${exceptionId(404)}/resolve`, { reason: 'gone' });
    expect(unknown.json()).toMatchObject({ status: 404, code: 'CONSOLE.RECONCILIATION_EXCEPTION_NOT_FOUND' });
  });

  it('refuses a viewer, an id no exception can have, and an empty reason, before asking ingestion', async () => {
    expect((await send(sessions.viewer, 'POST', `/api/v1/reconciliation/exceptions/${STUCK}/resolve`, { reason: 'no' })).json()).toMatchObject({
      status: 403,
      code: 'CONSOLE.FORBIDDEN',
    });
    expect((await send(sessions.operator, 'POST', '/api/v1/reconciliation/exceptions/ref_r_stuck/resolve', { reason: 'no' })).json()).toMatchObject({
      status: 404,
      code: 'CONSOLE.RECONCILIATION_EXCEPTION_NOT_FOUND',
    });
    for (const body of [{ reason: '   ' }, {}, { reason: 'x'.repeat(501) }, { reason: 'ok', resolved_by: 'someone-else' }]) {
      const answer = await send(sessions.operator, 'POST', `/api/v1/reconciliation/exceptions/${STUCK}/resolve`, body);
      expect(answer.json(), JSON.stringify(body)).toMatchObject({ status: 400, code: 'REQUEST.VALIDATION_FAILED' });
    }
    expect(received).toEqual([]);
  });
});

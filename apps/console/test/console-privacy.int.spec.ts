/**
 * Personal data in the console's proposals (docs/privacy.md, docs/approvals.md), against a real
 * PostgreSQL, the privacy vault over it and an ingestion stand-in: an erasure is proposed by one
 * admin and approved by another, which destroys the subject's key, clears the registration's
 * plaintext and records `SubjectErased`; the proposer cannot approve it; and neither an erasure
 * nor a match proposal puts the customer's email or phone into the ledger or the console's
 * tables in plaintext. Without a privacy vault, both are refused with a clear code.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Secret } from '@settle/config';
import { LEDGER_MIGRATIONS, PRIVACY_ERASURE_STREAM, READ_MODEL_MIGRATIONS, upsertUnmatchedPayments } from '@settle/ledger';
import { createPool, migrateSchemas, type Pool } from '@settle/platform';
import { createTestDatabase, recordedUnmatchedPayment } from '@settle/testing';
import { generateKey, isSealedValue, MasterKeyRing, openSubjectKeys, privacyVaultMigrations, type SubjectKeys } from '@settle/vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth.service.js';
import { PostgresAuthStore } from '../src/auth/postgres-auth-store.js';
import { CONSOLE_MIGRATIONS } from '../src/schema.js';
import type { AnswerConformance } from './answer-conformance.js';
import { startConsoleTestApp } from './console-test-app.js';

/** Ingestion's own migrations, by folder (the console never imports another app). */
const INGESTION_MIGRATIONS = { schema: 'ingestion', dir: fileURLToPath(new URL('../../ingestion/migrations/ingestion', import.meta.url)) };

const PASSWORD = 'correct horse battery staple';
let pool: Pool;
let drop: () => Promise<void>;
let keys: SubjectKeys;
let app: NestFastifyApplication;
let answers: AnswerConformance;
let ingestion: Server;
const received: Array<{ url: string; body: unknown }> = [];

interface Session {
  cookie: string;
  csrf: string;
}
const sessions: Record<'viewer' | 'operator' | 'admin' | 'otherAdmin', Session> = {} as never;

async function signIn(email: string): Promise<Session> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/session', payload: { email, password: PASSWORD } });
  return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json<{ csrfToken: string }>().csrfToken };
}

const send = (session: Session, method: 'GET' | 'POST', url: string, payload?: unknown, on: NestFastifyApplication = app) =>
  on.inject({
    method,
    url,
    headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

/** Every ledger event's data, as text. */
async function ledgerText(): Promise<string> {
  const { rows } = await pool.query<{ data: string }>('SELECT data::text AS data FROM ledger.events');
  return rows.map((r) => r.data).join('\n');
}

/** Every stored proposal's target and parameters, as text. */
async function proposalsText(): Promise<string> {
  const { rows } = await pool.query<{ row: string }>("SELECT target_id || ' ' || parameters::text AS row FROM console.proposals");
  return rows.map((r) => r.row).join('\n');
}

/** A registration paid by `email`, as ingestion keeps it. */
async function registration(user: string, email: string): Promise<string> {
  const reference = `ref_${randomBytes(5).toString('hex')}`;
  await pool.query(
    `INSERT INTO ingestion.checkouts (reference, provider, amount_minor, currency, user_id, customer_email, customer_phone, entitlement, request_sha256, correlation_id, registered_at, access_period)
     VALUES ($1, 'paystack', 250000, 'NGN', $2, $3, NULL, 'pro', repeat('a', 64), $1, now(), 'P1M')`,
    [reference, user, email],
  );
  return reference;
}

const uniqueEmail = (name: string) => `${name}.${randomBytes(4).toString('hex')}@Example.com`;

beforeAll(async () => {
  ingestion = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ url: req.url ?? '', body: text ? (JSON.parse(text) as unknown) : null });
      const [, reference] = /\/v1\/admin\/unmatched-payments\/([^/]+)\/match$/.exec(req.url ?? '') ?? [];
      res.setHeader('content-type', 'application/json');
      res.statusCode = reference ? 202 : 404;
      res.end(JSON.stringify(reference ? { reference, state: 'PENDING' } : { code: 'NOT_FOUND' }));
    });
  });
  await new Promise<void>((resolve) => ingestion.listen(0, '127.0.0.1', resolve));
  const database = await createTestDatabase('settle_console_privacy');
  drop = database.drop;
  pool = createPool(database.url, 4);
  await migrateSchemas(pool, [CONSOLE_MIGRATIONS, LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS, INGESTION_MIGRATIONS, ...privacyVaultMigrations()]);
  keys = await openSubjectKeys(pool, MasterKeyRing.from([['v1', generateKey()]]));
  const auth = new AuthService(new PostgresAuthStore(pool), { sessionTtlMs: 3_600_000 });
  await auth.createUser('look@example.com', PASSWORD, 'viewer');
  await auth.createUser('ops@example.com', PASSWORD, 'operator');
  await auth.createUser('lead@example.com', PASSWORD, 'admin');
  await auth.createUser('cfo@example.com', PASSWORD, 'admin');
  const port = (ingestion.address() as AddressInfo).port;
  ({ app, answers } = await startConsoleTestApp(pool, { auth }, { baseUrl: `http://127.0.0.1:${port}`, adminApiKey: new Secret('console-admin-key') }, keys));
  sessions.viewer = await signIn('look@example.com');
  sessions.operator = await signIn('ops@example.com');
  sessions.admin = await signIn('lead@example.com');
  sessions.otherAdmin = await signIn('cfo@example.com');
});

afterAll(async () => {
  await app?.close();
  await pool?.end();
  await drop?.();
  await new Promise((resolve) => ingestion?.close(resolve));
});

describe('privacy.erase: erasing a data subject takes two people', () => {
  it('an admin proposes, cannot approve it; a second admin does: the key destroyed, the plaintext cleared, SubjectErased recorded, the subject never in the ledger', async () => {
    const email = uniqueEmail('Erin');
    const paid = await registration('user-erin', email);

    const proposed = await send(sessions.admin, 'POST', '/api/v1/privacy/erasures', {
      subject: { kind: 'customer', id: ` ${email} ` },
      reason: 'ticket DPO-7',
    });
    expect(proposed.statusCode).toBe(201);
    const proposal = proposed.json<{ id: string; target: { kind: string; id: string } }>();
    expect(proposal).toMatchObject({
      action: 'privacy.erase',
      status: 'pending',
      target: { kind: 'subject', id: `customer:${email.toLowerCase()}` },
      parameters: { reason: 'ticket DPO-7' },
    });
    // Stored and recorded sealed under the subject's own key.
    const { rows } = await pool.query<{ target_id: string }>('SELECT target_id FROM console.proposals WHERE proposal_id = $1', [proposal.id]);
    const sealedTarget = rows[0]!.target_id;
    expect(isSealedValue(sealedTarget)).toBe(true);
    expect(await keys.reveal('subject', sealedTarget)).toEqual({ status: 'open', value: `customer:${email.toLowerCase()}` });
    expect((await ledgerText()).toLowerCase()).not.toContain(email.toLowerCase());
    expect((await proposalsText()).toLowerCase()).not.toContain(email.toLowerCase());
    // The approver sees whom.
    const pending = (await send(sessions.otherAdmin, 'GET', '/api/v1/proposals')).json<{ items: Array<{ id: string; target: { id: string } }> }>();
    expect(pending.items.find((p) => p.id === proposal.id)?.target.id).toBe(`customer:${email.toLowerCase()}`);
    // The same subject again, however written, waits already.
    const again = await send(sessions.operator, 'POST', '/api/v1/privacy/erasures', {
      subject: { kind: 'customer', id: email.toUpperCase() },
      reason: 'twice',
    });
    expect(again.json()).toMatchObject({ status: 409, code: 'CONSOLE.PROPOSAL_PENDING' });

    const self = await send(sessions.admin, 'POST', `/api/v1/proposals/${proposal.id}/approve`);
    expect(self.json()).toMatchObject({ status: 403, code: 'APPROVAL.SELF_APPROVAL' });
    const byOperator = await send(sessions.operator, 'POST', `/api/v1/proposals/${proposal.id}/approve`);
    expect(byOperator.json()).toMatchObject({ status: 403, code: 'CONSOLE.FORBIDDEN' });

    const approved = await send(sessions.otherAdmin, 'POST', `/api/v1/proposals/${proposal.id}/approve`);
    expect(approved.statusCode).toBe(200);
    const answer = approved.json<{ proposal: { status: string; target: { id: string } }; result: { erasure_id: string; ledger_position: number } }>();
    expect(answer.proposal).toMatchObject({ status: 'approved', target: { kind: 'subject', id: 'erased' } });
    expect(answer.result).toMatchObject({ erasure_id: expect.any(String), ledger_position: expect.any(Number), transactions: 1, destroyed_keys: 1 });

    // SubjectErased recorded, naming both people and no subject.
    const fact = await pool.query<{ data: { erasure_id: string; requested_by: string; approved_by: string; transaction_references: string[] } }>(
      "SELECT data FROM ledger.events WHERE stream_id = $1 AND event_type = 'SubjectErased'",
      [PRIVACY_ERASURE_STREAM],
    );
    expect(fact.rows.map((r) => r.data)).toEqual([
      expect.objectContaining({
        erasure_id: answer.result.erasure_id,
        requested_by: 'lead@example.com',
        approved_by: 'cfo@example.com',
        transaction_references: [paid],
      }),
    ]);
    // The key destroyed: the sealed target reads erased; the registration's plaintext is gone.
    expect((await keys.reveal('subject', sealedTarget)).status).toBe('erased');
    const checkout = await pool.query('SELECT customer_email, request_sha256 FROM ingestion.checkouts WHERE reference = $1', [paid]);
    expect(checkout.rows).toEqual([{ customer_email: null, request_sha256: 'erased' }]);
    expect((await ledgerText()).toLowerCase()).not.toContain(email.toLowerCase());
    expect((await proposalsText()).toLowerCase()).not.toContain(email.toLowerCase());
    expect((await send(sessions.operator, 'GET', `/api/v1/proposals/${proposal.id}`)).json()).toMatchObject({ target: { id: 'erased' } });

    const audit = (await send(sessions.admin, 'GET', '/api/v1/audit?targetKind=proposal&targetId=' + proposal.id)).json<{
      items: Array<{ action: string; actor: { email: string }; outcome: string }>;
    }>();
    expect(audit.items.map((i) => [i.action, i.actor.email, i.outcome]).reverse()).toEqual([
      ['proposal.create', 'lead@example.com', 'succeeded'],
      ['proposal.approve', 'lead@example.com', 'failed'],
      ['proposal.approve', 'cfo@example.com', 'succeeded'],
    ]);
    expect(answers.violations).toEqual([]);
  });

  it('erases a user by user_id; refuses an invalid subject or an empty reason', async () => {
    const email = uniqueEmail('Finn');
    const paid = await registration('user-finn', email);
    const proposal = (await send(sessions.operator, 'POST', '/api/v1/privacy/erasures', { subject: { kind: 'user', id: 'user-finn' }, reason: 'DPO-8' })).json<{
      id: string;
      target: { id: string };
    }>();
    expect(proposal.target.id).toBe('user:user-finn');
    const approved = await send(sessions.admin, 'POST', `/api/v1/proposals/${proposal.id}/approve`);
    expect(approved.json()).toMatchObject({ proposal: { status: 'approved', target: { id: 'erased' } }, result: { transactions: 1 } });
    expect((await pool.query('SELECT customer_email FROM ingestion.checkouts WHERE reference = $1', [paid])).rows).toEqual([{ customer_email: null }]);
    expect((await ledgerText()).toLowerCase()).not.toContain(email.toLowerCase());

    const invalid = await send(sessions.operator, 'POST', '/api/v1/privacy/erasures', { subject: { kind: 'customer', id: 'not an email' }, reason: '' });
    expect(invalid.json()).toMatchObject({ status: 400, code: 'REQUEST.VALIDATION_FAILED' });
    const fields = invalid.json<{ errors: Array<{ path: string }> }>().errors.map((e) => e.path);
    expect(fields).toEqual(expect.arrayContaining(['subject.id', 'reason']));
  });
});

describe('privacy.erase: a reason that names the subject is refused when proposed (it goes into the ledger)', () => {
  it('refuses the id in any case, as typed or normalised, and a phone by its digits, with 400 PRIVACY.REASON_NAMES_SUBJECT, recording and storing nothing', async () => {
    const email = uniqueEmail('Hana');
    const refused: Array<[{ kind: 'user' | 'customer'; id: string }, string]> = [
      [{ kind: 'customer', id: email }, `DPO-120 request from ${email.toUpperCase()}`],
      [{ kind: 'customer', id: ` ${email.toUpperCase()} ` }, `DPO-120 for ${email.toLowerCase()}`],
      [{ kind: 'user', id: 'User-Hana-7' }, 'DPO-121, user-hana-7 asked on 2026-11-29'],
      [{ kind: 'customer', id: '+254 712 345 670' }, 'DPO-122 caller +254712345670'],
      [{ kind: 'customer', id: '+254712345670' }, 'DPO-122 caller 254 712 345 670'],
      [{ kind: 'customer', id: '+254712345670' }, 'DPO-122 caller 0712-345-670'],
    ];
    const events = async () => (await pool.query<{ n: string }>('SELECT count(*) AS n FROM ledger.events')).rows[0]!.n;
    const proposals = async () => (await pool.query<{ n: string }>('SELECT count(*) AS n FROM console.proposals')).rows[0]!.n;
    const [eventsBefore, proposalsBefore] = [await events(), await proposals()];
    for (const [subject, reason] of refused) {
      const answer = await send(sessions.operator, 'POST', '/api/v1/privacy/erasures', { subject, reason });
      expect({ subject, reason, answer: answer.json<object>() }).toMatchObject({ answer: { status: 400, code: 'PRIVACY.REASON_NAMES_SUBJECT' } });
      expect(answer.body).not.toContain(email.toLowerCase());
    }
    expect([await events(), await proposals()]).toEqual([eventsBefore, proposalsBefore]);

    // A ticket and a date name no one.
    const fine = await send(sessions.operator, 'POST', '/api/v1/privacy/erasures', {
      subject: { kind: 'customer', id: '+254712345670' },
      reason: 'DPO-122, request of 2026-11-29',
    });
    expect(fine.statusCode).toBe(201);
    const withdrawn = await send(sessions.operator, 'POST', `/api/v1/proposals/${fine.json<{ id: string }>().id}/reject`, { reason: 'test' });
    expect(withdrawn.statusCode).toBe(200);
    expect(answers.violations).toEqual([]);
  });
});

describe('a viewer sees the personal values of proposals masked, never opened (docs/privacy.md)', () => {
  it('an erasure of a customer reads customer:<masked>, of a user user:<id>; a match shows the email and phone masked; operators and admins see them opened', async () => {
    const email = uniqueEmail('Ivo');
    const byEmail = (await send(sessions.operator, 'POST', '/api/v1/privacy/erasures', { subject: { kind: 'customer', id: email }, reason: 'DPO-130' })).json<{
      id: string;
    }>();
    const byPhone = (
      await send(sessions.operator, 'POST', '/api/v1/privacy/erasures', { subject: { kind: 'customer', id: '+254 712 345 671' }, reason: 'DPO-131' })
    ).json<{ id: string }>();
    const byUser = (await send(sessions.operator, 'POST', '/api/v1/privacy/erasures', { subject: { kind: 'user', id: 'user-ivo' }, reason: 'DPO-132' })).json<{
      id: string;
    }>();
    await upsertUnmatchedPayments(pool, [recordedUnmatchedPayment('ref_viewer_match')]);
    const terms = { amount: 1_000, currency: 'NGN', user_id: 'user-45', customer: { email, phone: '+254712345672' }, entitlement: 'pro', access_period: 'P1M' };
    const match = (await send(sessions.operator, 'POST', '/api/v1/unmatched-payments/ref_viewer_match/match-proposals', terms)).json<{ id: string }>();

    const masked = `${email[0]}•••@Example.com`;
    const asViewer = { byEmail: `customer:${email[0]!.toLowerCase()}•••@example.com`, byPhone: 'customer:+254•••671', byUser: 'user:user-ivo' };
    for (const [name, proposal] of Object.entries({ byEmail, byPhone, byUser })) {
      const one = (await send(sessions.viewer, 'GET', `/api/v1/proposals/${proposal.id}`)).json<{ target: { id: string } }>();
      expect(one.target.id, name).toBe(asViewer[name as keyof typeof asViewer]);
    }
    const viewed = (await send(sessions.viewer, 'GET', `/api/v1/proposals/${match.id}`)).json<{ parameters: unknown }>();
    expect(viewed.parameters).toEqual({ ...terms, customer: { email: masked, phone: '+254•••672' } });
    const list = await send(sessions.viewer, 'GET', '/api/v1/proposals');
    expect(list.statusCode).toBe(200);
    const items = list.json<{ items: Array<{ id: string; target: { id: string }; parameters: unknown }> }>().items;
    expect(items.find((p) => p.id === byEmail.id)?.target.id).toBe(asViewer.byEmail);
    expect(items.find((p) => p.id === match.id)?.parameters).toEqual(viewed.parameters);
    expect(list.body.toLowerCase()).not.toContain(email.toLowerCase());
    expect(list.body).not.toMatch(/712345671|712345672/);

    // The people who decide see whom.
    for (const session of [sessions.operator, sessions.admin]) {
      expect((await send(session, 'GET', `/api/v1/proposals/${byEmail.id}`)).json()).toMatchObject({ target: { id: `customer:${email.toLowerCase()}` } });
      expect((await send(session, 'GET', `/api/v1/proposals/${byPhone.id}`)).json()).toMatchObject({ target: { id: 'customer:+254712345671' } });
      expect((await send(session, 'GET', `/api/v1/proposals/${match.id}`)).json()).toMatchObject({ parameters: terms });
    }
    for (const proposal of [byEmail, byPhone, byUser, match])
      await send(sessions.operator, 'POST', `/api/v1/proposals/${proposal.id}/reject`, { reason: 'test' });
    expect(answers.violations).toEqual([]);
  });
});

describe('unmatched_payment.match: the customer sealed before it is recorded', () => {
  it('stores and records the email and phone sealed, shows them opened, and sends them opened to ingestion once approved', async () => {
    const email = uniqueEmail('Payer');
    const phone = '+254712345678';
    await upsertUnmatchedPayments(pool, [recordedUnmatchedPayment('ref_sealed_match')]);
    const terms = { amount: 250_000, currency: 'NGN', user_id: 'user-43', customer: { email, phone }, entitlement: 'pro-monthly', access_period: 'P1M' };
    const proposed = await send(sessions.operator, 'POST', '/api/v1/unmatched-payments/ref_sealed_match/match-proposals', terms);
    expect(proposed.statusCode).toBe(201);
    const proposal = proposed.json<{ id: string }>();
    expect(proposed.json()).toMatchObject({ parameters: terms });
    const stored = await pool.query<{ parameters: { customer: { email: string; phone: string } } }>(
      'SELECT parameters FROM console.proposals WHERE proposal_id = $1',
      [proposal.id],
    );
    const sealed = stored.rows[0]!.parameters.customer;
    expect(isSealedValue(sealed.email) && isSealedValue(sealed.phone)).toBe(true);
    expect(await keys.reveal('email', sealed.email)).toEqual({ status: 'open', value: email });
    for (const text of [await ledgerText(), await proposalsText()]) {
      expect(text.toLowerCase()).not.toContain(email.toLowerCase());
      expect(text).not.toContain(phone);
    }
    expect((await send(sessions.admin, 'GET', `/api/v1/proposals/${proposal.id}`)).json()).toMatchObject({ parameters: terms });

    const approved = await send(sessions.admin, 'POST', `/api/v1/proposals/${proposal.id}/approve`);
    expect(approved.json()).toMatchObject({ proposal: { status: 'approved', parameters: terms }, result: { reference: 'ref_sealed_match', state: 'PENDING' } });
    expect(received.at(-1)).toEqual({ url: '/v1/admin/unmatched-payments/ref_sealed_match/match', body: terms });
    const ledger = await ledgerText();
    expect(ledger.toLowerCase()).not.toContain(email.toLowerCase());
    expect(ledger).not.toContain(phone);
    expect(answers.violations).toEqual([]);
  });

  it('a match whose customer was erased meanwhile cannot run: 409 CONSOLE.SUBJECT_ERASED, the proposal stays pending and shows erased', async () => {
    const email = uniqueEmail('Gone');
    await upsertUnmatchedPayments(pool, [recordedUnmatchedPayment('ref_erased_match')]);
    const terms = { amount: 1_000, currency: 'NGN', user_id: 'user-44', customer: { email }, entitlement: 'pro', access_period: 'P1M' };
    const proposal = (await send(sessions.operator, 'POST', '/api/v1/unmatched-payments/ref_erased_match/match-proposals', terms)).json<{ id: string }>();
    await keys.erase({ kind: 'customer', id: email.toLowerCase() });
    const refused = await send(sessions.admin, 'POST', `/api/v1/proposals/${proposal.id}/approve`);
    expect(refused.json()).toMatchObject({ status: 409, code: 'CONSOLE.SUBJECT_ERASED' });
    expect((await send(sessions.admin, 'GET', `/api/v1/proposals/${proposal.id}`)).json()).toMatchObject({
      status: 'pending',
      parameters: { customer: { email: 'erased' } },
    });
    expect(received.filter((r) => r.url.includes('ref_erased_match'))).toEqual([]);
  });
});

describe('without a privacy vault', () => {
  it('refuses an erasure and a match naming a customer with 503 CONSOLE.PRIVACY_VAULT_MISSING, recording nothing', async () => {
    const { app: noVault } = await startConsoleTestApp(pool, {}, undefined, null);
    try {
      await upsertUnmatchedPayments(pool, [recordedUnmatchedPayment('ref_no_vault')]);
      const before = await pool.query<{ n: string }>('SELECT count(*) AS n FROM ledger.events');
      const erase = await send(sessions.operator, 'POST', '/api/v1/privacy/erasures', { subject: { kind: 'user', id: 'user-x' }, reason: 'DPO-9' }, noVault);
      expect(erase.json()).toMatchObject({ status: 503, code: 'CONSOLE.PRIVACY_VAULT_MISSING' });
      const terms = { amount: 1_000, currency: 'NGN', user_id: 'u', customer: { phone: '+254712345679' }, entitlement: 'pro', access_period: 'P1M' };
      const match = await send(sessions.operator, 'POST', '/api/v1/unmatched-payments/ref_no_vault/match-proposals', terms, noVault);
      expect(match.json()).toMatchObject({ status: 503, code: 'CONSOLE.PRIVACY_VAULT_MISSING' });
      expect((await pool.query<{ n: string }>('SELECT count(*) AS n FROM ledger.events')).rows[0]!.n).toBe(before.rows[0]!.n);
    } finally {
      await noVault.close();
    }
  });
});

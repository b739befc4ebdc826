/**
 * User management and the audit view over the console's API against a real PostgreSQL (the
 * console's and the ledger's migrations), the Nest app built in-process (`inject`): admin only,
 * CSRF, generated passwords shown once, the self-change and last-admin rules, a disabled user's
 * session refused at once, and every change (refusals too) in the audit view with its actor.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LEDGER_MIGRATIONS, PostgresLedger, verifyLedger } from '@settle/ledger';
import { createPool, migrateSchemas, type Pool } from '@settle/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '@settle/testing';
import { type AnswerConformance } from './answer-conformance.js';
import { AuthService } from '../src/auth/auth.service.js';
import { startConsoleTestApp } from './console-test-app.js';
import { PostgresAuthStore } from '../src/auth/postgres-auth-store.js';
import type { Reconciler } from '../src/reconcile/reconciler.port.js';
import { CONSOLE_MIGRATIONS } from '../src/schema.js';

const PASSWORD = 'correct horse battery staple';

let pool: Pool;
let drop: () => Promise<void>;
let app: NestFastifyApplication;
let answers: AnswerConformance;
const reconciled: string[] = [];

interface Session {
  cookie: string;
  csrf: string;
}

async function signIn(email: string, password = PASSWORD): Promise<Session> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/session', payload: { email, password } });
  expect(res.statusCode).toBe(200);
  return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json().csrfToken };
}

const as = (session: Session) => ({ cookie: session.cookie, 'x-csrf-token': session.csrf });

async function audit(session: Session, query = ''): Promise<{ items: Array<Record<string, unknown>>; nextCursor: string | null }> {
  const res = await app.inject({ method: 'GET', url: `/api/v1/audit${query}`, headers: { cookie: session.cookie } });
  expect(res.statusCode).toBe(200);
  return res.json();
}

beforeAll(async () => {
  const database = await createTestDatabase('settle_console_users');
  drop = database.drop;
  pool = createPool(database.url, 6);
  await migrateSchemas(pool, [CONSOLE_MIGRATIONS, LEDGER_MIGRATIONS]);
  const store = new PostgresAuthStore(pool);
  const auth = new AuthService(store, { sessionTtlMs: 3_600_000 });
  for (const [email, role] of [
    ['viewer@example.com', 'viewer'],
    ['operator@example.com', 'operator'],
    ['admin@example.com', 'admin'],
  ] as const) {
    await auth.createUser(email, PASSWORD, role);
  }
  const reconciler: Reconciler = {
    reconcile: async (reference) => {
      reconciled.push(reference);
      return { reference, state: 'RECOVERING' };
    },
  };
  ({ app, answers } = await startConsoleTestApp(pool, { auth, reconciler }));
});

afterAll(async () => {
  await app?.close();
  await pool?.end();
  await drop?.();
});

describe('users: who may', () => {
  it('refuses viewers and operators every user route and the audit view (403 CONSOLE.FORBIDDEN), changing nothing', async () => {
    for (const email of ['viewer@example.com', 'operator@example.com']) {
      const session = await signIn(email);
      const calls = [
        { method: 'GET' as const, url: '/api/v1/users' },
        { method: 'GET' as const, url: '/api/v1/audit' },
        { method: 'POST' as const, url: '/api/v1/users', payload: { email: 'sneaky@example.com', role: 'admin' } },
        { method: 'PATCH' as const, url: `/api/v1/users/${encodeURIComponent(email)}`, payload: { role: 'admin' } },
        { method: 'POST' as const, url: '/api/v1/users/admin%40example.com/password' },
      ];
      for (const call of calls) {
        const res = await app.inject({ ...call, headers: as(session) });
        expect(res.statusCode, `${email} ${call.method} ${call.url}`).toBe(403);
        expect(res.json()).toMatchObject({ code: 'CONSOLE.FORBIDDEN' });
      }
    }
    const { rows } = await pool.query<{ email: string; role: string }>('SELECT email, role FROM console.users ORDER BY email');
    expect(rows).not.toContainEqual(expect.objectContaining({ email: 'sneaky@example.com' }));
    expect(rows.find((r) => r.email === 'operator@example.com')?.role).toBe('operator');
  });

  it('refuses an admin change without the CSRF token (403 CONSOLE.CSRF_REJECTED)', async () => {
    const admin = await signIn('admin@example.com');
    for (const call of [
      { method: 'POST' as const, url: '/api/v1/users', payload: { email: 'nocsrf@example.com', role: 'viewer' } },
      { method: 'PATCH' as const, url: '/api/v1/users/viewer%40example.com', payload: { disabled: true } },
      { method: 'POST' as const, url: '/api/v1/users/viewer%40example.com/password' },
    ]) {
      const res = await app.inject({ ...call, headers: { cookie: admin.cookie } });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'CONSOLE.CSRF_REJECTED' });
    }
    const { rows } = await pool.query('SELECT 1 FROM console.users WHERE email = $1', ['nocsrf@example.com']);
    expect(rows).toEqual([]);
  });
});

describe('users: an admin manages them', () => {
  it('creates a user with a generated password shown once, which signs them in; the ledger has the request, never the password', async () => {
    const admin = await signIn('admin@example.com');
    const res = await app.inject({ method: 'POST', url: '/api/v1/users', headers: as(admin), payload: { email: ' New.Ops@Example.com ', role: 'operator' } });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      user: { email: 'new.ops@example.com', role: 'operator', disabled: false, createdAt: expect.any(String), lastSignInAt: null },
      password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
    });
    await signIn('new.ops@example.com', body.password);

    const again = await app.inject({ method: 'POST', url: '/api/v1/users', headers: as(admin), payload: { email: 'new.ops@example.com', role: 'viewer' } });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'CONSOLE.USER_EXISTS' });
    for (const payload of [{ email: 'not-an-email', role: 'viewer' }, { email: 'x@example.com', role: 'root' }, { email: 'x@example.com' }]) {
      const bad = await app.inject({ method: 'POST', url: '/api/v1/users', headers: as(admin), payload });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED' });
    }

    const { rows } = await pool.query<{ data: unknown }>("SELECT data FROM ledger.events WHERE stream_id = 'admin-user-new.ops%40example.com'");
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(rows)).not.toContain(body.password);
    expect(JSON.stringify(rows)).not.toContain('argon2');
  });

  it('lists users by email with role, disabled, created and last sign-in, never a hash', async () => {
    const admin = await signIn('admin@example.com');
    const res = await app.inject({ method: 'GET', url: '/api/v1/users', headers: { cookie: admin.cookie } });
    expect(res.statusCode).toBe(200);
    const { items } = res.json<{ items: Array<Record<string, unknown>> }>();
    expect(items.map((u) => u['email'])).toEqual([...items.map((u) => String(u['email']))].sort());
    expect(items.find((u) => u['email'] === 'admin@example.com')).toEqual({
      email: 'admin@example.com',
      role: 'admin',
      disabled: false,
      createdAt: expect.any(String),
      lastSignInAt: expect.any(String),
    });
    expect(res.body).not.toContain('argon2');
  });

  it("changes a role at once: a demoted operator's next reconciliation is refused", async () => {
    const admin = await signIn('admin@example.com');
    const created = await app.inject({ method: 'POST', url: '/api/v1/users', headers: as(admin), payload: { email: 'demoted@example.com', role: 'operator' } });
    const operator = await signIn('demoted@example.com', created.json().password);
    const before = await app.inject({ method: 'POST', url: '/api/v1/transactions/REF-DEMOTE/reconcile', headers: as(operator) });
    expect(before.statusCode).toBe(202);
    const res = await app.inject({ method: 'PATCH', url: '/api/v1/users/demoted%40example.com', headers: as(admin), payload: { role: 'viewer' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ email: 'demoted@example.com', role: 'viewer', disabled: false });
    const after = await app.inject({ method: 'POST', url: '/api/v1/transactions/REF-DEMOTE/reconcile', headers: as(operator) });
    expect(after.statusCode).toBe(403);
    expect(after.json()).toMatchObject({ code: 'CONSOLE.FORBIDDEN' });
  });

  it('disables a user, ending their session at once; enabling lets them sign in again', async () => {
    const admin = await signIn('admin@example.com');
    const created = await app.inject({ method: 'POST', url: '/api/v1/users', headers: as(admin), payload: { email: 'leaver@example.com', role: 'viewer' } });
    const password = created.json().password as string;
    const leaver = await signIn('leaver@example.com', password);
    expect((await app.inject({ method: 'GET', url: '/api/v1/session', headers: { cookie: leaver.cookie } })).statusCode).toBe(200);

    const res = await app.inject({ method: 'PATCH', url: '/api/v1/users/leaver%40example.com', headers: as(admin), payload: { disabled: true } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ disabled: true });
    const refused = await app.inject({ method: 'GET', url: '/api/v1/session', headers: { cookie: leaver.cookie } });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'CONSOLE.UNAUTHENTICATED' });
    const { rows } = await pool.query("SELECT 1 FROM console.sessions s JOIN console.users u ON u.id = s.user_id WHERE u.email = 'leaver@example.com'");
    expect(rows).toEqual([]);
    const signIn401 = await app.inject({ method: 'POST', url: '/api/v1/session', payload: { email: 'leaver@example.com', password } });
    expect(signIn401.statusCode).toBe(401);

    await app.inject({ method: 'PATCH', url: '/api/v1/users/leaver%40example.com', headers: as(admin), payload: { disabled: false } });
    await signIn('leaver@example.com', password);
  });

  it('resets a password: a new generated one, shown once; the old one and the old sessions stop working', async () => {
    const admin = await signIn('admin@example.com');
    const created = await app.inject({ method: 'POST', url: '/api/v1/users', headers: as(admin), payload: { email: 'forgetful@example.com', role: 'viewer' } });
    const oldPassword = created.json().password as string;
    const old = await signIn('forgetful@example.com', oldPassword);
    const res = await app.inject({ method: 'POST', url: '/api/v1/users/forgetful%40example.com/password', headers: as(admin) });
    expect(res.statusCode).toBe(200);
    const { password, user } = res.json();
    expect(user).toMatchObject({ email: 'forgetful@example.com', role: 'viewer' });
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(password).not.toBe(oldPassword);
    expect((await app.inject({ method: 'GET', url: '/api/v1/session', headers: { cookie: old.cookie } })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/api/v1/session', payload: { email: 'forgetful@example.com', password: oldPassword } })).statusCode).toBe(
      401,
    );
    await signIn('forgetful@example.com', password);
  });

  it('answers 404 CONSOLE.USER_NOT_FOUND for an unknown user, and 400 for an empty or unknown change', async () => {
    const admin = await signIn('admin@example.com');
    for (const url of ['/api/v1/users/nobody%40example.com', '/api/v1/users/not-an-email']) {
      const res = await app.inject({ method: 'PATCH', url, headers: as(admin), payload: { role: 'viewer' } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'CONSOLE.USER_NOT_FOUND' });
    }
    const reset = await app.inject({ method: 'POST', url: '/api/v1/users/nobody%40example.com/password', headers: as(admin) });
    expect(reset.json()).toMatchObject({ status: 404, code: 'CONSOLE.USER_NOT_FOUND' });
    for (const payload of [{}, { role: 'root' }, { disabled: 'yes' }, { email: 'x@example.com' }]) {
      const res = await app.inject({ method: 'PATCH', url: '/api/v1/users/viewer%40example.com', headers: as(admin), payload });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED' });
    }
  });
});

describe('users: the rules that keep the console administrable', () => {
  it('refuses an admin disabling, demoting or resetting themself (409 CONSOLE.SELF_CHANGE_REFUSED)', async () => {
    const admin = await signIn('admin@example.com');
    for (const call of [
      { method: 'PATCH' as const, url: '/api/v1/users/admin%40example.com', payload: { disabled: true } },
      { method: 'PATCH' as const, url: '/api/v1/users/ADMIN%40example.com', payload: { role: 'operator' } },
      { method: 'POST' as const, url: '/api/v1/users/admin%40example.com/password' },
    ]) {
      const res = await app.inject({ ...call, headers: as(admin) });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ code: 'CONSOLE.SELF_CHANGE_REFUSED' });
    }
    // Changing nothing that matters is fine.
    const same = await app.inject({
      method: 'PATCH',
      url: '/api/v1/users/admin%40example.com',
      headers: as(admin),
      payload: { role: 'admin', disabled: false },
    });
    expect(same.statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/v1/session', headers: { cookie: admin.cookie } })).json().user).toEqual({
      email: 'admin@example.com',
      role: 'admin',
    });
  });

  it('refuses to remove the last enabled admin (409 CONSOLE.LAST_ADMIN), even when two admins demote each other at once', async () => {
    const admin = await signIn('admin@example.com');
    const created = await app.inject({ method: 'POST', url: '/api/v1/users', headers: as(admin), payload: { email: 'second@example.com', role: 'admin' } });
    const second = await signIn('second@example.com', created.json().password);
    const [a, b] = await Promise.all([
      app.inject({ method: 'PATCH', url: '/api/v1/users/second%40example.com', headers: as(admin), payload: { role: 'operator' } }),
      app.inject({ method: 'PATCH', url: '/api/v1/users/admin%40example.com', headers: as(second), payload: { disabled: true } }),
    ]);
    // Exactly one wins. The other is refused by the rule (409) when both passed the role check
    // first, or by the role check itself when the winner's change was committed before it ran:
    // demoted (403) or disabled, its sessions ended (401).
    expect([a.statusCode, b.statusCode].filter((s) => s === 200)).toHaveLength(1);
    const loser = [a, b].find((r) => r.statusCode !== 200)!;
    expect(['CONSOLE.LAST_ADMIN', 'CONSOLE.FORBIDDEN', 'CONSOLE.UNAUTHENTICATED']).toContain(loser.json().code);
    const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM console.users WHERE role = 'admin' AND NOT disabled");
    expect(rows[0]!.n).toBe(1);
    // Put both back as enabled admins for the next tests; whichever remained does it.
    const remaining = a.statusCode === 200 ? admin : second;
    const other = a.statusCode === 200 ? 'second%40example.com' : 'admin%40example.com';
    const restored = await app.inject({ method: 'PATCH', url: `/api/v1/users/${other}`, headers: as(remaining), payload: { role: 'admin', disabled: false } });
    expect(restored.statusCode).toBe(200);
  });
});

describe('the audit view', () => {
  it('shows every admin action newest first with its actor, target, parameters and outcome, refusals as failed with their code', async () => {
    const admin = await signIn('admin@example.com');
    const operator = await signIn('operator@example.com');
    await app.inject({ method: 'POST', url: '/api/v1/transactions/REF-AUDIT-1/reconcile', headers: as(operator) });
    await app.inject({ method: 'PATCH', url: '/api/v1/users/admin%40example.com', headers: as(admin), payload: { disabled: true } });

    const page = await audit(admin, '?limit=2');
    expect(page.items).toEqual([
      {
        actionId: expect.any(String),
        action: 'user.update',
        actor: { email: 'admin@example.com', role: 'admin' },
        target: { kind: 'user', id: 'admin@example.com' },
        parameters: { disabled: true },
        requestedAt: expect.any(String),
        outcome: 'failed',
        errorCode: 'CONSOLE.SELF_CHANGE_REFUSED',
        result: null,
        completedAt: expect.any(String),
        position: expect.any(Number),
      },
      expect.objectContaining({
        action: 'transaction.reconcile',
        actor: { email: 'operator@example.com', role: 'operator' },
        target: { kind: 'transaction', id: 'REF-AUDIT-1' },
        outcome: 'succeeded',
        result: { state: 'RECOVERING' },
      }),
    ]);
    expect(page.nextCursor).toBe(String(page.items[1]!['position']));
    const next = await audit(admin, `?limit=2&cursor=${page.nextCursor}`);
    expect(next.items).toHaveLength(2);
    expect(Number(next.items[0]!['position'])).toBeLessThan(Number(page.items[1]!['position']));
  });

  it('filters by actor (any case) and by target, and pages to the end', async () => {
    const admin = await signIn('admin@example.com');
    const byOperator = await audit(admin, '?actor=Operator%40Example.com&limit=100');
    expect(byOperator.items.length).toBeGreaterThan(0);
    expect(byOperator.items.every((i) => (i['actor'] as { email: string }).email === 'operator@example.com')).toBe(true);
    expect(byOperator.nextCursor).toBeNull();

    const onUser = await audit(admin, '?targetKind=user&targetId=leaver%40example.com');
    expect(onUser.items.map((i) => [i['action'], i['parameters']])).toEqual([
      ['user.update', { disabled: false }],
      ['user.update', { disabled: true }],
      ['user.create', { role: 'viewer' }],
    ]);

    // Page through everything, two at a time: newest first, nothing twice, nothing skipped.
    const all = await audit(admin, '?limit=100');
    const walked: number[] = [];
    for (let cursor: string | null = ''; cursor !== null;) {
      const page = await audit(admin, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      walked.push(...page.items.map((i) => Number(i['position'])));
      cursor = page.nextCursor;
    }
    expect(walked).toEqual(all.items.map((i) => Number(i['position'])));
    expect(walked).toEqual([...walked].sort((x, y) => y - x));
  });

  it('refuses a bad query with 400 REQUEST.VALIDATION_FAILED', async () => {
    const admin = await signIn('admin@example.com');
    for (const query of ['?targetKind=planet&targetId=x', '?targetKind=user', '?targetId=x', '?cursor=abc', '?cursor=0', '?limit=0', '?limit=101']) {
      const res = await app.inject({ method: 'GET', url: `/api/v1/audit${query}`, headers: { cookie: admin.cookie } });
      expect(res.statusCode, query).toBe(400);
      expect(res.json()).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED' });
    }
  });

  it("keeps the ledger's hash chains whole", async () => {
    const verification = await verifyLedger(new PostgresLedger(pool));
    expect(verification.broken).toBeNull();
    expect(verification.checked).toBeGreaterThan(10);
  });
});

describe('answers', () => {
  it('conform to the schemas of the OpenAPI document (docs/api/console-openapi.json)', () => {
    expect(answers.violations).toEqual([]);
    for (const route of ['GET /api/v1/users', 'POST /api/v1/users', 'PATCH /api/v1/users/:email', 'POST /api/v1/users/:email/password', 'GET /api/v1/audit']) {
      expect(answers.checked.has(route), route).toBe(true);
    }
  });
});

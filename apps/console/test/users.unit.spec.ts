/** User management's pure rules and the service over the in-memory auth store and ledger: what is recorded, what is refused. */
import { InMemoryLedger } from '@settle/ledger';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { LedgerAuditTrail, StoreScanAuditLog } from '../src/audit/ledger-audit-trail.js';
import { MemoryAuthStore } from '../src/auth/memory-auth-store.js';
import { verifyPassword } from '../src/auth/secrets.js';
import { checkSelfChange, generatePassword, UserAdminService } from '../src/users/user-admin.service.js';

const admin = { email: 'admin@example.com', role: 'admin' as const };

describe('checkSelfChange', () => {
  it.each([
    ['disabling', { disabled: true }],
    ['demoting to operator', { role: 'operator' as const }],
    ['demoting to viewer', { role: 'viewer' as const }],
    ['resetting the password', { passwordReset: true }],
  ])("refuses an admin's own %s", (_name, change) => {
    expect(() => checkSelfChange(admin, 'admin@example.com', change)).toThrow(
      expect.objectContaining({ code: 'CONSOLE.SELF_CHANGE_REFUSED', kind: 'conflict' }),
    );
  });

  it('lets an admin keep their own role or stay enabled, and change anyone else', () => {
    expect(() => checkSelfChange(admin, 'admin@example.com', { role: 'admin', disabled: false })).not.toThrow();
    expect(() => checkSelfChange(admin, 'other@example.com', { role: 'viewer', disabled: true, passwordReset: true })).not.toThrow();
  });
});

describe('generatePassword', () => {
  it('gives 24 base64url characters (144 random bits), different each time', () => {
    const passwords = new Set(Array.from({ length: 50 }, () => generatePassword()));
    expect(passwords.size).toBe(50);
    for (const password of passwords) expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
  });
});

describe('UserAdminService (in-memory store and ledger)', () => {
  const setup = async () => {
    const store = new MemoryAuthStore();
    await store.createUser({ email: 'admin@example.com', passwordHash: 'h', role: 'admin', createdAt: new Date('2026-11-25T08:00:00Z') });
    const ledger = new InMemoryLedger();
    const trail = new LedgerAuditTrail(ledger, new StoreScanAuditLog(ledger), pino({ level: 'silent' }));
    const users = new UserAdminService(store, trail, () => new Date('2026-11-25T09:00:00Z'));
    return { store, ledger, trail, users };
  };

  it('creates a user whose generated password verifies against the stored hash, recorded with the role only', async () => {
    const { store, ledger, trail, users } = await setup();
    const created = await users.create(admin, 'Ada@Example.com', 'operator');
    expect(created.user).toEqual({ email: 'ada@example.com', role: 'operator', disabled: false, createdAt: '2026-11-25T09:00:00.000Z', lastSignInAt: null });
    const stored = await store.findUserByEmail('ada@example.com');
    expect(await verifyPassword(stored!.passwordHash, created.password)).toBe(true);
    const { items } = await trail.list({ limit: 10 });
    expect(items.map((i) => [i.action, i.target, i.parameters, i.outcome, i.result])).toEqual([
      ['user.create', { kind: 'user', id: 'ada@example.com' }, { role: 'operator' }, 'succeeded', { role: 'operator' }],
    ]);
    const everything = JSON.stringify(await ledger.readAll(0, 100));
    expect(everything).not.toContain(created.password);
    expect(everything).not.toContain(stored!.passwordHash);
  });

  it('records refusals as failed actions with their code: self changes, the last admin, an unknown user', async () => {
    const { trail, users } = await setup();
    await expect(users.update(admin, 'admin@example.com', { disabled: true })).rejects.toMatchObject({ code: 'CONSOLE.SELF_CHANGE_REFUSED' });
    await expect(users.update({ email: 'root@example.com', role: 'admin' }, 'admin@example.com', { role: 'viewer' })).rejects.toMatchObject({
      code: 'CONSOLE.LAST_ADMIN',
    });
    await expect(users.resetPassword(admin, 'ghost@example.com')).rejects.toMatchObject({ code: 'CONSOLE.USER_NOT_FOUND' });
    const { items } = await trail.list({ limit: 10 });
    expect(items.map((i) => [i.actor.email, i.parameters, i.outcome, i.errorCode])).toEqual([
      ['admin@example.com', { passwordReset: true }, 'failed', 'CONSOLE.USER_NOT_FOUND'],
      ['root@example.com', { role: 'viewer' }, 'failed', 'CONSOLE.LAST_ADMIN'],
      ['admin@example.com', { disabled: true }, 'failed', 'CONSOLE.SELF_CHANGE_REFUSED'],
    ]);
  });
});

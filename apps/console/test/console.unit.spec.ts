/** The console's pure parts: the role order, and the auth service on the in-memory store. */
import { readMigrationFiles } from '@settle/platform';
import { describe, expect, it } from 'vitest';
import { AuthService, LOCKOUT_WINDOW_MS } from '../src/auth/auth.service.js';
import { MemoryAuthStore } from '../src/auth/memory-auth-store.js';
import { CONSOLE_ROLES, isConsoleRole, roleAtLeast } from '../src/auth/roles.js';
import { sessionIdOf, tokensEqual } from '../src/auth/secrets.js';
import { CONSOLE_MIGRATIONS } from '../src/schema.js';
import { authStoreContract } from './auth-store.contract.js';

describe('roles', () => {
  it('orders viewer < operator < admin', () => {
    expect(CONSOLE_ROLES).toEqual(['viewer', 'operator', 'admin']);
    expect(roleAtLeast('viewer', 'viewer')).toBe(true);
    expect(roleAtLeast('viewer', 'operator')).toBe(false);
    expect(roleAtLeast('operator', 'operator')).toBe(true);
    expect(roleAtLeast('operator', 'admin')).toBe(false);
    expect(roleAtLeast('admin', 'operator')).toBe(true);
    expect(roleAtLeast('admin', 'viewer')).toBe(true);
    expect(isConsoleRole('admin')).toBe(true);
    expect(isConsoleRole('root')).toBe(false);
  });
});

describe('tokens', () => {
  it('stores a session by the SHA-256 of its token and compares tokens of any length', () => {
    expect(sessionIdOf('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(tokensEqual('same', 'same')).toBe(true);
    expect(tokensEqual('same', 'same-but-longer')).toBe(false);
    expect(tokensEqual('', 'x')).toBe(false);
  });
});

describe('AuthService (in-memory store)', () => {
  const PASSWORD = 'a long enough password';
  const setup = async () => {
    let now = new Date('2026-11-25T09:00:00Z');
    const store = new MemoryAuthStore();
    const auth = new AuthService(store, { sessionTtlMs: 3_600_000, now: () => now });
    await auth.createUser('Ops@Example.com', PASSWORD, 'operator');
    return { auth, store, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
  };

  it('stores an argon2id hash, never the password, and refuses a short password or a taken email', async () => {
    const { auth, store } = await setup();
    const user = await store.findUserByEmail('ops@example.com');
    expect(user?.passwordHash).toMatch(/^\$argon2id\$v=19\$/);
    await expect(auth.createUser('x@example.com', 'short', 'viewer')).rejects.toMatchObject({ code: 'CONSOLE.WEAK_PASSWORD', kind: 'invalid' });
    await expect(auth.createUser('OPS@example.com', PASSWORD, 'viewer')).rejects.toMatchObject({ code: 'CONSOLE.USER_EXISTS', kind: 'conflict' });
  });

  it('signs in (email case-insensitive) to a session that expires after its lifetime, and signs out', async () => {
    const { auth, advance } = await setup();
    const result = await auth.signIn(' OPS@example.com ', PASSWORD);
    if (result.outcome !== 'signed_in') throw new Error('expected a session');
    expect(result.user).toEqual({ email: 'ops@example.com', role: 'operator' });
    expect(await auth.sessionOf(result.token)).toMatchObject({ csrfToken: result.csrfToken });
    advance(3_600_000);
    expect(await auth.sessionOf(result.token)).toBeNull();
    const again = await auth.signIn('ops@example.com', PASSWORD);
    if (again.outcome !== 'signed_in') throw new Error('expected a session');
    await auth.signOut(again.token);
    expect(await auth.sessionOf(again.token)).toBeNull();
  });

  it("answers INVALID_CREDENTIALS for a wrong password, an unknown email and a disabled user, and ends a disabled user's sessions", async () => {
    const { auth, store } = await setup();
    await expect(auth.signIn('ops@example.com', 'wrong password')).rejects.toMatchObject({ code: 'CONSOLE.INVALID_CREDENTIALS', kind: 'unauthenticated' });
    await expect(auth.signIn('ghost@example.com', PASSWORD)).rejects.toMatchObject({ code: 'CONSOLE.INVALID_CREDENTIALS' });
    const result = await auth.signIn('ops@example.com', PASSWORD);
    if (result.outcome !== 'signed_in') throw new Error('expected a session');
    store.setDisabled('ops@example.com', true);
    expect(await auth.sessionOf(result.token)).toBeNull();
    await expect(auth.signIn('ops@example.com', PASSWORD)).rejects.toMatchObject({ code: 'CONSOLE.INVALID_CREDENTIALS' });
  });

  it('locks an email after 5 failures within 15 minutes until the oldest leaves the window; success clears the count', async () => {
    const { auth, advance } = await setup();
    for (let i = 0; i < 4; i++) {
      await expect(auth.signIn('ops@example.com', 'wrong')).rejects.toMatchObject({ code: 'CONSOLE.INVALID_CREDENTIALS' });
      advance(60_000);
    }
    // Four failures, then a success: the count starts again.
    expect((await auth.signIn('ops@example.com', PASSWORD)).outcome).toBe('signed_in');
    for (let i = 0; i < 5; i++) {
      await expect(auth.signIn('ops@example.com', 'wrong')).rejects.toMatchObject({ code: 'CONSOLE.INVALID_CREDENTIALS' });
      advance(60_000);
    }
    // First of the five was 5 minutes ago: locked for 10 more minutes, even with the right password.
    expect(await auth.signIn('ops@example.com', PASSWORD)).toEqual({ outcome: 'locked', retryAfterMs: LOCKOUT_WINDOW_MS - 5 * 60_000 });
    // Another email is not locked.
    await expect(auth.signIn('other@example.com', 'wrong')).rejects.toMatchObject({ code: 'CONSOLE.INVALID_CREDENTIALS' });
    advance(LOCKOUT_WINDOW_MS - 5 * 60_000);
    expect((await auth.signIn('ops@example.com', PASSWORD)).outcome).toBe('signed_in');
  });
});

describe('console migrations', () => {
  it('are numbered, uniquely versioned SQL files starting at 0001_initial', async () => {
    const files = await readMigrationFiles(CONSOLE_MIGRATIONS.dir);
    expect(files[0]?.name).toBe('0001_initial');
    expect(CONSOLE_MIGRATIONS.schema).toBe('console');
  });
});

authStoreContract('in memory', async () => {
  const store = new MemoryAuthStore();
  return { store, disable: async (email) => store.setDisabled(email, true) };
});

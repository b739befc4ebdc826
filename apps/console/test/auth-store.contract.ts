/**
 * The contract every AuthStore passes (PostgreSQL in auth-store.int.spec.ts, in memory in
 * console.unit.spec.ts): users with unique emails, sessions that expire and end with their
 * user's disabling, sign-in attempts claimed against the lockout's limit one by one.
 */
import { describe, expect, it } from 'vitest';
import type { AuthStore } from '../src/auth/auth-store.port.js';

/** What a contract run needs: a fresh store, and a way to disable a user in it. */
export interface AuthStoreUnderTest {
  store: AuthStore;
  disable(email: string): Promise<void>;
}

const at = (iso: string) => new Date(iso);

/** Registers the contract's tests for one adapter. */
export function authStoreContract(name: string, make: () => Promise<AuthStoreUnderTest>): void {
  describe(`AuthStore contract: ${name}`, () => {
    it('stores users under unique emails', async () => {
      const { store } = await make();
      const user = await store.createUser({ email: 'a@example.com', passwordHash: '$argon2id$x', role: 'operator', createdAt: at('2026-11-25T09:00:00Z') });
      expect(user).toEqual({ id: expect.any(Number), email: 'a@example.com', passwordHash: '$argon2id$x', role: 'operator', disabled: false });
      expect(await store.findUserByEmail('a@example.com')).toEqual(user);
      expect(await store.findUserByEmail('b@example.com')).toBeNull();
      await expect(
        store.createUser({ email: 'a@example.com', passwordHash: 'h', role: 'viewer', createdAt: at('2026-11-25T09:00:00Z') }),
      ).rejects.toMatchObject({
        code: 'CONSOLE.USER_EXISTS',
      });
    });

    it('finds a session until it expires or its user is disabled, and deletes it', async () => {
      const { store, disable } = await make();
      const user = await store.createUser({ email: 's@example.com', passwordHash: 'h', role: 'viewer', createdAt: at('2026-11-25T09:00:00Z') });
      const session = { id: 'a'.repeat(64), userId: user.id, csrfToken: 'csrf', createdAt: at('2026-11-25T09:00:00Z'), expiresAt: at('2026-11-25T10:00:00Z') };
      await store.createSession(session);
      expect(await store.findSession(session.id, at('2026-11-25T09:59:59Z'))).toEqual({
        id: session.id,
        csrfToken: 'csrf',
        expiresAt: session.expiresAt,
        user: { id: user.id, email: 's@example.com', role: 'viewer' },
      });
      expect(await store.findSession(session.id, at('2026-11-25T10:00:00Z'))).toBeNull();
      expect(await store.findSession('b'.repeat(64), at('2026-11-25T09:30:00Z'))).toBeNull();
      await store.createSession({ ...session, id: 'c'.repeat(64) });
      await disable('s@example.com');
      expect(await store.findSession('c'.repeat(64), at('2026-11-25T09:30:00Z'))).toBeNull();
      await store.deleteSession(session.id);
      await store.deleteSession(session.id);
      expect(await store.deleteExpiredSessions(at('2026-11-25T10:00:00Z'))).toBe(1);
    });

    it('claims attempts while fewer than the limit lie strictly inside the window, per email; forgets old ones; clears them', async () => {
      const { store } = await make();
      const window = at('2026-11-25T09:00:00Z');
      for (const minute of [0, 1, 2, 3]) {
        expect(await store.claimLoginAttempt('f@example.com', at(`2026-11-25T09:0${minute}:00Z`), at('2026-11-25T08:00:00Z'), 4)).toEqual({ claimed: true });
      }
      // Four in all, but the one at exactly the window's start is outside it: a fifth is claimed.
      expect(await store.claimLoginAttempt('f@example.com', at('2026-11-25T09:04:00Z'), window, 4)).toEqual({ claimed: true });
      expect(await store.claimLoginAttempt('f@example.com', at('2026-11-25T09:05:00Z'), window, 4)).toEqual({
        claimed: false,
        failures: [at('2026-11-25T09:04:00Z'), at('2026-11-25T09:03:00Z'), at('2026-11-25T09:02:00Z'), at('2026-11-25T09:01:00Z')],
      });
      // Another email counts on its own.
      expect(await store.claimLoginAttempt('other@example.com', at('2026-11-25T09:05:00Z'), window, 4)).toEqual({ claimed: true });
      // A claim forgets the email's rows at or before the window's start.
      expect(await store.claimLoginAttempt('f@example.com', at('2026-11-25T09:20:00Z'), at('2026-11-25T09:03:00Z'), 4)).toEqual({ claimed: true });
      // Left: 09:04 and 09:20 (09:00 to 09:03 forgotten), so a limit of 3 claims once more, then refuses.
      expect(await store.claimLoginAttempt('f@example.com', at('2026-11-25T09:21:00Z'), at('2026-11-25T08:00:00Z'), 3)).toEqual({ claimed: true });
      expect(await store.claimLoginAttempt('f@example.com', at('2026-11-25T09:22:00Z'), at('2026-11-25T08:00:00Z'), 3)).toEqual({
        claimed: false,
        failures: [at('2026-11-25T09:21:00Z'), at('2026-11-25T09:20:00Z'), at('2026-11-25T09:04:00Z')],
      });
      await store.clearLoginFailures('f@example.com');
      expect(await store.claimLoginAttempt('f@example.com', at('2026-11-25T09:22:00Z'), at('2026-11-25T08:00:00Z'), 1)).toEqual({ claimed: true });
      expect(await store.claimLoginAttempt('other@example.com', at('2026-11-25T09:22:00Z'), window, 1)).toMatchObject({ claimed: false });
    });

    it('lists users by email without their hashes, and notes their last sign-in', async () => {
      const { store } = await make();
      const b = await store.createUser({ email: 'b@example.com', passwordHash: 'hb', role: 'viewer', createdAt: at('2026-11-25T09:00:00Z') });
      await store.createUser({ email: 'a@example.com', passwordHash: 'ha', role: 'admin', createdAt: at('2026-11-25T08:00:00Z') });
      await store.recordSignIn(b.id, at('2026-11-25T10:00:00Z'));
      expect(await store.listUsers()).toEqual([
        { email: 'a@example.com', role: 'admin', disabled: false, createdAt: at('2026-11-25T08:00:00Z'), lastSignInAt: null },
        { email: 'b@example.com', role: 'viewer', disabled: false, createdAt: at('2026-11-25T09:00:00Z'), lastSignInAt: at('2026-11-25T10:00:00Z') },
      ]);
    });

    it("changes a role, the disabled flag or the password hash; disabling or a new password ends the user's sessions", async () => {
      const { store } = await make();
      const user = await store.createUser({ email: 'u@example.com', passwordHash: 'h1', role: 'viewer', createdAt: at('2026-11-25T09:00:00Z') });
      const session = (id: string) => ({ id, userId: user.id, csrfToken: 'c', createdAt: at('2026-11-25T09:00:00Z'), expiresAt: at('2026-11-25T12:00:00Z') });
      const live = (id: string) => store.findSession(id, at('2026-11-25T10:00:00Z'));
      await store.createSession(session('1'.repeat(64)));
      expect(await store.updateUser('u@example.com', { role: 'operator' })).toMatchObject({ email: 'u@example.com', role: 'operator', disabled: false });
      expect(await live('1'.repeat(64))).toMatchObject({ user: { role: 'operator' } });
      await store.updateUser('u@example.com', { passwordHash: 'h2' });
      expect((await store.findUserByEmail('u@example.com'))?.passwordHash).toBe('h2');
      expect(await live('1'.repeat(64))).toBeNull();
      await store.createSession(session('2'.repeat(64)));
      expect(await store.updateUser('u@example.com', { disabled: true })).toMatchObject({ disabled: true, role: 'operator' });
      await store.updateUser('u@example.com', { disabled: false });
      expect(await live('2'.repeat(64))).toBeNull();
      await expect(store.updateUser('nobody@example.com', { role: 'viewer' })).rejects.toMatchObject({ code: 'CONSOLE.USER_NOT_FOUND' });
    });

    it('refuses a change that leaves no enabled admin, and changes nothing then', async () => {
      const { store } = await make();
      await store.createUser({ email: 'a1@example.com', passwordHash: 'h', role: 'admin', createdAt: at('2026-11-25T09:00:00Z') });
      await store.createUser({ email: 'a2@example.com', passwordHash: 'h', role: 'admin', createdAt: at('2026-11-25T09:00:00Z') });
      await store.updateUser('a2@example.com', { disabled: true });
      await expect(store.updateUser('a1@example.com', { role: 'operator' })).rejects.toMatchObject({ code: 'CONSOLE.LAST_ADMIN', kind: 'conflict' });
      await expect(store.updateUser('a1@example.com', { disabled: true })).rejects.toMatchObject({ code: 'CONSOLE.LAST_ADMIN' });
      expect(await store.findUserByEmail('a1@example.com')).toMatchObject({ role: 'admin', disabled: false });
      // Other users change freely; so does the last admin, in ways that keep them an enabled admin.
      await store.createUser({ email: 'v@example.com', passwordHash: 'h', role: 'viewer', createdAt: at('2026-11-25T09:00:00Z') });
      await store.updateUser('v@example.com', { disabled: true });
      await store.updateUser('a1@example.com', { passwordHash: 'h2' });
      // Enabling the other admin makes the first one free to go.
      await store.updateUser('a2@example.com', { disabled: false });
      expect(await store.updateUser('a1@example.com', { role: 'viewer' })).toMatchObject({ role: 'viewer' });
    });

    it('counts parallel attempts one by one: no more than the limit are claimed', async () => {
      const { store } = await make();
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.claimLoginAttempt('p@example.com', new Date(Date.parse('2026-11-25T09:00:00Z') + i), at('2026-11-25T08:00:00Z'), 5),
        ),
      );
      expect(claims.filter((c) => c.claimed)).toHaveLength(5);
    });
  });
}

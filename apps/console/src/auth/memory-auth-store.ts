import { ConsoleError } from '../errors.js';
import type { AuthStore, ConsoleUser, NewSession, StoredSession, UserChange, UserRecord } from './auth-store.port.js';
import type { ConsoleRole } from './roles.js';

/** {@link AuthStore} in memory, for unit tests of the auth service. */
export class MemoryAuthStore implements AuthStore {
  private readonly users = new Map<string, ConsoleUser & { createdAt: Date; lastSignInAt: Date | null }>();
  private readonly sessions = new Map<string, NewSession>();
  private readonly failures: Array<{ email: string; at: Date }> = [];
  private nextUserId = 1;

  async findUserByEmail(email: string): Promise<ConsoleUser | null> {
    const user = this.users.get(email);
    return user ? { id: user.id, email: user.email, passwordHash: user.passwordHash, role: user.role, disabled: user.disabled } : null;
  }

  async createUser(user: { email: string; passwordHash: string; role: ConsoleRole; createdAt: Date }): Promise<ConsoleUser> {
    if (this.users.has(user.email)) throw new ConsoleError('CONSOLE.USER_EXISTS', `A console user ${user.email} exists already`);
    const stored: ConsoleUser = { id: this.nextUserId++, email: user.email, passwordHash: user.passwordHash, role: user.role, disabled: false };
    this.users.set(user.email, { ...stored, createdAt: user.createdAt, lastSignInAt: null });
    return { ...stored };
  }

  /** Test helper: disables or enables a user. */
  setDisabled(email: string, disabled: boolean): void {
    const user = this.users.get(email);
    if (user) user.disabled = disabled;
  }

  async claimLoginAttempt(email: string, at: Date, windowStart: Date, limit: number): Promise<{ claimed: true } | { claimed: false; failures: Date[] }> {
    const recent = this.failures
      .filter((f) => f.email === email && f.at.getTime() > windowStart.getTime())
      .map((f) => f.at)
      .sort((a, b) => b.getTime() - a.getTime())
      .slice(0, limit);
    if (recent.length >= limit) return { claimed: false, failures: recent };
    for (let i = this.failures.length - 1; i >= 0; i--) {
      const f = this.failures[i]!;
      if (f.email === email && f.at.getTime() <= windowStart.getTime()) this.failures.splice(i, 1);
    }
    this.failures.push({ email, at });
    return { claimed: true };
  }

  async clearLoginFailures(email: string): Promise<void> {
    for (let i = this.failures.length - 1; i >= 0; i--) if (this.failures[i]!.email === email) this.failures.splice(i, 1);
  }

  async createSession(session: NewSession): Promise<void> {
    this.sessions.set(session.id, { ...session });
  }

  async findSession(id: string, now: Date): Promise<StoredSession | null> {
    const session = this.sessions.get(id);
    if (!session || session.expiresAt.getTime() <= now.getTime()) return null;
    const user = [...this.users.values()].find((u) => u.id === session.userId);
    if (!user || user.disabled) return null;
    return { id, csrfToken: session.csrfToken, expiresAt: session.expiresAt, user: { id: user.id, email: user.email, role: user.role } };
  }

  async deleteSession(id: string): Promise<void> {
    this.sessions.delete(id);
  }

  async deleteExpiredSessions(now: Date): Promise<number> {
    let deleted = 0;
    for (const [id, session] of this.sessions) {
      if (session.expiresAt.getTime() <= now.getTime()) {
        this.sessions.delete(id);
        deleted++;
      }
    }
    return deleted;
  }

  async listUsers(): Promise<UserRecord[]> {
    return [...this.users.values()].sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0)).map(recordOf);
  }

  async updateUser(email: string, change: UserChange): Promise<UserRecord> {
    const user = this.users.get(email);
    if (!user) throw new ConsoleError('CONSOLE.USER_NOT_FOUND', `No console user ${email}`);
    const next = {
      ...user,
      role: change.role ?? user.role,
      disabled: change.disabled ?? user.disabled,
      passwordHash: change.passwordHash ?? user.passwordHash,
    };
    const enabledAdmin = (u: { role: ConsoleRole; disabled: boolean }) => u.role === 'admin' && !u.disabled;
    const others = [...this.users.values()].filter((u) => u.email !== email && enabledAdmin(u));
    if (enabledAdmin(user) && !enabledAdmin(next) && others.length === 0) throw new ConsoleError('CONSOLE.LAST_ADMIN', `${email} is the last enabled admin`);
    this.users.set(email, next);
    if (change.disabled === true || change.passwordHash !== undefined) {
      for (const [id, session] of this.sessions) if (session.userId === user.id) this.sessions.delete(id);
    }
    return recordOf(next);
  }

  async recordSignIn(userId: number, at: Date): Promise<void> {
    const user = [...this.users.values()].find((u) => u.id === userId);
    if (user) user.lastSignInAt = at;
  }
}

function recordOf(user: { email: string; role: ConsoleRole; disabled: boolean; createdAt: Date; lastSignInAt: Date | null }): UserRecord {
  return { email: user.email, role: user.role, disabled: user.disabled, createdAt: user.createdAt, lastSignInAt: user.lastSignInAt };
}

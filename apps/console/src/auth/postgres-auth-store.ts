import { inTransaction, isUniqueViolation, type Pool } from '@settle/platform';
import { ConsoleError } from '../errors.js';
import type { AuthStore, ConsoleUser, NewSession, StoredSession, UserChange, UserRecord } from './auth-store.port.js';
import { isConsoleRole, type ConsoleRole } from './roles.js';

interface UserRow {
  id: number;
  email: string;
  password_hash: string;
  role: string;
  disabled: boolean;
}

function roleOf(value: string): ConsoleRole {
  // The table's CHECK constraint allows only the three roles.
  if (!isConsoleRole(value)) throw new Error(`console.users holds an unknown role ${value}`);
  return value;
}

function userOf(row: UserRow): ConsoleUser {
  return { id: row.id, email: row.email, passwordHash: row.password_hash, role: roleOf(row.role), disabled: row.disabled };
}

interface RecordRow {
  email: string;
  role: string;
  disabled: boolean;
  created_at: Date;
  last_sign_in_at: Date | null;
}

const RECORD_COLUMNS = 'email, role, disabled, created_at, last_sign_in_at';

function recordOf(row: RecordRow): UserRecord {
  return { email: row.email, role: roleOf(row.role), disabled: row.disabled, createdAt: row.created_at, lastSignInAt: row.last_sign_in_at };
}

/** {@link AuthStore} on PostgreSQL, schema `console` (apps/console/migrations/console/). */
export class PostgresAuthStore implements AuthStore {
  constructor(private readonly pool: Pool) {}

  async findUserByEmail(email: string): Promise<ConsoleUser | null> {
    const { rows } = await this.pool.query<UserRow>('SELECT id, email, password_hash, role, disabled FROM console.users WHERE email = $1', [email]);
    return rows[0] ? userOf(rows[0]) : null;
  }

  async createUser(user: { email: string; passwordHash: string; role: ConsoleRole; createdAt: Date }): Promise<ConsoleUser> {
    try {
      const { rows } = await this.pool.query<UserRow>(
        `INSERT INTO console.users (email, password_hash, role, created_at) VALUES ($1, $2, $3, $4)
         RETURNING id, email, password_hash, role, disabled`,
        [user.email, user.passwordHash, user.role, user.createdAt],
      );
      return userOf(rows[0]!);
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConsoleError('CONSOLE.USER_EXISTS', `A console user ${user.email} exists already`);
      throw error;
    }
  }

  async claimLoginAttempt(email: string, at: Date, windowStart: Date, limit: number): Promise<{ claimed: true } | { claimed: false; failures: Date[] }> {
    return inTransaction(this.pool, async (client) => {
      // One attempt of an email at a time counts and claims (transaction-scoped advisory lock).
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended('console-login:' || $1, 0))", [email]);
      const { rows } = await client.query<{ at: Date }>('SELECT at FROM console.login_failures WHERE email = $1 AND at > $2 ORDER BY at DESC LIMIT $3', [
        email,
        windowStart,
        limit,
      ]);
      if (rows.length >= limit) return { claimed: false, failures: rows.map((row) => row.at) };
      await client.query('DELETE FROM console.login_failures WHERE email = $1 AND at <= $2', [email, windowStart]);
      await client.query('INSERT INTO console.login_failures (email, at) VALUES ($1, $2)', [email, at]);
      return { claimed: true };
    });
  }

  async clearLoginFailures(email: string): Promise<void> {
    await this.pool.query('DELETE FROM console.login_failures WHERE email = $1', [email]);
  }

  async createSession(session: NewSession): Promise<void> {
    await this.pool.query('INSERT INTO console.sessions (id, user_id, csrf_token, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
      session.id,
      session.userId,
      session.csrfToken,
      session.createdAt,
      session.expiresAt,
    ]);
  }

  async findSession(id: string, now: Date): Promise<StoredSession | null> {
    const { rows } = await this.pool.query<{ id: string; csrf_token: string; expires_at: Date; user_id: number; email: string; role: string }>(
      `SELECT s.id, s.csrf_token, s.expires_at, u.id AS user_id, u.email, u.role
         FROM console.sessions s JOIN console.users u ON u.id = s.user_id
        WHERE s.id = $1 AND s.expires_at > $2 AND NOT u.disabled`,
      [id, now],
    );
    const row = rows[0];
    if (!row) return null;
    return { id: row.id, csrfToken: row.csrf_token, expiresAt: row.expires_at, user: { id: row.user_id, email: row.email, role: roleOf(row.role) } };
  }

  async deleteSession(id: string): Promise<void> {
    await this.pool.query('DELETE FROM console.sessions WHERE id = $1', [id]);
  }

  async deleteExpiredSessions(now: Date): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM console.sessions WHERE expires_at <= $1', [now]);
    return rowCount ?? 0;
  }

  async listUsers(): Promise<UserRecord[]> {
    const { rows } = await this.pool.query<RecordRow>(`SELECT ${RECORD_COLUMNS} FROM console.users ORDER BY email`);
    return rows.map(recordOf);
  }

  async updateUser(email: string, change: UserChange): Promise<UserRecord> {
    return inTransaction(this.pool, async (client) => {
      // One change of users at a time, so the last-admin rule cannot be raced past.
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended('console-users', 0))");
      const before = await client.query<{ id: number; role: string; disabled: boolean }>('SELECT id, role, disabled FROM console.users WHERE email = $1', [
        email,
      ]);
      const current = before.rows[0];
      if (!current) throw new ConsoleError('CONSOLE.USER_NOT_FOUND', `No console user ${email}`);
      const wasAdmin = current.role === 'admin' && !current.disabled;
      const staysAdmin = (change.role ?? current.role) === 'admin' && !(change.disabled ?? current.disabled);
      if (wasAdmin && !staysAdmin) {
        const others = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM console.users WHERE role = 'admin' AND NOT disabled AND email <> $1", [
          email,
        ]);
        if ((others.rows[0]?.n ?? 0) === 0) throw new ConsoleError('CONSOLE.LAST_ADMIN', `${email} is the last enabled admin`);
      }
      const { rows } = await client.query<RecordRow>(
        `UPDATE console.users
            SET role = COALESCE($2, role), disabled = COALESCE($3, disabled), password_hash = COALESCE($4, password_hash)
          WHERE id = $1
          RETURNING ${RECORD_COLUMNS}`,
        [current.id, change.role ?? null, change.disabled ?? null, change.passwordHash ?? null],
      );
      if (change.disabled === true || change.passwordHash !== undefined) await client.query('DELETE FROM console.sessions WHERE user_id = $1', [current.id]);
      return recordOf(rows[0]!);
    });
  }

  async recordSignIn(userId: number, at: Date): Promise<void> {
    await this.pool.query('UPDATE console.users SET last_sign_in_at = $2 WHERE id = $1', [userId, at]);
  }
}

import type { ConsoleRole } from './roles.js';

/** A console user as stored. `email` is lower-cased; `passwordHash` an argon2id PHC string. */
export interface ConsoleUser {
  id: number;
  email: string;
  passwordHash: string;
  role: ConsoleRole;
  disabled: boolean;
}

/** A console user as the Users page lists it: never the password hash. */
export interface UserRecord {
  email: string;
  role: ConsoleRole;
  disabled: boolean;
  createdAt: Date;
  /** The last successful sign-in, `null` when none. */
  lastSignInAt: Date | null;
}

/** A change to a user: a new role, disabled or enabled, a new password hash. */
export interface UserChange {
  role?: ConsoleRole;
  disabled?: boolean;
  /** argon2id PHC string of a new password. */
  passwordHash?: string;
}

/** A new session: its id is the SHA-256 (hex) of the cookie's token, never the token. */
export interface NewSession {
  id: string;
  userId: number;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
}

/** A live session with its user. */
export interface StoredSession {
  id: string;
  csrfToken: string;
  expiresAt: Date;
  user: { id: number; email: string; role: ConsoleRole };
}

/**
 * Where the console keeps its users, sessions and failed sign-ins (schema `console`): a
 * PostgreSQL adapter ({@link PostgresAuthStore}) and an in-memory one ({@link MemoryAuthStore})
 * beside it, which pass the same tests. Emails arrive lower-cased.
 */
export interface AuthStore {
  /** The user of an email, disabled or not, or `null`. */
  findUserByEmail(email: string): Promise<ConsoleUser | null>;
  /**
   * Stores a new user.
   *
   * @throws ConsoleError `CONSOLE.USER_EXISTS` when the email is taken.
   */
  createUser(user: { email: string; passwordHash: string; role: ConsoleRole; createdAt: Date }): Promise<ConsoleUser>;
  /**
   * Takes a sign-in attempt's place in the lockout count, atomically per email (parallel
   * attempts are counted one by one): when fewer than `limit` failed or unfinished attempts of
   * the email lie strictly after `windowStart`, records this one at `at` as a failure (cleared
   * by {@link AuthStore.clearLoginFailures} if it succeeds) and forgets the email's rows older
   * than `windowStart`; else records nothing.
   *
   * @returns `claimed: true`, or `claimed: false` with the newest `limit` times in the window, newest first.
   */
  claimLoginAttempt(email: string, at: Date, windowStart: Date, limit: number): Promise<{ claimed: true } | { claimed: false; failures: Date[] }>;
  /** Forgets an email's failed sign-ins (after it signed in). */
  clearLoginFailures(email: string): Promise<void>;
  /** Stores a session. */
  createSession(session: NewSession): Promise<void>;
  /** The session of an id if it has not expired at `now` and its user is not disabled, else `null`. */
  findSession(id: string, now: Date): Promise<StoredSession | null>;
  /** Deletes a session (signing out); nothing when it does not exist. */
  deleteSession(id: string): Promise<void>;
  /** Deletes the sessions expired at `now`. @returns how many. */
  deleteExpiredSessions(now: Date): Promise<number>;
  /** Every user, by email (a console has tens of users, not thousands: no pages). */
  listUsers(): Promise<UserRecord[]>;
  /**
   * Changes a user, atomically with the rule that at least one enabled admin remains (checked
   * under a lock, so two admins demoting each other at once cannot both succeed). Disabling a
   * user or changing their password deletes all their sessions in the same transaction.
   *
   * @returns the user after the change.
   * @throws ConsoleError `CONSOLE.USER_NOT_FOUND` for an unknown email; `CONSOLE.LAST_ADMIN` when
   *   the change would leave no enabled admin (nothing is changed).
   */
  updateUser(email: string, change: UserChange): Promise<UserRecord>;
  /** Notes a successful sign-in of a user at `at` (the Users page's "last sign-in"). */
  recordSignIn(userId: number, at: Date): Promise<void>;
}

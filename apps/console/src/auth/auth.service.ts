import { ConsoleError } from '../errors.js';
import type { AuthStore } from './auth-store.port.js';
import type { ConsoleRole } from './roles.js';
import { hashPassword, randomToken, sessionIdOf, verifyPassword } from './secrets.js';

/** Failed sign-ins of one email that lock it (docs/console.md, "Security"). */
export const LOCKOUT_FAILURES = 5;
/** The window those failures are counted in, milliseconds (15 minutes). */
export const LOCKOUT_WINDOW_MS = 15 * 60_000;
/** Shortest password the console accepts, characters. */
export const MIN_PASSWORD_LENGTH = 12;

/** What a signed-in session shows of itself: its user, its CSRF token and its expiry. */
export interface SessionView {
  user: { email: string; role: ConsoleRole };
  csrfToken: string;
  expiresAt: Date;
}

/**
 * A sign-in's outcome: `signed_in` with the session's token (for the cookie, never stored),
 * or `locked` with how long until the email may try again, milliseconds. Wrong credentials
 * throw instead.
 */
export type SignInResult = ({ outcome: 'signed_in'; token: string } & SessionView) | { outcome: 'locked'; retryAfterMs: number };

/** Settings of {@link AuthService}. */
export interface AuthOptions {
  /** Lifetime of a session, milliseconds. */
  sessionTtlMs: number;
  /** The clock; sessions and lockouts are judged by it. */
  now?: () => Date;
}

/** Lower-cased, trimmed: the email as stored and counted. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Users, sign-in, sessions and the sign-in lockout of the console (docs/console.md, "Security"):
 * - passwords are argon2id hashes; an unknown email is checked against a dummy hash, so it
 *   takes as long as a wrong password and answers the same;
 * - a session is a 32-byte random token in the cookie, of which only the SHA-256 is stored,
 *   with a per-session random CSRF token;
 * - {@link LOCKOUT_FAILURES} failed sign-ins of an email within {@link LOCKOUT_WINDOW_MS} lock
 *   it (even the right password is refused) until the oldest of them leaves the window; each
 *   attempt is counted before its password is checked and stays a failure unless it succeeds.
 */
export class AuthService {
  private readonly now: () => Date;
  private dummyHash: Promise<string> | null = null;

  constructor(
    private readonly store: AuthStore,
    private readonly options: AuthOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Signs in with an email and a password.
   *
   * @returns `signed_in` with the new session, or `locked` with the wait before trying again.
   * @throws ConsoleError `CONSOLE.INVALID_CREDENTIALS` for an unknown or disabled email or a
   *   wrong password (the same answer for each; the failure is counted against the email).
   */
  async signIn(email: string, password: string): Promise<SignInResult> {
    const normalised = normaliseEmail(email);
    const now = this.now();
    const windowStart = new Date(now.getTime() - LOCKOUT_WINDOW_MS);
    // The attempt counts as a failure until it succeeds, so parallel guesses cannot slip past the limit.
    const claim = await this.store.claimLoginAttempt(normalised, now, windowStart, LOCKOUT_FAILURES);
    if (!claim.claimed) {
      // Unlocked once the LOCKOUT_FAILURES-th most recent failure leaves the window.
      const unlockAt = claim.failures[LOCKOUT_FAILURES - 1]!.getTime() + LOCKOUT_WINDOW_MS;
      return { outcome: 'locked', retryAfterMs: Math.max(1_000, unlockAt - now.getTime()) };
    }
    const user = await this.store.findUserByEmail(normalised);
    // Always hash: an unknown email costs what a known one does.
    const matches = await verifyPassword(user?.passwordHash ?? (await this.dummy()), password);
    if (!user || user.disabled || !matches) {
      // The claimed attempt stays recorded: it is the failure.
      throw new ConsoleError('CONSOLE.INVALID_CREDENTIALS', 'The email or the password is wrong');
    }
    await this.store.clearLoginFailures(normalised);
    await this.store.recordSignIn(user.id, now);
    const token = randomToken();
    const csrfToken = randomToken();
    const expiresAt = new Date(now.getTime() + this.options.sessionTtlMs);
    await this.store.createSession({ id: sessionIdOf(token), userId: user.id, csrfToken, createdAt: now, expiresAt });
    return { outcome: 'signed_in', token, user: { email: user.email, role: user.role }, csrfToken, expiresAt };
  }

  /**
   * The live session of a cookie's token.
   *
   * @returns the session, or `null` when the token is unknown, expired or its user disabled.
   */
  async sessionOf(token: string): Promise<SessionView | null> {
    const session = await this.store.findSession(sessionIdOf(token), this.now());
    return session ? { user: { email: session.user.email, role: session.user.role }, csrfToken: session.csrfToken, expiresAt: session.expiresAt } : null;
  }

  /** Ends the session of a token; nothing when it is unknown. */
  async signOut(token: string): Promise<void> {
    await this.store.deleteSession(sessionIdOf(token));
  }

  /** Deletes expired sessions. @returns how many. */
  async purgeExpiredSessions(): Promise<number> {
    return this.store.deleteExpiredSessions(this.now());
  }

  /**
   * Creates a user (the command line `create-user`).
   *
   * @param password - at least {@link MIN_PASSWORD_LENGTH} characters; stored only as its argon2id hash.
   * @throws ConsoleError `CONSOLE.WEAK_PASSWORD` for a shorter password, `CONSOLE.USER_EXISTS` when the email is taken.
   */
  async createUser(email: string, password: string, role: ConsoleRole): Promise<{ email: string; role: ConsoleRole }> {
    if (password.length < MIN_PASSWORD_LENGTH) {
      throw new ConsoleError('CONSOLE.WEAK_PASSWORD', `A password has at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    const user = await this.store.createUser({ email: normaliseEmail(email), passwordHash: await hashPassword(password), role, createdAt: this.now() });
    return { email: user.email, role: user.role };
  }

  /** A hash of a random password, made once: what an unknown email is checked against. */
  private dummy(): Promise<string> {
    this.dummyHash ??= hashPassword(randomToken());
    return this.dummyHash;
  }
}

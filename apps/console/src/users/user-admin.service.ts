import { randomBytes } from 'node:crypto';
import type { AdminActor, AuditTrail } from '../audit/audit-trail.port.js';
import type { AuthStore, UserRecord } from '../auth/auth-store.port.js';
import { normaliseEmail } from '../auth/auth.service.js';
import { roleAtLeast, type ConsoleRole } from '../auth/roles.js';
import { hashPassword } from '../auth/secrets.js';
import { ConsoleError } from '../errors.js';

/** Bytes of randomness of a generated password (144 bits; 24 base64url characters). */
export const GENERATED_PASSWORD_BYTES = 18;

/** A console user as the API answers it (`GET /api/v1/users`); ISO 8601 UTC times. */
export interface UserView {
  email: string;
  role: ConsoleRole;
  disabled: boolean;
  createdAt: string;
  /** `null` when the user never signed in. */
  lastSignInAt: string | null;
}

/** A user with the password the console generated for them, shown once to the admin who asked. */
export interface UserWithPassword {
  user: UserView;
  /** Never stored (only its argon2id hash), logged or recorded in the ledger. */
  password: string;
}

/** A fresh password: {@link GENERATED_PASSWORD_BYTES} bytes from the system's CSPRNG, base64url. */
export function generatePassword(): string {
  return randomBytes(GENERATED_PASSWORD_BYTES).toString('base64url');
}

/** The API's view of a stored user. */
export function userViewOf(user: UserRecord): UserView {
  return {
    email: user.email,
    role: user.role,
    disabled: user.disabled,
    createdAt: user.createdAt.toISOString(),
    lastSignInAt: user.lastSignInAt ? user.lastSignInAt.toISOString() : null,
  };
}

/**
 * Whether an admin may make a change to their own account (docs/console.md, "Users"): they may
 * not disable themself, lower their own role or reset their own password, so nobody locks
 * themself out by a slip (another admin can).
 *
 * @throws ConsoleError `CONSOLE.SELF_CHANGE_REFUSED` when the change is to the actor's own account and takes something away.
 */
export function checkSelfChange(actor: AdminActor, email: string, change: { role?: ConsoleRole; disabled?: boolean; passwordReset?: boolean }): void {
  if (actor.email !== email) return;
  if (change.disabled === true) throw new ConsoleError('CONSOLE.SELF_CHANGE_REFUSED', 'You cannot disable your own account; ask another admin');
  if (change.role !== undefined && !roleAtLeast(change.role, actor.role)) {
    throw new ConsoleError('CONSOLE.SELF_CHANGE_REFUSED', 'You cannot lower your own role; ask another admin');
  }
  if (change.passwordReset) throw new ConsoleError('CONSOLE.SELF_CHANGE_REFUSED', 'You cannot reset your own password here; ask another admin');
}

/**
 * The console's user management (admin only at the API; docs/console.md, "Users"). Every change
 * runs through the audit trail (`user.create`, `user.update`, target `user` by email): recorded in
 * the ledger with its actor before it runs, refusals included. Passwords are generated here,
 * answered once and stored only as argon2id hashes; neither they nor their hashes reach the
 * audit trail, whose parameters name only the role, the disabled flag or `passwordReset: true`.
 */
export class UserAdminService {
  constructor(
    private readonly store: AuthStore,
    private readonly audit: AuditTrail,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Every user, by email. */
  async list(): Promise<UserView[]> {
    return (await this.store.listUsers()).map(userViewOf);
  }

  /**
   * Creates a user with a generated password.
   *
   * @throws ConsoleError `CONSOLE.USER_EXISTS` for an email that has a user; `CONSOLE.AUDIT_UNAVAILABLE`.
   */
  async create(actor: AdminActor, email: string, role: ConsoleRole): Promise<UserWithPassword> {
    const normalised = normaliseEmail(email);
    return this.audit.run(
      { actor, action: 'user.create', target: { kind: 'user', id: normalised }, parameters: { role } },
      async () => {
        const password = generatePassword();
        const createdAt = this.now();
        await this.store.createUser({ email: normalised, passwordHash: await hashPassword(password), role, createdAt });
        return { user: { email: normalised, role, disabled: false, createdAt: createdAt.toISOString(), lastSignInAt: null }, password };
      },
      (result) => ({ role: result.user.role }),
    );
  }

  /**
   * Changes a user's role, or disables or enables them; disabling ends their sessions at once.
   *
   * @throws ConsoleError `CONSOLE.USER_NOT_FOUND`; `CONSOLE.SELF_CHANGE_REFUSED` (an admin disabling
   *   or demoting themself); `CONSOLE.LAST_ADMIN` (no enabled admin would remain); `CONSOLE.AUDIT_UNAVAILABLE`.
   */
  async update(actor: AdminActor, email: string, change: { role?: ConsoleRole; disabled?: boolean }): Promise<UserView> {
    const normalised = normaliseEmail(email);
    const parameters: Record<string, unknown> = {};
    if (change.role !== undefined) parameters['role'] = change.role;
    if (change.disabled !== undefined) parameters['disabled'] = change.disabled;
    return this.audit.run(
      { actor, action: 'user.update', target: { kind: 'user', id: normalised }, parameters },
      async () => {
        checkSelfChange(actor, normalised, change);
        return userViewOf(await this.store.updateUser(normalised, change));
      },
      (user) => ({ role: user.role, disabled: user.disabled }),
    );
  }

  /**
   * Gives a user a new generated password and ends their sessions.
   *
   * @throws ConsoleError `CONSOLE.USER_NOT_FOUND`; `CONSOLE.SELF_CHANGE_REFUSED` (an admin's own); `CONSOLE.AUDIT_UNAVAILABLE`.
   */
  async resetPassword(actor: AdminActor, email: string): Promise<UserWithPassword> {
    const normalised = normaliseEmail(email);
    return this.audit.run(
      { actor, action: 'user.update', target: { kind: 'user', id: normalised }, parameters: { passwordReset: true } },
      async () => {
        checkSelfChange(actor, normalised, { passwordReset: true });
        const password = generatePassword();
        const user = await this.store.updateUser(normalised, { passwordHash: await hashPassword(password) });
        return { user: userViewOf(user), password };
      },
      () => ({ passwordReset: true }),
    );
  }
}

import { fileURLToPath } from 'node:url';
import type { SchemaMigrations } from '@settle/platform';

/**
 * Migrations of the schema the console owns (`console`, `apps/console/migrations/console/`),
 * applied at its boot and by its command lines (docs/console.md):
 * - `users`: email (lower-cased, unique), argon2id password hash, role, created_at, disabled;
 * - `sessions`: id = SHA-256 of the cookie's random token, the user, the CSRF token, expiry;
 * - `login_failures`: every failed sign-in by email and time (the lockout counts them).
 */
export const CONSOLE_MIGRATIONS: SchemaMigrations = {
  schema: 'console',
  dir: fileURLToPath(new URL('../migrations/console', import.meta.url)),
};

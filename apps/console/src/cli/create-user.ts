import { parseArgs } from 'node:util';
import { loadConsoleCliConfig } from '@settle/config';
import { createLogger, createPool, migrateSchema, runMain } from '@settle/platform';
import { AuthService } from '../auth/auth.service.js';
import { PostgresAuthStore } from '../auth/postgres-auth-store.js';
import { CONSOLE_ROLES, isConsoleRole } from '../auth/roles.js';
import { CONSOLE_MIGRATIONS } from '../schema.js';

const USAGE = `usage: node dist/apps/console/src/cli/create-user.js --email <email> --role <${CONSOLE_ROLES.join('|')}>
The password is read from standard input (its first line), never from the arguments.`;

/** The first line of standard input, without its line end. */
async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('password (then Enter and Ctrl-D): ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return (Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '').trimEnd();
}

/**
 * Creates a console user (docs/console.md, "Running it"): applies the `console` migrations,
 * then stores the email with the role and the argon2id hash of the password read from
 * standard input. Needs `DATABASE_URL`. Exits 1 with a message for bad arguments, a password
 * shorter than 12 characters, or an email that exists already (`CONSOLE.USER_EXISTS`).
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { email: { type: 'string' }, role: { type: 'string' } }, strict: true });
  const email = values.email?.trim();
  const role = values.role;
  if (!email || !email.includes('@') || !role || !isConsoleRole(role)) throw new Error(USAGE);
  const config = loadConsoleCliConfig();
  const password = await readPassword();
  const logger = createLogger('console-cli', config.logLevel);
  const pool = createPool(config.database.url, 2);
  try {
    await migrateSchema(pool, CONSOLE_MIGRATIONS, logger);
    const user = await new AuthService(new PostgresAuthStore(pool), { sessionTtlMs: 0 }).createUser(email, password, role);
    process.stdout.write(`created console user ${user.email} (${user.role})\n`);
  } finally {
    await pool.end();
  }
}

runMain(main);

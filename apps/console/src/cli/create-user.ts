import { parseArgs } from 'node:util';
import { loadConsoleCliConfig } from '@settle/config';
import { createLogger, createPool, migrateSchema, runMain } from '@settle/platform';
import { AuthService } from '../auth/auth.service.js';
import { PostgresAuthStore } from '../auth/postgres-auth-store.js';
import { CONSOLE_ROLES, isConsoleRole } from '../auth/roles.js';
import { CONSOLE_MIGRATIONS } from '../schema.js';

const USAGE = `usage: node dist/apps/console/src/cli/create-user.js --email <email> --role <${CONSOLE_ROLES.join('|')}>
The password is typed without echo at a terminal, or read from standard input (its first line); never from the arguments.`;

/**
 * The password: typed at a terminal without echo (Enter ends it, Ctrl-C aborts), or else the
 * first line of standard input (a pipe or a file), without its line end.
 */
async function readPassword(): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(chunk as Buffer);
    return (Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '').trimEnd();
  }
  process.stderr.write('password: ');
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  return new Promise<string>((resolve, reject) => {
    let typed = '';
    const onData = (text: string) => {
      for (const char of text) {
        if (char === '\r' || char === '\n') {
          finish();
          resolve(typed);
          return;
        }
        if (char === '\u0003') {
          finish();
          reject(new Error('aborted'));
          return;
        }
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}

/**
 * Creates a console user (docs/console.md, "Running it"): applies the `console` migrations,
 * then stores the email with the role and the argon2id hash of the password, typed without
 * echo at a terminal or else read from standard input. Needs `DATABASE_URL`. Exits 1 with a message for bad arguments, a password
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

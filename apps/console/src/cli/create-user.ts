import { parseArgs } from 'node:util';
import { loadConsoleCliConfig, loadLedgerStoreConfig } from '@settle/config';
import { openLedgerStore } from '@settle/ledger';
import { createLogger, createPool, migrateSchema, runMain } from '@settle/platform';
import type { AdminActor } from '../audit/audit-trail.port.js';
import { LedgerAuditTrail } from '../audit/ledger-audit-trail.js';
import { PostgresAuditLog } from '../audit/postgres-audit-log.js';
import { AuthService, normaliseEmail } from '../auth/auth.service.js';
import { PostgresAuthStore } from '../auth/postgres-auth-store.js';
import { CONSOLE_ROLES, isConsoleRole } from '../auth/roles.js';
import { CONSOLE_MIGRATIONS } from '../schema.js';

const USAGE = `usage: node dist/apps/console/src/cli/create-user.js --email <email> --role <${CONSOLE_ROLES.join('|')}>
The password is typed without echo at a terminal, or read from standard input (its first line); never from the arguments.`;

/**
 * Who the audit trail names for a user made here: the command line has no session, and whoever
 * runs it holds the database's credentials, so it acts as an admin (docs/console.md, "Decisions").
 */
export const COMMAND_LINE_ACTOR: AdminActor = { email: 'command-line', role: 'admin' };

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
 * echo at a terminal or else read from standard input. The creation is recorded in the ledger's
 * audit trail first (`user.create` by {@link COMMAND_LINE_ACTOR}), like every admin action, in
 * the ledger `LEDGER_STORE` names (with `KURRENTDB_CONNECTION_STRING` for `kurrentdb`), as the
 * console's. Needs `DATABASE_URL`. Exits 1 with a message for bad arguments, a password shorter than 12
 * characters, an email that exists already (`CONSOLE.USER_EXISTS`), or a ledger that cannot
 * record it (`CONSOLE.AUDIT_UNAVAILABLE`: the stack's projector creates the ledger at its first boot).
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { email: { type: 'string' }, role: { type: 'string' } }, strict: true });
  const email = values.email?.trim();
  const role = values.role;
  if (!email || !email.includes('@') || !role || !isConsoleRole(role)) throw new Error(USAGE);
  const config = loadConsoleCliConfig();
  const ledgerStore = loadLedgerStoreConfig();
  const password = await readPassword();
  const logger = createLogger('console-cli', config.logLevel);
  const pool = createPool(config.database.url, 2, undefined, { preparedStatements: config.database.preparedStatements });
  const ledger = openLedgerStore(ledgerStore, pool);
  try {
    await migrateSchema(pool, CONSOLE_MIGRATIONS, logger);
    const auth = new AuthService(new PostgresAuthStore(pool), { sessionTtlMs: 0 });
    // Only `run` is used here: the log (the audit view's reads) is never asked.
    const audit = new LedgerAuditTrail(ledger.store, new PostgresAuditLog(pool), logger);
    const user = await audit.run(
      { actor: COMMAND_LINE_ACTOR, action: 'user.create', target: { kind: 'user', id: normaliseEmail(email) }, parameters: { role, via: 'command line' } },
      () => auth.createUser(email, password, role),
      (created) => ({ role: created.role }),
    );
    process.stdout.write(`created console user ${user.email} (${user.role})\n`);
  } finally {
    await ledger.close();
    await pool.end();
  }
}

runMain(main);

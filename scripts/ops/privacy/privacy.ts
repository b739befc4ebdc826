/**
 * Ops command line of personal data (`./settle privacy ...`, docs/privacy.md). Thin: argument
 * parsing and output here; the reading in ./subject-export.ts.
 *
 *   ./settle privacy export --user <user_id>
 *   ./settle privacy export --customer <email or E.164 phone>
 *
 * `export` prints, as one JSON document on standard output, every row Settle holds that names the
 * subject (the right of access, GDPR article 15). Erasure is not built yet (docs/privacy.md,
 * "Crypto-shredding"). Environment: DATABASE_URL. Exit codes: 0 done, 1 failure, 2 usage error.
 */
import { parseArgs } from 'node:util';
import { createPool } from '@settle/platform';
import { exportSubject, type SubjectExport } from './subject-export.js';

const USAGE = `usage: settle privacy export (--user <user_id> | --customer <email or E.164 phone>)
  export   every row Settle holds that names the subject, as JSON on standard output (right of access)
environment: DATABASE_URL`;

class UsageError extends Error {}

/** The subject a command names. @throws UsageError unless exactly one of --user and --customer is given, non-empty. */
function subjectOf(args: string[]): SubjectExport['subject'] {
  const { values } = parseArgs({ args, options: { user: { type: 'string' }, customer: { type: 'string' } } });
  const user = values.user?.trim();
  const customer = values.customer?.trim();
  if (Boolean(user) === Boolean(customer)) throw new UsageError('give exactly one of --user and --customer');
  return user ? { kind: 'user', id: user } : { kind: 'customer', id: customer! };
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === 'help' || command === '--help') {
    process.stderr.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  if (command !== 'export')
    throw new UsageError(command === 'erase' ? 'erase is not built yet (docs/privacy.md, "Crypto-shredding")' : `unknown command ${command}`);
  const subject = subjectOf(args);
  const url = process.env.DATABASE_URL;
  if (!url) throw new UsageError('set DATABASE_URL');
  const pool = createPool(url, 2);
  try {
    const exported = await exportSubject(pool, subject);
    process.stdout.write(`${JSON.stringify(exported, null, 2)}\n`);
    const counts = Object.entries(exported)
      .filter(([, v]) => Array.isArray(v))
      .map(([k, v]) => `${(v as unknown[]).length} ${k}`)
      .join(', ');
    process.stderr.write(`exported ${subject.kind} data: ${counts}\n`);
    return 0;
  } finally {
    await pool.end();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError || (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      process.stderr.write(`error: ${(error as Error).message}\n${USAGE}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);

/**
 * Ops command line of personal data (`./settle privacy ...`, docs/privacy.md). Thin: argument
 * parsing and output here; the reading in ./subject-export.ts, the erasure in `SubjectErasure`
 * (`@settle/ledger`).
 *
 *   ./settle privacy export --user <user_id>
 *   ./settle privacy export --customer <email or E.164 phone>
 *   ./settle privacy erase (--user <user_id> | --customer <email or phone>) --reason <text>
 *   ./settle privacy reapply-erasures
 *
 * `export` prints, as one JSON document on standard output, every row Settle holds that names the
 * subject (the right of access, GDPR article 15), sealed values opened (or `erased`). `erase`
 * destroys the subject's keys, clears the plaintext copies, records a `SubjectErased` fact and
 * prints, as JSON, where data was erased and what remains and why (GDPR article 17).
 * `reapply-erasures` applies every erasure the ledger records again, after a database restore
 * brought back rows and keys they had erased (docs/privacy.md, "What remains after an erasure").
 * Environment: DATABASE_URL; the privacy vault's master keys (SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE
 * or _KEYS); LEDGER_STORE as `./settle ledger`. Exit codes: 0 done, 1 failure, 2 usage error.
 */
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { ConfigError, loadLedgerStoreConfig } from '@settle/config';
import { isSettleError } from '@settle/domain';
import { openLedgerStore, PRIVACY_ERASURE_STREAM, SubjectErasure, subjectErasedOf } from '@settle/ledger';
import type { LedgerStore } from '@settle/ledger';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { loadPrivacyKeyRing, openSubjectKeys, privacyVaultMigrations, type SubjectKeys } from '@settle/vault';
import { exportSubject, revealSealedValues, type SubjectExport } from './subject-export.js';

const USAGE = `usage: settle privacy export (--user <user_id> | --customer <email or E.164 phone>)
       settle privacy erase (--user <user_id> | --customer <email or E.164 phone>) --reason <text>
       settle privacy reapply-erasures
  export            every row Settle holds that names the subject, as JSON on standard output (right of access)
  erase             destroy the subject's keys, clear the plaintext copies, record SubjectErased (right to erasure)
  reapply-erasures  apply every recorded erasure again, after a database restore
environment: DATABASE_URL, SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE (or _KEYS), LEDGER_STORE`;

class UsageError extends Error {}

/** The subject and reason a command names. @throws UsageError unless exactly one of --user and --customer is given, non-empty. */
function argsOf(args: string[]): { subject: SubjectExport['subject']; reason: string | undefined } {
  const { values } = parseArgs({ args, options: { user: { type: 'string' }, customer: { type: 'string' }, reason: { type: 'string' } } });
  const user = values.user?.trim();
  const customer = values.customer?.trim();
  if (Boolean(user) === Boolean(customer)) throw new UsageError('give exactly one of --user and --customer');
  return { subject: user ? { kind: 'user', id: user } : { kind: 'customer', id: customer! }, reason: values.reason?.trim() || undefined };
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === 'help' || command === '--help') {
    process.stderr.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  if (command !== 'export' && command !== 'erase' && command !== 'reapply-erasures') throw new UsageError(`unknown command ${command}`);
  const { subject, reason } = command === 'reapply-erasures' ? { subject: null, reason: undefined } : argsOf(args);
  if (command === 'erase' && !reason) throw new UsageError('say why with --reason (a ticket, the request’s date); never the subject’s identifier');
  const url = process.env.DATABASE_URL;
  if (!url) throw new UsageError('set DATABASE_URL');
  let ring;
  try {
    ring = loadPrivacyKeyRing();
  } catch (error) {
    if (error instanceof ConfigError || (error as { code?: string }).code === 'VAULT.INVALID_CONFIG') throw new UsageError((error as Error).message);
    throw error;
  }
  const pool = createPool(url, 2);
  try {
    for (const migrations of privacyVaultMigrations()) await migrateSchema(pool, migrations);
    const keys = await openSubjectKeys(pool, ring);
    const ledger = openLedgerStore(loadLedgerStoreConfig(), pool);
    try {
      return await run(command, subject, reason, pool, ledger.store, keys);
    } finally {
      await ledger.close();
    }
  } finally {
    await pool.end();
  }
}

async function run(
  command: 'export' | 'erase' | 'reapply-erasures',
  subject: SubjectExport['subject'] | null,
  reason: string | undefined,
  pool: Pool,
  ledger: LedgerStore,
  keys: SubjectKeys,
): Promise<number> {
  const erasure = new SubjectErasure(pool, ledger, keys);
  if (command === 'reapply-erasures') {
    const facts = (await ledger.readStream(PRIVACY_ERASURE_STREAM)).map((event) => subjectErasedOf(event));
    const { keysDestroyed } = await erasure.reapply(facts);
    process.stderr.write(
      `re-applied ${facts.length} recorded erasures: their plaintext cleared, their read-model marks written, ${keysDestroyed} keys destroyed again\n`,
    );
    return 0;
  }
  if (command === 'export') {
    const exported = await revealSealedValues(await exportSubject(pool, subject!, await erasure.find(subject!)), keys);
    process.stdout.write(`${JSON.stringify(exported, null, 2)}\n`);
    const counts = Object.entries(exported)
      .filter(([, v]) => Array.isArray(v))
      .map(([k, v]) => `${(v as unknown[]).length} ${k}`)
      .join(', ');
    process.stderr.write(`exported ${subject!.kind} data: ${counts}\n`);
    return 0;
  }
  const report = await erasure.erase(subject!, { requestedBy: `cli:${userInfo().username}`, approvedBy: null, reason: reason! });
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  const erasedRows = report.erased.map((e) => `${e.rows} in ${e.place}`).join(', ');
  process.stderr.write(
    `erased ${subject!.kind}: ${report.transaction_references.length} payments, ${report.unmatched_references.length} unmatched payments; ${erasedRows}; ` +
      `recorded as SubjectErased at ledger position ${report.ledger_position}; ${report.remaining.length} places still hold data (listed under "remaining", with why)\n`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // A refused erasure (a reason that names the person, an empty subject) is the caller's to fix, like a usage error.
    if (
      error instanceof UsageError ||
      (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ||
      (isSettleError(error) && error.kind === 'invalid')
    ) {
      process.stderr.write(`error: ${(error as Error).message}\n${USAGE}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);

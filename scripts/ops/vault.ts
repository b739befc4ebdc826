/**
 * Operator CLI of the credentials vault (`libs/vault`). Thin: argument parsing and output here,
 * everything else in the library.
 *
 *   node dist/scripts/ops/vault.js put <provider> <account> <name>   secret read from standard input
 *   node dist/scripts/ops/vault.js list [--json]
 *   node dist/scripts/ops/vault.js rotate --key-file <path>            prints only the new version
 *   node dist/scripts/ops/vault.js rewrap
 *   node dist/scripts/ops/vault.js retire <version> [--key-file <path>]
 *
 * Environment: DATABASE_URL (all but rotate), SETTLE_VAULT_MASTER_KEYS or
 * SETTLE_VAULT_MASTER_KEY_FILE, optional SETTLE_VAULT_ACTIVE_KEY (see libs/vault/src/master-key-config.ts),
 * SETTLE_VAULT_SCHEMA (the vault, default `vault`). For the privacy vault (`privacy_vault`, given
 * the privacy vault's key file) `list`, `rewrap` and `retire` also cover the data subjects' keys
 * (schema `privacy_keys`, wrapped under the same master keys): counts per master key version only.
 * They never make the privacy vault's index key: a vault without one has no subject keys yet.
 * The secret of `put` never comes from argv (it would show in `ps` and shell history): pipe it
 * or redirect a file; one trailing newline is dropped. Exit codes: 0 done, 1 refused or failed,
 * 2 usage error.
 */
import { parseArgs } from 'node:util';
import { Secret } from '@settle/config';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import {
  CredentialsVault,
  isVaultError,
  loadMasterKeyRing,
  openSubjectKeys,
  PostgresVaultStore,
  PRIVACY_VAULT_SCHEMA,
  privacyVaultMigrations,
  removeKeyFromFile,
  rotateKeyFile,
  DEFAULT_VAULT_SCHEMA,
  vaultMigrations,
  type MasterKeyRing,
  type SubjectKeys,
} from '@settle/vault';

const USAGE = `usage: vault.js <command>
  put <provider> <account> <name>      store a new version; the secret is read from standard input
  list [--json]                        credentials, versions and master key versions (never secrets)
  rotate --key-file <path>             add a new random master key version to the key file, make it active
  rewrap                               re-wrap every data key under the active master key version
  retire <version> [--key-file <path>] refuse while credentials use <version>; with --key-file, remove it
with SETTLE_VAULT_SCHEMA=privacy_vault, list, rewrap and retire cover the data subjects' keys too`;

class UsageError extends Error {}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new UsageError(`put reads the secret from a pipe or a file, not a terminal (it would echo), e.g.
  read -rs SECRET && printf '%s' "$SECRET" | node dist/scripts/ops/vault.js put <provider> <account> <name>`);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  const text = bytes.toString('utf8').replace(/\r?\n$/, '');
  bytes.fill(0);
  return text;
}

/** What the rotation commands use of the privacy vault's subjects' keys. */
type SubjectKeyRotation = Pick<SubjectKeys, 'keyVersionsInUse' | 'rewrap' | 'assertRetirable'>;

/** The vault picked, and for the privacy vault its subjects' keys (opened on first ask; `null` for any other vault). */
interface Vaults {
  readonly vault: CredentialsVault;
  readonly subjectKeys: () => Promise<SubjectKeyRotation | null>;
}

/**
 * The privacy vault's subjects' keys for the rotation commands. The index key is never made here
 * (`createIndexKey: false`): under the wrong master key file on a fresh database it would be
 * stored under a ring the apps do not hold, and they would then fail. A vault with no index key
 * has no subject keys yet: counts none, rewraps nothing, keeps no version from retiring.
 */
async function openSubjectKeysForRotation(pool: Pool, keyRing: MasterKeyRing): Promise<SubjectKeyRotation> {
  try {
    return await openSubjectKeys(pool, keyRing, { createIndexKey: false });
  } catch (error) {
    if (!isVaultError(error) || error.code !== 'VAULT.NOT_FOUND') throw error;
    return {
      keyVersionsInUse: () => Promise.resolve({}),
      rewrap: () => Promise.resolve({ activeKeyVersion: keyRing.activeVersion, alreadyActive: 0, rewrapped: 0, skipped: 0, failed: [] }),
      assertRetirable: (keyVersion) => Promise.resolve({ keyVersion, inUse: {} }),
    };
  }
}

async function withVault<T>(work: (vaults: Vaults) => Promise<T>): Promise<T> {
  const url = process.env.DATABASE_URL?.trim();
  if (!url) throw new UsageError('DATABASE_URL is required');
  const keyRing = loadMasterKeyRing(process.env);
  const pool = createPool(url, 2);
  try {
    // SETTLE_VAULT_SCHEMA picks the vault, each with its own key ring: `vault` (provider API
    // credentials, the verifier's), `webhook_vault` (ingestion's), ..., `privacy_vault` (the
    // index key, beside the subjects' keys in `privacy_keys` under the same ring).
    const schema = process.env.SETTLE_VAULT_SCHEMA?.trim() || DEFAULT_VAULT_SCHEMA;
    const privacy = schema === PRIVACY_VAULT_SCHEMA;
    for (const migrations of privacy ? privacyVaultMigrations() : [vaultMigrations(schema)]) await migrateSchema(pool, migrations);
    let subjectKeys: Promise<SubjectKeyRotation> | undefined;
    return await work({
      vault: new CredentialsVault(new PostgresVaultStore(pool, schema), keyRing),
      subjectKeys: async () => (privacy ? (subjectKeys ??= openSubjectKeysForRotation(pool, keyRing)) : null),
    });
  } finally {
    await pool.end();
  }
}

/** `v1=3, v2=5`, or `none`. */
function describeInUse(inUse: Readonly<Record<string, number>>): string {
  return (
    Object.entries(inUse)
      .map(([v, n]) => `${v}=${n}`)
      .join(', ') || 'none'
  );
}

function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    console.log(
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
}

function positionals(args: string[], count: number, names: string): string[] {
  if (args.length !== count) throw new UsageError(`expected ${names}`);
  return args;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals: args } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { 'key-file': { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command, ...rest] = args;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  switch (command) {
    case 'put': {
      const [provider, account, name] = positionals(rest, 3, '<provider> <account> <name>');
      const secret = new Secret(await readStdin());
      const stored = await withVault(({ vault }) => vault.put({ provider: provider!, account: account!, name: name! }, secret));
      console.log(`stored ${stored.provider}/${stored.account}/${stored.name} version ${stored.version} (master key ${stored.keyVersion})`);
      return 0;
    }
    case 'list': {
      positionals(rest, 0, 'no argument');
      await withVault(async ({ vault, subjectKeys }) => {
        const credentials = await vault.list();
        if (values.json) {
          for (const c of credentials) console.log(JSON.stringify(c));
        } else {
          printTable(
            [['PROVIDER', 'ACCOUNT', 'NAME', 'VERSION', 'KEY', 'UPDATED', 'WRAPPED']].concat(
              credentials.map((c) => [c.provider, c.account, c.name, String(c.version), c.keyVersion, c.updatedAt.toISOString(), c.wrappedAt.toISOString()]),
            ),
          );
        }
        // The privacy vault: how many subjects' keys each master key version wraps (never a key or a subject).
        const keys = await subjectKeys();
        if (!keys) return;
        const inUse = await keys.keyVersionsInUse();
        if (values.json) {
          console.log(JSON.stringify({ subjectKeysByKeyVersion: inUse }));
        } else {
          console.log('');
          printTable([['KEY', 'SUBJECT KEYS'], ...Object.entries(inUse).map(([v, n]) => [v, String(n)])]);
        }
      });
      return 0;
    }
    case 'rotate': {
      positionals(rest, 0, 'no argument besides --key-file <path>');
      const path = values['key-file'];
      if (!path) throw new UsageError('rotate needs --key-file <path>');
      const { version } = rotateKeyFile(path);
      const pinned = process.env.SETTLE_VAULT_ACTIVE_KEY?.trim();
      if (pinned && pinned !== version) console.error(`warning: SETTLE_VAULT_ACTIVE_KEY is set and overrides the key file's active version (${version})`);
      console.log(version);
      return 0;
    }
    case 'rewrap': {
      positionals(rest, 0, 'no argument');
      const { result, subjects } = await withVault(async ({ vault, subjectKeys }) => {
        // Opened first (never making the index key): the index key is a credential like the others.
        const keys = await subjectKeys();
        return { result: await vault.rewrap(), subjects: keys ? await keys.rewrap() : null };
      });
      console.log(
        `rewrapped ${result.rewrapped} under ${result.activeKeyVersion} (already there: ${result.alreadyActive}, changed meanwhile: ${result.skipped}, failed: ${result.failed.length})`,
      );
      if (subjects) {
        console.log(
          `rewrapped ${subjects.rewrapped} subject keys under ${subjects.activeKeyVersion} (already there: ${subjects.alreadyActive}, erased or changed meanwhile: ${subjects.skipped}, failed: ${subjects.failed.length})`,
        );
      }
      for (const f of result.failed) console.error(`failed ${f.provider}/${f.account}/${f.name} version ${f.version} (master key ${f.keyVersion}): ${f.code}`);
      for (const f of subjects?.failed ?? []) console.error(`failed subject key ${f.keyId} (master key ${f.keyVersion}): ${f.code}`);
      if (result.skipped > 0) console.error('some credentials changed while rewrapping; run rewrap again');
      if ((subjects?.skipped ?? 0) > 0) console.error('some subject keys were erased or changed while rewrapping; run rewrap again');
      return result.failed.length === 0 && (subjects?.failed.length ?? 0) === 0 ? 0 : 1;
    }
    case 'retire': {
      const [version] = positionals(rest, 1, '<version>');
      const { check, subjects } = await withVault(async ({ vault, subjectKeys }) => {
        const credentials = await vault.assertRetirable(version!);
        // The privacy vault: the subjects' keys must be off the version too.
        const keys = await subjectKeys();
        return { check: credentials, subjects: keys ? await keys.assertRetirable(version!) : null };
      });
      const users = subjects ? 'no credential or subject key uses it' : 'no credential uses it';
      const inUse = subjects ? `credentials ${describeInUse(check.inUse)}; subject keys ${describeInUse(subjects.inUse)}` : describeInUse(check.inUse);
      const keyFile = values['key-file'];
      if (keyFile) {
        removeKeyFromFile(keyFile, check.keyVersion);
        console.log(`${check.keyVersion} retired: ${users}; removed from ${keyFile} (in use: ${inUse})`);
      } else {
        console.log(`${check.keyVersion} may be retired: ${users} (in use: ${inUse}); remove it from the key ring`);
      }
      return 0;
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError || (error as { code?: unknown } | null)?.code?.toString().startsWith('ERR_PARSE_ARGS')) {
      console.error(`vault: ${(error as Error).message}\n${USAGE}`);
      process.exitCode = 2;
    } else if (isVaultError(error)) {
      console.error(`vault: ${error.code}: ${error.message}`);
      process.exitCode = 1;
    } else {
      console.error(`vault: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    }
  },
);

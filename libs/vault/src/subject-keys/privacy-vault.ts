import type { Pool, SchemaMigrations } from '@settle/platform';
import { z } from 'zod';
import { Secret } from '@settle/config';
import { generateKey, KEY_BYTES } from '../crypto.js';
import { VaultError } from '../errors.js';
import { loadMasterKeyRing, type MasterKeyRing } from '../key-ring.js';
import { VAULT_ENV } from '../master-key-config.js';
import { PostgresVaultStore, vaultMigrations } from '../postgres-store.js';
import { CredentialsVault, type VaultLogger } from '../vault.js';
import { PostgresSubjectKeyStore, subjectKeyMigrations } from './postgres-subject-key-store.js';
import { SubjectKeys } from './subject-keys.js';

/**
 * Schema of the privacy vault (docs/privacy.md, "Crypto-shredding"): the data subjects' keys and
 * the index key they are found by, under master keys of its own. The verifier seals with it; the
 * console and `./settle privacy` open and erase with it. No other app holds its master keys.
 */
export const PRIVACY_VAULT_SCHEMA = 'privacy_vault';

/**
 * Schema of the subjects' keys themselves (`subject_keys`, `erased_subject_keys`), beside the
 * privacy vault: each schema keeps one set of migrations.
 */
export const PRIVACY_KEYS_SCHEMA = 'privacy_keys';

/**
 * The environment of the privacy vault's master keys: the three `SETTLE_VAULT_*` settings of
 * docs/vault.md with `PRIVACY_` after `SETTLE_`, so that an app holding another vault's keys
 * (the verifier's provider credentials) holds these apart.
 */
export const PRIVACY_VAULT_ENV = {
  masterKeys: 'SETTLE_PRIVACY_VAULT_MASTER_KEYS',
  keyFile: 'SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE',
  activeKey: 'SETTLE_PRIVACY_VAULT_ACTIVE_KEY',
} as const;

/**
 * The privacy vault's variables as a zod object, for documentation (`npm run config:examples`),
 * read by {@link loadPrivacyKeyRing}: the verifier (which seals) and the console (which seals
 * proposals and reveals them to the admins deciding them) hold them; no other app does.
 */
export const privacyVaultEnv = z.object({
  [PRIVACY_VAULT_ENV.masterKeys]: z.string().optional().meta({
    description:
      'The privacy vault’s inline master key ring, `v1:<base64 of 32 bytes>,v2:...`: the data subjects’ keys are wrapped under it (docs/privacy.md, "Crypto-shredding"). This or SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE; without either, the verifier records masked forms only and the console cannot take erasures.',
    secret: true,
  }),
  [PRIVACY_VAULT_ENV.keyFile]: z
    .string()
    .optional()
    .meta({ description: 'Path of the privacy vault’s master key file (JSON or lines, mode 0600); this or SETTLE_PRIVACY_VAULT_MASTER_KEYS, never both.' }),
  [PRIVACY_VAULT_ENV.activeKey]: z
    .string()
    .optional()
    .meta({ description: "Version of the privacy vault's master key that wraps new subject keys; unset: the key file's `active`, else the highest version." }),
});

/** Where the index key is kept in the privacy vault: provider `settle`, account `privacy`, name `subject_index_key`. */
export const SUBJECT_INDEX_KEY_CREDENTIAL = { provider: 'settle', account: 'privacy', name: 'subject_index_key' } as const;

/** The privacy vault's migrations: the credentials (the index key) in {@link PRIVACY_VAULT_SCHEMA}, the subjects' keys in {@link PRIVACY_KEYS_SCHEMA}. */
export function privacyVaultMigrations(): SchemaMigrations[] {
  return [vaultMigrations(PRIVACY_VAULT_SCHEMA), subjectKeyMigrations(PRIVACY_KEYS_SCHEMA)];
}

/** Whether the privacy vault's master keys are configured (an app without them seals nothing and says so). */
export function privacyVaultConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env[PRIVACY_VAULT_ENV.masterKeys]?.trim() || env[PRIVACY_VAULT_ENV.keyFile]?.trim());
}

/**
 * The privacy vault's master key ring, from `SETTLE_PRIVACY_VAULT_MASTER_KEYS` or
 * `SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE` (and `SETTLE_PRIVACY_VAULT_ACTIVE_KEY`), read exactly as
 * {@link loadMasterKeyRing} reads the `SETTLE_VAULT_*` ones.
 *
 * @throws VaultError `VAULT.INVALID_CONFIG` as {@link loadMasterKeyRing} does (none configured, both,
 *   malformed), naming the `SETTLE_PRIVACY_VAULT_*` variables.
 */
export function loadPrivacyKeyRing(env: NodeJS.ProcessEnv = process.env): MasterKeyRing {
  try {
    return loadMasterKeyRing({
      [VAULT_ENV.masterKeys]: env[PRIVACY_VAULT_ENV.masterKeys],
      [VAULT_ENV.keyFile]: env[PRIVACY_VAULT_ENV.keyFile],
      [VAULT_ENV.activeKey]: env[PRIVACY_VAULT_ENV.activeKey],
    });
  } catch (error) {
    // Name the privacy vault's own variables, not the ones read under them.
    if (error instanceof VaultError) throw new VaultError(error.code, error.message.replaceAll('SETTLE_VAULT_', 'SETTLE_PRIVACY_VAULT_'));
    throw error;
  }
}

/** Options of {@link openSubjectKeys}. */
export interface OpenSubjectKeysOptions {
  /** The vault's schema (default {@link PRIVACY_VAULT_SCHEMA}); for tests. */
  schema?: string;
  /** The subjects' keys' schema (default {@link PRIVACY_KEYS_SCHEMA}); for tests. */
  keysSchema?: string;
  logger?: VaultLogger;
  now?: () => Date;
  /**
   * Whether to make the index key when the vault has none (default `true`: the apps, which seal,
   * make it on first use). `false` for tools that must never make it, such as the vault CLI's
   * rotation commands: run under the wrong master key file on a fresh database, they would store
   * it under a ring the apps do not hold, and the apps would then fail to open the vault.
   */
  createIndexKey?: boolean;
}

/**
 * The subjects' keys of the privacy vault (migrated by the caller with
 * {@link privacyVaultMigrations}). The index key (32 random bytes, base64) is read from the
 * vault, or made and stored on first use under a PostgreSQL advisory lock, so that apps starting
 * together agree on one: a second index key would find no subject's existing key. With
 * `createIndexKey: false` it is only read.
 *
 * @throws VaultError `VAULT.NOT_FOUND` with `createIndexKey: false` when the vault holds no index
 *   key (no subject has a key yet); `VAULT.INTEGRITY_CHECK_FAILED` when the stored index key is
 *   not 32 bytes; the vault's and the database's errors.
 */
export async function openSubjectKeys(pool: Pool, ring: MasterKeyRing, options: OpenSubjectKeysOptions = {}): Promise<SubjectKeys> {
  const schema = options.schema ?? PRIVACY_VAULT_SCHEMA;
  const vault = new CredentialsVault(new PostgresVaultStore(pool, schema), ring, options.logger ? { logger: options.logger } : {});
  const indexKey = await indexKeyOf(pool, vault, schema, options.createIndexKey ?? true);
  return new SubjectKeys(new PostgresSubjectKeyStore(pool, options.keysSchema ?? PRIVACY_KEYS_SCHEMA), ring, indexKey, options.now);
}

async function indexKeyOf(pool: Pool, vault: CredentialsVault, schema: string, create: boolean): Promise<Buffer> {
  const read = async (): Promise<Buffer | null> => {
    try {
      return Buffer.from((await vault.get(SUBJECT_INDEX_KEY_CREDENTIAL)).reveal(), 'base64');
    } catch (error) {
      if ((error as { code?: string }).code === 'VAULT.NOT_FOUND') return null;
      throw error;
    }
  };
  let key = await read();
  if (!key && !create) throw new VaultError('VAULT.NOT_FOUND', 'The privacy vault holds no subject index key yet: no subject has a key');
  if (!key) {
    const client = await pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [`settle.${schema}.subject_index_key`]);
      key = await read();
      if (!key) {
        const fresh = generateKey();
        await vault.put(SUBJECT_INDEX_KEY_CREDENTIAL, new Secret(fresh.toString('base64')));
        fresh.fill(0);
        key = await read();
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`settle.${schema}.subject_index_key`]).catch(() => undefined);
      client.release();
    }
  }
  if (!key || key.length !== KEY_BYTES) throw new VaultError('VAULT.INTEGRITY_CHECK_FAILED', 'the stored subject index key is not 32 bytes');
  return key;
}

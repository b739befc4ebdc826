import { fileURLToPath } from 'node:url';
import type { Pool, SchemaMigrations } from '@settle/platform';
import type { CredentialRef } from './credential.js';
import type { CredentialEnvelope, CredentialFilter, CredentialInfo, StoredCredential, VaultStore, WrappedKey } from './store.port.js';

/** Schema of the vault that holds provider API credentials (read by the verifier only). */
export const DEFAULT_VAULT_SCHEMA = 'vault';

function assertSchemaName(schema: string): void {
  if (!/^[a-z][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`Invalid vault schema name: ${schema}`);
}

/**
 * Migrations of a vault in `schema` (`libs/vault/migrations/`, applied with the search path set to
 * `schema`). Separate schemas are separate vaults, each with its own master key ring, each
 * migrated by the app that owns it: the verifier's `vault` (provider API credentials),
 * ingestion's `webhook_vault` (webhook signing secrets) and the dispatcher's `endpoint_vault`
 * (endpoint signing secrets), so no app can decrypt another's. One row per credential in
 * `<schema>.credentials`, keyed by (provider, account, name), holding its latest version:
 * - `version`: credential version, 1 for the first put, +1 per put;
 * - `key_version`: master key version the data key is wrapped under (`v<N>`);
 * - `data_key_wrapped`, `data_key_iv`, `data_key_tag`: the data key wrapped by AES-256-GCM;
 * - `ciphertext`, `ciphertext_iv`, `ciphertext_tag`: the secret encrypted by AES-256-GCM;
 * - `created_at` (first put), `updated_at` (latest put), `wrapped_at` (latest put or rewrap).
 * Byte lengths and the version format are checked by the database too. Identifiers use
 * `COLLATE "C"` so ordering (and keyset pagination) is byte-wise, like the in-memory store's.
 * No master key is ever stored here (vault issue).
 */
export function vaultMigrations(schema: string = DEFAULT_VAULT_SCHEMA): SchemaMigrations {
  assertSchemaName(schema);
  return { schema, dir: fileURLToPath(new URL('../migrations', import.meta.url)) };
}

interface InfoRow {
  provider: string;
  account: string;
  name: string;
  version: number;
  key_version: string;
  created_at: Date;
  updated_at: Date;
  wrapped_at: Date;
}

interface CredentialRow extends InfoRow {
  data_key_wrapped: Buffer;
  data_key_iv: Buffer;
  data_key_tag: Buffer;
  ciphertext: Buffer;
  ciphertext_iv: Buffer;
  ciphertext_tag: Buffer;
}

const INFO_COLUMNS = 'provider, account, name, version, key_version, created_at, updated_at, wrapped_at';
const ALL_COLUMNS = `${INFO_COLUMNS}, data_key_wrapped, data_key_iv, data_key_tag, ciphertext, ciphertext_iv, ciphertext_tag`;

const toInfo = (r: InfoRow): CredentialInfo => ({
  provider: r.provider,
  account: r.account,
  name: r.name,
  version: r.version,
  keyVersion: r.key_version,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  wrappedAt: r.wrapped_at,
});

const toStored = (r: CredentialRow): StoredCredential => ({
  ...toInfo(r),
  wrappedKey: { iv: r.data_key_iv, ciphertext: r.data_key_wrapped, tag: r.data_key_tag },
  secret: { iv: r.ciphertext_iv, ciphertext: r.ciphertext, tag: r.ciphertext_tag },
});

/**
 * The vault's {@link VaultStore} on PostgreSQL (`vault.credentials`, see {@link vaultMigrations}).
 * Writes are single-statement compare-and-sets on the credential version (and, for rewrap, the
 * master key version), so concurrent writers never overwrite each other silently.
 */
export class PostgresVaultStore implements VaultStore {
  private readonly table: string;

  /**
   * @param pool - a pool on a database migrated with {@link vaultMigrations} for `schema`.
   * @param schema - the vault's schema, `vault` by default.
   */
  constructor(
    private readonly pool: Pool,
    schema: string = DEFAULT_VAULT_SCHEMA,
  ) {
    assertSchemaName(schema);
    this.table = `${schema}.credentials`;
  }

  async read(ref: CredentialRef): Promise<StoredCredential | undefined> {
    const { rows } = await this.pool.query<CredentialRow>(`SELECT ${ALL_COLUMNS} FROM ${this.table} WHERE provider = $1 AND account = $2 AND name = $3`, [
      ref.provider,
      ref.account,
      ref.name,
    ]);
    return rows[0] ? toStored(rows[0]) : undefined;
  }

  async write(ref: CredentialRef, version: number, envelope: CredentialEnvelope): Promise<boolean> {
    const values = [
      ref.provider,
      ref.account,
      ref.name,
      version,
      envelope.keyVersion,
      envelope.wrappedKey.ciphertext,
      envelope.wrappedKey.iv,
      envelope.wrappedKey.tag,
      envelope.secret.ciphertext,
      envelope.secret.iv,
      envelope.secret.tag,
    ];
    if (version === 1) {
      const inserted = await this.pool.query(
        `INSERT INTO ${this.table} (provider, account, name, version, key_version, data_key_wrapped, data_key_iv, data_key_tag,
                                        ciphertext, ciphertext_iv, ciphertext_tag)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (provider, account, name) DO NOTHING`,
        values,
      );
      return inserted.rowCount === 1;
    }
    const updated = await this.pool.query(
      `UPDATE ${this.table}
          SET version = $4, key_version = $5, data_key_wrapped = $6, data_key_iv = $7, data_key_tag = $8,
              ciphertext = $9, ciphertext_iv = $10, ciphertext_tag = $11, updated_at = now(), wrapped_at = now()
        WHERE provider = $1 AND account = $2 AND name = $3 AND version = $4 - 1`,
      values,
    );
    return updated.rowCount === 1;
  }

  async remove(ref: CredentialRef): Promise<boolean> {
    const deleted = await this.pool.query(`DELETE FROM ${this.table} WHERE provider = $1 AND account = $2 AND name = $3`, [
      ref.provider,
      ref.account,
      ref.name,
    ]);
    return deleted.rowCount === 1;
  }

  async list(filter: CredentialFilter = {}): Promise<CredentialInfo[]> {
    const { rows } = await this.pool.query<InfoRow>(
      `SELECT ${INFO_COLUMNS} FROM ${this.table}
        WHERE ($1::text IS NULL OR provider = $1) AND ($2::text IS NULL OR account = $2)
        ORDER BY provider, account, name`,
      [filter.provider ?? null, filter.account ?? null],
    );
    return rows.map(toInfo);
  }

  async findNotWrappedWith(keyVersion: string, after: CredentialRef | undefined, limit: number): Promise<StoredCredential[]> {
    const { rows } = await this.pool.query<CredentialRow>(
      `SELECT ${ALL_COLUMNS} FROM ${this.table}
        WHERE key_version <> $1
          AND ($2::text IS NULL OR (provider, account, name) > ($2 COLLATE "C", $3 COLLATE "C", $4 COLLATE "C"))
        ORDER BY provider, account, name
        LIMIT $5`,
      [keyVersion, after?.provider ?? null, after?.account ?? null, after?.name ?? null, limit],
    );
    return rows.map(toStored);
  }

  async replaceWrap(ref: CredentialRef, version: number, fromKeyVersion: string, wrap: WrappedKey): Promise<boolean> {
    const updated = await this.pool.query(
      `UPDATE ${this.table}
          SET key_version = $6, data_key_wrapped = $7, data_key_iv = $8, data_key_tag = $9, wrapped_at = now()
        WHERE provider = $1 AND account = $2 AND name = $3 AND version = $4 AND key_version = $5`,
      [ref.provider, ref.account, ref.name, version, fromKeyVersion, wrap.keyVersion, wrap.wrappedKey.ciphertext, wrap.wrappedKey.iv, wrap.wrappedKey.tag],
    );
    return updated.rowCount === 1;
  }

  async countByKeyVersion(): Promise<Map<string, number>> {
    const { rows } = await this.pool.query<{ key_version: string; n: number }>(
      `SELECT key_version, count(*)::int AS n FROM ${this.table} GROUP BY key_version`,
    );
    return new Map(rows.map((r) => [r.key_version, r.n]));
  }
}

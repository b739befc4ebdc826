import { fileURLToPath } from 'node:url';
import { inTransaction, type Pool, type PoolClient, type SchemaMigrations } from '@settle/platform';
import type { WrappedKey } from '../store.port.js';
import type { StoredSubjectKey, SubjectKeyLookup, SubjectKeyStore, SubjectKind } from './subject-key-store.port.js';

/**
 * Migrations of the subject keys in `schema` (`libs/vault/migrations-subject-keys/`, applied with
 * the search path set to `schema`): `subject_keys` (one row per subject with a key) and
 * `erased_subject_keys` (the tombstones of destroyed keys: id, kind, when; no subject).
 *
 * @throws Error for a schema name that is not a lower-case SQL identifier.
 */
export function subjectKeyMigrations(schema: string): SchemaMigrations {
  if (!/^[a-z][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`Invalid subject key schema name: ${schema}`);
  return { schema, dir: fileURLToPath(new URL('../../migrations-subject-keys', import.meta.url)) };
}

interface KeyRow {
  key_id: string;
  subject_ref: string;
  kind: SubjectKind;
  key_version: string;
  data_key_wrapped: Buffer;
  data_key_iv: Buffer;
  data_key_tag: Buffer;
  created_at: Date;
}

const COLUMNS = 'key_id, subject_ref, kind, key_version, data_key_wrapped, data_key_iv, data_key_tag, created_at';

const toKey = (r: KeyRow): StoredSubjectKey => ({
  keyId: r.key_id,
  subjectRef: r.subject_ref,
  kind: r.kind,
  keyVersion: r.key_version,
  wrappedKey: { iv: r.data_key_iv, ciphertext: r.data_key_wrapped, tag: r.data_key_tag },
  createdAt: r.created_at,
});

/** The {@link SubjectKeyStore} on PostgreSQL, in `<schema>.subject_keys` and `<schema>.erased_subject_keys`. */
export class PostgresSubjectKeyStore implements SubjectKeyStore {
  private readonly keys: string;
  private readonly tombstones: string;

  /** @throws Error for a schema name that is not a lower-case SQL identifier. */
  constructor(
    private readonly pool: Pool,
    schema: string,
  ) {
    subjectKeyMigrations(schema);
    this.keys = `${schema}.subject_keys`;
    this.tombstones = `${schema}.erased_subject_keys`;
  }

  async findBySubject(subjectRef: string): Promise<StoredSubjectKey | null> {
    const { rows } = await this.pool.query<KeyRow>(`SELECT ${COLUMNS} FROM ${this.keys} WHERE subject_ref = $1`, [subjectRef]);
    return rows[0] ? toKey(rows[0]) : null;
  }

  async lookup(keyId: string): Promise<SubjectKeyLookup> {
    if (!/^[0-9a-f-]{36}$/.test(keyId)) return { status: 'unknown' };
    const { rows } = await this.pool.query<KeyRow>(`SELECT ${COLUMNS} FROM ${this.keys} WHERE key_id = $1`, [keyId]);
    if (rows[0]) return { status: 'present', key: toKey(rows[0]) };
    const erased = await this.pool.query<{ erased_at: Date }>(`SELECT erased_at FROM ${this.tombstones} WHERE key_id = $1`, [keyId]);
    return erased.rows[0] ? { status: 'erased', erasedAt: erased.rows[0].erased_at } : { status: 'unknown' };
  }

  async insertIfAbsent(key: StoredSubjectKey): Promise<StoredSubjectKey> {
    await this.pool.query(`INSERT INTO ${this.keys} (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (subject_ref) DO NOTHING`, [
      key.keyId,
      key.subjectRef,
      key.kind,
      key.keyVersion,
      key.wrappedKey.ciphertext,
      key.wrappedKey.iv,
      key.wrappedKey.tag,
      key.createdAt,
    ]);
    const stored = await this.findBySubject(key.subjectRef);
    // Erased between the insert and the read: the caller asks again and makes a new key.
    if (!stored) throw new Error('the subject’s key was erased while it was being made');
    return stored;
  }

  async erase(subjectRef: string, at: Date): Promise<{ keyId: string; kind: SubjectKind } | null> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ key_id: string; kind: SubjectKind }>(`DELETE FROM ${this.keys} WHERE subject_ref = $1 RETURNING key_id, kind`, [
        subjectRef,
      ]);
      const erased = rows[0];
      if (!erased) return null;
      await client.query(`INSERT INTO ${this.tombstones} (key_id, kind, erased_at) VALUES ($1, $2, $3) ON CONFLICT (key_id) DO NOTHING`, [
        erased.key_id,
        erased.kind,
        at,
      ]);
      return { keyId: erased.key_id, kind: erased.kind };
    });
  }

  async eraseKeys(keyIds: readonly string[], at: Date, tx?: PoolClient): Promise<Array<{ keyId: string; kind: SubjectKind }>> {
    const ids = [...new Set(keyIds)].filter((id) => /^[0-9a-f-]{36}$/.test(id));
    if (ids.length === 0) return [];
    const work = async (client: PoolClient) => {
      const { rows } = await client.query<{ key_id: string; kind: SubjectKind }>(
        `WITH gone AS (DELETE FROM ${this.keys} WHERE key_id = ANY($1::uuid[]) RETURNING key_id, kind)
         INSERT INTO ${this.tombstones} (key_id, kind, erased_at) SELECT key_id, kind, $2 FROM gone
         ON CONFLICT (key_id) DO NOTHING RETURNING key_id, kind`,
        [ids, at],
      );
      return rows.map((r) => ({ keyId: r.key_id, kind: r.kind }));
    };
    return tx ? work(tx) : inTransaction(this.pool, work);
  }

  async findNotWrappedWith(keyVersion: string, afterKeyId: string | undefined, limit: number): Promise<StoredSubjectKey[]> {
    const { rows } = await this.pool.query<KeyRow>(
      `SELECT ${COLUMNS} FROM ${this.keys} WHERE key_version <> $1 AND ($2::uuid IS NULL OR key_id > $2::uuid) ORDER BY key_id LIMIT $3`,
      [keyVersion, afterKeyId ?? null, limit],
    );
    return rows.map(toKey);
  }

  async replaceWrap(keyId: string, fromKeyVersion: string, wrap: WrappedKey): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE ${this.keys} SET key_version = $3, data_key_wrapped = $4, data_key_iv = $5, data_key_tag = $6 WHERE key_id = $1 AND key_version = $2`,
      [keyId, fromKeyVersion, wrap.keyVersion, wrap.wrappedKey.ciphertext, wrap.wrappedKey.iv, wrap.wrappedKey.tag],
    );
    return rowCount === 1;
  }

  async countByKeyVersion(): Promise<Map<string, number>> {
    const { rows } = await this.pool.query<{ key_version: string; n: number }>(`SELECT key_version, count(*)::int AS n FROM ${this.keys} GROUP BY key_version`);
    return new Map(rows.map((r) => [r.key_version, r.n]));
  }
}

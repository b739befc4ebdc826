import type { Pool } from '@settle/platform';

/** What {@link countMissingSubjectKeys} found. */
export interface MissingSubjectKeys {
  /** Distinct key ids that sealed values in the read models name, neither stored nor erased: each subject's data reads `unavailable`. */
  missing: number;
  /** Sealed values checked. */
  sealedValues: number;
}

/**
 * Finds sealed values whose subject key is gone without an erasure (docs/privacy.md, "When a key
 * is missing"): a restore of the database that lost rows of `privacy_keys.subject_keys`, or a
 * key deleted by hand. Their data reads `unavailable` (never a crash); the console counts them
 * for the `SettlePrivacySubjectKeysMissing` alert. Reads the sealed values of
 * `read_model.unmatched_payments` (where the verifier's sealed values land) and the key tables;
 * decrypts nothing.
 *
 * @param keysSchema - the schema of the subjects' keys (`privacy_keys`).
 * @throws the database's errors (a schema missing: the privacy vault was never migrated).
 */
export async function countMissingSubjectKeys(pool: Pick<Pool, 'query'>, keysSchema = 'privacy_keys'): Promise<MissingSubjectKeys> {
  if (!/^[a-z][a-z0-9_]{0,62}$/.test(keysSchema)) throw new Error(`Invalid subject key schema name: ${keysSchema}`);
  const { rows } = await pool.query<{ missing: number; sealed: number }>(
    `WITH sealed AS (
       SELECT substring(v FROM '^sealed:v1:([0-9a-f-]{36}):') AS key_id
         FROM read_model.unmatched_payments, LATERAL (VALUES (customer_email), (customer_phone)) AS x(v)
        WHERE v LIKE 'sealed:v1:%')
     SELECT count(DISTINCT key_id) FILTER (
              WHERE NOT EXISTS (SELECT 1 FROM ${keysSchema}.subject_keys k WHERE k.key_id::text = sealed.key_id)
                AND NOT EXISTS (SELECT 1 FROM ${keysSchema}.erased_subject_keys e WHERE e.key_id::text = sealed.key_id))::int AS missing,
            count(*)::int AS sealed
       FROM sealed`,
  );
  return { missing: rows[0]?.missing ?? 0, sealedValues: rows[0]?.sealed ?? 0 };
}

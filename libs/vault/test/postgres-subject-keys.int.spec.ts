/** Subjects' keys on PostgreSQL: the contract of libs/vault/test/subject-keys.contract.ts, and the tables hold no subject. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPool, inTransaction, migrateSchema, type Pool } from '@settle/platform';
import { generateKey, MasterKeyRing, PostgresSubjectKeyStore, SubjectKeys, subjectKeyMigrations } from '@settle/vault';
import { createTestDatabase } from '@settle/testing';
import { subjectKeysContract } from './subject-keys.contract.js';

let pool: Pool;
let drop: () => Promise<void>;

beforeAll(async () => {
  const db = await createTestDatabase('settle_subject_keys');
  drop = db.drop;
  pool = createPool(db.url, 4);
  await migrateSchema(pool, subjectKeyMigrations('privacy'));
  expect(await migrateSchema(pool, subjectKeyMigrations('privacy'))).toEqual([]);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

subjectKeysContract('PostgreSQL', async () => {
  await pool.query('TRUNCATE privacy.subject_keys, privacy.erased_subject_keys');
  return new PostgresSubjectKeyStore(pool, 'privacy');
});

it('keeps no subject in its tables, before or after an erasure', async () => {
  const keys = new SubjectKeys(new PostgresSubjectKeyStore(pool, 'privacy'), MasterKeyRing.from([['v1', generateKey()]]), generateKey());
  const subject = { kind: 'customer' as const, id: 'henry.subject@example.com' };
  await keys.keyFor(subject);
  const dump = async () =>
    JSON.stringify((await pool.query('SELECT * FROM privacy.subject_keys')).rows) +
    JSON.stringify((await pool.query('SELECT * FROM privacy.erased_subject_keys')).rows);
  expect(await dump()).not.toContain('henry');
  await keys.erase(subject);
  expect(await dump()).not.toContain('henry');
  expect((await pool.query('SELECT count(*)::int AS n FROM privacy.subject_keys WHERE subject_ref = $1', [keys.subjectRef(subject)])).rows[0]).toEqual({
    n: 0,
  });
});

it('destroys keys by id in the caller’s transaction: nothing is destroyed when it rolls back', async () => {
  const keys = new SubjectKeys(new PostgresSubjectKeyStore(pool, 'privacy'), MasterKeyRing.from([['v1', generateKey()]]), generateKey());
  const subject = { kind: 'customer' as const, id: 'iris.subject@example.com' };
  const key = await keys.keyFor(subject);
  const sealed = key.seal('customer_email', subject.id);
  await expect(
    inTransaction(pool, async (client) => {
      expect(await keys.eraseKeys([key.keyId], client)).toEqual([{ keyId: key.keyId, kind: 'customer' }]);
      throw new Error('the erasure’s other changes failed');
    }),
  ).rejects.toThrow(/other changes failed/);
  expect(await keys.reveal('customer_email', sealed)).toEqual({ status: 'open', value: subject.id });
  await inTransaction(pool, (client) => keys.eraseKeys([key.keyId], client));
  expect(await keys.reveal('customer_email', sealed)).toMatchObject({ status: 'erased' });
});

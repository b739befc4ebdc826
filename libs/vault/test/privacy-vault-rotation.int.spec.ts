/**
 * Rotation of the privacy vault's master keys over PostgreSQL, as `scripts/ops/vault.js` runs it
 * with `SETTLE_VAULT_SCHEMA=privacy_vault` (docs/vault.md, "The privacy vault"): the index key
 * (a credential of `privacy_vault`) and the subjects' keys (rows of `privacy_keys`) are re-wrapped
 * under the new version, after which the old version can be retired and everything sealed before
 * opens with the new version alone; erased subjects stay erased.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import {
  CredentialsVault,
  generateKey,
  MasterKeyRing,
  openSubjectKeys,
  PostgresVaultStore,
  PRIVACY_KEYS_SCHEMA,
  PRIVACY_VAULT_SCHEMA,
  privacyVaultMigrations,
} from '@settle/vault';
import { createTestDatabase } from '@settle/testing';

let pool: Pool;
let drop: () => Promise<void>;

beforeAll(async () => {
  const db = await createTestDatabase('settle_privacy_rotation');
  drop = db.drop;
  pool = createPool(db.url, 4);
  for (const migrations of privacyVaultMigrations()) await migrateSchema(pool, migrations);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

it('rotates the privacy vault: rewrap moves the index key and every subject’s key to the new version, then the old one retires', async () => {
  const [k1, k2] = [generateKey(), generateKey()];
  const v1 = MasterKeyRing.from([['v1', k1]]);
  const rotating = MasterKeyRing.from([
    ['v1', k1],
    ['v2', k2],
  ]);
  const v2 = MasterKeyRing.from([['v2', k2]]);

  const before = await openSubjectKeys(pool, v1);
  const subjects = Array.from({ length: 7 }, (_, i) => ({ kind: 'customer' as const, id: `rotation-${i}@example.com` }));
  const made = await Promise.all(subjects.map((s) => before.keyFor(s)));
  const sealed = made.map((key, i) => key.seal('customer_email', subjects[i]!.id));
  const gone = await before.keyFor({ kind: 'user', id: 'user-erased' });
  const goneSealed = gone.seal('customer_email', 'erased@example.com');
  await before.erase({ kind: 'user', id: 'user-erased' });

  // The command line's order: the subjects' keys opened (the index key read), the credentials re-wrapped, then the keys.
  const vault = new CredentialsVault(new PostgresVaultStore(pool, PRIVACY_VAULT_SCHEMA), rotating);
  const keys = await openSubjectKeys(pool, rotating);
  expect(await keys.keyVersionsInUse()).toEqual({ v1: 7 });
  await expect(keys.assertRetirable('v1')).rejects.toMatchObject({ code: 'VAULT.KEY_VERSION_IN_USE' });
  expect(await vault.rewrap()).toMatchObject({ activeKeyVersion: 'v2', rewrapped: 1, failed: [] });
  expect(await keys.rewrap({ batchSize: 3 })).toEqual({ activeKeyVersion: 'v2', alreadyActive: 0, rewrapped: 7, skipped: 0, failed: [] });
  expect(await vault.assertRetirable('v1')).toMatchObject({ keyVersion: 'v1', inUse: { v2: 1 } });
  expect(await keys.assertRetirable('v1')).toEqual({ keyVersion: 'v1', inUse: { v2: 7 } });
  const { rows } = await pool.query<{ key_version: string; n: number }>(
    `SELECT key_version, count(*)::int AS n FROM ${PRIVACY_KEYS_SCHEMA}.subject_keys GROUP BY key_version`,
  );
  expect(rows).toEqual([{ key_version: 'v2', n: 7 }]);

  // v1 retired: the vault opens with v2 alone, finds every subject's key by the same index key.
  const after = await openSubjectKeys(pool, v2);
  for (const [i, s] of subjects.entries()) {
    expect(await after.reveal('customer_email', sealed[i]!)).toEqual({ status: 'open', value: s.id });
    expect((await after.keyFor(s)).keyId).toBe(made[i]!.keyId);
  }
  expect(await after.reveal('customer_email', goneSealed)).toMatchObject({ status: 'erased' });
  await expect(openSubjectKeys(pool, v1)).rejects.toMatchObject({ code: 'VAULT.UNKNOWN_KEY_VERSION' });
});

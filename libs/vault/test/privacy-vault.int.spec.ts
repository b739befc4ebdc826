/**
 * Opening the privacy vault over PostgreSQL (docs/privacy.md, "Crypto-shredding"): the apps make
 * the index key on first use; a tool that must never make it (the vault CLI's rotation commands,
 * docs/vault.md, "The privacy vault") opens with `createIndexKey: false` and is told there is none.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { createTestDatabase } from '@settle/testing';
import {
  CredentialsVault,
  generateKey,
  MasterKeyRing,
  openSubjectKeys,
  PostgresVaultStore,
  PRIVACY_VAULT_SCHEMA,
  privacyVaultMigrations,
  SUBJECT_INDEX_KEY_CREDENTIAL,
} from '@settle/vault';

let pool: Pool;
let drop: () => Promise<void>;

beforeAll(async () => {
  const db = await createTestDatabase('settle_privacy_vault_open');
  drop = db.drop;
  pool = createPool(db.url, 4);
  for (const migrations of privacyVaultMigrations()) await migrateSchema(pool, migrations);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

it('with createIndexKey: false, a fresh vault answers VAULT.NOT_FOUND and stores no index key under the ring given; once an app made it, it opens the same keys', async () => {
  const wrongRing = MasterKeyRing.from([['v1', generateKey()]]);
  const appsRing = MasterKeyRing.from([['v1', generateKey()]]);
  const credentials = (ring: MasterKeyRing) => new CredentialsVault(new PostgresVaultStore(pool, PRIVACY_VAULT_SCHEMA), ring);

  await expect(openSubjectKeys(pool, wrongRing, { createIndexKey: false })).rejects.toMatchObject({ code: 'VAULT.NOT_FOUND' });
  expect(await credentials(wrongRing).list()).toEqual([]);

  // The app makes it under its own ring, and finds a subject's key by it.
  const app = await openSubjectKeys(pool, appsRing);
  const made = await app.keyFor({ kind: 'customer', id: 'carol@example.com' });
  expect((await credentials(appsRing).list()).map((c) => [c.provider, c.account, c.name])).toEqual([
    [SUBJECT_INDEX_KEY_CREDENTIAL.provider, SUBJECT_INDEX_KEY_CREDENTIAL.account, SUBJECT_INDEX_KEY_CREDENTIAL.name],
  ]);
  const reader = await openSubjectKeys(pool, appsRing, { createIndexKey: false });
  expect(await reader.keyIdOf({ kind: 'customer', id: 'carol@example.com' })).toBe(made.keyId);
  expect(await reader.keyVersionsInUse()).toEqual({ v1: 1 });
});

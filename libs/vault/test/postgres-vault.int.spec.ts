import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspect } from 'node:util';
import { Secret } from '@settle/config';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { CredentialsVault, generateKey, MasterKeyRing, PostgresVaultStore, vaultMigrations, type CredentialRef, type VaultError } from '@settle/vault';
import { createTestDatabase } from '@settle/testing';
import { errorText, memoryLogger, randomSecret, uniqueRef, vaultContract, vaultErrorOf } from './vault.contract.js';

let pool: Pool;
let drop: () => Promise<void>;

beforeAll(async () => {
  const db = await createTestDatabase('settle_vault');
  drop = db.drop;
  pool = createPool(db.url, 4);
  await migrateSchema(pool, vaultMigrations());
  expect(await migrateSchema(pool, vaultMigrations())).toEqual([]); // nothing left to apply
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

const emptyStore = async () => {
  await pool.query('TRUNCATE vault.credentials');
  return new PostgresVaultStore(pool);
};

vaultContract('PostgreSQL', emptyStore);

interface RawRow {
  provider: string;
  account: string;
  name: string;
  version: number;
  key_version: string;
  data_key_wrapped: Buffer;
  data_key_iv: Buffer;
  data_key_tag: Buffer;
  ciphertext: Buffer;
  ciphertext_iv: Buffer;
  ciphertext_tag: Buffer;
}

const raw = async (ref: CredentialRef): Promise<RawRow> => {
  const { rows } = await pool.query<RawRow>('SELECT * FROM vault.credentials WHERE provider = $1 AND account = $2 AND name = $3', [
    ref.provider,
    ref.account,
    ref.name,
  ]);
  expect(rows).toHaveLength(1);
  return rows[0]!;
};

const where = 'provider = $1 AND account = $2 AND name = $3';
const args = (ref: CredentialRef) => [ref.provider, ref.account, ref.name];

describe('PostgreSQL vault at rest', () => {
  const keys = () =>
    MasterKeyRing.from(
      [
        ['v1', generateKey()],
        ['v2', generateKey()],
      ],
      { active: 'v1' },
    );

  it('stores only ciphertext: no column holds the secret, and the envelope has the documented shape', async () => {
    const vault = new CredentialsVault(await emptyStore(), keys());
    const ref = uniqueRef();
    const secret = randomSecret();
    await vault.put(ref, new Secret(secret));
    const row = await raw(ref);
    expect(row).toMatchObject({ ...ref, version: 1, key_version: 'v1' });
    expect([row.data_key_wrapped.length, row.data_key_iv.length, row.data_key_tag.length]).toEqual([32, 12, 16]);
    expect([row.ciphertext_iv.length, row.ciphertext_tag.length]).toEqual([12, 16]);
    const { rows } = await pool.query<{ dump: string }>('SELECT row_to_json(c)::text AS dump FROM vault.credentials c');
    const dump = rows.map((r) => r.dump).join('\n');
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain(Buffer.from(secret).toString('hex'));
    expect(row.ciphertext.includes(Buffer.from(secret))).toBe(false);
  });

  it('fails to decrypt a row moved to another provider, account or name (VAULT.INTEGRITY_CHECK_FAILED)', async () => {
    const vault = new CredentialsVault(await emptyStore(), keys());
    for (const column of ['provider', 'account', 'name'] as const) {
      const ref = uniqueRef();
      const secret = randomSecret();
      await vault.put(ref, new Secret(secret));
      const moved = { ...ref, [column]: `${ref[column]}_moved` };
      await pool.query(`UPDATE vault.credentials SET ${column} = $4 WHERE ${where}`, [...args(ref), moved[column]]);
      const error = await vaultErrorOf(vault.get(moved));
      expect(error.code).toBe('VAULT.INTEGRITY_CHECK_FAILED');
      expect(errorText(error)).not.toContain(secret);
      expect((await vaultErrorOf(vault.get(ref))).code).toBe('VAULT.NOT_FOUND');
    }
  });

  it('fails to decrypt a row whose key_version or version was relabelled', async () => {
    const vault = new CredentialsVault(await emptyStore(), keys());
    const relabels: Array<[string, unknown, VaultError['code']]> = [
      ['key_version', 'v2', 'VAULT.INTEGRITY_CHECK_FAILED'], // a version the ring holds
      ['key_version', 'v9', 'VAULT.UNKNOWN_KEY_VERSION'], // a version it does not
      ['version', 2, 'VAULT.INTEGRITY_CHECK_FAILED'],
    ];
    for (const [column, value, code] of relabels) {
      const ref = uniqueRef();
      const secret = randomSecret();
      await vault.put(ref, new Secret(secret));
      await pool.query(`UPDATE vault.credentials SET ${column} = $4 WHERE ${where}`, [...args(ref), value]);
      const error = await vaultErrorOf(vault.get(ref));
      expect(error.code).toBe(code);
      expect(errorText(error)).not.toContain(secret);
    }
  });

  it('fails to decrypt after a flipped byte in the ciphertext, its tag, or the wrapped key, or a swapped envelope', async () => {
    const vault = new CredentialsVault(await emptyStore(), keys());
    for (const column of ['ciphertext', 'ciphertext_tag', 'ciphertext_iv', 'data_key_wrapped', 'data_key_tag']) {
      const ref = uniqueRef();
      await vault.put(ref, new Secret(randomSecret()));
      await pool.query(`UPDATE vault.credentials SET ${column} = set_byte(${column}, 0, get_byte(${column}, 0) # 1) WHERE ${where}`, args(ref));
      expect((await vaultErrorOf(vault.get(ref))).code).toBe('VAULT.INTEGRITY_CHECK_FAILED');
    }
    // Copy a whole envelope (wrapped key and ciphertext) from one merchant's row onto another's.
    const [victim, attacker] = [uniqueRef(), uniqueRef()];
    await vault.put(victim, new Secret(randomSecret()));
    await vault.put(attacker, new Secret(randomSecret()));
    await pool.query(
      `UPDATE vault.credentials AS t
          SET data_key_wrapped = s.data_key_wrapped, data_key_iv = s.data_key_iv, data_key_tag = s.data_key_tag,
              ciphertext = s.ciphertext, ciphertext_iv = s.ciphertext_iv, ciphertext_tag = s.ciphertext_tag
         FROM vault.credentials AS s
        WHERE t.account = $1 AND s.account = $2`,
      [attacker.account, victim.account],
    );
    expect((await vaultErrorOf(vault.get(attacker))).code).toBe('VAULT.INTEGRITY_CHECK_FAILED');
  });

  it('rewrap replaces only the wrapped data key; the secret ciphertext stays byte for byte', async () => {
    const store = await emptyStore();
    const [k1, k2] = [generateKey(), generateKey()];
    const ref = uniqueRef();
    const secret = randomSecret();
    await new CredentialsVault(store, MasterKeyRing.from([['v1', k1]])).put(ref, new Secret(secret));
    const before = await raw(ref);
    const vault = new CredentialsVault(
      store,
      MasterKeyRing.from([
        ['v1', k1],
        ['v2', k2],
      ]),
    );
    expect((await vault.rewrap()).rewrapped).toBe(1);
    const after = await raw(ref);
    expect(after.key_version).toBe('v2');
    expect(after.version).toBe(before.version);
    expect([after.ciphertext, after.ciphertext_iv, after.ciphertext_tag]).toEqual([before.ciphertext, before.ciphertext_iv, before.ciphertext_tag]);
    expect(after.data_key_wrapped.equals(before.data_key_wrapped)).toBe(false);
    expect(after.data_key_iv.equals(before.data_key_iv)).toBe(false);
    expect((await new CredentialsVault(store, MasterKeyRing.from([['v2', k2]])).get(ref)).reveal()).toBe(secret);
  });

  it('keeps every secret out of list output, error messages and logs', async () => {
    const logger = memoryLogger();
    const store = await emptyStore();
    const ring = keys();
    const vault = new CredentialsVault(store, ring, { logger });
    const refs = [uniqueRef(), uniqueRef('webhook_secret')];
    const secrets = refs.map(() => randomSecret());
    for (const [i, ref] of refs.entries()) await vault.put(ref, new Secret(secrets[i]!));
    const listed = await vault.list();
    const errors: Error[] = [];
    await pool.query(`UPDATE vault.credentials SET account = account || '_x' WHERE ${where}`, args(refs[0]!));
    errors.push(await vaultErrorOf(vault.get({ ...refs[0]!, account: `${refs[0]!.account}_x` })));
    errors.push(await vaultErrorOf(new CredentialsVault(store, keys()).get(refs[1]!)));
    await pool.query(`UPDATE vault.credentials SET key_version = 'v7' WHERE ${where}`, args(refs[1]!));
    errors.push(await vaultErrorOf(vault.get(refs[1]!)));
    errors.push(...(await vault.rewrap()).failed.map((f) => new Error(JSON.stringify(f))));
    const shown = [
      JSON.stringify(listed),
      inspect(listed, { depth: 10 }),
      ...errors.map(errorText),
      logger.lines.join('\n'),
      String(ring),
      inspect(vault),
    ].join('\n');
    expect(errors).toHaveLength(4); // three from get, one from rewrap (the v7 row)
    for (const s of secrets) {
      expect(shown).not.toContain(s);
      expect(shown).not.toContain(Buffer.from(s).toString('base64'));
    }
  });

  it('refuses malformed envelopes in the database itself', async () => {
    const vault = new CredentialsVault(await emptyStore(), keys());
    const ref = uniqueRef();
    await vault.put(ref, new Secret(randomSecret()));
    await expect(pool.query(`UPDATE vault.credentials SET ciphertext_iv = '\\x00' WHERE ${where}`, args(ref))).rejects.toThrow(/check constraint/);
    await expect(pool.query(`UPDATE vault.credentials SET key_version = 'latest' WHERE ${where}`, args(ref))).rejects.toThrow(/check constraint/);
  });
});

import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { generateKey, loadMasterKeyRing, MasterKeyRing, VaultError, type CredentialVersionRef } from '@settle/vault';

const b64 = () => randomBytes(32).toString('base64');
const ref: CredentialVersionRef = { provider: 'paystack', account: 'acct_1', name: 'secret_key', version: 1 };
function vaultErrorOf(work: () => unknown): VaultError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(VaultError);
    return error as VaultError;
  }
  throw new Error('expected a VaultError');
}

describe('MasterKeyRing', () => {
  it('makes the highest version active by default (numerically)', () => {
    const ring = MasterKeyRing.from([
      ['v9', generateKey()],
      ['v10', generateKey()],
      ['v2', generateKey()],
    ]);
    expect(ring.activeVersion).toBe('v10');
    expect(ring.versions).toEqual(['v2', 'v9', 'v10']);
  });

  it('wraps under the active version and unwraps under any version it holds', () => {
    const old = MasterKeyRing.from([['v1', generateKey()]]);
    const dataKey = generateKey();
    const { keyVersion, wrapped } = old.wrap(dataKey, ref);
    expect(keyVersion).toBe('v1');
    expect(old.unwrap('v1', wrapped, ref).equals(dataKey)).toBe(true);
    const error = vaultErrorOf(() => old.unwrap('v2', wrapped, ref));
    expect(error.code).toBe('VAULT.UNKNOWN_KEY_VERSION');
    expect(error.details).toEqual({ keyVersion: 'v2' });
  });

  it('refuses an empty ring, repeated versions, repeated key material, wrong lengths and an unknown active version', () => {
    const key = generateKey();
    expect(vaultErrorOf(() => MasterKeyRing.from([])).code).toBe('VAULT.INVALID_CONFIG');
    expect(
      vaultErrorOf(() =>
        MasterKeyRing.from([
          ['v1', generateKey()],
          ['v1', generateKey()],
        ]),
      ).message,
    ).toContain('more than once');
    expect(
      vaultErrorOf(() =>
        MasterKeyRing.from([
          ['v1', key],
          ['v2', Buffer.from(key)],
        ]),
      ).message,
    ).toContain('same key');
    expect(vaultErrorOf(() => MasterKeyRing.from([['v1', randomBytes(31)]])).code).toBe('VAULT.INVALID_CONFIG');
    expect(vaultErrorOf(() => MasterKeyRing.from([['v1', generateKey()]], { active: 'v3' })).code).toBe('VAULT.INVALID_CONFIG');
  });

  it('prints only its versions, never key material', () => {
    const keys = [generateKey(), generateKey()];
    const ring = MasterKeyRing.from([
      ['v1', keys[0]!],
      ['v2', keys[1]!],
    ]);
    const printed = [String(ring), JSON.stringify(ring), inspect(ring), inspect({ ring }, { depth: 5, showHidden: true })].join('\n');
    expect(String(ring)).toBe('MasterKeyRing(v1, v2*)');
    for (const k of keys) {
      expect(printed).not.toContain(k.toString('base64'));
      expect(printed).not.toContain(k.toString('hex'));
    }
  });

  it('copies key bytes, so callers zeroing their buffers do not break it', () => {
    const key = generateKey();
    const ring = MasterKeyRing.from([['v1', key]]);
    const { wrapped } = ring.wrap(generateKey(), ref);
    key.fill(0);
    expect(ring.unwrap('v1', wrapped, ref)).toHaveLength(32);
  });
});

describe('loadMasterKeyRing from the environment', () => {
  it('loads SETTLE_VAULT_MASTER_KEYS, with SETTLE_VAULT_ACTIVE_KEY choosing the active version', () => {
    const env = { SETTLE_VAULT_MASTER_KEYS: `v1:${b64()},v2:${b64()}` };
    expect(loadMasterKeyRing(env).activeVersion).toBe('v2');
    expect(loadMasterKeyRing({ ...env, SETTLE_VAULT_ACTIVE_KEY: 'v1' }).activeVersion).toBe('v1');
  });

  it('names the variable at fault', () => {
    const keys = `v1:${b64()}`;
    const cases: Array<[Record<string, string>, string]> = [
      [{}, 'SETTLE_VAULT_MASTER_KEYS'],
      [{ SETTLE_VAULT_MASTER_KEYS: '  ' }, 'SETTLE_VAULT_MASTER_KEYS'],
      [{ SETTLE_VAULT_MASTER_KEYS: keys, SETTLE_VAULT_MASTER_KEY_FILE: '/nowhere' }, 'SETTLE_VAULT_MASTER_KEYS'],
      [{ SETTLE_VAULT_MASTER_KEYS: keys, SETTLE_VAULT_ACTIVE_KEY: 'v7' }, 'SETTLE_VAULT_ACTIVE_KEY'],
      [{ SETTLE_VAULT_MASTER_KEYS: keys, SETTLE_VAULT_ACTIVE_KEY: 'latest' }, 'SETTLE_VAULT_ACTIVE_KEY'],
    ];
    for (const [env, variable] of cases) {
      const error = vaultErrorOf(() => loadMasterKeyRing(env));
      expect(error.code).toBe('VAULT.INVALID_CONFIG');
      expect(error.message.startsWith(`${variable}: `)).toBe(true);
      expect(error.message).not.toContain(keys.slice(3));
    }
  });
});

import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  compareKeyVersions,
  generateKey,
  loadMasterKeyRing,
  MasterKeyRing,
  nextKeyVersion,
  parseKeyFile,
  parseMasterKeys,
  VaultError,
  type CredentialVersionRef,
} from '@settle/vault';

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

describe('key version names', () => {
  it('orders by number, not as text, and finds the next one', () => {
    expect(['v10', 'v2', 'v9', 'v1'].sort(compareKeyVersions)).toEqual(['v1', 'v2', 'v9', 'v10']);
    expect(nextKeyVersion(['v1', 'v10', 'v9'])).toBe('v11');
    expect(nextKeyVersion([])).toBe('v1');
  });
});

describe('SETTLE_VAULT_MASTER_KEYS parsing', () => {
  it('parses "v1:<base64>,v2:<base64>" with white space and a trailing comma', () => {
    const [k1, k2] = [b64(), b64()];
    const entries = parseMasterKeys(` v1:${k1} , v2 : ${k2},`);
    expect(entries.map(([v, k]) => [v, k.toString('base64')])).toEqual([
      ['v1', k1],
      ['v2', k2],
    ]);
  });

  it('names the variable and the entry, never the value, for each kind of mistake', () => {
    const secretish = b64();
    const short = randomBytes(16).toString('base64');
    const cases = [
      secretish, // no version
      `v1:${short}`, // 16 bytes
      `v1:${secretish.slice(0, -1)}`, // not canonical base64
      `v1:${secretish.replace(/=$/, '!')}`,
      `key1:${secretish}`, // bad version name
      `v0:${secretish}`,
      `v1:${secretish},,v2:${b64()}`, // empty entry in the middle
    ];
    for (const value of cases) {
      const error = vaultErrorOf(() => parseMasterKeys(value));
      expect(error.code).toBe('VAULT.INVALID_CONFIG');
      expect(error.message).toMatch(/^SETTLE_VAULT_MASTER_KEYS: /);
      for (const part of [secretish, short, secretish.slice(0, 20)]) expect(error.message).not.toContain(part);
      expect(JSON.stringify(error)).not.toContain(secretish.slice(0, 20));
    }
  });
});

describe('key file parsing', () => {
  it('reads the JSON format with an active version', () => {
    const [k1, k2] = [b64(), b64()];
    const parsed = parseKeyFile(JSON.stringify({ keys: { v1: k1, v2: k2 }, active: 'v1' }), 'file');
    expect(parsed.format).toBe('json');
    expect(parsed.active).toBe('v1');
    expect(parsed.keys.map(([v, k]) => [v, k.toString('base64')])).toEqual([
      ['v1', k1],
      ['v2', k2],
    ]);
  });

  it('reads the lines format with comments, blank lines and active=', () => {
    const [k1, k2] = [b64(), b64()];
    const parsed = parseKeyFile(`# settle vault\n\nv1:${k1}\r\nv2:${k2}\nactive = v2\n`, 'file');
    expect(parsed.format).toBe('lines');
    expect(parsed.active).toBe('v2');
    expect(parsed.keys.map(([v]) => v)).toEqual(['v1', 'v2']);
  });

  it('reports the line, not the value, of a bad line', () => {
    const secretish = b64();
    const error = vaultErrorOf(() => parseKeyFile(`v1:${b64()}\n${secretish}\n`, 'SETTLE_VAULT_MASTER_KEY_FILE (/etc/k)'));
    expect(error.code).toBe('VAULT.INVALID_CONFIG');
    expect(error.message).toContain('line 2');
    expect(error.message).toContain('SETTLE_VAULT_MASTER_KEY_FILE (/etc/k)');
    expect(error.message).not.toContain(secretish);
    expect(vaultErrorOf(() => parseKeyFile('{ not json', 'file')).code).toBe('VAULT.INVALID_CONFIG');
    expect(vaultErrorOf(() => parseKeyFile(JSON.stringify({ keys: { v1: 42 } }), 'file')).code).toBe('VAULT.INVALID_CONFIG');
  });
});

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

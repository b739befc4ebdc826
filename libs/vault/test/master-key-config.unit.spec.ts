import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseKeyFile, parseMasterKeys, VaultError } from '@settle/vault';

const b64 = () => randomBytes(32).toString('base64');
function vaultErrorOf(work: () => unknown): VaultError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(VaultError);
    return error as VaultError;
  }
  throw new Error('expected a VaultError');
}

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

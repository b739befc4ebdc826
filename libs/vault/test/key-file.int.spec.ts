import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateKey, loadMasterKeyRing, readKeyFile, removeKeyFromFile, rotateKeyFile, VaultError, type CredentialVersionRef } from '@settle/vault';

const dir = mkdtempSync(join(tmpdir(), 'settle-vault-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
const path = () => join(dir, `keys-${(n += 1)}`);
const mode = (p: string) => statSync(p).mode & 0o777;
const ref: CredentialVersionRef = { provider: 'paystack', account: 'acct_1', name: 'secret_key', version: 1 };
const b64 = () => randomBytes(32).toString('base64');
const fromFile = (p: string, extra: Record<string, string> = {}) => loadMasterKeyRing({ SETTLE_VAULT_MASTER_KEY_FILE: p, ...extra });

function vaultErrorOf(work: () => unknown): VaultError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(VaultError);
    return error as VaultError;
  }
  throw new Error('expected a VaultError');
}

describe('key file: load', () => {
  it('loads a 0600 key file; SETTLE_VAULT_ACTIVE_KEY overrides the file, the file overrides "highest"', () => {
    const p = path();
    writeFileSync(p, JSON.stringify({ keys: { v1: b64(), v2: b64() }, active: 'v1' }), { mode: 0o600 });
    expect(fromFile(p).activeVersion).toBe('v1');
    expect(fromFile(p, { SETTLE_VAULT_ACTIVE_KEY: 'v2' }).activeVersion).toBe('v2');
    const lines = path();
    writeFileSync(lines, `v1:${b64()}\nv2:${b64()}\n`, { mode: 0o600 });
    expect(fromFile(lines).activeVersion).toBe('v2');
  });

  it('refuses a key file group or others can access, naming the variable and path, not the keys', () => {
    const p = path();
    const key = b64();
    writeFileSync(p, `v1:${key}\n`, { mode: 0o600 });
    chmodSync(p, 0o644);
    const error = vaultErrorOf(() => fromFile(p));
    expect(error.code).toBe('VAULT.KEY_FILE_PERMISSIONS');
    expect(error.message).toContain('SETTLE_VAULT_MASTER_KEY_FILE');
    expect(error.message).toContain(p);
    expect(error.message).toContain('0644');
    expect(error.message).not.toContain(key);
    chmodSync(p, 0o640);
    expect(vaultErrorOf(() => fromFile(p)).code).toBe('VAULT.KEY_FILE_PERMISSIONS');
    chmodSync(p, 0o400);
    expect(fromFile(p).versions).toEqual(['v1']);
  });

  it('refuses a missing file or a directory with VAULT.INVALID_CONFIG naming the variable', () => {
    const missing = path();
    expect(vaultErrorOf(() => fromFile(missing)).message).toMatch(/^SETTLE_VAULT_MASTER_KEY_FILE \(/);
    const folder = path();
    mkdirSync(folder, { mode: 0o700 });
    expect(vaultErrorOf(() => fromFile(folder)).code).toBe('VAULT.INVALID_CONFIG');
  });
});

describe('key file: rotate', () => {
  it('creates a missing file with mode 0600 and v1, then adds v2 as active, keeping v1', () => {
    const p = path();
    expect(rotateKeyFile(p)).toEqual({ version: 'v1' });
    expect(mode(p)).toBe(0o600);
    const first = fromFile(p);
    expect(first.activeVersion).toBe('v1');
    const dataKey = generateKey();
    const { wrapped } = first.wrap(dataKey, ref);

    expect(rotateKeyFile(p)).toEqual({ version: 'v2' });
    expect(mode(p)).toBe(0o600);
    const second = fromFile(p);
    expect(second.versions).toEqual(['v1', 'v2']);
    expect(second.activeVersion).toBe('v2');
    expect(second.unwrap('v1', wrapped, ref).equals(dataKey)).toBe(true);
    expect(readKeyFile(p).format).toBe('json');
    expect(readdirSync(dir).filter((f) => f.includes('.tmp') || f.endsWith('.lock'))).toEqual([]);
  });

  it('appends to a lines file, keeps its comments, and makes the new version active over an old active=', () => {
    const p = path();
    const [k1, k2] = [b64(), b64()];
    writeFileSync(p, `# payments vault\nv1:${k1}\nv2:${k2}\nactive=v1\n`, { mode: 0o600 });
    expect(rotateKeyFile(p).version).toBe('v3');
    const text = readFileSync(p, 'utf8');
    expect(text.startsWith(`# payments vault\nv1:${k1}\nv2:${k2}\nv3:`)).toBe(true);
    expect(text.endsWith('\nactive=v3\n')).toBe(true);
    expect(fromFile(p).activeVersion).toBe('v3');
  });

  it('refuses to rotate an unsafe file or a locked one', () => {
    const unsafe = path();
    writeFileSync(unsafe, `v1:${b64()}\n`, { mode: 0o600 });
    chmodSync(unsafe, 0o644);
    expect(vaultErrorOf(() => rotateKeyFile(unsafe)).code).toBe('VAULT.KEY_FILE_PERMISSIONS');
    const locked = path();
    rotateKeyFile(locked);
    writeFileSync(`${locked}.lock`, '', { mode: 0o600 });
    expect(vaultErrorOf(() => rotateKeyFile(locked)).code).toBe('VAULT.KEY_FILE_LOCKED');
    rmSync(`${locked}.lock`);
    expect(rotateKeyFile(locked).version).toBe('v2');
  });
});

describe('key file: remove a retired version', () => {
  it('removes an old version but never the active one or an absent one', () => {
    const p = path();
    rotateKeyFile(p);
    rotateKeyFile(p);
    expect(vaultErrorOf(() => removeKeyFromFile(p, 'v2')).code).toBe('VAULT.KEY_VERSION_ACTIVE');
    expect(vaultErrorOf(() => removeKeyFromFile(p, 'v5')).code).toBe('VAULT.INVALID_ARGUMENT');
    removeKeyFromFile(p, 'v1');
    expect(mode(p)).toBe(0o600);
    expect(fromFile(p).versions).toEqual(['v2']);
    expect(vaultErrorOf(() => removeKeyFromFile(p, 'v2')).code).toBe('VAULT.KEY_VERSION_ACTIVE');
  });

  it('keeps the lines format and an implicit active version when removing', () => {
    const p = path();
    writeFileSync(p, `# keys\nv1:${b64()}\nv2:${b64()}\nv3:${b64()}\n`, { mode: 0o600 });
    expect(vaultErrorOf(() => removeKeyFromFile(p, 'v3')).code).toBe('VAULT.KEY_VERSION_ACTIVE');
    removeKeyFromFile(p, 'v1');
    expect(readFileSync(p, 'utf8')).toMatch(/^# keys\nv2:[^\n]+\nv3:[^\n]+\nactive=v3\n$/);
    expect(fromFile(p).activeVersion).toBe('v3');
  });
});

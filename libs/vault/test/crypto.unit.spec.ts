import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  dataKeyAad,
  decryptSecret,
  encryptSecret,
  generateKey,
  IV_BYTES,
  KEY_BYTES,
  open,
  seal,
  secretAad,
  TAG_BYTES,
  unwrapDataKey,
  VaultError,
  wrapDataKey,
  type CredentialVersionRef,
  type SealedBox,
} from '@settle/vault';

const ref: CredentialVersionRef = { provider: 'paystack', account: 'acct_main', name: 'secret_key', version: 3 };
const randomSecret = () => Buffer.from(`sk_test_${randomBytes(24).toString('hex')}`, 'utf8');

/** Runs `work` and returns the VaultError it throws (fails the test when it does not throw one). */
function vaultErrorOf(work: () => unknown): VaultError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(VaultError);
    return error as VaultError;
  }
  throw new Error('expected a VaultError');
}

const flip = (buffer: Buffer, index = 0): Buffer => {
  const copy = Buffer.from(buffer);
  copy[index] = copy[index]! ^ 0x01;
  return copy;
};

describe('AES-256-GCM seal/open', () => {
  it('round-trips with 32-byte keys, 12-byte random IVs and 16-byte tags', () => {
    const key = generateKey();
    const plaintext = randomSecret();
    const aad = Buffer.from('context');
    const box = seal(key, plaintext, aad);
    expect(key).toHaveLength(KEY_BYTES);
    expect(box.iv).toHaveLength(IV_BYTES);
    expect(box.tag).toHaveLength(TAG_BYTES);
    expect(box.ciphertext).toHaveLength(plaintext.length);
    expect(box.ciphertext.equals(plaintext)).toBe(false);
    expect(open(key, box, aad).equals(plaintext)).toBe(true);
  });

  it('draws a fresh IV for every encryption of the same plaintext', () => {
    const key = generateKey();
    const plaintext = randomSecret();
    const ivs = new Set(Array.from({ length: 50 }, () => seal(key, plaintext, Buffer.alloc(0)).iv.toString('hex')));
    expect(ivs.size).toBe(50);
  });

  it('round-trips any plaintext and AAD (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), fc.uint8Array({ maxLength: 128 }), (plain, extra) => {
        const key = generateKey();
        const box = seal(key, Buffer.from(plain), Buffer.from(extra));
        expect(open(key, box, Buffer.from(extra)).equals(Buffer.from(plain))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('refuses keys, IVs and tags of the wrong length with VAULT.MALFORMED_ENVELOPE', () => {
    const key = generateKey();
    const box = seal(key, randomSecret(), Buffer.alloc(0));
    expect(vaultErrorOf(() => seal(randomBytes(16), randomSecret(), Buffer.alloc(0))).code).toBe('VAULT.MALFORMED_ENVELOPE');
    expect(vaultErrorOf(() => open(key, { ...box, iv: randomBytes(16) }, Buffer.alloc(0))).code).toBe('VAULT.MALFORMED_ENVELOPE');
    expect(vaultErrorOf(() => open(key, { ...box, tag: box.tag.subarray(0, 12) }, Buffer.alloc(0))).code).toBe('VAULT.MALFORMED_ENVELOPE');
  });
});

describe('authenticated data', () => {
  it('binds purpose, provider, account, name, version and (for data keys) the master key version', () => {
    const variants = [
      secretAad(ref),
      secretAad({ ...ref, provider: 'flutterwave' }),
      secretAad({ ...ref, account: 'acct_other' }),
      secretAad({ ...ref, name: 'public_key' }),
      secretAad({ ...ref, version: 4 }),
      dataKeyAad(ref, 'v1'),
      dataKeyAad(ref, 'v2'),
      dataKeyAad({ ...ref, account: 'acct_other' }, 'v1'),
    ].map((b) => b.toString('hex'));
    expect(new Set(variants).size).toBe(variants.length);
  });

  it('is unambiguous when fields contain separators', () => {
    const a = secretAad({ provider: 'a"', account: 'b', name: 'c', version: 1 });
    const b = secretAad({ provider: 'a', account: '"b', name: 'c', version: 1 });
    const c = secretAad({ provider: 'a,b', account: 'c', name: 'd', version: 1 });
    const d = secretAad({ provider: 'a', account: 'b,c', name: 'd', version: 1 });
    expect(a.equals(b)).toBe(false);
    expect(c.equals(d)).toBe(false);
  });
});

describe('envelope: secret under a data key, data key wrapped under a master key', () => {
  const envelope = () => {
    const masterKey = generateKey();
    const dataKey = generateKey();
    const plaintext = randomSecret();
    return { masterKey, dataKey, plaintext, secret: encryptSecret(dataKey, plaintext, ref), wrapped: wrapDataKey(masterKey, 'v1', dataKey, ref) };
  };

  it('decrypts a secret through its unwrapped data key', () => {
    const e = envelope();
    const dataKey = unwrapDataKey(e.masterKey, 'v1', e.wrapped, ref);
    expect(dataKey.equals(e.dataKey)).toBe(true);
    expect(decryptSecret(dataKey, e.secret, ref).equals(e.plaintext)).toBe(true);
  });

  it('detects a flipped byte anywhere in the secret (ciphertext, IV, tag) with VAULT.INTEGRITY_CHECK_FAILED', () => {
    const e = envelope();
    const tampered: SealedBox[] = [
      { ...e.secret, ciphertext: flip(e.secret.ciphertext, 0) },
      { ...e.secret, ciphertext: flip(e.secret.ciphertext, e.secret.ciphertext.length - 1) },
      { ...e.secret, iv: flip(e.secret.iv, 5) },
      { ...e.secret, tag: flip(e.secret.tag, 15) },
    ];
    for (const box of tampered) expect(vaultErrorOf(() => decryptSecret(e.dataKey, box, ref)).code).toBe('VAULT.INTEGRITY_CHECK_FAILED');
  });

  it('detects a flipped byte in the wrapped data key', () => {
    const e = envelope();
    for (const wrapped of [
      { ...e.wrapped, ciphertext: flip(e.wrapped.ciphertext, 7) },
      { ...e.wrapped, iv: flip(e.wrapped.iv) },
      { ...e.wrapped, tag: flip(e.wrapped.tag) },
    ]) {
      expect(vaultErrorOf(() => unwrapDataKey(e.masterKey, 'v1', wrapped, ref)).code).toBe('VAULT.INTEGRITY_CHECK_FAILED');
    }
  });

  it('refuses the wrong AAD: another provider, account, name, version or master key version', () => {
    const e = envelope();
    const others: CredentialVersionRef[] = [
      { ...ref, provider: 'flutterwave' },
      { ...ref, account: 'acct_other' },
      { ...ref, name: 'webhook_secret' },
      { ...ref, version: ref.version + 1 },
    ];
    for (const other of others) {
      expect(vaultErrorOf(() => decryptSecret(e.dataKey, e.secret, other)).code).toBe('VAULT.INTEGRITY_CHECK_FAILED');
      expect(vaultErrorOf(() => unwrapDataKey(e.masterKey, 'v1', e.wrapped, other)).code).toBe('VAULT.INTEGRITY_CHECK_FAILED');
    }
    // Relabelled master key version (even with the right key bytes).
    expect(vaultErrorOf(() => unwrapDataKey(e.masterKey, 'v2', e.wrapped, ref)).code).toBe('VAULT.INTEGRITY_CHECK_FAILED');
  });

  it('refuses the wrong master key and the wrong data key', () => {
    const e = envelope();
    expect(vaultErrorOf(() => unwrapDataKey(generateKey(), 'v1', e.wrapped, ref)).code).toBe('VAULT.INTEGRITY_CHECK_FAILED');
    expect(vaultErrorOf(() => decryptSecret(generateKey(), e.secret, ref)).code).toBe('VAULT.INTEGRITY_CHECK_FAILED');
  });

  it('refuses to wrap a data key that is not 32 bytes', () => {
    expect(vaultErrorOf(() => wrapDataKey(generateKey(), 'v1', randomBytes(16), ref)).code).toBe('VAULT.MALFORMED_ENVELOPE');
  });

  it('never puts key material or plaintext in its errors', () => {
    const e = envelope();
    const error = vaultErrorOf(() => decryptSecret(e.dataKey, { ...e.secret, tag: flip(e.secret.tag) }, ref));
    const text = `${error.message} ${error.stack ?? ''} ${JSON.stringify(error)}`;
    for (const material of [e.plaintext.toString('utf8'), e.dataKey.toString('hex'), e.dataKey.toString('base64'), e.masterKey.toString('base64')]) {
      expect(text).not.toContain(material);
    }
    expect(error.cause).toBeUndefined();
  });
});

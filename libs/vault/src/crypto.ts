/**
 * The vault's cryptography, pure and synchronous (node:crypto only, no I/O): AES-256-GCM sealing,
 * envelope encryption of a secret under a per-secret data key, and wrapping of that data key under
 * a versioned master key, each with authenticated data (AAD) that binds the ciphertext to where it
 * belongs.
 *
 * Rules and their sources:
 * - AES-256-GCM with a 96-bit random IV and a 128-bit tag (NIST SP 800-38D sections 5.2.1.1 and
 *   8.2.2; the vault issue). Every data key encrypts exactly one secret, and every wrap draws a
 *   fresh IV, so the 2^32 random-IV invocation limit per key (SP 800-38D 8.3) is never approached.
 * - Keys are 256 bits from `crypto.randomBytes` (CSPRNG).
 * - AAD: a JSON array `["settle.vault/1", purpose, provider, account, name, credentialVersion, ...]`.
 *   JSON string escaping makes the encoding unambiguous (no two different tuples share bytes), and
 *   the purpose (`secret` or `data-key`) separates the two uses.
 *   - The secret's AAD binds provider, account, name and credential version.
 *   - The wrapped data key's AAD binds the same and the master key version.
 *   The master key version is bound through the wrapped key only: the secret's ciphertext is tied
 *   to its data key by GCM itself, and keeping the version out of the secret's AAD is what lets
 *   `CredentialsVault.rewrap` move a data key to a new master key without decrypting the secret.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { CredentialVersionRef } from './credential.js';
import { VaultError } from './errors.js';

/** Length of a data key and of a master key: 32 bytes (AES-256). */
export const KEY_BYTES = 32;
/** Length of a GCM IV: 12 bytes (96 bits, NIST SP 800-38D 8.2.2). */
export const IV_BYTES = 12;
/** Length of a GCM authentication tag: 16 bytes (128 bits). */
export const TAG_BYTES = 16;

const CIPHER = 'aes-256-gcm';
const AAD_FORMAT = 'settle.vault/1';

/** The output of one AES-256-GCM encryption: 12-byte IV, ciphertext (same length as the plaintext), 16-byte tag. */
export interface SealedBox {
  readonly iv: Buffer;
  readonly ciphertext: Buffer;
  readonly tag: Buffer;
}

/** A fresh random 256-bit key (32 bytes) from the CSPRNG, for a data key or a master key. */
export function generateKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

function assertLength(what: string, buffer: Buffer, expected: number): void {
  if (!Buffer.isBuffer(buffer) || buffer.length !== expected) {
    throw new VaultError('VAULT.MALFORMED_ENVELOPE', `${what} must be ${expected} bytes`, { part: what });
  }
}

/**
 * Encrypts `plaintext` with AES-256-GCM under `key` with a fresh random 96-bit IV.
 *
 * @param key - 32-byte key.
 * @param plaintext - bytes to encrypt (any length, empty included).
 * @param aad - authenticated, unencrypted data; the same bytes are needed to {@link open}.
 * @throws VaultError `VAULT.MALFORMED_ENVELOPE` when the key is not 32 bytes.
 */
export function seal(key: Buffer, plaintext: Buffer, aad: Buffer): SealedBox {
  assertLength('key', key, KEY_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, ciphertext, tag: cipher.getAuthTag() };
}

/**
 * Decrypts and authenticates a {@link SealedBox}. Nothing is returned unless the tag verifies
 * over the IV, ciphertext and `aad` under `key`.
 *
 * @param key - 32-byte key.
 * @param aad - the authenticated data used by {@link seal}.
 * @returns the plaintext (the caller should `fill(0)` it after use).
 * @throws VaultError `VAULT.MALFORMED_ENVELOPE` when the key, IV or tag has the wrong length;
 *   `VAULT.INTEGRITY_CHECK_FAILED` when authentication fails (modified ciphertext, IV or tag,
 *   different AAD, wrong key). The underlying crypto error is not attached.
 */
export function open(key: Buffer, box: SealedBox, aad: Buffer): Buffer {
  assertLength('key', key, KEY_BYTES);
  assertLength('iv', box.iv, IV_BYTES);
  assertLength('tag', box.tag, TAG_BYTES);
  const decipher = createDecipheriv(CIPHER, key, box.iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(box.tag);
  const head = decipher.update(box.ciphertext);
  try {
    const tail = decipher.final();
    return Buffer.concat([head, tail]);
  } catch {
    head.fill(0);
    throw new VaultError('VAULT.INTEGRITY_CHECK_FAILED', 'Authentication of the encrypted data failed');
  }
}

function aad(purpose: 'secret' | 'data-key', ref: CredentialVersionRef, keyVersion?: string): Buffer {
  const fields: Array<string | number> = [AAD_FORMAT, purpose, ref.provider, ref.account, ref.name, ref.version];
  if (keyVersion !== undefined) fields.push(keyVersion);
  return Buffer.from(JSON.stringify(fields), 'utf8');
}

/**
 * Authenticated data of a secret's ciphertext: `["settle.vault/1","secret",provider,account,name,version]`
 * as UTF-8 JSON.
 */
export function secretAad(ref: CredentialVersionRef): Buffer {
  return aad('secret', ref);
}

/**
 * Authenticated data of a wrapped data key:
 * `["settle.vault/1","data-key",provider,account,name,version,keyVersion]` as UTF-8 JSON.
 */
export function dataKeyAad(ref: CredentialVersionRef, keyVersion: string): Buffer {
  return aad('data-key', ref, keyVersion);
}

/**
 * Encrypts a secret under its data key, bound to the credential (see {@link secretAad}).
 *
 * @param dataKey - the credential's 32-byte data key.
 * @param plaintext - the secret's UTF-8 bytes.
 * @throws VaultError `VAULT.MALFORMED_ENVELOPE` for a data key that is not 32 bytes.
 */
export function encryptSecret(dataKey: Buffer, plaintext: Buffer, ref: CredentialVersionRef): SealedBox {
  return seal(dataKey, plaintext, secretAad(ref));
}

/**
 * Decrypts a secret sealed by {@link encryptSecret}.
 *
 * @returns the secret's bytes (the caller should `fill(0)` them after use).
 * @throws VaultError `VAULT.INTEGRITY_CHECK_FAILED` when the box was modified, belongs to another
 *   credential or version, or the data key is wrong; `VAULT.MALFORMED_ENVELOPE` for bad lengths.
 */
export function decryptSecret(dataKey: Buffer, box: SealedBox, ref: CredentialVersionRef): Buffer {
  return open(dataKey, box, secretAad(ref));
}

/**
 * Wraps (encrypts) a data key under a master key, bound to the credential and the master key
 * version (see {@link dataKeyAad}).
 *
 * @param masterKey - 32-byte master key of version `keyVersion`.
 * @param keyVersion - the master key's version name (for example `v2`).
 * @param dataKey - 32-byte data key.
 * @throws VaultError `VAULT.MALFORMED_ENVELOPE` when a key is not 32 bytes.
 */
export function wrapDataKey(masterKey: Buffer, keyVersion: string, dataKey: Buffer, ref: CredentialVersionRef): SealedBox {
  assertLength('data key', dataKey, KEY_BYTES);
  return seal(masterKey, dataKey, dataKeyAad(ref, keyVersion));
}

/**
 * Unwraps a data key wrapped by {@link wrapDataKey}.
 *
 * @returns the 32-byte data key (the caller should `fill(0)` it after use).
 * @throws VaultError `VAULT.INTEGRITY_CHECK_FAILED` when the wrapped key was modified, belongs to
 *   another credential, version or master key version, or the master key is wrong;
 *   `VAULT.MALFORMED_ENVELOPE` for bad lengths (an unwrapped key that is not 32 bytes included).
 */
export function unwrapDataKey(masterKey: Buffer, keyVersion: string, wrapped: SealedBox, ref: CredentialVersionRef): Buffer {
  const dataKey = open(masterKey, wrapped, dataKeyAad(ref, keyVersion));
  if (dataKey.length !== KEY_BYTES) {
    dataKey.fill(0);
    throw new VaultError('VAULT.MALFORMED_ENVELOPE', `data key must be ${KEY_BYTES} bytes`, { part: 'data key' });
  }
  return dataKey;
}

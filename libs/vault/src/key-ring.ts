/**
 * The master key ring: versioned 256-bit master keys that wrap the credentials' data keys. Keys
 * come from configuration (an environment variable or a key file), never from the database
 * (vault issue). One version is active and wraps new data keys; the others stay only to unwrap
 * what is still wrapped under them, until `CredentialsVault.rewrap` has moved everything to the
 * active version and the old version is retired.
 *
 * Version names: `key-version.ts`; parsing the configuration: `master-key-config.ts`; rotating
 * the key file: `key-file-rotation.ts`.
 */
import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import type { CredentialVersionRef } from './credential.js';
import { generateKey, KEY_BYTES, unwrapDataKey, wrapDataKey, type SealedBox } from './crypto.js';
import { VaultError } from './errors.js';
import { compareKeyVersions, isKeyVersion } from './key-version.js';
import { checkVersionName, configError, parseMasterKeys, readKeyFile, VAULT_ENV, type MasterKeyEntry } from './master-key-config.js';

/** A freshly generated random 256-bit master key (32 bytes, CSPRNG). */
export function generateMasterKey(): Buffer {
  return generateKey();
}

/**
 * The versioned master keys. Keys are private to the ring: they never leave it and it prints as
 * its version list only (`MasterKeyRing(v1, v2*)`, `*` marking the active version) in
 * `toString`, `toJSON` and `util.inspect`.
 */
export class MasterKeyRing {
  readonly #keys: ReadonlyMap<string, Buffer>;
  /** The version that wraps new data keys. */
  readonly activeVersion: string;

  private constructor(keys: ReadonlyMap<string, Buffer>, activeVersion: string) {
    this.#keys = keys;
    this.activeVersion = activeVersion;
  }

  /**
   * Builds a ring from entries, copying the key bytes.
   *
   * @param entries - `[version, 32-byte key]` pairs.
   * @param options.active - version to make active; default the highest version.
   * @param options.source - names the configuration in error messages (default `key ring`).
   * @param options.activeSource - names where `active` came from (default `source`).
   * @throws VaultError `VAULT.INVALID_CONFIG` when there is no key, a version name is invalid or
   *   repeated, a key is not 32 bytes, two versions hold the same key (a rotation that changes
   *   nothing), or `active` is not in the ring.
   */
  static from(entries: Iterable<MasterKeyEntry>, options: { active?: string | undefined; source?: string; activeSource?: string } = {}): MasterKeyRing {
    const source = options.source ?? 'key ring';
    const keys = new Map<string, Buffer>();
    const fingerprints = new Map<string, string>();
    for (const [version, key] of entries) {
      checkVersionName(version, source, 'a key');
      if (keys.has(version)) throw configError(source, `version ${version} appears more than once`, { version });
      if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) {
        throw configError(source, `key ${version} must be exactly ${KEY_BYTES} bytes`, { version });
      }
      const material = createHash('sha256').update(key).digest('base64'); // compare digests, keep no copy of the key
      const twin = fingerprints.get(material);
      if (twin !== undefined) throw configError(source, `versions ${twin} and ${version} hold the same key`, { version });
      fingerprints.set(material, version);
      const copy = Buffer.alloc(KEY_BYTES);
      key.copy(copy);
      keys.set(version, copy);
    }
    if (keys.size === 0) throw configError(source, 'holds no master key');
    const versions = [...keys.keys()].sort(compareKeyVersions);
    const active = options.active ?? versions[versions.length - 1]!;
    if (!isKeyVersion(active)) throw configError(options.activeSource ?? source, 'must be a version name such as v2');
    if (!keys.has(active)) {
      throw configError(options.activeSource ?? source, `names ${active}, which is not in the key ring (${versions.join(', ')})`, {
        version: active,
      });
    }
    return new MasterKeyRing(keys, active);
  }

  /** The versions in the ring, lowest first. */
  get versions(): string[] {
    return [...this.#keys.keys()].sort(compareKeyVersions);
  }

  /** Whether the ring holds `version`. */
  has(version: string): boolean {
    return this.#keys.has(version);
  }

  /**
   * Wraps a data key under the active master key, bound to the credential (see `wrapDataKey`).
   *
   * @returns the active version and the wrapped key.
   */
  wrap(dataKey: Buffer, ref: CredentialVersionRef): { keyVersion: string; wrapped: SealedBox } {
    return { keyVersion: this.activeVersion, wrapped: wrapDataKey(this.#key(this.activeVersion), this.activeVersion, dataKey, ref) };
  }

  /**
   * Unwraps a data key wrapped under `keyVersion`.
   *
   * @returns the 32-byte data key (zero it after use).
   * @throws VaultError `VAULT.UNKNOWN_KEY_VERSION` when the ring lacks `keyVersion`;
   *   `VAULT.INTEGRITY_CHECK_FAILED` / `VAULT.MALFORMED_ENVELOPE` from `unwrapDataKey`.
   */
  unwrap(keyVersion: string, wrapped: SealedBox, ref: CredentialVersionRef): Buffer {
    return unwrapDataKey(this.#key(keyVersion), keyVersion, wrapped, ref);
  }

  #key(version: string): Buffer {
    const key = this.#keys.get(version);
    if (!key) {
      throw new VaultError('VAULT.UNKNOWN_KEY_VERSION', `Master key version ${version} is not in the key ring (${this.versions.join(', ')})`, {
        keyVersion: version,
      });
    }
    return key;
  }

  toString(): string {
    return `MasterKeyRing(${this.versions.map((v) => (v === this.activeVersion ? `${v}*` : v)).join(', ')})`;
  }

  toJSON(): { versions: string[]; activeVersion: string } {
    return { versions: this.versions, activeVersion: this.activeVersion };
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

/**
 * Loads the master key ring from the environment (vault issue: keys come from configuration,
 * never from the database):
 * - `SETTLE_VAULT_MASTER_KEYS`: inline ring (see {@link parseMasterKeys}), or
 * - `SETTLE_VAULT_MASTER_KEY_FILE`: path of a key file (see {@link readKeyFile}), exclusive;
 * - `SETTLE_VAULT_ACTIVE_KEY`: optional active version; else the key file's `active`; else the
 *   highest version.
 * Empty variables count as unset.
 *
 * @throws VaultError `VAULT.INVALID_CONFIG` naming the variable (never a value) when neither or
 *   both sources are set, or anything is invalid; `VAULT.KEY_FILE_PERMISSIONS` for a key file
 *   that group or others may access.
 */
export function loadMasterKeyRing(env: NodeJS.ProcessEnv = process.env): MasterKeyRing {
  const inline = env[VAULT_ENV.masterKeys]?.trim() || undefined;
  const file = env[VAULT_ENV.keyFile]?.trim() || undefined;
  const activeEnv = env[VAULT_ENV.activeKey]?.trim() || undefined;
  if (inline && file) throw configError(VAULT_ENV.masterKeys, `set either it or ${VAULT_ENV.keyFile}, not both`);
  if (!inline && !file) throw configError(VAULT_ENV.masterKeys, `no master key configured: set it or ${VAULT_ENV.keyFile}`);
  if (activeEnv !== undefined && !isKeyVersion(activeEnv)) throw configError(VAULT_ENV.activeKey, 'must be a version name such as v2');
  if (inline) {
    return MasterKeyRing.from(parseMasterKeys(inline), { active: activeEnv, source: VAULT_ENV.masterKeys, activeSource: VAULT_ENV.activeKey });
  }
  const contents = readKeyFile(file!);
  const label = `${VAULT_ENV.keyFile} (${file!})`;
  return MasterKeyRing.from(contents.keys, {
    active: activeEnv ?? contents.active,
    source: label,
    activeSource: activeEnv !== undefined ? VAULT_ENV.activeKey : label,
  });
}

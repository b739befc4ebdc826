/**
 * The master key ring: versioned 256-bit master keys that wrap the credentials' data keys. Keys
 * come from configuration (an environment variable or a key file), never from the database
 * (vault issue). One version is active and wraps new data keys; the others stay only to unwrap
 * what is still wrapped under them, until `CredentialsVault.rewrap` has moved everything to the
 * active version and the old version is retired.
 *
 * Version names are `v<N>` (`v1`, `v2`, ... up to nine digits) so "highest" is well defined:
 * versions order by N, not as strings (`v10` is higher than `v9`).
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { inspect } from 'node:util';
import type { CredentialVersionRef } from './credential.js';
import { generateKey, KEY_BYTES, unwrapDataKey, wrapDataKey, type SealedBox } from './crypto.js';
import { VaultError } from './errors.js';

/** Names of the environment variables the vault reads. */
export const VAULT_ENV = {
  /** Inline key ring: `v1:<base64 32 bytes>,v2:<base64 32 bytes>`. */
  masterKeys: 'SETTLE_VAULT_MASTER_KEYS',
  /** Path of a key file (JSON or lines, mode 0600). Exclusive with `SETTLE_VAULT_MASTER_KEYS`. */
  keyFile: 'SETTLE_VAULT_MASTER_KEY_FILE',
  /** Version that wraps new data keys; default: the key file's `active`, else the highest version. */
  activeKey: 'SETTLE_VAULT_ACTIVE_KEY',
} as const;

const VERSION = /^v([1-9][0-9]{0,8})$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Whether `value` is a master key version name (`v<N>`, N from 1, up to nine digits). */
export function isKeyVersion(value: string): boolean {
  return VERSION.test(value);
}

/** Orders master key versions by their number (`v2` before `v10`). Both must be valid names. */
export function compareKeyVersions(a: string, b: string): number {
  return versionNumber(a) - versionNumber(b);
}

function versionNumber(version: string): number {
  const match = VERSION.exec(version);
  if (!match) throw new VaultError('VAULT.INVALID_ARGUMENT', 'A master key version must look like v1, v2, ...');
  return Number(match[1]);
}

/** The version after the highest of `versions` (`v1` when there is none). */
export function nextKeyVersion(versions: Iterable<string>): string {
  let highest = 0;
  for (const v of versions) highest = Math.max(highest, versionNumber(v));
  return `v${highest + 1}`;
}

/** A freshly generated random 256-bit master key (32 bytes, CSPRNG). */
export function generateMasterKey(): Buffer {
  return generateKey();
}

/** A master key as parsed from configuration: version name and 32 key bytes. */
export type MasterKeyEntry = readonly [version: string, key: Buffer];

function configError(source: string, problem: string, details: Record<string, string | number> = {}): VaultError {
  return new VaultError('VAULT.INVALID_CONFIG', `${source}: ${problem}`, { source, ...details });
}

/**
 * Decodes one base64 key and checks it is exactly 32 bytes. Standard base64 with padding
 * (`openssl rand -base64 32`); the error never contains the value.
 */
function decodeKey(encoded: string, source: string, version: string): Buffer {
  const decoded = BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
  const canonical = decoded.toString('base64') === encoded;
  if (!canonical || decoded.length !== KEY_BYTES) {
    decoded.fill(0);
    throw configError(source, `key ${version} must be exactly ${KEY_BYTES} bytes in standard base64`, { version });
  }
  // A private, unpooled copy the ring can zero on its own.
  const key = Buffer.alloc(KEY_BYTES);
  decoded.copy(key);
  decoded.fill(0);
  return key;
}

function checkVersionName(version: string, source: string, where: string): void {
  if (!isKeyVersion(version)) throw configError(source, `${where} has an invalid version name (expected v1, v2, ...)`);
}

/**
 * Parses an inline key ring: comma-separated `<version>:<base64 key>` entries, white space around
 * entries ignored (format from the vault issue: `v1:<base64 32 bytes>,v2:<base64 32 bytes>`).
 *
 * @param source - the variable name used in error messages.
 * @returns the entries in the order given.
 * @throws VaultError `VAULT.INVALID_CONFIG` naming `source` and the entry (position or version),
 *   for an entry without `:`, a bad version name, a key that is not 32 bytes of base64, or a
 *   repeated version. Values are never echoed.
 */
export function parseMasterKeys(text: string, source: string = VAULT_ENV.masterKeys): MasterKeyEntry[] {
  const entries: MasterKeyEntry[] = [];
  const parts = text.split(',').map((p) => p.trim());
  parts.forEach((part, index) => {
    if (part === '' && parts.length > 1 && index === parts.length - 1) return; // trailing comma
    const colon = part.indexOf(':');
    if (colon <= 0) throw configError(source, `entry ${index + 1} must be <version>:<base64 key>`, { entry: index + 1 });
    const version = part.slice(0, colon).trim();
    checkVersionName(version, source, `entry ${index + 1}`);
    entries.push([version, decodeKey(part.slice(colon + 1).trim(), source, version)]);
  });
  return entries;
}

/** A parsed key file: its format (kept when the file is rewritten), keys, and optional active version. */
export interface KeyFileContents {
  readonly format: 'json' | 'lines';
  readonly keys: MasterKeyEntry[];
  /** The file's `active` version, when it names one. */
  readonly active: string | undefined;
}

/**
 * Parses the text of a key file. Two formats:
 * - JSON: `{ "keys": { "v1": "<base64>", "v2": "<base64>" }, "active": "v2" }` (`active` optional);
 * - lines: one `<version>:<base64>` per line, an optional `active=<version>` line, blank lines and
 *   `#` comments ignored.
 *
 * @param source - how errors name the file (the variable and the path).
 * @throws VaultError `VAULT.INVALID_CONFIG` for invalid JSON, entries, versions or keys, a
 *   repeated version or a repeated `active`. Values are never echoed.
 */
export function parseKeyFile(text: string, source: string): KeyFileContents {
  if (text.trimStart().startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw configError(source, 'is not valid JSON');
    }
    const doc = parsed as { keys?: unknown; active?: unknown };
    if (typeof doc.keys !== 'object' || doc.keys === null || Array.isArray(doc.keys)) {
      throw configError(source, 'must be { "keys": { "v1": "<base64>" }, "active": "v1" }');
    }
    const keys: MasterKeyEntry[] = [];
    for (const [version, value] of Object.entries(doc.keys as Record<string, unknown>)) {
      checkVersionName(version, source, 'a key');
      if (typeof value !== 'string') throw configError(source, `key ${version} must be a base64 string`, { version });
      keys.push([version, decodeKey(value.trim(), source, version)]);
    }
    if (doc.active !== undefined && (typeof doc.active !== 'string' || !isKeyVersion(doc.active))) {
      throw configError(source, '"active" must be a version name such as v2');
    }
    return { format: 'json', keys, active: doc.active };
  }
  const keys: MasterKeyEntry[] = [];
  let active: string | undefined;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const activeMatch = /^active\s*=\s*(.*)$/.exec(line);
    if (activeMatch) {
      const version = activeMatch[1]!.trim();
      checkVersionName(version, source, `line ${index + 1}`);
      if (active !== undefined) throw configError(source, `line ${index + 1} repeats active=`, { line: index + 1 });
      active = version;
      return;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) throw configError(source, `line ${index + 1} must be <version>:<base64 key> or active=<version>`, { line: index + 1 });
    const version = line.slice(0, colon).trim();
    checkVersionName(version, source, `line ${index + 1}`);
    keys.push([version, decodeKey(line.slice(colon + 1).trim(), source, version)]);
  });
  return { format: 'lines', keys, active };
}

/**
 * Reads and parses a key file after checking it is a regular file that neither group nor others
 * may read or write (mode 0600 or stricter).
 *
 * @param source - the variable that named the file, for error messages.
 * @throws VaultError `VAULT.INVALID_CONFIG` when the file is missing, not a regular file or invalid
 *   (see {@link parseKeyFile}); `VAULT.KEY_FILE_PERMISSIONS` when its mode allows group or others.
 */
export function readKeyFile(path: string, source: string = VAULT_ENV.keyFile): KeyFileContents {
  const label = `${source} (${path})`;
  let mode: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw configError(label, 'is not a regular file');
    mode = stat.mode & 0o777;
  } catch (error) {
    if (error instanceof VaultError) throw error;
    throw configError(label, 'cannot be read (missing or not accessible)');
  }
  if ((mode & 0o077) !== 0) {
    throw new VaultError(
      'VAULT.KEY_FILE_PERMISSIONS',
      `${label}: mode ${mode.toString(8).padStart(4, '0')} lets group or others access master keys; chmod 600 it`,
      { source, path, mode: mode.toString(8) },
    );
  }
  return parseKeyFile(readFileSync(path, 'utf8'), label);
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

function renderKeyFile(format: 'json' | 'lines', keys: readonly MasterKeyEntry[], active: string, previousText: string): string {
  if (format === 'json') {
    const record: Record<string, string> = {};
    for (const [version, key] of [...keys].sort((a, b) => compareKeyVersions(a[0], b[0]))) record[version] = key.toString('base64');
    return `${JSON.stringify({ keys: record, active }, null, 2)}\n`;
  }
  // Lines: keep comments and key lines that are still wanted, drop `active=`, then append the
  // keys that are new and the active line.
  const wanted = new Map(keys.map(([version, key]) => [version, key] as const));
  const kept: string[] = [];
  for (const raw of previousText.split(/\r?\n/)) {
    const line = raw.trim();
    if (/^active\s*=/.test(line)) continue;
    const colon = line.indexOf(':');
    if (line !== '' && !line.startsWith('#') && colon > 0) {
      const version = line.slice(0, colon).trim();
      if (!wanted.has(version)) continue;
      wanted.delete(version);
    }
    kept.push(raw);
  }
  while (kept.length > 0 && kept[kept.length - 1]!.trim() === '') kept.pop();
  for (const [version, key] of wanted) kept.push(`${version}:${key.toString('base64')}`);
  kept.push(`active=${active}`);
  return `${kept.join('\n')}\n`;
}

/** Writes `text` to `path` atomically (temporary file in the same directory, fsync, rename), mode 0600. */
function writeFileAtomic(path: string, text: string): void {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temporary, path);
  } catch (error) {
    unlinkSync(temporary);
    throw error;
  }
  try {
    const dir = openSync(dirname(path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch {
    // Directory fsync is best effort (not supported everywhere).
  }
}

/** Runs `work` holding `<path>.lock`, created exclusively; refuses when another holder exists. */
function withKeyFileLock<T>(path: string, work: () => T): T {
  const lock = `${path}.lock`;
  let fd: number;
  try {
    fd = openSync(lock, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new VaultError('VAULT.KEY_FILE_LOCKED', `Key file ${path} is locked by ${lock}; if no rotation is running, remove the lock file`, {
        path,
      });
    }
    throw error;
  }
  try {
    return work();
  } finally {
    closeSync(fd);
    unlinkSync(lock);
  }
}

function existingKeyFile(path: string): { contents: KeyFileContents; text: string } | undefined {
  try {
    statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const contents = readKeyFile(path, 'key file');
  return { contents, text: readFileSync(path, 'utf8') };
}

/**
 * Rotation step 1 (vault issue): generates a new random master key, adds it to the key file under
 * the next version name and makes it the file's active version. A missing file is created (JSON
 * format, the new key as `v1`); an existing file keeps its format (lines: comments kept, the key
 * appended). Written atomically with mode 0600, under an exclusive `<path>.lock`.
 * `SETTLE_VAULT_ACTIVE_KEY`, when set, still overrides the file's active version.
 *
 * @returns the new version name; the key itself is never returned.
 * @throws VaultError `VAULT.KEY_FILE_LOCKED` when another rotation holds the lock;
 *   `VAULT.KEY_FILE_PERMISSIONS` / `VAULT.INVALID_CONFIG` when the existing file is unsafe or invalid.
 */
export function rotateKeyFile(path: string): { version: string } {
  return withKeyFileLock(path, () => {
    const existing = existingKeyFile(path);
    const keys = [...(existing?.contents.keys ?? [])];
    const version = nextKeyVersion(keys.map(([v]) => v));
    const key = generateMasterKey();
    keys.push([version, key]);
    MasterKeyRing.from(keys, { active: version, source: path }); // validates the result before writing
    writeFileAtomic(path, renderKeyFile(existing?.contents.format ?? 'json', keys, version, existing?.text ?? ''));
    for (const [, k] of keys) k.fill(0);
    return { version };
  });
}

/**
 * Rotation step 3: removes a retired version from the key file. Call it only after
 * `CredentialsVault.assertRetirable` passed for that version.
 *
 * @throws VaultError `VAULT.INVALID_ARGUMENT` when the file does not hold `version`;
 *   `VAULT.KEY_VERSION_ACTIVE` when it is the file's active version (explicit, or the highest
 *   when the file names none) or the last key; `VAULT.KEY_FILE_LOCKED`,
 *   `VAULT.KEY_FILE_PERMISSIONS`, `VAULT.INVALID_CONFIG` as for {@link rotateKeyFile}.
 */
export function removeKeyFromFile(path: string, version: string): void {
  withKeyFileLock(path, () => {
    const existing = existingKeyFile(path);
    if (!existing) throw configError(`key file (${path})`, 'cannot be read (missing or not accessible)');
    const { contents, text } = existing;
    const versions = contents.keys.map(([v]) => v).sort(compareKeyVersions);
    if (!versions.includes(version)) {
      throw new VaultError('VAULT.INVALID_ARGUMENT', `Key file ${path} holds no version ${version}`, { path, keyVersion: version });
    }
    const active = contents.active ?? versions[versions.length - 1]!;
    if (version === active) {
      throw new VaultError('VAULT.KEY_VERSION_ACTIVE', `Version ${version} is the active version of ${path}; it cannot be removed`, {
        path,
        keyVersion: version,
      });
    }
    const keys = contents.keys.filter(([v]) => v !== version);
    writeFileAtomic(path, renderKeyFile(contents.format, keys, active, text));
    for (const [, k] of contents.keys) k.fill(0);
  });
}

/**
 * Rotating the master key file (vault issue): adding a new active key (step 1) and removing a
 * retired one (step 3), each written atomically under an exclusive lock file. Step 2, rewrapping
 * the data keys, is `CredentialsVault.rewrap`.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { VaultError } from './errors.js';
import { generateMasterKey, MasterKeyRing } from './key-ring.js';
import { compareKeyVersions, nextKeyVersion } from './key-version.js';
import { configError, readKeyFile, type KeyFileContents, type MasterKeyEntry } from './master-key-config.js';

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

/**
 * Master keys as configuration holds them: the environment variables the vault reads, the
 * inline key ring (`SETTLE_VAULT_MASTER_KEYS`) and the key file (`SETTLE_VAULT_MASTER_KEY_FILE`,
 * JSON or lines, mode 0600), parsed into `[version, 32-byte key]` entries. Errors name the
 * variable or file and never echo a key.
 */
import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { KEY_BYTES } from './crypto.js';
import { VaultError } from './errors.js';
import { isKeyVersion } from './key-version.js';

/** Names of the environment variables the vault reads. */
export const VAULT_ENV = {
  /** Inline key ring: `v1:<base64 32 bytes>,v2:<base64 32 bytes>`. */
  masterKeys: 'SETTLE_VAULT_MASTER_KEYS',
  /** Path of a key file (JSON or lines, mode 0600). Exclusive with `SETTLE_VAULT_MASTER_KEYS`. */
  keyFile: 'SETTLE_VAULT_MASTER_KEY_FILE',
  /** Version that wraps new data keys; default: the key file's `active`, else the highest version. */
  activeKey: 'SETTLE_VAULT_ACTIVE_KEY',
} as const;

/**
 * The vault's variables as a zod object, for documentation (`npm run config:examples`): the key
 * ring itself is parsed by {@link parseMasterKeys} and {@link readKeyFile}, which name the bad
 * variable; exactly one of the first two is required by the apps that open a vault.
 */
export const vaultEnv = z.object({
  [VAULT_ENV.masterKeys]: z.string().optional().meta({
    description:
      'Inline master key ring, `v1:<base64 of 32 bytes>,v2:...` (`openssl rand -base64 32`); this or SETTLE_VAULT_MASTER_KEY_FILE is required (docs/vault.md).',
    secret: true,
  }),
  [VAULT_ENV.keyFile]: z
    .string()
    .optional()
    .meta({ description: 'Path of a master key file (JSON or lines, mode 0600); this or SETTLE_VAULT_MASTER_KEYS is required, never both.' }),
  [VAULT_ENV.activeKey]: z
    .string()
    .optional()
    .meta({ description: "Version of the master key that wraps new data keys; unset: the key file's `active`, else the highest version." }),
});

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A master key as parsed from configuration: version name and 32 key bytes. */
export type MasterKeyEntry = readonly [version: string, key: Buffer];

/** A `VAULT.INVALID_CONFIG` error naming `source` (a variable or a file), never a value. */
export function configError(source: string, problem: string, details: Record<string, string | number> = {}): VaultError {
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

/** Throws `VAULT.INVALID_CONFIG` unless `version` is a version name (`v1`, `v2`, ...). */
export function checkVersionName(version: string, source: string, where: string): void {
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

import { setTimeout as sleep } from 'node:timers/promises';
import { Secret } from '@settle/config';
import { assertCredentialRef, credentialCoordinates, describeCredential, type CredentialRef, type CredentialVersionRef } from './credential.js';
import { decryptSecret, encryptSecret, generateKey } from './crypto.js';
import { isVaultError, VaultError, type VaultErrorCode } from './errors.js';
import type { MasterKeyRing } from './key-ring.js';
import { compareKeyVersions, isKeyVersion } from './key-version.js';
import type { CredentialEnvelope, CredentialFilter, CredentialInfo, StoredCredential, VaultStore } from './store.port.js';

/** Largest secret accepted by {@link CredentialsVault.put}: 64 KiB of UTF-8. */
export const MAX_SECRET_BYTES = 64 * 1024;

/**
 * Where the vault reports what it did. Structurally a subset of pino's `Logger`, so the apps'
 * logger fits. Entries carry credential coordinates, versions and codes, never secrets or keys.
 */
export interface VaultLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** Options of {@link CredentialsVault}. */
export interface CredentialsVaultOptions {
  /** Receives `vault.put`, `vault.rewrap` and integrity-failure entries; default: silent. */
  logger?: VaultLogger;
  /** Attempts of a put against concurrent writers of the same credential (default 8, at least 1). */
  maxPutAttempts?: number;
}

/** Result of {@link CredentialsVault.put}: the version stored and the master key version that wraps it. */
export interface PutResult extends CredentialVersionRef {
  readonly keyVersion: string;
}

/** A credential {@link CredentialsVault.rewrap} could not re-wrap, and why (a `VAULT.*` code). */
export interface RewrapFailure extends CredentialVersionRef {
  readonly keyVersion: string;
  readonly code: VaultErrorCode;
}

/** Counts of one {@link CredentialsVault.rewrap} run. */
export interface RewrapResult {
  /** The master key version everything was re-wrapped under. */
  readonly activeKeyVersion: string;
  /** Credentials already wrapped under the active version when the run started. */
  readonly alreadyActive: number;
  /** Credentials re-wrapped by this run. */
  readonly rewrapped: number;
  /** Credentials changed by another writer while this run handled them (run again to be sure). */
  readonly skipped: number;
  /** Credentials that could not be unwrapped (unknown key version, integrity failure). */
  readonly failed: readonly RewrapFailure[];
}

/** Whether a master key version may be retired, and which versions are in use. */
export interface RetireCheck {
  readonly keyVersion: string;
  readonly activeKeyVersion: string;
  readonly retirable: boolean;
  /** `active`: it wraps new credentials; `in_use`: credentials are wrapped under it; `not_in_use`: retirable. */
  readonly reason: 'active' | 'in_use' | 'not_in_use';
  /** Credentials wrapped under `keyVersion`. */
  readonly wrappedUnder: number;
  /** Credentials per master key version in use, lowest version first. */
  readonly inUse: Readonly<Record<string, number>>;
}

const silent: VaultLogger = { info: () => undefined, warn: () => undefined };

/**
 * The credentials vault (vault issue): provider secrets encrypted at rest with envelope
 * encryption. Each put draws a random 256-bit data key, encrypts the secret with AES-256-GCM under
 * it, and wraps the data key with AES-256-GCM under the active master key of the
 * {@link MasterKeyRing}; the authenticated data binds provider, account, name, credential version
 * and (for the wrapped key) master key version. Plaintext secrets and data keys live only in
 * memory, only for the call, and are zeroed after use (best effort: a `Secret`'s string cannot be).
 *
 * Rotation: add a new master key version to the ring (it becomes active), deploy that ring to
 * every reader, run {@link CredentialsVault.rewrap}, then retire the old version once
 * {@link CredentialsVault.assertRetirable} passes.
 */
export class CredentialsVault {
  readonly #store: VaultStore;
  readonly #ring: MasterKeyRing;
  readonly #logger: VaultLogger;
  readonly #maxPutAttempts: number;

  /**
   * @param store - where envelopes are kept ({@link PostgresVaultStore} in production).
   * @param keyRing - the master keys (from {@link loadMasterKeyRing}).
   * @throws VaultError `VAULT.INVALID_ARGUMENT` for `maxPutAttempts` below 1.
   */
  constructor(store: VaultStore, keyRing: MasterKeyRing, options: CredentialsVaultOptions = {}) {
    const attempts = options.maxPutAttempts ?? 8;
    if (!Number.isInteger(attempts) || attempts < 1) throw new VaultError('VAULT.INVALID_ARGUMENT', 'maxPutAttempts must be an integer of at least 1');
    this.#store = store;
    this.#ring = keyRing;
    this.#logger = options.logger ?? silent;
    this.#maxPutAttempts = attempts;
  }

  /** The master key version new puts and rewraps use. */
  get activeKeyVersion(): string {
    return this.#ring.activeVersion;
  }

  /**
   * Encrypts and stores a new version of a credential (version 1 when new, else the current
   * version + 1, replacing the previous one). Concurrent puts of the same credential are
   * serialised by a compare-and-set on the version, retried with a short random backoff.
   *
   * @param secret - the secret (1..{@link MAX_SECRET_BYTES} bytes of UTF-8).
   * @returns the credential, its new version and the master key version that wraps it.
   * @throws VaultError `VAULT.INVALID_ARGUMENT` for a bad reference or an empty or oversized
   *   secret; `VAULT.CONCURRENT_UPDATE` when other writers won every attempt.
   */
  async put(ref: CredentialRef, secret: Secret): Promise<PutResult> {
    assertCredentialRef(ref);
    if (typeof (secret as Partial<Secret> | undefined)?.reveal !== 'function') {
      throw new VaultError('VAULT.INVALID_ARGUMENT', 'The secret must be given as a Secret');
    }
    const coordinates = credentialCoordinates(ref);
    const plaintext = Buffer.from(secret.reveal(), 'utf8');
    try {
      if (plaintext.length === 0 || plaintext.length > MAX_SECRET_BYTES) {
        throw new VaultError('VAULT.INVALID_ARGUMENT', `A secret must be 1-${MAX_SECRET_BYTES} bytes of UTF-8`, coordinates);
      }
      for (let attempt = 1; attempt <= this.#maxPutAttempts; attempt += 1) {
        const current = await this.#store.read(coordinates);
        const version = (current?.version ?? 0) + 1;
        const envelope = this.#seal({ ...coordinates, version }, plaintext);
        if (await this.#store.write(coordinates, version, envelope)) {
          this.#logger.info({ ...coordinates, version, keyVersion: envelope.keyVersion }, 'vault.put');
          return { ...coordinates, version, keyVersion: envelope.keyVersion };
        }
        await sleep(Math.floor(Math.random() * 5 * attempt));
      }
    } finally {
      plaintext.fill(0);
    }
    throw new VaultError(
      'VAULT.CONCURRENT_UPDATE',
      `Credential ${describeCredential(coordinates)} kept changing; gave up after ${this.#maxPutAttempts} attempts`,
      coordinates,
    );
  }

  /**
   * Decrypts the latest version of a credential.
   *
   * @returns the secret, as a {@link Secret} (prints as `[redacted]`).
   * @throws VaultError `VAULT.INVALID_ARGUMENT` for a bad reference; `VAULT.NOT_FOUND` when none is
   *   stored; `VAULT.UNKNOWN_KEY_VERSION` when its master key version is not in the ring;
   *   `VAULT.INTEGRITY_CHECK_FAILED` when the row was tampered with (bytes changed, moved to
   *   another provider, account or name, version or key version relabelled) or a master key is wrong.
   */
  async get(ref: CredentialRef): Promise<Secret> {
    assertCredentialRef(ref);
    const coordinates = credentialCoordinates(ref);
    const row = await this.#store.read(coordinates);
    if (!row) throw new VaultError('VAULT.NOT_FOUND', `No credential ${describeCredential(coordinates)}`, coordinates);
    return this.#open(coordinates, row);
  }

  /**
   * Deletes a credential, for a secret that must stop working (an endpoint deleted, the
   * previous secret of a rotation past its overlap). Idempotent.
   *
   * @returns false when there was none.
   * @throws VaultError `VAULT.INVALID_ARGUMENT` for a bad reference.
   */
  async remove(ref: CredentialRef): Promise<boolean> {
    assertCredentialRef(ref);
    const coordinates = credentialCoordinates(ref);
    const removed = await this.#store.remove(coordinates);
    if (removed) this.#logger.info(coordinates, 'vault.remove');
    return removed;
  }

  /**
   * Metadata of the stored credentials (provider, account, name, version, master key version,
   * timestamps), ordered by provider, account, name. Never secrets, keys or ciphertext.
   */
  async list(filter: CredentialFilter = {}): Promise<CredentialInfo[]> {
    return this.#store.list(filter);
  }

  /**
   * Re-wraps the data key of every credential not wrapped under the active master key version:
   * unwrap under its version, wrap under the active one, compare-and-set. Secrets are never
   * decrypted (their ciphertext and its AAD do not depend on the master key version); each data
   * key is in memory only while it is re-wrapped and zeroed after. Idempotent: a second run finds
   * nothing to do. Credentials that cannot be unwrapped are reported in `failed` and left as they
   * are; the run goes on with the others.
   *
   * @param options.batchSize - credentials read per query (default 100).
   * @throws VaultError `VAULT.INVALID_ARGUMENT` for a batch size below 1; store errors as they are.
   */
  async rewrap(options: { batchSize?: number } = {}): Promise<RewrapResult> {
    const batchSize = options.batchSize ?? 100;
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new VaultError('VAULT.INVALID_ARGUMENT', 'batchSize must be an integer of at least 1');
    const active = this.#ring.activeVersion;
    const alreadyActive = (await this.#store.countByKeyVersion()).get(active) ?? 0;
    let rewrapped = 0;
    let skipped = 0;
    const failed: RewrapFailure[] = [];
    let after: CredentialRef | undefined;
    for (;;) {
      const batch = await this.#store.findNotWrappedWith(active, after, batchSize);
      for (const row of batch) {
        after = credentialCoordinates(row);
        const ref: CredentialVersionRef = { ...credentialCoordinates(row), version: row.version };
        let dataKey: Buffer | undefined;
        try {
          dataKey = this.#ring.unwrap(row.keyVersion, row.wrappedKey, ref);
          const { keyVersion, wrapped } = this.#ring.wrap(dataKey, ref);
          const done = await this.#store.replaceWrap(ref, row.version, row.keyVersion, { keyVersion, wrappedKey: wrapped });
          if (done) rewrapped += 1;
          else skipped += 1;
        } catch (error) {
          if (!isVaultError(error)) throw error;
          failed.push({ ...ref, keyVersion: row.keyVersion, code: error.code });
          this.#logger.warn({ ...ref, keyVersion: row.keyVersion, code: error.code }, 'vault.rewrap.failed');
        } finally {
          dataKey?.fill(0);
        }
      }
      if (batch.length < batchSize) break;
    }
    const result: RewrapResult = { activeKeyVersion: active, alreadyActive, rewrapped, skipped, failed };
    this.#logger.info({ activeKeyVersion: active, alreadyActive, rewrapped, skipped, failed: failed.length }, 'vault.rewrap');
    return result;
  }

  /** Credentials per master key version in use, lowest version first (versions with none are absent). */
  async keyVersionsInUse(): Promise<Record<string, number>> {
    const counts = await this.#store.countByKeyVersion();
    const versions = [...counts.keys()].sort((a, b) => (isKeyVersion(a) && isKeyVersion(b) ? compareKeyVersions(a, b) : a < b ? -1 : 1));
    return Object.fromEntries(versions.map((v) => [v, counts.get(v)!]));
  }

  /**
   * Whether master key version `keyVersion` may be retired (rotation step 3, vault issue): only
   * when it is not the active version and no credential is wrapped under it.
   *
   * @throws VaultError `VAULT.INVALID_ARGUMENT` when `keyVersion` is not a version name.
   */
  async retireCheck(keyVersion: string): Promise<RetireCheck> {
    if (!isKeyVersion(keyVersion)) throw new VaultError('VAULT.INVALID_ARGUMENT', 'A master key version must look like v1, v2, ...');
    const inUse = await this.keyVersionsInUse();
    const wrappedUnder = inUse[keyVersion] ?? 0;
    const activeKeyVersion = this.#ring.activeVersion;
    const reason = keyVersion === activeKeyVersion ? 'active' : wrappedUnder > 0 ? 'in_use' : 'not_in_use';
    return { keyVersion, activeKeyVersion, retirable: reason === 'not_in_use', reason, wrappedUnder, inUse };
  }

  /**
   * {@link CredentialsVault.retireCheck} that refuses: call it before removing a master key version from the ring.
   *
   * @returns the passing check.
   * @throws VaultError `VAULT.KEY_VERSION_ACTIVE` when it is the active version;
   *   `VAULT.KEY_VERSION_IN_USE` when credentials are still wrapped under it (details: `credentials`
   *   and `inUse`, for example `v1=3, v2=5`); `VAULT.INVALID_ARGUMENT` for a bad version name.
   */
  async assertRetirable(keyVersion: string): Promise<RetireCheck> {
    const check = await this.retireCheck(keyVersion);
    const inUse =
      Object.entries(check.inUse)
        .map(([v, n]) => `${v}=${n}`)
        .join(', ') || 'none';
    if (check.reason === 'active') {
      throw new VaultError('VAULT.KEY_VERSION_ACTIVE', `Master key version ${keyVersion} is active; make another version active and rewrap first`, {
        keyVersion,
        credentials: check.wrappedUnder,
        inUse,
      });
    }
    if (check.reason === 'in_use') {
      throw new VaultError(
        'VAULT.KEY_VERSION_IN_USE',
        `Master key version ${keyVersion} still wraps ${check.wrappedUnder} credential(s) (in use: ${inUse}); rewrap first`,
        { keyVersion, credentials: check.wrappedUnder, inUse },
      );
    }
    return check;
  }

  #seal(ref: CredentialVersionRef, plaintext: Buffer): CredentialEnvelope {
    const dataKey = generateKey();
    try {
      const secret = encryptSecret(dataKey, plaintext, ref);
      const { keyVersion, wrapped } = this.#ring.wrap(dataKey, ref);
      return { keyVersion, wrappedKey: wrapped, secret };
    } finally {
      dataKey.fill(0);
    }
  }

  #open(coordinates: CredentialRef, row: StoredCredential): Secret {
    const ref: CredentialVersionRef = { ...credentialCoordinates(coordinates), version: row.version };
    let dataKey: Buffer | undefined;
    let plaintext: Buffer | undefined;
    try {
      dataKey = this.#ring.unwrap(row.keyVersion, row.wrappedKey, ref);
      plaintext = decryptSecret(dataKey, row.secret, ref);
      return new Secret(plaintext.toString('utf8'));
    } catch (error) {
      if (!isVaultError(error)) throw error;
      const details = { ...ref, keyVersion: row.keyVersion };
      this.#logger.warn({ ...details, code: error.code }, 'vault.get.failed');
      throw new VaultError(error.code, `Credential ${describeCredential(ref)} (version ${ref.version}, key ${row.keyVersion}): ${error.message}`, details);
    } finally {
      dataKey?.fill(0);
      plaintext?.fill(0);
    }
  }
}

/**
 * The storage port of the vault. A store keeps one row per credential (provider, account, name):
 * its latest version and the encrypted envelope. It never sees a plaintext secret or an unwrapped
 * key; it only moves opaque bytes. Two stores implement it and pass the same contract suite:
 * {@link PostgresVaultStore} (production) and {@link InMemoryVaultStore} (unit tests).
 */
import type { CredentialRef } from './credential.js';
import type { SealedBox } from './crypto.js';

/** What a credential is wrapped with: the master key version and the wrapped data key. */
export interface WrappedKey {
  /** Master key version that wrapped the data key (for example `v2`). */
  readonly keyVersion: string;
  /** The data key, AES-256-GCM encrypted under that master key. */
  readonly wrappedKey: SealedBox;
}

/** The encrypted form of one credential version: the wrapped data key and the secret's ciphertext. */
export interface CredentialEnvelope extends WrappedKey {
  /** The secret, AES-256-GCM encrypted under the data key. */
  readonly secret: SealedBox;
}

/** What may be shown about a credential: never key material or ciphertext. */
export interface CredentialInfo extends CredentialRef {
  /** Credential version: 1 for the first put, +1 for each later put. */
  readonly version: number;
  /** Master key version its data key is wrapped under. */
  readonly keyVersion: string;
  /** First put. */
  readonly createdAt: Date;
  /** Latest put. */
  readonly updatedAt: Date;
  /** Latest wrap of the data key (latest put or rewrap). */
  readonly wrappedAt: Date;
}

/** A stored credential: its metadata and its envelope. */
export interface StoredCredential extends CredentialInfo, CredentialEnvelope {}

/** Selects credentials in {@link VaultStore.list}; an absent field matches everything. */
export interface CredentialFilter {
  readonly provider?: string;
  readonly account?: string;
}

/** Storage behind `CredentialsVault`. */
export interface VaultStore {
  /** The stored credential, or `undefined` when there is none. */
  read(ref: CredentialRef): Promise<StoredCredential | undefined>;

  /**
   * Stores `version` of a credential if its current version is `version - 1` (0: absent), as one
   * atomic compare-and-set. Sets `updatedAt` and `wrappedAt` to now, and `createdAt` on the first.
   *
   * @returns false when the current version is not `version - 1` (another writer won).
   */
  write(ref: CredentialRef, version: number, envelope: CredentialEnvelope): Promise<boolean>;

  /** Metadata of the credentials matching `filter`, ordered by provider, account, name. */
  list(filter?: CredentialFilter): Promise<CredentialInfo[]>;

  /**
   * Deletes a credential (every version: the store keeps only the latest).
   *
   * @returns false when there was none.
   */
  remove(ref: CredentialRef): Promise<boolean>;

  /**
   * Up to `limit` credentials whose data key is not wrapped under `keyVersion`, ordered by
   * provider, account, name, strictly after `after` in that order (keyset pagination).
   */
  findNotWrappedWith(keyVersion: string, after: CredentialRef | undefined, limit: number): Promise<StoredCredential[]>;

  /**
   * Replaces a credential's wrapped data key if it is still at `version` and wrapped under
   * `fromKeyVersion` (compare-and-set); sets `wrappedAt` to now. The secret's ciphertext is untouched.
   *
   * @returns false when the credential changed meanwhile (nothing written).
   */
  replaceWrap(ref: CredentialRef, version: number, fromKeyVersion: string, wrap: WrappedKey): Promise<boolean>;

  /** How many credentials are wrapped under each master key version (versions with none are absent). */
  countByKeyVersion(): Promise<Map<string, number>>;
}

/** Orders references by provider, then account, then name (UTF-16 code units, as `COLLATE "C"` for ASCII). */
export function compareCredentialRefs(a: CredentialRef, b: CredentialRef): number {
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return cmp(a.provider, b.provider) || cmp(a.account, b.account) || cmp(a.name, b.name);
}

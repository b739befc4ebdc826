import type { PoolClient } from '@settle/platform';
import type { SealedBox } from '../crypto.js';
import type { WrappedKey } from '../store.port.js';

/**
 * A data subject's key as stored (docs/privacy.md, "Crypto-shredding"): a random 256-bit data key
 * wrapped under the vault's active master key, found by `subjectRef` (an HMAC of the subject under
 * the index key, never the subject itself) and named by `keyId` in every value sealed under it.
 */
export interface StoredSubjectKey {
  readonly keyId: string;
  readonly subjectRef: string;
  /** `user` or `customer`: what kind of identifier the subject is (kept after erasure, for the record). */
  readonly kind: SubjectKind;
  readonly keyVersion: string;
  readonly wrappedKey: SealedBox;
  readonly createdAt: Date;
}

/** Whose key: a merchant's user (`user_id`, pseudonymous) or a customer known by email or phone alone (an unmatched payment). */
export type SubjectKind = 'user' | 'customer';

/** What a key id names: a key, a key destroyed by an erasure (with when), or nothing known. */
export type SubjectKeyLookup = { status: 'present'; key: StoredSubjectKey } | { status: 'erased'; erasedAt: Date } | { status: 'unknown' };

/**
 * Where subjects' keys are kept: PostgreSQL ({@link PostgresSubjectKeyStore}) in production,
 * memory in unit tests; both pass `subject-keys.contract.ts`.
 */
export interface SubjectKeyStore {
  /** The key of a subject, by its reference, or `null` (none yet, or erased). */
  findBySubject(subjectRef: string): Promise<StoredSubjectKey | null>;
  /** A key by its id: present, erased, or unknown. */
  lookup(keyId: string): Promise<SubjectKeyLookup>;
  /**
   * Stores `key` unless the subject has one; concurrent callers all get the one stored.
   *
   * @returns the subject's key (this one, or the one another caller stored first).
   */
  insertIfAbsent(key: StoredSubjectKey): Promise<StoredSubjectKey>;
  /**
   * Destroys the subject's key: the row (wrapped key and subject reference) is deleted and a
   * tombstone of its id and kind is kept, so values sealed under it read as erased, not missing.
   *
   * @returns the destroyed key's id and kind, or `null` when the subject has no key.
   */
  erase(subjectRef: string, at: Date): Promise<{ keyId: string; kind: SubjectKind } | null>;
  /**
   * Destroys keys by id, as {@link erase} does, in the caller's transaction `tx` when given (so an
   * erasure destroys its keys in the same commit as its other changes; PostgreSQL only, the
   * memory store has none). Ids already erased or never stored are skipped.
   *
   * @returns the keys destroyed now, with their kind.
   */
  eraseKeys(keyIds: readonly string[], at: Date, tx?: PoolClient): Promise<Array<{ keyId: string; kind: SubjectKind }>>;
  /**
   * Up to `limit` keys whose data key is not wrapped under master key version `keyVersion`,
   * ordered by key id, strictly after `afterKeyId` (keyset pagination; a rewrap's pages).
   */
  findNotWrappedWith(keyVersion: string, afterKeyId: string | undefined, limit: number): Promise<StoredSubjectKey[]>;
  /**
   * Replaces a key's wrapped data key if it is still stored and wrapped under `fromKeyVersion`,
   * the version it was read under (compare-and-set). Nothing else of the key changes.
   *
   * @returns false when the key changed meanwhile (erased, or re-wrapped by another run): nothing written.
   */
  replaceWrap(keyId: string, fromKeyVersion: string, wrap: WrappedKey): Promise<boolean>;
  /** How many keys are wrapped under each master key version (versions with none are absent; erased keys are not counted). */
  countByKeyVersion(): Promise<Map<string, number>>;
}

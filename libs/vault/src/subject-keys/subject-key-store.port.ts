import type { SealedBox } from '../crypto.js';

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
}

import type { PoolClient } from '@settle/platform';
import { createHmac, hkdfSync, randomUUID } from 'node:crypto';
import { generateKey, KEY_BYTES, open, seal } from '../crypto.js';
import { isVaultError, VaultError, type VaultErrorCode } from '../errors.js';
import type { MasterKeyRing } from '../key-ring.js';
import { compareKeyVersions, isKeyVersion } from '../key-version.js';
import type { StoredSubjectKey, SubjectKeyStore, SubjectKind } from './subject-key-store.port.js';

/**
 * Crypto-shredding of personal data (docs/privacy.md, "Crypto-shredding"; GDPR article 17):
 * every personal value Settle keeps where it cannot delete it (the immutable ledger, Kafka) is
 * sealed under its data subject's own key, and erasing the subject destroys the key, which turns
 * every copy into noise while the hashes over them stay valid.
 *
 * - A subject is a merchant's user (`user_id`) or, for a payment with no user (an unmatched
 *   payment), the customer's normalised email or E.164 phone.
 * - Each subject has one random 256-bit data key, wrapped under the vault's active master key
 *   (rotated and re-wrapped like every vault secret: {@link SubjectKeys.rewrap}, then
 *   {@link SubjectKeys.assertRetirable} before an old master key version leaves the ring). From it HKDF-SHA-256 derives an AES-256-GCM
 *   key (`settle.subject/seal`) and an HMAC-SHA-256 key (`settle.subject/evidence`).
 * - The key is found by `subjectRef`, an HMAC-SHA-256 of the subject under the index key (a
 *   32-byte secret of the deployment, kept in the vault): the subject itself is never stored, and
 *   the reference is deleted with the key.
 * - A sealed value, `sealed:v1:<key id>:<base64url(iv | ciphertext | tag)>`, binds its field name
 *   as authenticated data: a value moved to another field does not open.
 * - Evidence, `hmac:v1:<key id>:<hex>`, is a keyed hash of a field's normalised value under the
 *   subject's own key: two records of the same subject compare equal by it, and after erasure it
 *   can no more be linked to anyone (a key shared by every subject would leave it linkable).
 */
export class SubjectKeys {
  /**
   * @param indexKey - the 32-byte index key (from the vault; the same for every reader of these keys).
   * @throws VaultError `VAULT.INVALID_ARGUMENT` when the index key is not 32 bytes.
   */
  constructor(
    private readonly store: SubjectKeyStore,
    private readonly ring: MasterKeyRing,
    private readonly indexKey: Buffer,
    private readonly now: () => Date = () => new Date(),
  ) {
    if (indexKey.length !== KEY_BYTES) throw new VaultError('VAULT.INVALID_ARGUMENT', 'the subject index key is 32 bytes');
  }

  /** The reference a subject's key is found by: HMAC-SHA-256 (hex) of `<kind>:<id>` under the index key. */
  subjectRef(subject: Subject): string {
    assertSubject(subject);
    return createHmac('sha256', this.indexKey).update(`${subject.kind}:${subject.id}`, 'utf8').digest('hex');
  }

  /**
   * The subject's key, made and stored on first use (concurrent first uses agree on one).
   *
   * @throws VaultError `VAULT.INVALID_ARGUMENT` for an empty subject id; the store's errors.
   */
  async keyFor(subject: Subject): Promise<SubjectKey> {
    const ref = this.subjectRef(subject);
    const stored = (await this.store.findBySubject(ref)) ?? (await this.store.insertIfAbsent(this.newKey(ref, subject.kind)));
    return this.open(stored);
  }

  /** A fresh data key for a subject, wrapped under the active master key (the plaintext key zeroed). */
  private newKey(subjectRef: string, kind: SubjectKind): StoredSubjectKey {
    const keyId = randomUUID();
    const dataKey = generateKey();
    try {
      const { keyVersion, wrapped } = this.ring.wrap(dataKey, wrapRef(keyId));
      return { keyId, subjectRef, kind, keyVersion, wrappedKey: wrapped, createdAt: this.now() };
    } finally {
      dataKey.fill(0);
    }
  }

  /**
   * Opens a sealed value.
   *
   * @returns the value; `erased` when its subject was erased (the key destroyed); `unavailable`
   *   when its key is neither stored nor erased (a restore that lost keys: an alert, never a crash).
   * @throws VaultError `VAULT.MALFORMED_ENVELOPE` for text that is not a sealed value;
   *   `VAULT.INTEGRITY_CHECK_FAILED` for a value altered, or moved to another field.
   */
  async reveal(field: string, sealed: string): Promise<{ status: 'open'; value: string } | { status: 'erased'; erasedAt: Date } | { status: 'unavailable' }> {
    const { keyId } = parseSealed(sealed);
    const found = await this.store.lookup(keyId);
    if (found.status === 'erased') return { status: 'erased', erasedAt: found.erasedAt };
    if (found.status === 'unknown') return { status: 'unavailable' };
    return { status: 'open', value: this.open(found.key).reveal(field, sealed) };
  }

  /**
   * Erases a subject: destroys its key. Every value sealed under it, wherever it was copied,
   * reads as erased from now on; its evidence can no more be recomputed.
   *
   * @returns the destroyed key's id and kind (for the `SubjectErased` record, which names no
   *   subject), or `null` when the subject had no key (nothing of it was sealed).
   */
  async erase(subject: Subject): Promise<{ keyId: string; kind: SubjectKind } | null> {
    return this.store.erase(this.subjectRef(subject), this.now());
  }

  /** The id of a subject's key, or `null` when it has none (none made yet, or erased); makes nothing. */
  async keyIdOf(subject: Subject): Promise<string | null> {
    return (await this.store.findBySubject(this.subjectRef(subject)))?.keyId ?? null;
  }

  /**
   * Destroys keys by id (an erasure that looked them up first, or one re-applied after a restore
   * from the ids its `SubjectErased` fact records), in the caller's PostgreSQL transaction `tx`
   * when given, so they go in the same commit as the erasure's other changes.
   *
   * @returns the keys destroyed now (ids already erased or unknown are skipped).
   */
  async eraseKeys(keyIds: readonly string[], tx?: PoolClient): Promise<Array<{ keyId: string; kind: SubjectKind }>> {
    return this.store.eraseKeys(keyIds, this.now(), tx);
  }

  /**
   * Re-wraps every key not wrapped under the ring's active master key version (rotation, as
   * `CredentialsVault.rewrap` does for credentials): unwrap under its version, wrap under the
   * active one, compare-and-set on the version it was read under. The data key itself does not
   * change, so every value sealed under it still opens; it is in memory only while it is
   * re-wrapped and zeroed after. A key erased or re-wrapped by another run meanwhile is counted in
   * `skipped` and left alone. Idempotent: a second run finds nothing to do. Keys that cannot be
   * unwrapped are reported in `failed` (by key id, never the subject) and left as they are; the
   * run goes on with the others.
   *
   * @param options.batchSize - keys read per query (default 100).
   * @throws VaultError `VAULT.INVALID_ARGUMENT` for a batch size below 1; the store's errors as they are.
   */
  async rewrap(options: { batchSize?: number } = {}): Promise<SubjectKeysRewrapResult> {
    const batchSize = options.batchSize ?? 100;
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new VaultError('VAULT.INVALID_ARGUMENT', 'batchSize must be an integer of at least 1');
    const active = this.ring.activeVersion;
    const alreadyActive = (await this.store.countByKeyVersion()).get(active) ?? 0;
    let rewrapped = 0;
    let skipped = 0;
    const failed: SubjectKeyRewrapFailure[] = [];
    let after: string | undefined;
    for (;;) {
      const batch = await this.store.findNotWrappedWith(active, after, batchSize);
      for (const stored of batch) {
        after = stored.keyId;
        let dataKey: Buffer | undefined;
        try {
          dataKey = this.ring.unwrap(stored.keyVersion, stored.wrappedKey, wrapRef(stored.keyId));
          const { keyVersion, wrapped } = this.ring.wrap(dataKey, wrapRef(stored.keyId));
          if (await this.store.replaceWrap(stored.keyId, stored.keyVersion, { keyVersion, wrappedKey: wrapped })) rewrapped += 1;
          else skipped += 1;
        } catch (error) {
          if (!isVaultError(error)) throw error;
          failed.push({ keyId: stored.keyId, keyVersion: stored.keyVersion, code: error.code });
        } finally {
          dataKey?.fill(0);
        }
      }
      if (batch.length < batchSize) break;
    }
    return { activeKeyVersion: active, alreadyActive, rewrapped, skipped, failed };
  }

  /** Keys per master key version in use, lowest version first (versions with none are absent; erased keys are not counted). */
  async keyVersionsInUse(): Promise<Record<string, number>> {
    const counts = await this.store.countByKeyVersion();
    const versions = [...counts.keys()].sort((a, b) => (isKeyVersion(a) && isKeyVersion(b) ? compareKeyVersions(a, b) : a < b ? -1 : 1));
    return Object.fromEntries(versions.map((v) => [v, counts.get(v)!]));
  }

  /**
   * Refuses to let master key version `keyVersion` be retired while it is the ring's active
   * version or any subject's key is wrapped under it (`CredentialsVault.assertRetirable` checks
   * the vault's credentials; the privacy vault needs both).
   *
   * @returns the number of keys per version in use.
   * @throws VaultError `VAULT.KEY_VERSION_ACTIVE` when it is the active version;
   *   `VAULT.KEY_VERSION_IN_USE` when subjects' keys are still wrapped under it (details:
   *   `subjectKeys` and `inUse`, for example `v1=3, v2=5`); `VAULT.INVALID_ARGUMENT` for a bad version name.
   */
  async assertRetirable(keyVersion: string): Promise<{ keyVersion: string; inUse: Record<string, number> }> {
    if (!isKeyVersion(keyVersion)) throw new VaultError('VAULT.INVALID_ARGUMENT', 'A master key version must look like v1, v2, ...');
    const inUse = await this.keyVersionsInUse();
    const described =
      Object.entries(inUse)
        .map(([v, n]) => `${v}=${n}`)
        .join(', ') || 'none';
    const wrappedUnder = inUse[keyVersion] ?? 0;
    if (keyVersion === this.ring.activeVersion) {
      throw new VaultError('VAULT.KEY_VERSION_ACTIVE', `Master key version ${keyVersion} is active; make another version active and rewrap first`, {
        keyVersion,
        subjectKeys: wrappedUnder,
        inUse: described,
      });
    }
    if (wrappedUnder > 0) {
      throw new VaultError(
        'VAULT.KEY_VERSION_IN_USE',
        `Master key version ${keyVersion} still wraps ${wrappedUnder} subject key(s) (in use: ${described}); rewrap first`,
        { keyVersion, subjectKeys: wrappedUnder, inUse: described },
      );
    }
    return { keyVersion, inUse };
  }

  private open(stored: StoredSubjectKey): SubjectKey {
    const dataKey = this.ring.unwrap(stored.keyVersion, stored.wrappedKey, wrapRef(stored.keyId));
    try {
      return new SubjectKey(stored.keyId, derive(dataKey, 'settle.subject/seal'), derive(dataKey, 'settle.subject/evidence'));
    } finally {
      dataKey.fill(0);
    }
  }
}

/** A subject's key {@link SubjectKeys.rewrap} could not re-wrap, and why (a `VAULT.*` code). Names the key, never the subject. */
export interface SubjectKeyRewrapFailure {
  readonly keyId: string;
  readonly keyVersion: string;
  readonly code: VaultErrorCode;
}

/** Counts of one {@link SubjectKeys.rewrap} run. */
export interface SubjectKeysRewrapResult {
  /** The master key version the keys were re-wrapped under. */
  readonly activeKeyVersion: string;
  /** Keys already wrapped under the active version when the run started. */
  readonly alreadyActive: number;
  /** Keys re-wrapped by this run. */
  readonly rewrapped: number;
  /** Keys erased or re-wrapped by another run while this one handled them (run again to be sure). */
  readonly skipped: number;
  /** Keys that could not be unwrapped (unknown master key version, integrity failure). */
  readonly failed: readonly SubjectKeyRewrapFailure[];
}

/** A data subject: a merchant's user, or a customer known by email or phone alone (normalised: lower-case email, E.164 phone). */
export interface Subject {
  readonly kind: SubjectKind;
  readonly id: string;
}

/** One subject's key, unwrapped: seals values and computes evidence. Hold it only for the work in hand. */
export class SubjectKey {
  /** @internal made by {@link SubjectKeys.keyFor}. */
  constructor(
    readonly keyId: string,
    private readonly sealKey: Buffer,
    private readonly evidenceKey: Buffer,
  ) {}

  /** Seals a value of `field` (for example `customer_email`): `sealed:v1:<key id>:<base64url>`. */
  seal(field: string, value: string): string {
    const box = seal(this.sealKey, Buffer.from(value, 'utf8'), aad(this.keyId, field));
    return `sealed:v1:${this.keyId}:${Buffer.concat([box.iv, box.ciphertext, box.tag]).toString('base64url')}`;
  }

  /**
   * Opens a value this key sealed.
   *
   * @throws VaultError `VAULT.MALFORMED_ENVELOPE` (not a sealed value, or another key's);
   *   `VAULT.INTEGRITY_CHECK_FAILED` (altered, or sealed for another field).
   */
  reveal(field: string, sealed: string): string {
    const { keyId, box } = parseSealed(sealed);
    if (keyId !== this.keyId) throw new VaultError('VAULT.MALFORMED_ENVELOPE', 'the value is sealed under another subject’s key');
    const plaintext = open(this.sealKey, box, aad(this.keyId, field));
    try {
      return plaintext.toString('utf8');
    } finally {
      plaintext.fill(0);
    }
  }

  /** Evidence of a normalised value of `field`: `hmac:v1:<key id>:<hex>`, equal for equal values of this subject. */
  evidence(field: string, normalised: string): string {
    return `hmac:v1:${this.keyId}:${createHmac('sha256', this.evidenceKey).update(`${field}\u0000${normalised}`, 'utf8').digest('hex')}`;
  }
}

const SEALED = /^sealed:v1:([0-9a-f-]{36}):([A-Za-z0-9_-]+)$/;

/** Whether a text is a sealed value (rather than a plaintext written before sealing existed). */
export function isSealedValue(text: string): boolean {
  return SEALED.test(text);
}

function parseSealed(sealed: string): { keyId: string; box: { iv: Buffer; ciphertext: Buffer; tag: Buffer } } {
  const match = SEALED.exec(sealed);
  const bytes = match ? Buffer.from(match[2]!, 'base64url') : Buffer.alloc(0);
  if (!match || bytes.length < 28) throw new VaultError('VAULT.MALFORMED_ENVELOPE', 'not a sealed value (sealed:v1:<key id>:<base64url>)');
  return { keyId: match[1]!, box: { iv: bytes.subarray(0, 12), ciphertext: bytes.subarray(12, bytes.length - 16), tag: bytes.subarray(bytes.length - 16) } };
}

function derive(dataKey: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), info, KEY_BYTES));
}

function aad(keyId: string, field: string): Buffer {
  return Buffer.from(JSON.stringify(['settle.subject/1', keyId, field]), 'utf8');
}

/** The ring binds a wrapped key to a credential reference: a subject key's is its id. */
function wrapRef(keyId: string) {
  return { provider: 'settle', account: 'subject', name: keyId, version: 1 };
}

function assertSubject(subject: Subject): void {
  if (subject.kind !== 'user' && subject.kind !== 'customer') throw new VaultError('VAULT.INVALID_ARGUMENT', 'a subject is a user or a customer');
  if (typeof subject.id !== 'string' || subject.id.length === 0) throw new VaultError('VAULT.INVALID_ARGUMENT', 'a subject has a non-empty id');
}

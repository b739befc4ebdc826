import type { WrappedKey } from '../store.port.js';
import type { StoredSubjectKey, SubjectKeyLookup, SubjectKeyStore, SubjectKind } from './subject-key-store.port.js';

/** In-memory {@link SubjectKeyStore} for unit tests; passes the contract suite {@link PostgresSubjectKeyStore} passes. Not durable. */
export class InMemorySubjectKeyStore implements SubjectKeyStore {
  private readonly keys = new Map<string, StoredSubjectKey>();
  private readonly tombstones = new Map<string, { erasedAt: Date; kind: SubjectKind }>();

  async findBySubject(subjectRef: string): Promise<StoredSubjectKey | null> {
    return this.bySubject(subjectRef);
  }

  async lookup(keyId: string): Promise<SubjectKeyLookup> {
    const key = this.keys.get(keyId);
    if (key) return { status: 'present', key };
    const erased = this.tombstones.get(keyId);
    return erased ? { status: 'erased', erasedAt: new Date(erased.erasedAt) } : { status: 'unknown' };
  }

  async insertIfAbsent(key: StoredSubjectKey): Promise<StoredSubjectKey> {
    // Looked up and stored without yielding, as a unique index would: concurrent callers agree.
    const existing = this.bySubject(key.subjectRef);
    if (existing) return existing;
    this.keys.set(key.keyId, key);
    return key;
  }

  async erase(subjectRef: string, at: Date): Promise<{ keyId: string; kind: SubjectKind } | null> {
    const key = this.bySubject(subjectRef);
    if (!key) return null;
    this.keys.delete(key.keyId);
    this.tombstones.set(key.keyId, { erasedAt: at, kind: key.kind });
    return { keyId: key.keyId, kind: key.kind };
  }

  async eraseKeys(keyIds: readonly string[], at: Date): Promise<Array<{ keyId: string; kind: SubjectKind }>> {
    const erased: Array<{ keyId: string; kind: SubjectKind }> = [];
    for (const keyId of new Set(keyIds)) {
      const key = this.keys.get(keyId);
      if (!key) continue;
      this.keys.delete(keyId);
      this.tombstones.set(keyId, { erasedAt: at, kind: key.kind });
      erased.push({ keyId, kind: key.kind });
    }
    return erased;
  }

  async findNotWrappedWith(keyVersion: string, afterKeyId: string | undefined, limit: number): Promise<StoredSubjectKey[]> {
    return [...this.keys.values()]
      .filter((k) => k.keyVersion !== keyVersion && (afterKeyId === undefined || k.keyId > afterKeyId))
      .sort((a, b) => (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : 0))
      .slice(0, limit);
  }

  async replaceWrap(keyId: string, fromKeyVersion: string, wrap: WrappedKey): Promise<boolean> {
    const key = this.keys.get(keyId);
    if (!key || key.keyVersion !== fromKeyVersion) return false;
    this.keys.set(keyId, { ...key, keyVersion: wrap.keyVersion, wrappedKey: wrap.wrappedKey });
    return true;
  }

  async countByKeyVersion(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const k of this.keys.values()) counts.set(k.keyVersion, (counts.get(k.keyVersion) ?? 0) + 1);
    return counts;
  }

  private bySubject(subjectRef: string): StoredSubjectKey | null {
    return [...this.keys.values()].find((k) => k.subjectRef === subjectRef) ?? null;
  }
}

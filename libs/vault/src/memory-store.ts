import type { CredentialRef } from './credential.js';
import type { SealedBox } from './crypto.js';
import {
  compareCredentialRefs,
  type CredentialEnvelope,
  type CredentialFilter,
  type CredentialInfo,
  type StoredCredential,
  type VaultStore,
  type WrappedKey,
} from './store.port.js';

const keyOf = (ref: CredentialRef) => JSON.stringify([ref.provider, ref.account, ref.name]);
const copyBox = (box: SealedBox): SealedBox => ({ iv: Buffer.from(box.iv), ciphertext: Buffer.from(box.ciphertext), tag: Buffer.from(box.tag) });
const copy = (c: StoredCredential): StoredCredential => ({
  ...c,
  wrappedKey: copyBox(c.wrappedKey),
  secret: copyBox(c.secret),
  createdAt: new Date(c.createdAt),
  updatedAt: new Date(c.updatedAt),
  wrappedAt: new Date(c.wrappedAt),
});
const info = (c: StoredCredential): CredentialInfo => ({
  provider: c.provider,
  account: c.account,
  name: c.name,
  version: c.version,
  keyVersion: c.keyVersion,
  createdAt: new Date(c.createdAt),
  updatedAt: new Date(c.updatedAt),
  wrappedAt: new Date(c.wrappedAt),
});

/**
 * In-memory {@link VaultStore} for unit tests and tools. Passes the same contract suite as
 * {@link PostgresVaultStore}; holds copies, so callers cannot change stored bytes by reference.
 * Not durable and not shared between processes.
 */
export class InMemoryVaultStore implements VaultStore {
  private readonly rows = new Map<string, StoredCredential>();

  async read(ref: CredentialRef): Promise<StoredCredential | undefined> {
    const row = this.rows.get(keyOf(ref));
    return row ? copy(row) : undefined;
  }

  async write(ref: CredentialRef, version: number, envelope: CredentialEnvelope): Promise<boolean> {
    const current = this.rows.get(keyOf(ref));
    if ((current?.version ?? 0) !== version - 1) return false;
    const now = new Date();
    this.rows.set(keyOf(ref), {
      provider: ref.provider,
      account: ref.account,
      name: ref.name,
      version,
      keyVersion: envelope.keyVersion,
      wrappedKey: copyBox(envelope.wrappedKey),
      secret: copyBox(envelope.secret),
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
      wrappedAt: now,
    });
    return true;
  }

  async remove(ref: CredentialRef): Promise<boolean> {
    return this.rows.delete(keyOf(ref));
  }

  async list(filter: CredentialFilter = {}): Promise<CredentialInfo[]> {
    return [...this.rows.values()]
      .filter((c) => (filter.provider === undefined || c.provider === filter.provider) && (filter.account === undefined || c.account === filter.account))
      .sort(compareCredentialRefs)
      .map(info);
  }

  async findNotWrappedWith(keyVersion: string, after: CredentialRef | undefined, limit: number): Promise<StoredCredential[]> {
    return [...this.rows.values()]
      .filter((c) => c.keyVersion !== keyVersion && (after === undefined || compareCredentialRefs(c, after) > 0))
      .sort(compareCredentialRefs)
      .slice(0, limit)
      .map(copy);
  }

  async replaceWrap(ref: CredentialRef, version: number, fromKeyVersion: string, wrap: WrappedKey): Promise<boolean> {
    const current = this.rows.get(keyOf(ref));
    if (!current || current.version !== version || current.keyVersion !== fromKeyVersion) return false;
    this.rows.set(keyOf(ref), { ...current, keyVersion: wrap.keyVersion, wrappedKey: copyBox(wrap.wrappedKey), wrappedAt: new Date() });
    return true;
  }

  async countByKeyVersion(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const c of this.rows.values()) counts.set(c.keyVersion, (counts.get(c.keyVersion) ?? 0) + 1);
    return counts;
  }
}

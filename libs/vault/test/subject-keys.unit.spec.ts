/**
 * Subjects' keys over the in-memory store (the contract the PostgreSQL store passes too), and what
 * the module refuses: a short index key, an empty subject, text that is not a sealed value.
 */
import { describe, expect, it } from 'vitest';
import { generateKey, InMemorySubjectKeyStore, isSealedValue, MasterKeyRing, SubjectKeys } from '@settle/vault';
import { subjectKeysContract } from './subject-keys.contract.js';

subjectKeysContract('in memory', async () => new InMemorySubjectKeyStore());

describe('SubjectKeys', () => {
  const ring = MasterKeyRing.from([['v1', generateKey()]]);

  it('refuses an index key that is not 32 bytes, and an empty subject', async () => {
    expect(() => new SubjectKeys(new InMemorySubjectKeyStore(), ring, Buffer.alloc(16))).toThrow(
      expect.objectContaining({ code: 'VAULT.INVALID_ARGUMENT' }) as unknown,
    );
    const keys = new SubjectKeys(new InMemorySubjectKeyStore(), ring, generateKey());
    await expect(keys.keyFor({ kind: 'user', id: '' })).rejects.toMatchObject({ code: 'VAULT.INVALID_ARGUMENT' });
  });

  it('refuses text that is not a sealed value, and tells a sealed value from plaintext', async () => {
    const keys = new SubjectKeys(new InMemorySubjectKeyStore(), ring, generateKey());
    await expect(keys.reveal('customer_email', 'carol@example.com')).rejects.toMatchObject({ code: 'VAULT.MALFORMED_ENVELOPE' });
    expect(isSealedValue('carol@example.com')).toBe(false);
    expect(isSealedValue((await keys.keyFor({ kind: 'user', id: 'u' })).seal('f', 'v'))).toBe(true);
  });

  it('finds a key by a reference that never holds the subject', () => {
    const keys = new SubjectKeys(new InMemorySubjectKeyStore(), ring, generateKey());
    const ref = keys.subjectRef({ kind: 'customer', id: 'carol@example.com' });
    expect(ref).toMatch(/^[0-9a-f]{64}$/);
    expect(ref).not.toBe(new SubjectKeys(new InMemorySubjectKeyStore(), ring, generateKey()).subjectRef({ kind: 'customer', id: 'carol@example.com' }));
  });
});

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateKey, isSealedValue, MasterKeyRing, SubjectKeys, type SubjectKeyStore } from '@settle/vault';

/** A customer's email, random per test (never a real one). */
const email = () => `c${randomBytes(4).toString('hex')}@example.com`;

/**
 * The contract of subjects' keys (docs/privacy.md, "Crypto-shredding"), over any
 * {@link SubjectKeyStore}: the in-memory one and PostgreSQL's pass the same cases.
 */
export function subjectKeysContract(name: string, emptyStore: () => Promise<SubjectKeyStore>): void {
  describe(`subjects' keys (${name})`, () => {
    const ring = MasterKeyRing.from([['v1', generateKey()]]);
    const indexKey = generateKey();
    const keysOver = async () => new SubjectKeys(await emptyStore(), ring, indexKey);

    it('seals a subject’s values under one key of its own, that opens them and no other subject’s', async () => {
      const keys = await keysOver();
      const address = email();
      const carol = await keys.keyFor({ kind: 'user', id: 'user-carol' });
      const again = await keys.keyFor({ kind: 'user', id: 'user-carol' });
      const dave = await keys.keyFor({ kind: 'user', id: 'user-dave' });
      expect(again.keyId).toBe(carol.keyId);
      expect(dave.keyId).not.toBe(carol.keyId);
      const sealed = carol.seal('customer_email', address);
      expect(isSealedValue(sealed)).toBe(true);
      expect(sealed).not.toContain(address);
      expect(sealed).not.toContain(address.split('@')[0]);
      expect(await keys.reveal('customer_email', sealed)).toEqual({ status: 'open', value: address });
      expect(() => dave.reveal('customer_email', sealed)).toThrow(expect.objectContaining({ code: 'VAULT.MALFORMED_ENVELOPE' }) as unknown);
      // A value moved to another field does not open.
      await expect(keys.reveal('customer_phone', sealed)).rejects.toMatchObject({ code: 'VAULT.INTEGRITY_CHECK_FAILED' });
      // Sealing twice gives different text (a fresh IV), both open.
      expect(carol.seal('customer_email', address)).not.toBe(sealed);
    });

    it('gives evidence equal for equal values of one subject, and unlinkable across subjects', async () => {
      const keys = await keysOver();
      const address = email();
      const carol = await keys.keyFor({ kind: 'user', id: 'user-carol' });
      const dave = await keys.keyFor({ kind: 'user', id: 'user-dave' });
      expect(carol.evidence('customer_email', address)).toBe(carol.evidence('customer_email', address));
      expect(carol.evidence('customer_email', address)).not.toBe(carol.evidence('customer_email', email()));
      expect(carol.evidence('customer_email', address).split(':')[3]).not.toBe(dave.evidence('customer_email', address).split(':')[3]);
      expect(carol.evidence('customer_email', address)).not.toContain(address);
    });

    it('erases a subject: its values read as erased, its evidence can no more be made, other subjects are untouched', async () => {
      const keys = await keysOver();
      const address = email();
      const customer = { kind: 'customer' as const, id: address };
      const key = await keys.keyFor(customer);
      const sealed = key.seal('customer_email', address);
      const other = await keys.keyFor({ kind: 'user', id: 'user-erin' });
      const kept = other.seal('customer_email', 'erin@example.com');
      expect(await keys.erase(customer)).toEqual({ keyId: key.keyId, kind: 'customer' });
      expect(await keys.reveal('customer_email', sealed)).toMatchObject({ status: 'erased' });
      expect(await keys.reveal('customer_email', kept)).toEqual({ status: 'open', value: 'erin@example.com' });
      expect(await keys.erase(customer)).toBeNull();
      // The same subject seen again gets a new key: nothing links it to what was erased.
      const fresh = await keys.keyFor(customer);
      expect(fresh.keyId).not.toBe(key.keyId);
      expect(fresh.evidence('customer_email', address)).not.toBe(key.evidence('customer_email', address));
    });

    it('reads a value whose key is neither stored nor erased as unavailable, never a crash', async () => {
      const keys = await keysOver();
      const elsewhere = await new SubjectKeys(await emptyStore(), ring, indexKey).keyFor({ kind: 'user', id: 'user-frank' });
      const sealed = elsewhere.seal('customer_email', email());
      await emptyStore();
      expect(await keys.reveal('customer_email', sealed)).toEqual({ status: 'unavailable' });
    });

    it('agrees on one key when a subject’s first uses race', async () => {
      const keys = await keysOver();
      const made = await Promise.all(Array.from({ length: 8 }, () => keys.keyFor({ kind: 'user', id: 'user-grace' })));
      expect(new Set(made.map((k) => k.keyId)).size).toBe(1);
    });
  });
}

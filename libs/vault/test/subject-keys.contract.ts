import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateKey, isSealedValue, MasterKeyRing, SubjectKeys, type StoredSubjectKey, type SubjectKeyStore } from '@settle/vault';

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

    it('destroys keys by id (an erasure that looked them up first, or one re-applied), skipping ids erased or unknown', async () => {
      const keys = await keysOver();
      const carol = { kind: 'customer' as const, id: email() };
      const key = await keys.keyFor(carol);
      const sealed = key.seal('customer_email', carol.id);
      const kept = await keys.keyFor({ kind: 'user', id: 'user-henry' });
      expect(await keys.keyIdOf(carol)).toBe(key.keyId);
      expect(await keys.keyIdOf({ kind: 'user', id: 'user-nobody' })).toBeNull();
      expect(await keys.eraseKeys([key.keyId, key.keyId, '00000000-0000-4000-8000-000000000000'])).toEqual([{ keyId: key.keyId, kind: 'customer' }]);
      expect(await keys.reveal('customer_email', sealed)).toMatchObject({ status: 'erased' });
      expect(await keys.keyIdOf(carol)).toBeNull();
      expect(await keys.keyIdOf({ kind: 'user', id: 'user-henry' })).toBe(kept.keyId);
      expect(await keys.eraseKeys([key.keyId])).toEqual([]);
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

    describe('rotation under the master keys', () => {
      const [k1, k2, k9] = [generateKey(), generateKey(), generateKey()];
      const v1 = MasterKeyRing.from([['v1', k1]]);
      const v1v2 = MasterKeyRing.from([
        ['v1', k1],
        ['v2', k2],
      ]);
      const v2 = MasterKeyRing.from([['v2', k2]]);
      const customers = (n: number) => Array.from({ length: n }, () => ({ kind: 'customer' as const, id: email() }));

      it('lists the keys not under a version by key id, page by page, and counts the keys per version', async () => {
        const store = await emptyStore();
        for (const c of customers(5)) await new SubjectKeys(store, v1, indexKey).keyFor(c);
        for (const c of customers(2)) await new SubjectKeys(store, v1v2, indexKey).keyFor(c);
        expect(Object.fromEntries(await store.countByKeyVersion())).toEqual({ v1: 5, v2: 2 });
        const first = await store.findNotWrappedWith('v2', undefined, 3);
        const rest = await store.findNotWrappedWith('v2', first[2]!.keyId, 3);
        const ids = [...first, ...rest].map((k) => k.keyId);
        expect(ids).toHaveLength(5);
        expect([...ids].sort()).toEqual(ids);
        expect(new Set([...first, ...rest].map((k) => k.keyVersion))).toEqual(new Set(['v1']));
        expect(await store.findNotWrappedWith('v2', ids[4], 3)).toEqual([]);
        expect(await store.findNotWrappedWith('v1', undefined, 10)).toHaveLength(2);
      });

      it('replaces a key’s wrapping only while it is under the version it was read under', async () => {
        const store = await emptyStore();
        const keys = new SubjectKeys(store, v1, indexKey);
        const [erin, frank] = customers(2);
        await keys.keyFor(erin!);
        await keys.keyFor(frank!);
        const [a, b] = (await store.findNotWrappedWith('v2', undefined, 10)) as [StoredSubjectKey, StoredSubjectKey];
        // The store moves opaque bytes: any 32-byte wrapping does for this.
        const wrap = { keyVersion: 'v2', wrappedKey: b.wrappedKey };
        expect(await store.replaceWrap(a.keyId, 'v1', { keyVersion: 'v2', wrappedKey: a.wrappedKey })).toBe(true);
        // Read under v1, re-wrapped meanwhile: refused.
        expect(await store.replaceWrap(a.keyId, 'v1', wrap)).toBe(false);
        expect(await store.lookup(a.keyId)).toMatchObject({ status: 'present', key: { keyId: a.keyId, keyVersion: 'v2', subjectRef: a.subjectRef } });
        // Erased meanwhile: refused, and nothing comes back.
        await store.erase(b.subjectRef, new Date());
        expect(await store.replaceWrap(b.keyId, 'v1', wrap)).toBe(false);
        expect(await store.lookup(b.keyId)).toMatchObject({ status: 'erased' });
        expect(Object.fromEntries(await store.countByKeyVersion())).toEqual({ v2: 1 });
      });

      it('rewraps every key under the active version: the values sealed before open with the new key alone, a second run does nothing', async () => {
        const store = await emptyStore();
        const before = new SubjectKeys(store, v1, indexKey);
        const subjects = customers(5);
        const sealed = await Promise.all(subjects.map(async (c) => (await before.keyFor(c)).seal('customer_email', c.id)));
        const evidence = (await before.keyFor(subjects[0]!)).evidence('customer_email', subjects[0]!.id);
        const rotating = new SubjectKeys(store, v1v2, indexKey);
        await rotating.keyFor(customers(1)[0]!);
        expect(await rotating.keyVersionsInUse()).toEqual({ v1: 5, v2: 1 });

        expect(await rotating.rewrap({ batchSize: 2 })).toEqual({ activeKeyVersion: 'v2', alreadyActive: 1, rewrapped: 5, skipped: 0, failed: [] });
        expect(await rotating.keyVersionsInUse()).toEqual({ v2: 6 });
        const after = new SubjectKeys(store, v2, indexKey);
        for (const [i, c] of subjects.entries()) expect(await after.reveal('customer_email', sealed[i]!)).toEqual({ status: 'open', value: c.id });
        expect((await after.keyFor(subjects[0]!)).evidence('customer_email', subjects[0]!.id)).toBe(evidence);
        await expect(new SubjectKeys(store, v1, indexKey).keyFor(subjects[0]!)).rejects.toMatchObject({ code: 'VAULT.UNKNOWN_KEY_VERSION' });

        expect(await rotating.rewrap()).toEqual({ activeKeyVersion: 'v2', alreadyActive: 6, rewrapped: 0, skipped: 0, failed: [] });
        await expect(rotating.rewrap({ batchSize: 0 })).rejects.toMatchObject({ code: 'VAULT.INVALID_ARGUMENT' });
      });

      it('skips a key erased while the rewrap runs, and reports a key it cannot unwrap by its id, going on with the others', async () => {
        const store = await emptyStore();
        const subjects = customers(3);
        for (const c of subjects) await new SubjectKeys(store, v1, indexKey).keyFor(c);
        const stray = await new SubjectKeys(
          store,
          MasterKeyRing.from(
            [
              ['v1', k1],
              ['v9', k9],
            ],
            { active: 'v9' },
          ),
          indexKey,
        ).keyFor(customers(1)[0]!);
        const keys = new SubjectKeys(store, v1v2, indexKey);
        const erasedRef = keys.subjectRef(subjects[1]!);
        // Erases a subject between the page read and its key's re-wrap.
        const racing: SubjectKeyStore = {
          findBySubject: (ref) => store.findBySubject(ref),
          lookup: (id) => store.lookup(id),
          insertIfAbsent: (key) => store.insertIfAbsent(key),
          erase: (ref, at) => store.erase(ref, at),
          eraseKeys: (ids, at) => store.eraseKeys(ids, at),
          replaceWrap: (id, from, wrap) => store.replaceWrap(id, from, wrap),
          countByKeyVersion: () => store.countByKeyVersion(),
          findNotWrappedWith: async (version, after, limit) => {
            const page = await store.findNotWrappedWith(version, after, limit);
            await store.erase(erasedRef, new Date());
            return page;
          },
        };
        const result = await new SubjectKeys(racing, v1v2, indexKey).rewrap();
        expect(result).toEqual({
          activeKeyVersion: 'v2',
          alreadyActive: 0,
          rewrapped: 2,
          skipped: 1,
          failed: [{ keyId: stray.keyId, keyVersion: 'v9', code: 'VAULT.UNKNOWN_KEY_VERSION' }],
        });
        expect(JSON.stringify(result)).not.toContain('@example.com');
        expect(await keys.keyVersionsInUse()).toEqual({ v2: 2, v9: 1 });
      });

      it('refuses to retire a version while it is active or a key is wrapped under it', async () => {
        const store = await emptyStore();
        await new SubjectKeys(store, v1, indexKey).keyFor(customers(1)[0]!);
        const keys = new SubjectKeys(store, v1v2, indexKey);
        await expect(keys.assertRetirable('v2')).rejects.toMatchObject({ code: 'VAULT.KEY_VERSION_ACTIVE' });
        await expect(keys.assertRetirable('v1')).rejects.toMatchObject({ code: 'VAULT.KEY_VERSION_IN_USE', details: { subjectKeys: 1, inUse: 'v1=1' } });
        await expect(keys.assertRetirable('one')).rejects.toMatchObject({ code: 'VAULT.INVALID_ARGUMENT' });
        await keys.rewrap();
        expect(await keys.assertRetirable('v1')).toEqual({ keyVersion: 'v1', inUse: { v2: 1 } });
      });
    });
  });
}

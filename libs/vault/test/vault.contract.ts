import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import { CredentialsVault, generateKey, MasterKeyRing, VaultError, type CredentialRef, type VaultLogger, type VaultStore } from '@settle/vault';

/** A random secret, as a provider would issue one (never hard-coded). */
export const randomSecret = (): string => `sk_test_${randomBytes(24).toString('base64url')}`;

/** A credential reference unique to one test. */
export const uniqueRef = (name = 'secret_key'): CredentialRef => ({
  provider: 'paystack',
  account: `acct_${randomBytes(4).toString('hex')}`,
  name,
});

/** Collects log entries as JSON text, to assert no secret reaches a log line. */
export function memoryLogger(): VaultLogger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (fields, message) => lines.push(JSON.stringify({ level: 'info', ...fields, message })),
    warn: (fields, message) => lines.push(JSON.stringify({ level: 'warn', ...fields, message })),
  };
}

/** Awaits `work` and returns the VaultError it rejects with (fails the test otherwise). */
export async function vaultErrorOf(work: Promise<unknown>): Promise<VaultError> {
  try {
    await work;
  } catch (error) {
    expect(error).toBeInstanceOf(VaultError);
    return error as VaultError;
  }
  throw new Error('expected a VaultError');
}

/** Everything an error can show: message, stack, JSON, inspection. */
export const errorText = (error: Error): string => [error.message, error.stack ?? '', JSON.stringify(error), inspect(error, { depth: 10 })].join('\n');

/**
 * The vault's contract over a store. Every {@link VaultStore} (PostgreSQL, in-memory) must pass
 * it. `makeStore` returns an empty store: rewrap and retire-check look at every credential.
 */
export function vaultContract(name: string, makeStore: () => VaultStore | Promise<VaultStore>): void {
  describe(`credentials vault contract: ${name}`, () => {
    const ring = (...versions: Array<[string, Buffer]>) => MasterKeyRing.from(versions);

    it('puts and gets a secret, returned as a Secret that prints redacted', async () => {
      const vault = new CredentialsVault(await makeStore(), ring(['v1', generateKey()]));
      const ref = uniqueRef();
      const secret = randomSecret();
      expect(await vault.put(ref, new Secret(secret))).toEqual({ ...ref, version: 1, keyVersion: 'v1' });
      const got = await vault.get(ref);
      expect(got).toBeInstanceOf(Secret);
      expect(got.reveal()).toBe(secret);
      expect(String(got)).toBe('[redacted]');
    });

    it('round-trips non-ASCII secrets', async () => {
      const vault = new CredentialsVault(await makeStore(), ring(['v1', generateKey()]));
      const ref = uniqueRef();
      const secret = `ключ-${randomSecret()}-密钥-🔑`;
      await vault.put(ref, new Secret(secret));
      expect((await vault.get(ref)).reveal()).toBe(secret);
    });

    it('increments the credential version on each put and returns the latest', async () => {
      const vault = new CredentialsVault(await makeStore(), ring(['v1', generateKey()]));
      const ref = uniqueRef();
      const secrets = [randomSecret(), randomSecret(), randomSecret()];
      const versions = [];
      for (const s of secrets) versions.push((await vault.put(ref, new Secret(s))).version);
      expect(versions).toEqual([1, 2, 3]);
      expect((await vault.get(ref)).reveal()).toBe(secrets[2]);
      const [listed] = await vault.list({ account: ref.account });
      expect(listed).toMatchObject({ ...ref, version: 3, keyVersion: 'v1' });
      expect(listed!.updatedAt.getTime()).toBeGreaterThanOrEqual(listed!.createdAt.getTime());
    });

    it('serialises concurrent puts of one credential into distinct versions', async () => {
      const vault = new CredentialsVault(await makeStore(), ring(['v1', generateKey()]));
      const ref = uniqueRef();
      const secrets = Array.from({ length: 5 }, randomSecret);
      const results = await Promise.all(secrets.map((s) => vault.put(ref, new Secret(s))));
      expect(results.map((r) => r.version).sort()).toEqual([1, 2, 3, 4, 5]);
      const last = secrets[results.findIndex((r) => r.version === 5)];
      expect((await vault.get(ref)).reveal()).toBe(last);
    });

    it('removes a credential: gone for get and list, idempotent, the others untouched', async () => {
      const vault = new CredentialsVault(await makeStore(), ring(['v1', generateKey()]));
      const ref = uniqueRef('signing_secret');
      const other = { ...ref, name: 'signing_secret_v2' };
      await vault.put(ref, new Secret(randomSecret()));
      await vault.put(other, new Secret('kept'));
      expect(await vault.remove(ref)).toBe(true);
      expect((await vaultErrorOf(vault.get(ref))).code).toBe('VAULT.NOT_FOUND');
      expect((await vault.list({ account: ref.account })).map((c) => c.name)).toEqual(['signing_secret_v2']);
      expect(await vault.remove(ref)).toBe(false);
      expect((await vault.get(other)).reveal()).toBe('kept');
    });

    it('keeps credentials apart by provider, account and name', async () => {
      const vault = new CredentialsVault(await makeStore(), ring(['v1', generateKey()]));
      const a = uniqueRef('secret_key');
      const refs = [a, { ...a, name: 'webhook_secret' }, { ...a, provider: 'flutterwave' }, { ...a, account: `${a.account}_2` }];
      const secrets = refs.map(() => randomSecret());
      for (const [i, ref] of refs.entries()) await vault.put(ref, new Secret(secrets[i]!));
      for (const [i, ref] of refs.entries()) expect((await vault.get(ref)).reveal()).toBe(secrets[i]);
    });

    it('lists names, versions and key versions, filtered and ordered, never secrets', async () => {
      const vault = new CredentialsVault(await makeStore(), ring(['v1', generateKey()]));
      const ref = uniqueRef();
      const secrets = [randomSecret(), randomSecret()];
      await vault.put({ ...ref, name: 'webhook_secret' }, new Secret(secrets[0]!));
      await vault.put(ref, new Secret(secrets[1]!));
      await vault.put({ ...ref, provider: 'flutterwave' }, new Secret(randomSecret()));
      const listed = await vault.list({ provider: 'paystack', account: ref.account });
      expect(listed.map((c) => [c.provider, c.account, c.name, c.version, c.keyVersion])).toEqual([
        ['paystack', ref.account, 'secret_key', 1, 'v1'],
        ['paystack', ref.account, 'webhook_secret', 1, 'v1'],
      ]);
      expect((await vault.list()).map((c) => c.provider)).toEqual(['flutterwave', 'paystack', 'paystack']);
      for (const c of listed) {
        expect(Object.keys(c).sort()).toEqual(['account', 'createdAt', 'keyVersion', 'name', 'provider', 'updatedAt', 'version', 'wrappedAt']);
      }
      const shown = JSON.stringify(listed) + inspect(listed, { depth: 10 });
      for (const s of secrets) expect(shown).not.toContain(s);
    });

    it('answers VAULT.NOT_FOUND for an unknown credential and VAULT.INVALID_ARGUMENT for bad input, echoing no value', async () => {
      const vault = new CredentialsVault(await makeStore(), ring(['v1', generateKey()]));
      expect((await vaultErrorOf(vault.get(uniqueRef()))).code).toBe('VAULT.NOT_FOUND');
      const pasted = randomSecret();
      for (const ref of [
        { ...uniqueRef(), name: '' },
        { ...uniqueRef(), account: ` ${pasted}` },
        { ...uniqueRef(), provider: `a\n${pasted}` },
      ]) {
        const error = await vaultErrorOf(vault.put(ref, new Secret(randomSecret())));
        expect(error.code).toBe('VAULT.INVALID_ARGUMENT');
        expect(errorText(error)).not.toContain(pasted);
      }
      expect((await vaultErrorOf(vault.put(uniqueRef(), new Secret('')))).code).toBe('VAULT.INVALID_ARGUMENT');
      expect((await vaultErrorOf(vault.put(uniqueRef(), new Secret('x'.repeat(64 * 1024 + 1))))).code).toBe('VAULT.INVALID_ARGUMENT');
      expect(await vault.list()).toEqual([]);
    });

    it('fails with VAULT.INTEGRITY_CHECK_FAILED under the wrong master key and VAULT.UNKNOWN_KEY_VERSION without it', async () => {
      const store = await makeStore();
      const ref = uniqueRef();
      await new CredentialsVault(store, ring(['v1', generateKey()])).put(ref, new Secret(randomSecret()));
      expect((await vaultErrorOf(new CredentialsVault(store, ring(['v1', generateKey()])).get(ref))).code).toBe('VAULT.INTEGRITY_CHECK_FAILED');
      const unknown = await vaultErrorOf(new CredentialsVault(store, ring(['v2', generateKey()])).get(ref));
      expect(unknown.code).toBe('VAULT.UNKNOWN_KEY_VERSION');
      expect(unknown.details).toMatchObject({ ...ref, version: 1, keyVersion: 'v1' });
    });

    it('rotates: new key version, rewrap (idempotent), old version retirable, gets work with the new version alone', async () => {
      const store = await makeStore();
      const [k1, k2] = [generateKey(), generateKey()];
      const before = new CredentialsVault(store, ring(['v1', k1]));
      const refs = Array.from({ length: 7 }, () => uniqueRef());
      const secrets = refs.map(() => randomSecret());
      for (const [i, ref] of refs.entries()) await before.put(ref, new Secret(secrets[i]!));
      await before.put(refs[0]!, new Secret(secrets[0]!)); // version 2 of the first one
      const wrappedAtBefore = new Map((await before.list()).map((c) => [c.account, c.wrappedAt.getTime()]));

      const logger = memoryLogger();
      const both = new CredentialsVault(store, ring(['v1', k1], ['v2', k2]), { logger });
      expect(both.activeKeyVersion).toBe('v2');
      const fresh = uniqueRef();
      expect((await both.put(fresh, new Secret(randomSecret()))).keyVersion).toBe('v2');
      expect(await both.keyVersionsInUse()).toEqual({ v1: 7, v2: 1 });
      expect(await both.retireCheck('v1')).toMatchObject({ retirable: false, reason: 'in_use', wrappedUnder: 7, inUse: { v1: 7, v2: 1 } });
      const refused = await vaultErrorOf(both.assertRetirable('v1'));
      expect(refused.code).toBe('VAULT.KEY_VERSION_IN_USE');
      expect(refused.details).toMatchObject({ keyVersion: 'v1', credentials: 7, inUse: 'v1=7, v2=1' });

      expect(await both.rewrap({ batchSize: 3 })).toEqual({ activeKeyVersion: 'v2', alreadyActive: 1, rewrapped: 7, skipped: 0, failed: [] });
      expect(await both.rewrap()).toEqual({ activeKeyVersion: 'v2', alreadyActive: 8, rewrapped: 0, skipped: 0, failed: [] });

      const listed = await both.list();
      expect(listed.every((c) => c.keyVersion === 'v2')).toBe(true);
      expect(listed.find((c) => c.account === refs[0]!.account)!.version).toBe(2); // rewrap keeps the credential version
      for (const c of listed.filter((l) => wrappedAtBefore.has(l.account))) {
        expect(c.wrappedAt.getTime()).toBeGreaterThanOrEqual(wrappedAtBefore.get(c.account)!);
      }
      for (const [i, ref] of refs.entries()) expect((await both.get(ref)).reveal()).toBe(secrets[i]);
      expect(await both.retireCheck('v1')).toMatchObject({ retirable: true, reason: 'not_in_use', wrappedUnder: 0, inUse: { v2: 8 } });
      expect((await both.assertRetirable('v1')).retirable).toBe(true);
      expect((await vaultErrorOf(both.assertRetirable('v2'))).code).toBe('VAULT.KEY_VERSION_ACTIVE');

      const after = new CredentialsVault(store, ring(['v2', k2]));
      for (const [i, ref] of refs.entries()) expect((await after.get(ref)).reveal()).toBe(secrets[i]);
      expect(logger.lines.some((l) => l.includes('"vault.rewrap"'))).toBe(true);
      for (const s of secrets) expect(logger.lines.join('\n')).not.toContain(s);
    });

    it('rewrap reports credentials it cannot unwrap and re-wraps the others', async () => {
      const store = await makeStore();
      const good = uniqueRef();
      const orphan = uniqueRef();
      const k1 = generateKey();
      await new CredentialsVault(store, ring(['v1', k1])).put(good, new Secret(randomSecret()));
      await new CredentialsVault(store, ring(['v3', generateKey()])).put(orphan, new Secret(randomSecret()));
      const vault = new CredentialsVault(store, ring(['v1', k1], ['v2', generateKey()]));
      const result = await vault.rewrap();
      expect(result.rewrapped).toBe(1);
      expect(result.failed).toEqual([{ ...orphan, version: 1, keyVersion: 'v3', code: 'VAULT.UNKNOWN_KEY_VERSION' }]);
      expect(await vault.retireCheck('v3')).toMatchObject({ retirable: false, reason: 'in_use' });
      expect(await vault.retireCheck('v1')).toMatchObject({ retirable: true });
    });

    it('refuses a malformed version name in retire-check', async () => {
      const vault = new CredentialsVault(await makeStore(), ring(['v1', generateKey()]));
      expect((await vaultErrorOf(vault.retireCheck('version-1'))).code).toBe('VAULT.INVALID_ARGUMENT');
    });

    it('logs puts and failures without secrets', async () => {
      const logger = memoryLogger();
      const store = await makeStore();
      const ref = uniqueRef();
      const secret = randomSecret();
      await new CredentialsVault(store, ring(['v1', generateKey()]), { logger }).put(ref, new Secret(secret));
      await vaultErrorOf(new CredentialsVault(store, ring(['v1', generateKey()]), { logger }).get(ref));
      expect(logger.lines.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual(['vault.put', 'vault.get.failed']);
      expect(logger.lines.join('\n')).not.toContain(secret);
    });
  });
}

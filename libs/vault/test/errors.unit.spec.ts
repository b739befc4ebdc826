import { describe, expect, it } from 'vitest';
import { isPermanentError, SettleError } from '@settle/domain';
import { isVaultError, VAULT_ERROR_KINDS, VaultError, type VaultErrorCode } from '@settle/vault';

describe('vault errors are Settle errors with a kind per code', () => {
  it('carries its code, the kind of its code and its non-secret details', () => {
    const error = new VaultError('VAULT.NOT_FOUND', 'No credential paystack/default/secret_key', { provider: 'paystack' });
    expect(error).toBeInstanceOf(SettleError);
    expect(error).toMatchObject({ code: 'VAULT.NOT_FOUND', kind: 'not_found', details: { provider: 'paystack' } });
    expect(isVaultError(error, 'VAULT.NOT_FOUND')).toBe(true);
    expect(isPermanentError(error)).toBe(true);
  });

  it.each(Object.entries(VAULT_ERROR_KINDS) as Array<[VaultErrorCode, string]>)('%s is of kind %s', (code, kind) => {
    expect(new VaultError(code, 'm').kind).toBe(kind);
  });

  it('a lock held by another rotation is worth retrying; tampered ciphertext is internal, never retried into success by a client', () => {
    expect(isPermanentError(new VaultError('VAULT.KEY_FILE_LOCKED', 'locked'))).toBe(false);
    expect(new VaultError('VAULT.INTEGRITY_CHECK_FAILED', 'tag mismatch').kind).toBe('internal');
  });
});

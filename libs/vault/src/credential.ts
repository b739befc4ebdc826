import { VaultError } from './errors.js';

/**
 * Where a credential belongs: a payment provider, the merchant account at that provider, and the
 * credential's name (for example `{ provider: 'paystack', account: 'acct_main', name: 'secret_key' }`).
 * The three together identify one credential; all three are bound into the authenticated data of
 * its encryption, so a row moved to another provider, account or name no longer decrypts.
 */
export interface CredentialRef {
  readonly provider: string;
  readonly account: string;
  readonly name: string;
}

/** A credential at one of its versions (1 for the first put, +1 for each later put). */
export interface CredentialVersionRef extends CredentialRef {
  readonly version: number;
}

/** Longest provider, account or credential name, in UTF-16 code units. */
export const MAX_IDENTIFIER_LENGTH = 200;

// Control characters (C0, DEL, C1) are refused so identifiers print safely in logs and tables.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Checks a credential reference: each of provider, account and name must be a string of
 * 1..{@link MAX_IDENTIFIER_LENGTH} characters without control characters and without leading or
 * trailing white space. The value itself is never echoed (a secret pasted into the wrong
 * argument must not reach an error message).
 *
 * @throws VaultError `VAULT.INVALID_ARGUMENT` naming the offending field.
 */
export function assertCredentialRef(ref: CredentialRef): void {
  for (const field of ['provider', 'account', 'name'] as const) {
    const value: unknown = (ref as unknown as Record<string, unknown>)[field];
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_IDENTIFIER_LENGTH || value.trim() !== value || CONTROL.test(value)) {
      throw new VaultError(
        'VAULT.INVALID_ARGUMENT',
        `Credential ${field} must be 1-${MAX_IDENTIFIER_LENGTH} characters, without control characters or surrounding white space`,
        { field },
      );
    }
  }
}

/** `provider/account/name`, for messages and logs (identifiers are not secret). */
export function describeCredential(ref: CredentialRef): string {
  return `${ref.provider}/${ref.account}/${ref.name}`;
}

/** Only the coordinates of a reference (drops any other property an object may carry). */
export function credentialCoordinates(ref: CredentialRef): { provider: string; account: string; name: string } {
  return { provider: ref.provider, account: ref.account, name: ref.name };
}

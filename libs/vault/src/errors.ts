/**
 * Errors of the credentials vault. Every error carries a stable `code` (`VAULT.*`) that callers,
 * logs and the CLI can match on; messages name credentials, key versions, variables and paths,
 * never a secret, a data key or master key material.
 */

import { SettleError, type ErrorKind } from '@settle/domain';

/**
 * Stable codes of {@link VaultError}.
 *
 * - `VAULT.INVALID_CONFIG`: the master key ring configuration is missing or invalid (the message
 *   names the variable or file, never the value).
 * - `VAULT.KEY_FILE_PERMISSIONS`: the master key file is readable or writable by group or others.
 * - `VAULT.KEY_FILE_LOCKED`: another rotation holds the key file's lock file.
 * - `VAULT.UNKNOWN_KEY_VERSION`: a credential is wrapped under a master key version that is not in
 *   the key ring.
 * - `VAULT.INTEGRITY_CHECK_FAILED`: AES-GCM authentication failed: the ciphertext, IV, tag or the
 *   authenticated data (provider, account, name, credential version, master key version) does not
 *   match, or the wrong master key was used. Tampering at rest ends here.
 * - `VAULT.MALFORMED_ENVELOPE`: a key, IV or tag has the wrong length.
 * - `VAULT.INVALID_ARGUMENT`: a provider, account, name, secret or option is not acceptable.
 * - `VAULT.NOT_FOUND`: no credential is stored under that provider, account and name.
 * - `VAULT.CONCURRENT_UPDATE`: a put kept losing the optimistic version check to other writers.
 * - `VAULT.KEY_VERSION_IN_USE`: a master key version cannot be retired, credentials are still
 *   wrapped under it.
 * - `VAULT.KEY_VERSION_ACTIVE`: a master key version cannot be retired, it wraps new credentials.
 */
export type VaultErrorCode =
  | 'VAULT.INVALID_CONFIG'
  | 'VAULT.KEY_FILE_PERMISSIONS'
  | 'VAULT.KEY_FILE_LOCKED'
  | 'VAULT.UNKNOWN_KEY_VERSION'
  | 'VAULT.INTEGRITY_CHECK_FAILED'
  | 'VAULT.MALFORMED_ENVELOPE'
  | 'VAULT.INVALID_ARGUMENT'
  | 'VAULT.NOT_FOUND'
  | 'VAULT.CONCURRENT_UPDATE'
  | 'VAULT.KEY_VERSION_IN_USE'
  | 'VAULT.KEY_VERSION_ACTIVE';

/**
 * How the edges treat each code (the CLI prints the code and exits non-zero; an app failing at
 * boot exits with status 1): a wrong input or configuration is `invalid`, a missing credential
 * `not_found`, a lost race or a key still in use `conflict`, a lock another rotation holds
 * `unavailable` (trying again later may succeed), and ciphertext that fails its checks
 * `internal` (tampering or corruption at rest: loud, never retried into success).
 */
export const VAULT_ERROR_KINDS: Readonly<Record<VaultErrorCode, ErrorKind>> = {
  'VAULT.INVALID_CONFIG': 'invalid',
  'VAULT.KEY_FILE_PERMISSIONS': 'invalid',
  'VAULT.KEY_FILE_LOCKED': 'unavailable',
  'VAULT.UNKNOWN_KEY_VERSION': 'invalid',
  'VAULT.INTEGRITY_CHECK_FAILED': 'internal',
  'VAULT.MALFORMED_ENVELOPE': 'internal',
  'VAULT.INVALID_ARGUMENT': 'invalid',
  'VAULT.NOT_FOUND': 'not_found',
  'VAULT.CONCURRENT_UPDATE': 'conflict',
  'VAULT.KEY_VERSION_IN_USE': 'conflict',
  'VAULT.KEY_VERSION_ACTIVE': 'conflict',
};

/** Non-secret facts attached to an error (credential coordinates, key versions, variable names, counts). */
export type VaultErrorDetails = Readonly<Record<string, string | number>>;

/**
 * An error of the vault, with a stable {@link VaultErrorCode}. Never wraps a lower-level error as
 * `cause`, so nothing from a crypto or driver error can carry secret material into a log line.
 */
export class VaultError extends SettleError {
  /** How the edges treat it ({@link VAULT_ERROR_KINDS}). */
  readonly kind: ErrorKind;

  /**
   * @param code - stable code, see {@link VaultErrorCode}.
   * @param message - human-readable text; must not contain secret values.
   * @param details - non-secret context (for example `{ provider, account, name, keyVersion }`).
   */
  constructor(
    readonly code: VaultErrorCode,
    message: string,
    readonly details: VaultErrorDetails = {},
  ) {
    super(message);
    this.name = 'VaultError';
    this.kind = VAULT_ERROR_KINDS[code];
  }
}

/** Whether `error` is a {@link VaultError}, optionally with the given code. */
export function isVaultError(error: unknown, code?: VaultErrorCode): error is VaultError {
  return error instanceof VaultError && (code === undefined || error.code === code);
}

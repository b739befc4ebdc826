import { isSealedValue, type Subject, type SubjectKeys } from '@settle/vault';
import { ConsoleError } from '../errors.js';
import type { RevealPurpose } from '../approvals/proposal-action.js';

/**
 * What the console uses of the privacy vault (docs/privacy.md, "Crypto-shredding"): a subject's
 * key to seal with, and the opening of sealed values. `SubjectKeys` of `@settle/vault` over
 * PostgreSQL (`openSubjectKeys`) in the app; an in-memory store in tests.
 */
export type ConsoleSubjectKeys = Pick<SubjectKeys, 'keyFor' | 'reveal'>;

/** What an unopenable value reads in a view: its subject was erased, or its key is lost (or no vault). */
export const ERASED_VALUE = 'erased';
/** See {@link ERASED_VALUE}. */
export const UNAVAILABLE_VALUE = 'unavailable';

/**
 * The privacy vault, or the refusal of an action that needs it.
 *
 * @param what - what cannot be done without it, for the problem's detail.
 * @throws ConsoleError `CONSOLE.PRIVACY_VAULT_MISSING` (503) when `keys` is `null`.
 */
export function requireVault(keys: ConsoleSubjectKeys | null, what: string): ConsoleSubjectKeys {
  if (keys) return keys;
  throw vaultMissing(what);
}

/** The refusal `CONSOLE.PRIVACY_VAULT_MISSING` (503) of what cannot be done without the privacy vault. */
export function vaultMissing(what: string): ConsoleError {
  return new ConsoleError(
    'CONSOLE.PRIVACY_VAULT_MISSING',
    `The console has no privacy vault (SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE or SETTLE_PRIVACY_VAULT_MASTER_KEYS), so it cannot ${what}`,
  );
}

/**
 * Opens a value sealed under its subject's key, bound to `field` (`SubjectKey.seal(field, ...)`).
 * A value that is not sealed (stored before sealing existed) is returned as it is.
 *
 * - `run`: the plaintext, or a refusal;
 * - `view`: the plaintext, `erased` (the subject was erased) or `unavailable` (no vault, a key
 *   lost, a value altered); never throws;
 * - `view-masked` (a viewer's answer, docs/privacy.md): as `view`, the plaintext passed through
 *   `mask` (`maskEmail`, `maskPhone` of `@settle/domain`); a value stored unsealed is masked too.
 *   Without `mask`, as `view`.
 *
 * @throws ConsoleError, for `run` only: `CONSOLE.PRIVACY_VAULT_MISSING` (503),
 *   `CONSOLE.SUBJECT_ERASED` (409), `CONSOLE.SUBJECT_KEY_UNAVAILABLE` (500); the vault's
 *   `VAULT.INTEGRITY_CHECK_FAILED` for an altered value.
 */
export async function openSealed(
  keys: ConsoleSubjectKeys | null,
  field: string,
  value: string,
  purpose: RevealPurpose,
  mask?: (plaintext: string) => string,
): Promise<string> {
  if (purpose === 'run') return openToRun(keys, field, value);
  const shown = await openToView(keys, field, value);
  if (shown.status !== 'open') return shown.status === 'erased' ? ERASED_VALUE : UNAVAILABLE_VALUE;
  return purpose === 'view-masked' && mask ? mask(shown.value) : shown.value;
}

async function openToView(
  keys: ConsoleSubjectKeys | null,
  field: string,
  value: string,
): Promise<{ status: 'open'; value: string } | { status: 'erased' | 'unavailable' }> {
  if (!isSealedValue(value)) return { status: 'open', value };
  if (!keys) return { status: 'unavailable' };
  try {
    const opened = await keys.reveal(field, value);
    return opened.status === 'open' ? { status: 'open', value: opened.value } : { status: opened.status === 'erased' ? 'erased' : 'unavailable' };
  } catch {
    return { status: 'unavailable' };
  }
}

async function openToRun(keys: ConsoleSubjectKeys | null, field: string, value: string): Promise<string> {
  if (!isSealedValue(value)) return value;
  const opened = await requireVault(keys, 'open the sealed values of this proposal').reveal(field, value);
  if (opened.status === 'open') return opened.value;
  if (opened.status === 'erased') {
    throw new ConsoleError('CONSOLE.SUBJECT_ERASED', `The person this proposal names was erased on ${opened.erasedAt.toISOString()}: it cannot run`);
  }
  throw new ConsoleError('CONSOLE.SUBJECT_KEY_UNAVAILABLE', 'A sealed value of this proposal has a key the privacy vault neither holds nor erased');
}

/** Seals `value` bound to `field` under `subject`'s key (made on first use). @throws the vault's and the database's errors. */
export async function sealFor(keys: ConsoleSubjectKeys, subject: Subject, field: string, value: string): Promise<string> {
  return (await keys.keyFor(subject)).seal(field, value);
}

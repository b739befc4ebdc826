/**
 * Master key version names: `v<N>` (`v1`, `v2`, ... up to nine digits) so "highest" is well
 * defined: versions order by N, not as strings (`v10` is higher than `v9`).
 */
import { VaultError } from './errors.js';

const VERSION = /^v([1-9][0-9]{0,8})$/;
/** Whether `value` is a master key version name (`v<N>`, N from 1, up to nine digits). */
export function isKeyVersion(value: string): boolean {
  return VERSION.test(value);
}

/** Orders master key versions by their number (`v2` before `v10`). Both must be valid names. */
export function compareKeyVersions(a: string, b: string): number {
  return versionNumber(a) - versionNumber(b);
}

function versionNumber(version: string): number {
  const match = VERSION.exec(version);
  if (!match) throw new VaultError('VAULT.INVALID_ARGUMENT', 'A master key version must look like v1, v2, ...');
  return Number(match[1]);
}

/** The version after the highest of `versions` (`v1` when there is none). */
export function nextKeyVersion(versions: Iterable<string>): string {
  let highest = 0;
  for (const v of versions) highest = Math.max(highest, versionNumber(v));
  return `v${highest + 1}`;
}

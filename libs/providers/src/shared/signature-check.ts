import { timingSafeEqual } from 'node:crypto';
import { SettleError } from '@settle/domain';

/**
 * Why a webhook's authenticity check failed.
 *
 * - `MISSING_HEADER`: the signature header is absent or empty.
 * - `MALFORMED_HEADER`: the header is present but not in the scheme's shape (wrong length,
 *   wrong alphabet, missing parts, repeated); nothing was compared.
 * - `MISMATCH`: well formed, but no candidate secret produces it (forged, tampered body, or
 *   signed with a secret we do not hold).
 * - `STALE_TIMESTAMP` / `FUTURE_TIMESTAMP`: the signature is authentic but its signed
 *   timestamp lies outside the tolerance window (timestamped schemes only: Stripe).
 */
export type SignatureFailureReason = 'MISSING_HEADER' | 'MALFORMED_HEADER' | 'MISMATCH' | 'STALE_TIMESTAMP' | 'FUTURE_TIMESTAMP';

/**
 * The outcome of a signature check, shared by every provider's verifier.
 *
 * `secretIndex` is the position, in the candidate list the caller passed, of the first secret
 * that matched (0 = current secret; a higher index means the sender still uses a previous
 * secret, which is worth a metric during a rotation grace period). It says nothing about the
 * body's content, which stays untrusted until the payment is verified with the provider.
 */
export type SignatureCheck = { readonly ok: true; readonly secretIndex: number } | { readonly ok: false; readonly reason: SignatureFailureReason };

/**
 * A header value as HTTP frameworks hand it over (Node's `IncomingHttpHeaders`): a string,
 * an array when the header was repeated, or undefined when absent. A repeated signature
 * header is refused as `MALFORMED_HEADER`, never resolved by picking one of the values.
 */
export type HeaderValue = string | readonly string[] | undefined;

/**
 * Thrown for a verifier misconfiguration (no candidate secrets, an empty secret, an invalid
 * tolerance or allowlist entry). It is a deployment error, not a bad request, so it is thrown
 * rather than returned, and it is thrown before the request is looked at. Messages never
 * contain secret values. Code `WEBHOOK.SIGNATURE_CONFIG`, kind `internal` (HTTP 500: the
 * sender did nothing wrong and may retry once the deployment is fixed).
 */
export class SignatureConfigError extends SettleError {
  override readonly name = 'SignatureConfigError';
  readonly code = 'WEBHOOK.SIGNATURE_CONFIG';
  readonly kind = 'internal' as const;
}

/**
 * Checks a candidate-secret list: at least one entry, each a non-empty string (an empty HMAC
 * key or token would make forgery trivial).
 *
 * @param secrets - the candidates, current first, then previous ones during a rotation.
 * @param label - what the secrets are, for the error message (e.g. "Stripe endpoint secrets").
 * @throws {@link SignatureConfigError} when the list is empty or holds an empty/non-string entry.
 */
export function assertCandidateSecrets(secrets: readonly string[], label: string): void {
  if (!Array.isArray(secrets) || secrets.length === 0) {
    throw new SignatureConfigError(`${label}: at least one candidate secret is required`);
  }
  secrets.forEach((secret: unknown, i) => {
    if (typeof secret !== 'string' || secret.length === 0) {
      throw new SignatureConfigError(`${label}: candidate secret #${i} is empty or not a string`);
    }
  });
}

/**
 * Reduces a {@link HeaderValue} to a single non-empty string.
 *
 * @returns `{ ok: true, value }`, or a failure: `MISSING_HEADER` when absent, empty, or an empty
 *   array; `MALFORMED_HEADER` when repeated (an array of two or more values).
 */
export function singleHeaderValue(
  header: HeaderValue,
): { readonly ok: true; readonly value: string } | { readonly ok: false; readonly reason: 'MISSING_HEADER' | 'MALFORMED_HEADER' } {
  if (header === undefined) return { ok: false, reason: 'MISSING_HEADER' };
  if (typeof header !== 'string') {
    if (header.length === 0) return { ok: false, reason: 'MISSING_HEADER' };
    if (header.length > 1) return { ok: false, reason: 'MALFORMED_HEADER' };
    return singleHeaderValue(header[0]);
  }
  return header.length === 0 ? { ok: false, reason: 'MISSING_HEADER' } : { ok: true, value: header };
}

/**
 * Constant-time equality of two byte strings. Different lengths answer false without
 * comparing (lengths are public: they come from the scheme, not from the secret).
 */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Decodes a digest presented in a header, strictly: only the encoding's alphabet, exactly
 * `byteLength` bytes, and for base64 the canonical form with padding (the value must
 * re-encode to itself). Anything else answers null, so the caller can fail without comparing.
 *
 * @param value - the text from the header.
 * @param encoding - `hex` (either case accepted) or standard `base64` (not base64url).
 * @param byteLength - the digest size in bytes (32 for SHA-256, 64 for SHA-512).
 */
export function decodeDigest(value: string, encoding: 'hex' | 'base64', byteLength: number): Buffer | null {
  if (encoding === 'hex') {
    if (value.length !== byteLength * 2 || !/^[0-9a-fA-F]+$/.test(value)) return null;
    return Buffer.from(value, 'hex');
  }
  if (value.length !== Math.ceil(byteLength / 3) * 4 || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return null;
  const bytes = Buffer.from(value, 'base64');
  return bytes.length === byteLength && bytes.toString('base64') === value ? bytes : null;
}

/**
 * Tries every candidate secret, without stopping at the first match, and reports the first
 * one that matched. Each individual comparison must be constant time (the `matches` callback's
 * job, e.g. with {@link bytesEqual}); the loop itself always runs over the whole list.
 *
 * @param secrets - candidate secrets, current first.
 * @param matches - whether the presented signature is valid under this secret.
 * @returns `{ ok: true, secretIndex }` for the first matching candidate, else `MISMATCH`.
 */
export function matchAnyCandidate(secrets: readonly string[], matches: (secret: string) => boolean): SignatureCheck {
  let secretIndex = -1;
  secrets.forEach((secret, i) => {
    const match = matches(secret);
    if (match && secretIndex === -1) secretIndex = i;
  });
  return secretIndex === -1 ? { ok: false, reason: 'MISMATCH' } : { ok: true, secretIndex };
}

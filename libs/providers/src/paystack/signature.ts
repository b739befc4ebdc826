import { createHmac, timingSafeEqual } from 'node:crypto';
import { assertCandidateSecrets, matchAnyCandidate, singleHeaderValue, type HeaderValue, type SignatureCheck } from '../shared/signature-check.js';

/** The header Paystack signs webhooks in (lower case, as Node presents header names). */
export const PAYSTACK_SIGNATURE_HEADER = 'x-paystack-signature';

/**
 * Verifies Paystack's `x-paystack-signature` (hex HMAC-SHA512 of the exact raw body keyed with
 * the secret key; docs/provider-facts.md, Paystack; no timestamp in the scheme) against
 * candidate secret keys, with the same result shape as the other providers. Each candidate is
 * checked with {@link verifyPaystackSignature} (constant-time on the raw bytes), all of them.
 *
 * @param rawBody - the body exactly as received, before any parsing.
 * @param header - the `x-paystack-signature` value.
 * @param secretKeys - candidate secret keys, current first, then previous ones.
 * @returns a `SignatureCheck`: `MISSING_HEADER`, `MALFORMED_HEADER` (repeated, or not 128 hex
 *   characters: nothing compared) or `MISMATCH`.
 * @throws `SignatureConfigError` for no or empty secret keys.
 */
export function verifyPaystackWebhook(rawBody: Buffer, header: HeaderValue, secretKeys: readonly string[]): SignatureCheck {
  assertCandidateSecrets(secretKeys, 'Paystack secret keys');
  const value = singleHeaderValue(header);
  if (!value.ok) return value;
  if (!/^[0-9a-fA-F]{128}$/.test(value.value)) return { ok: false, reason: 'MALFORMED_HEADER' };
  return matchAnyCandidate(secretKeys, (secretKey) => verifyPaystackSignature(rawBody, value.value, secretKey));
}

/**
 * Verifies Paystack's `x-paystack-signature`: the hex HMAC-SHA512 of the exact raw request
 * body, keyed with the account's secret key (docs/provider-facts.md, Paystack).
 * Compared in constant time on the raw bytes; a header of the wrong length or with non-hex
 * characters fails without comparing.
 *
 * @param rawBody - the body exactly as received, before any parsing.
 * @param header - the header value, or undefined when absent.
 * @param secretKey - the secret key.
 */
export function verifyPaystackSignature(rawBody: Buffer, header: string | undefined, secretKey: string): boolean {
  if (!header || !/^[0-9a-fA-F]{128}$/.test(header)) return false;
  const expected = createHmac('sha512', secretKey).update(rawBody).digest();
  const presented = Buffer.from(header, 'hex');
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** Signs a body the way Paystack does (for the sandbox and tests). */
export function signPaystack(rawBody: Buffer | string, secretKey: string): string {
  return createHmac('sha512', secretKey).update(rawBody).digest('hex');
}

import { verifyPaystackSignature } from '../paystack-signature.js';
import { assertCandidateSecrets, matchAnyCandidate, singleHeaderValue, type HeaderValue, type SignatureCheck } from './signature-check.js';

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

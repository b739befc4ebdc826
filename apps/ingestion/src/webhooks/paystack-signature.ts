import { createHmac, timingSafeEqual } from 'node:crypto';

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

import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { normaliseEmail, toE164 } from '../transaction/consensus.js';

/**
 * A customer identifier as every part of Settle names a data subject by it (docs/privacy.md,
 * "Crypto-shredding"): an email trimmed and lower case; a phone in E.164 (`+254 712 345 678` is
 * `+254712345678`), or trimmed as typed when it is not a valid number. The verifier seals under
 * it, the console proposes under it, and erasure and export look it up by it.
 */
export function customerIdentifier(value: string): string {
  const trimmed = value.trim();
  return trimmed.includes('@') ? normaliseEmail(trimmed) : (toE164(trimmed) ?? trimmed);
}

/**
 * The subject a customer's values are sealed under when there is no user (an unmatched payment, a
 * match proposal): its email's identifier when it has an email, else its phone's; `null` with
 * neither.
 */
export function customerSubjectId(customer: { email?: string | null | undefined; phone?: string | null | undefined }): string | null {
  const email = customer.email?.trim();
  if (email) return customerIdentifier(email);
  const phone = customer.phone?.trim();
  return phone ? customerIdentifier(phone) : null;
}

/**
 * The digit strings a stored phone may hold for one number, for looking it up where providers
 * stored it as they sent it (`+2348012345678`, `2348012345678`, `08012345678`): the E.164 digits,
 * and the national form with a leading 0. Compared with the stored text's digits
 * (`regexp_replace(phone, '[^0-9]', '', 'g')`). A text that is not a valid number gives its own
 * digits only.
 */
export function phoneDigitForms(phone: string): string[] {
  const e164 = toE164(phone);
  if (!e164) return [phone.replace(/[^0-9]/g, '')].filter((d) => d.length > 0);
  const parsed = parsePhoneNumberFromString(e164);
  return [...new Set([e164.slice(1), ...(parsed ? [`0${parsed.nationalNumber}`] : [])])];
}

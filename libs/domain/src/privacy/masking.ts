/**
 * Masked forms of a customer's identifiers, for people (docs/privacy.md, "Masked forms"): enough
 * to tell two addresses or numbers apart at a glance (the first letter and the domain of an email,
 * the country code and the last three digits of a phone), too little to contact anyone. What the
 * four-point check and reconciliation evidence record instead of the values themselves, so the
 * immutable ledger, Kafka and the read models hold no directly identifying data of the payer.
 * Lengths are never shown: every hidden run is `•••`.
 */

/** The mark of a hidden run of characters. */
export const HIDDEN = '•••';

/**
 * `carol@example.com` → `c•••@example.com`; `c@example.com` → `•••@example.com`. The domain is kept
 * (it names a provider or a company, not a person). Text without an `@` is hidden but for its first
 * character.
 */
export function maskEmail(email: string): string {
  const trimmed = email.trim();
  const at = trimmed.lastIndexOf('@');
  if (at < 0) return trimmed.length > 1 ? `${[...trimmed][0]}${HIDDEN}` : HIDDEN;
  const local = [...trimmed.slice(0, at)];
  return `${local.length > 1 ? local[0] : ''}${HIDDEN}${trimmed.slice(at)}`;
}

/**
 * `+254712345678` → `+254•••678`; a number not in E.164 (as a provider may report it) keeps its last
 * three digits only: `0712345678` → `•••678`. A leading `+` keeps the first three digits after it
 * (a country code is one to three digits; three more hide nothing of the subscriber's number).
 */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/[^\d]/g, '');
  const tail = digits.length > 3 ? digits.slice(-3) : '';
  if (phone.trim().startsWith('+') && digits.length > 6) return `+${digits.slice(0, 3)}${HIDDEN}${tail}`;
  return `${HIDDEN}${tail}`;
}

/**
 * A customer's identifiers as a check or evidence records them: `email:<masked> phone:<masked>`,
 * or `(none)` when there is neither.
 */
export function describeCustomerMasked(customer: { email?: string | null | undefined; phone?: string | null | undefined }): string {
  return (
    [customer.email ? `email:${maskEmail(customer.email)}` : null, customer.phone ? `phone:${maskPhone(customer.phone)}` : null].filter(Boolean).join(' ') ||
    '(none)'
  );
}

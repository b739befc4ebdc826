// Pure helpers of the erasure form (docs/privacy.md, "Erasure"; docs/approvals.md): whom to erase
// and why, checked as the API checks them, before a proposal a second admin approves.

/** Whom an erasure names: a merchant's user by `user_id`, or a customer by email or phone. */
export type SubjectKind = 'user' | 'customer';

/** The body of `POST /api/v1/privacy/erasures`. */
export interface ErasureRequest {
  subject: { kind: SubjectKind; id: string };
  reason: string;
}

/** What the form asks for, as typed. */
export interface ErasureForm {
  kind: SubjectKind;
  id: string;
  reason: string;
}

/**
 * The request of a filled-in form, or what is wrong with it, field by field: a subject named
 * (a customer by an email, or a phone with `+` and its country code), and a reason (at most 500
 * characters), both trimmed.
 */
export function erasureRequestOf(
  form: ErasureForm,
): { request: ErasureRequest; problems: null } | { request: null; problems: Partial<Record<'id' | 'reason', string>> } {
  const id = form.id.trim();
  const reason = form.reason.trim();
  const problems: Partial<Record<'id' | 'reason', string>> = {};
  if (!id) problems.id = form.kind === 'user' ? 'Give the user id.' : 'Give the customer’s email or phone.';
  else if (id.length > 320) problems.id = 'At most 320 characters.';
  else if (form.kind === 'customer' && !id.includes('@') && !/^\+[0-9 ()-]{6,30}$/.test(id)) {
    problems.id = 'An email, or a phone with + and the country code.';
  }
  if (!reason) problems.reason = 'Say why: a ticket, the request’s date (never the person’s email or phone).';
  else if (reason.length > 500) problems.reason = 'At most 500 characters.';
  return Object.keys(problems).length > 0 ? { request: null, problems } : { request: { subject: { kind: form.kind, id }, reason }, problems: null };
}

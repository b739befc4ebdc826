// Pure helpers of matching an unmatched payment to a checkout (docs/unmatched-payments.md,
// docs/approvals.md): the form's amount in major units as integer minor units, the form's checks,
// a proposal's terms read back, and those terms beside what the provider confirmed.

import type { MatchTerms, UnmatchedPayment } from '../api/types';
import { currencyExponent, formatMoney } from './format';

/** The match form as typed: every field text, empty at first (never filled from the provider's answer). */
export interface MatchFormValues {
  entitlement: string;
  userId: string;
  /** An ISO 8601 duration, `P30D`, `P1M`, `P1Y`. */
  accessPeriod: string;
  /** In major units (`1500.00`), as the operator's source writes it. */
  amount: string;
  /** ISO 4217, `NGN`. */
  currency: string;
  email: string;
  phone: string;
}

/** A field of {@link MatchFormValues}. */
export type MatchField = keyof MatchFormValues;

/** The form as it opens: empty. The operator states the terms from their own source. */
export const EMPTY_MATCH_FORM: Readonly<MatchFormValues> = Object.freeze({
  entitlement: '',
  userId: '',
  accessPeriod: '',
  amount: '',
  currency: '',
  email: '',
  phone: '',
});

/** Access periods as the checkout API writes them: ISO 8601 durations in whole years, months, weeks and days (the console API's rule). */
const ACCESS_PERIOD = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?$/;
/** An international number, as the console API takes it: `+`, the country code, digits, spaces, brackets, dashes. */
const PHONE = /^\+[0-9 ()-]{6,30}$/;
/** An e-mail address in its simplest shape; the API checks it again. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The result of reading a typed amount: integer minor units, or why it cannot be one. */
export type MinorUnitsResult = { ok: true; minor: number } | { ok: false; message: string };

/**
 * An amount typed in major units (`1500`, `1500.5`, `1,500.00`) as an integer in the currency's
 * minor units, with the currency's exponent from {@link currencyExponent} (2 for NGN, 0 for JPY,
 * 3 for KWD): `'1,500.00', 'NGN'` is 150 000. Exact: the digits are shifted as text, never
 * multiplied as a float. A point is the decimal mark; commas may only group thousands.
 *
 * @returns `ok: false` with a message for people when the currency is unknown, the text is not
 *   an amount, it has more decimals than the currency has, or it is not above zero.
 */
export function toMinorUnits(amount: string, currency: string): MinorUnitsResult {
  const code = currency.trim().toUpperCase();
  const exponent = /^[A-Z]{3}$/.test(code) ? currencyExponent(code) : null;
  if (exponent === null) return { ok: false, message: 'Enter the currency first (a three-letter ISO 4217 code), so the amount can be read.' };
  let text = amount.trim().replace(/[\s_]/g, '');
  if (/^\d{1,3}(,\d{3})+(\.\d*)?$/.test(text)) text = text.replace(/,/g, '');
  const parts = /^(\d*)(?:\.(\d*))?$/.exec(text);
  if (!parts || !/\d/.test(text)) return { ok: false, message: `Enter the amount in ${code} with a point for decimals, such as ${example(exponent)}.` };
  const whole = parts[1] ?? '';
  const fraction = parts[2] ?? '';
  if (fraction.length > exponent) {
    return {
      ok: false,
      message:
        exponent === 0
          ? `${code} has no minor unit: enter a whole amount.`
          : `${code} has ${exponent} decimal place${exponent === 1 ? '' : 's'}: enter at most ${exponent}.`,
    };
  }
  const digits = `${whole}${fraction.padEnd(exponent, '0')}`.replace(/^0+(?=\d)/, '');
  const minor = Number(digits);
  if (!Number.isSafeInteger(minor)) return { ok: false, message: 'The amount is too large.' };
  if (minor <= 0) return { ok: false, message: 'The amount must be above zero.' };
  return { ok: true, minor };
}

/** `1500.00` for an exponent of 2, `1500` for 0. */
function example(exponent: number): string {
  return exponent === 0 ? '1500' : `1500.${'0'.repeat(exponent)}`;
}

/** The form checked: the terms to send, or a message per field that is wrong. */
export type MatchFormResult = { ok: true; terms: MatchTerms } | { ok: false; errors: Partial<Record<MatchField, string>> };

/**
 * Checks the match form as the console API will (docs/approvals.md), so an operator sees what is
 * wrong beside the field before anything is sent, and builds the request's terms: the amount in
 * minor units ({@link toMinorUnits}), the currency and access period upper-cased, text trimmed,
 * the customer's e-mail and/or phone (at least one). The API checks everything again.
 */
export function checkMatchForm(values: MatchFormValues): MatchFormResult {
  const errors: Partial<Record<MatchField, string>> = {};
  const entitlement = values.entitlement.trim();
  const userId = values.userId.trim();
  const accessPeriod = values.accessPeriod.trim().toUpperCase();
  const currency = values.currency.trim().toUpperCase();
  const email = values.email.trim();
  const phone = values.phone.trim();

  if (!entitlement) errors.entitlement = 'Enter the entitlement the payment buys, as your checkout names it.';
  else if (entitlement.length > 200) errors.entitlement = 'At most 200 characters.';
  if (!userId) errors.userId = 'Enter the user the payment is for, as your checkout names them.';
  else if (userId.length > 200) errors.userId = 'At most 200 characters.';
  if (!ACCESS_PERIOD.test(accessPeriod)) errors.accessPeriod = 'An ISO 8601 duration in years, months, weeks or days, such as P30D, P1M or P1Y.';
  if (!/^[A-Z]{3}$/.test(currency) || currencyExponent(currency) === null) errors.currency = 'A three-letter ISO 4217 code, such as NGN or USD.';
  const amount = toMinorUnits(values.amount, currency);
  if (!amount.ok && !errors.currency) errors.amount = amount.message;
  if (!email && !phone) errors.email = 'Enter the customer’s e-mail, phone, or both.';
  if (email && (!EMAIL.test(email) || email.length > 320)) errors.email = 'Not an e-mail address.';
  if (phone && !PHONE.test(phone)) errors.phone = 'An international number: + and the country code, such as +234 801 234 5678.';

  if (Object.keys(errors).length > 0 || !amount.ok) return { ok: false, errors };
  return {
    ok: true,
    terms: {
      amount: amount.minor,
      currency,
      user_id: userId,
      customer: { ...(email ? { email } : {}), ...(phone ? { phone } : {}) },
      entitlement,
      access_period: accessPeriod,
    },
  };
}

/** Where the API's field paths (`customer.email`) are on the form. */
const FIELD_OF_PATH: Record<string, MatchField> = {
  amount: 'amount',
  currency: 'currency',
  user_id: 'userId',
  customer: 'email',
  'customer.email': 'email',
  'customer.phone': 'phone',
  entitlement: 'entitlement',
  access_period: 'accessPeriod',
};

/** The form field an API problem's field path names (`customer.phone` is `phone`); `null` for a path the form has no field for. */
export function matchFieldOfPath(path: string): MatchField | null {
  return FIELD_OF_PATH[path] ?? null;
}

/**
 * A proposal's parameters read back as match terms (they are typed as a free record in the API's
 * answer); `null` when they are not match terms (another action's proposal).
 */
export function proposedTerms(parameters: Record<string, unknown>): MatchTerms | null {
  const { amount, currency, user_id, customer, entitlement, access_period } = parameters;
  if (typeof amount !== 'number' || typeof currency !== 'string' || typeof user_id !== 'string') return null;
  if (typeof entitlement !== 'string' || typeof access_period !== 'string') return null;
  if (typeof customer !== 'object' || customer === null) return null;
  const { email, phone } = customer as { email?: unknown; phone?: unknown };
  return {
    amount,
    currency,
    user_id,
    customer: { ...(typeof email === 'string' ? { email } : {}), ...(typeof phone === 'string' ? { phone } : {}) },
    entitlement,
    access_period,
  };
}

/** One line of a proposal's terms beside the provider's answer. */
export interface TermLine {
  /** Stable name of the line (`data-term`). */
  term: 'currency' | 'amount' | 'email' | 'phone' | 'user_id' | 'entitlement' | 'access_period';
  label: string;
  /** As proposed; `null` when the proposal leaves it out (a customer's phone). */
  proposed: string | null;
  /**
   * As the provider confirmed it; `null` when its answer has none (or the payment is not at hand).
   * The customer's e-mail and phone only masked (`c•••@example.com`, `+254•••678`: docs/privacy.md).
   */
  provider: string | null;
  /** A term only the checkout knows (user, entitlement, access period): the provider's answer has no such field. */
  checkoutOnly: boolean;
  /**
   * Whether both agree; `null` when there is nothing to compare, or when the verifier decides (a
   * customer's e-mail or phone that fits the provider's masked form: only the verifier holds the value).
   */
  agrees: boolean | null;
}

/** The mark of a hidden run in a masked form (docs/privacy.md, "Masked forms"). */
const HIDDEN = '•••';

/**
 * Whether an e-mail could be the one masked as `masked` (`c•••@example.com`: its first character
 * and its domain, case-insensitive); `true` for a masked form not of that shape (nothing to tell).
 */
function fitsMaskedEmail(email: string, masked: string): boolean {
  const hidden = masked.indexOf(HIDDEN);
  if (hidden < 0) return email.trim().toLowerCase() === masked.trim().toLowerCase();
  const value = email.trim().toLowerCase();
  const [head, tail] = [masked.slice(0, hidden).toLowerCase(), masked.slice(hidden + HIDDEN.length).toLowerCase()];
  return value.startsWith(head) && value.endsWith(tail) && value.length > head.length + tail.length;
}

/**
 * Whether a phone could be the one masked as `masked` (`+254•••678`: the digits it keeps first and
 * last); `true` for a masked form not of that shape (nothing to tell).
 */
function fitsMaskedPhone(phone: string, masked: string): boolean {
  const digits = (value: string) => value.replace(/\D/g, '');
  const hidden = masked.indexOf(HIDDEN);
  if (hidden < 0) return digits(phone) === digits(masked);
  const [head, tail] = [digits(masked.slice(0, hidden)), digits(masked.slice(hidden + HIDDEN.length))];
  return digits(phone).startsWith(head) && digits(phone).endsWith(tail);
}

/**
 * A proposal's terms line by line beside what the provider confirmed for the payment, so an
 * approver sees before approving what the four checks will find: currency and exact amount
 * (compared in minor units), the customer's e-mail and phone against the provider's masked forms
 * (docs/privacy.md, "Masked forms": a value that does not fit differs; one that fits is for the
 * verifier to decide, which compares the values), then the terms only the checkout knows (user,
 * entitlement, access period).
 *
 * @param payment - the open unmatched payment, or `null` when it is not at hand (matched or closed since).
 */
export function compareTerms(terms: MatchTerms, payment: UnmatchedPayment | null): TermLine[] {
  const email = terms.customer.email ?? null;
  const phone = terms.customer.phone ?? null;
  const providerEmail = payment?.customer.email ?? null;
  const providerPhone = payment?.customer.phone ?? null;
  const providerCurrency = payment?.currency ?? null;
  const providerMinor = payment?.amountMinor ?? null;
  const line = (term: TermLine['term'], label: string, proposed: string | null, provider: string | null, agrees: boolean | null): TermLine => ({
    term,
    label,
    proposed,
    provider,
    checkoutOnly: false,
    agrees,
  });
  const checkoutOnly = (term: TermLine['term'], label: string, proposed: string): TermLine => ({
    term,
    label,
    proposed,
    provider: null,
    checkoutOnly: true,
    agrees: null,
  });
  return [
    line('currency', 'Currency', terms.currency, providerCurrency, providerCurrency ? providerCurrency === terms.currency : null),
    line(
      'amount',
      'Amount',
      formatMoney(terms.amount, terms.currency),
      providerMinor !== null && providerCurrency ? formatMoney(providerMinor, providerCurrency) : null,
      providerMinor !== null ? providerMinor === terms.amount && providerCurrency === terms.currency : null,
    ),
    line('email', 'Customer e-mail', email, providerEmail, email && providerEmail && !fitsMaskedEmail(email, providerEmail) ? false : null),
    line('phone', 'Customer phone', phone, providerPhone, phone && providerPhone && !fitsMaskedPhone(phone, providerPhone) ? false : null),
    checkoutOnly('user_id', 'User', terms.user_id),
    checkoutOnly('entitlement', 'Entitlement', terms.entitlement),
    checkoutOnly('access_period', 'Access period', terms.access_period),
  ];
}

/** A page of the open unmatched payments queue, as {@link findOpenUnmatched} reads it. */
export type UnmatchedPage = { items: UnmatchedPayment[]; nextCursor: string | null };

/** Pages {@link findOpenUnmatched} reads at most (of 100 each): past that, a payment reads as not found. */
export const UNMATCHED_LOOKUP_PAGES = 20;

/**
 * The open unmatched payments of some references, read from the queue page by page (oldest
 * first) until every one is found, the queue ends, or {@link UNMATCHED_LOOKUP_PAGES} pages were
 * read. The API has no read of one unmatched payment; the queue of open ones is short (each is
 * an alert).
 *
 * @param read - reads one page of the queue after `cursor` (`null`: the first).
 * @returns the payments found, by reference; a reference missing from it is not open (matched or closed) or beyond the pages read.
 */
export async function findOpenUnmatched(
  references: readonly string[],
  read: (cursor: string | null) => Promise<UnmatchedPage>,
): Promise<Map<string, UnmatchedPayment>> {
  const wanted = new Set(references);
  const found = new Map<string, UnmatchedPayment>();
  let cursor: string | null = null;
  for (let page = 0; page < UNMATCHED_LOOKUP_PAGES && found.size < wanted.size; page++) {
    const answer: UnmatchedPage = await read(cursor);
    for (const item of answer.items) if (wanted.has(item.reference)) found.set(item.reference, item);
    if (answer.nextCursor === null) break;
    cursor = answer.nextCursor;
  }
  return found;
}

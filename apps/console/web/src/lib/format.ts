// Pure display helpers: money in minor units, timestamps, and the labels and colours of
// Settle's closed lists (states, entitlement statuses, checks, triggers).

/**
 * The number of minor-unit digits of a currency (its ISO 4217 exponent), as `Intl.NumberFormat`
 * knows it: 2 for USD and NGN, 0 for JPY and UGX, 3 for KWD.
 *
 * @returns `null` when the code is not a well-formed currency code.
 */
export function currencyExponent(currency: string): number | null {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? null;
  } catch {
    return null;
  }
}

/**
 * An integer amount in minor units (kobo, cents) as money for people: `150000, 'NGN'` is
 * `NGN 1,500.00` (or `₦1,500.00`, as the locale writes it). Exact for every safe integer: the
 * decimal point is placed in the digits, never by dividing a float.
 *
 * @param amountMinor - integer amount in the currency's minor unit.
 * @param currency - ISO 4217 code; an unknown one shows the raw minor units with the code.
 * @param locale - BCP 47 locale; the browser's by default.
 */
export function formatMoney(amountMinor: number, currency: string, locale?: string): string {
  const exponent = currencyExponent(currency);
  if (exponent === null || !Number.isSafeInteger(amountMinor)) return `${amountMinor} ${currency} (minor units)`;
  const digits = Math.abs(amountMinor)
    .toString()
    .padStart(exponent + 1, '0');
  const whole = exponent === 0 ? digits : digits.slice(0, -exponent);
  const fraction = exponent === 0 ? '' : `.${digits.slice(-exponent)}`;
  const decimal = `${amountMinor < 0 ? '-' : ''}${whole}${fraction}` as `${number}`;
  return new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: 'narrowSymbol' }).format(decimal);
}

/**
 * An ISO 8601 timestamp as a date and time with seconds, e.g. `25 Nov 2026, 08:58:26`.
 *
 * @param timeZone - IANA zone; the browser's by default.
 * @returns the input unchanged when it is not a timestamp.
 */
export function formatDateTime(iso: string, locale?: string, timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium', timeZone }).format(date);
}

/**
 * How long ago a timestamp was, in the largest whole unit (`just now`, `5 min ago`, `3 h ago`,
 * `2 d ago`).
 *
 * @param now - epoch milliseconds.
 */
export function formatAge(iso: string, now: number): string {
  const then = new Date(iso).getTime();
  if (Number.isNaN(then)) return '';
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} d ago`;
}

/** `SETTLED_CONSENSUS` or `sweeper_review_recheck` as words: `Settled consensus`, `Sweeper review recheck`. */
export function humanize(value: string): string {
  const words = value
    .replace(/[_.-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const PROVIDER_LABELS: Record<string, string> = { paystack: 'Paystack', stripe: 'Stripe', flutterwave: 'Flutterwave', mpesa: 'M-Pesa' };

/** A provider's name as it writes it (`mpesa` is `M-Pesa`). */
export function providerLabel(provider: string): string {
  return PROVIDER_LABELS[provider] ?? humanize(provider);
}

const STATE_LABELS: Record<string, string> = {
  PENDING: 'Pending',
  RECOVERING: 'Recovering',
  MANUAL_REVIEW: 'Manual review',
  SETTLED_CONSENSUS: 'Settled',
  FAILED_DECLINED: 'Declined',
  STATE_MISMATCH: 'State mismatch',
};

/** A transaction state as people read it (`SETTLED_CONSENSUS` is `Settled`). */
export function stateLabel(state: string): string {
  return STATE_LABELS[state] ?? humanize(state);
}

const ENTITLEMENT_LABELS: Record<string, string> = { LOCKED: 'Locked', UNLOCKED: 'Unlocked', HELD_IN_REVIEW: 'Held in review' };

/** An entitlement status as people read it (docs/spec.md, section 2: Unlocked, Locked, Held in review). */
export function entitlementLabel(status: string): string {
  return ENTITLEMENT_LABELS[status] ?? humanize(status);
}

const CHECK_LABELS: Record<string, string> = {
  transaction_identity: 'Transaction identity',
  currency: 'Currency',
  amount: 'Amount',
  customer: 'Customer identifier',
};

/** A checklist point's name as the spec writes it (docs/spec.md, section 3). */
export function checkLabel(check: string): string {
  return CHECK_LABELS[check] ?? humanize(check);
}

/** The colour family of a badge. */
export type Tone = 'success' | 'danger' | 'warning' | 'info' | 'review' | 'neutral';

const STATE_TONES: Record<string, Tone> = {
  PENDING: 'info',
  RECOVERING: 'warning',
  MANUAL_REVIEW: 'review',
  SETTLED_CONSENSUS: 'success',
  FAILED_DECLINED: 'neutral',
  STATE_MISMATCH: 'danger',
};

/** The badge colour of a transaction state; unknown states are neutral. */
export function stateTone(state: string): Tone {
  return STATE_TONES[state] ?? 'neutral';
}

const ENTITLEMENT_TONES: Record<string, Tone> = { LOCKED: 'neutral', UNLOCKED: 'success', HELD_IN_REVIEW: 'warning' };

/** The badge colour of an entitlement status. */
export function entitlementTone(status: string): Tone {
  return ENTITLEMENT_TONES[status] ?? 'neutral';
}

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

/**
 * How far ahead a timestamp is, in the largest whole unit (`in 12 min`, `in 3 h`, `in 2 d`);
 * `due now` within 45 seconds either way, and `overdue by 5 min` once passed.
 *
 * @param now - epoch milliseconds.
 * @returns `''` when the input is not a timestamp.
 */
export function formatUntil(iso: string, now: number): string {
  const then = new Date(iso).getTime();
  if (Number.isNaN(then)) return '';
  const seconds = Math.round((then - now) / 1000);
  if (Math.abs(seconds) < 45) return 'due now';
  const span = wholeUnits(Math.abs(seconds));
  return seconds > 0 ? `in ${span}` : `overdue by ${span}`;
}

/** Seconds (45 and more) in the largest whole unit: `12 min`, `3 h`, `2 d`. */
function wholeUnits(seconds: number): string {
  const minutes = Math.max(1, Math.round(seconds / 60));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.round(hours / 24)} d`;
}

/**
 * A duration in milliseconds for people: `85 ms` below a second, else seconds with one decimal
 * (`1.2 s`, `10.0 s`).
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Why a transaction waits in manual review, in one line: the last ledger event's detail when it
 * has one, else the last verdict and trigger (`Clearing, after Sweeper review limit`), and the
 * sweeper's re-checks when there were any (`30 automatic re-checks`).
 */
export function manualReviewReason(item: {
  lastVerdict: string | null;
  lastTrigger: string | null;
  checksSoFar: number;
  lastEvent: { detail: string | null } | null;
}): string {
  const parts: string[] = [];
  const detail = item.lastEvent?.detail?.trim();
  if (detail) parts.push(detail);
  else if (item.lastVerdict) parts.push(item.lastTrigger ? `${humanize(item.lastVerdict)}, after ${humanize(item.lastTrigger)}` : humanize(item.lastVerdict));
  else if (item.lastTrigger) parts.push(`After ${humanize(item.lastTrigger)}`);
  if (item.checksSoFar > 0) parts.push(`${item.checksSoFar} automatic re-check${item.checksSoFar === 1 ? '' : 's'}`);
  return parts.length > 0 ? parts.join(' · ') : 'No verdict recorded yet';
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

const ADMIN_ACTION_LABELS: Record<string, string> = {
  'transaction.reconcile': 'Manual reconciliation',
  'delivery.resend': 'Resend',
  'endpoint.recover': 'Endpoint recovery',
  'endpoint.enable': 'Endpoint re-enabled',
  'endpoint.disable': 'Endpoint disabled',
  'user.create': 'User created',
  'user.update': 'User changed',
  'state_mismatch.refund_due': 'Closed: refund due',
};

/** An admin action's name as people read it (`transaction.reconcile` is `Manual reconciliation`). */
export function adminActionLabel(action: string): string {
  return ADMIN_ACTION_LABELS[action] ?? humanize(action);
}

/**
 * An admin action's parameters in one line, `key: value` joined by ` · ` (`role: viewer · disabled: true`);
 * `''` when there are none. Values that are not text, numbers or booleans are shown as JSON.
 */
export function formatParameters(parameters: Record<string, unknown>): string {
  return Object.entries(parameters)
    .map(
      ([key, value]) =>
        `${key}: ${typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value)}`,
    )
    .join(' · ');
}

const CHAIN_BREAK_LABELS: Record<string, string> = {
  STREAM_HASH_MISMATCH: 'an event was changed (its stream hash does not match)',
  GLOBAL_HASH_MISMATCH: 'the global chain does not match (hashes recomputed after a change)',
  POSITION_GAP: 'an event is missing (the positions jump)',
  REVISION_GAP: 'an event of the stream is missing (the revisions jump)',
  HEAD_MISMATCH: 'the head does not name the last event (newest events deleted, or the head moved)',
  CHECKPOINT_MISSING: 'the event verified last is gone',
  CHECKPOINT_MISMATCH: 'the history up to the event verified last was rewritten',
  ROOT_MISMATCH: 'the events no longer match a signed checkpoint (history rewritten and recomputed)',
  LEDGER_SHORTER: 'a signed checkpoint covers events the ledger no longer has (newest events deleted)',
  CHECKPOINT_UNVERIFIED: 'a checkpoint in the sink is not signed by a trusted key (edited, or signed by an unknown key)',
  CHECKPOINT_INVALID: 'a checkpoint in the sink is malformed',
  CHECKPOINT_OTHER_LEDGER: 'a checkpoint in the sink names another ledger',
  CHECKPOINT_MISFILED: 'a checkpoint in the sink is filed under another size',
};

/** Why the ledger's hash chains break, or disagree with a signed checkpoint, for people (docs/ledger.md, "Tamper evidence" and "Verifying against the checkpoints"); an unknown reason as words. */
export function chainBreakLabel(reason: string): string {
  return CHAIN_BREAK_LABELS[reason] ?? humanize(reason);
}

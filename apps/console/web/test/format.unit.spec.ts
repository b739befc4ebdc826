import { describe, expect, it } from 'vitest';
import {
  chainBreakLabel,
  currencyExponent,
  entitlementLabel,
  formatAge,
  formatDateTime,
  formatDuration,
  formatMoney,
  formatUntil,
  humanize,
  manualReviewReason,
  providerLabel,
  stateLabel,
  stateTone,
} from '../src/lib/format';

describe('currencyExponent', () => {
  it.each([
    ['NGN', 2],
    ['USD', 2],
    ['KES', 2],
    ['JPY', 0],
    ['UGX', 0],
    ['KWD', 3],
  ])('%s has %i minor-unit digits', (currency, exponent) => {
    expect(currencyExponent(currency)).toBe(exponent);
  });

  it('is null for a code that is not one', () => {
    expect(currencyExponent('naira')).toBeNull();
  });
});

describe('formatMoney', () => {
  it('places the decimal point by the currency exponent', () => {
    expect(formatMoney(150_000, 'NGN', 'en-NG')).toBe('₦1,500.00');
    expect(formatMoney(1_999, 'USD', 'en-US')).toBe('$19.99');
    expect(formatMoney(5_000, 'JPY', 'en-US')).toBe('¥5,000');
    // Intl writes a no-break space between a code and the number.
    expect(formatMoney(1_234, 'KWD', 'en-US')).toMatch(/^KWD\s1\.234$/);
  });

  it('pads amounts below one major unit', () => {
    expect(formatMoney(5, 'USD', 'en-US')).toBe('$0.05');
    expect(formatMoney(0, 'NGN', 'en-NG')).toBe('₦0.00');
  });

  it('is exact for amounts a float division would round (2^53 - 1 minor units)', () => {
    expect(formatMoney(Number.MAX_SAFE_INTEGER, 'USD', 'en-US')).toBe('$90,071,992,547,409.91');
  });

  it('keeps the sign of a negative amount', () => {
    expect(formatMoney(-250, 'USD', 'en-US')).toBe('-$2.50');
  });

  it('shows raw minor units when the currency code is not one', () => {
    expect(formatMoney(150_000, 'naira', 'en-US')).toBe('150000 naira (minor units)');
  });
});

describe('formatDateTime and formatAge', () => {
  it('formats an ISO timestamp in the given zone', () => {
    expect(formatDateTime('2026-11-25T08:58:26.000Z', 'en-GB', 'UTC')).toBe('25 Nov 2026, 08:58:26');
  });

  it('returns what is not a timestamp unchanged', () => {
    expect(formatDateTime('yesterday', 'en-GB', 'UTC')).toBe('yesterday');
  });

  it('says how long ago in the largest whole unit', () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    expect(formatAge('2026-11-25T11:59:30Z', now)).toBe('just now');
    expect(formatAge('2026-11-25T11:55:00Z', now)).toBe('5 min ago');
    expect(formatAge('2026-11-25T09:00:00Z', now)).toBe('3 h ago');
    expect(formatAge('2026-11-22T12:00:00Z', now)).toBe('3 d ago');
    expect(formatAge('later', now)).toBe('');
  });
});

describe('labels and tones', () => {
  it('names states and entitlement statuses as people read them', () => {
    expect(stateLabel('SETTLED_CONSENSUS')).toBe('Settled');
    expect(stateLabel('STATE_MISMATCH')).toBe('State mismatch');
    expect(stateLabel('SOMETHING_NEW')).toBe('Something new');
    expect(entitlementLabel('HELD_IN_REVIEW')).toBe('Held in review');
    expect(humanize('sweeper_review_recheck')).toBe('Sweeper review recheck');
    expect(providerLabel('mpesa')).toBe('M-Pesa');
    expect(providerLabel('newpay')).toBe('Newpay');
  });

  it('colours settled green, mismatch red, recovering amber and unknown states neutral', () => {
    expect(stateTone('SETTLED_CONSENSUS')).toBe('success');
    expect(stateTone('STATE_MISMATCH')).toBe('danger');
    expect(stateTone('RECOVERING')).toBe('warning');
    expect(stateTone('SOMETHING_NEW')).toBe('neutral');
  });
});

describe('formatUntil', () => {
  const now = Date.parse('2026-11-25T09:00:00.000Z');
  it('tells the time ahead in the largest whole unit', () => {
    expect(formatUntil('2026-11-25T09:12:00.000Z', now)).toBe('in 12 min');
    expect(formatUntil('2026-11-25T09:01:00.000Z', now)).toBe('in 1 min');
    expect(formatUntil('2026-11-25T12:00:00.000Z', now)).toBe('in 3 h');
    expect(formatUntil('2026-11-28T09:00:00.000Z', now)).toBe('in 3 d');
  });

  it('says due now within 45 s either way, and overdue once passed', () => {
    expect(formatUntil('2026-11-25T09:00:30.000Z', now)).toBe('due now');
    expect(formatUntil('2026-11-25T08:59:30.000Z', now)).toBe('due now');
    expect(formatUntil('2026-11-25T08:55:00.000Z', now)).toBe('overdue by 5 min');
  });

  it('is empty for what is not a timestamp', () => {
    expect(formatUntil('soon', now)).toBe('');
  });
});

describe('formatDuration', () => {
  it('writes milliseconds below a second, else seconds with one decimal', () => {
    expect(formatDuration(85)).toBe('85 ms');
    expect(formatDuration(1_234)).toBe('1.2 s');
    expect(formatDuration(10_000)).toBe('10.0 s');
    expect(formatDuration(-1)).toBe('—');
  });
});

describe('manualReviewReason', () => {
  const base = { lastVerdict: null, lastTrigger: null, checksSoFar: 0, lastEvent: null };
  it("prefers the last ledger event's detail, with the re-checks", () => {
    expect(manualReviewReason({ ...base, lastVerdict: 'clearing', checksSoFar: 30, lastEvent: { detail: 'still clearing after 30 re-checks' } })).toBe(
      'still clearing after 30 re-checks · 30 automatic re-checks',
    );
  });

  it('falls back to the verdict and trigger, then to saying nothing is recorded', () => {
    expect(manualReviewReason({ ...base, lastVerdict: 'clearing', lastTrigger: 'sweeper_review_limit', checksSoFar: 1 })).toBe(
      'Clearing, after Sweeper review limit · 1 automatic re-check',
    );
    expect(manualReviewReason({ ...base, lastTrigger: 'admin_reconciliation', lastEvent: { detail: ' ' } })).toBe('After Admin reconciliation');
    expect(manualReviewReason(base)).toBe('No verdict recorded yet');
  });
});

describe('chainBreakLabel', () => {
  it('says what each break of the hash chains means, and words for a reason it does not know', () => {
    expect(chainBreakLabel('STREAM_HASH_MISMATCH')).toBe('an event was changed (its stream hash does not match)');
    expect(chainBreakLabel('CHECKPOINT_MISMATCH')).toBe('the history up to the event verified last was rewritten');
    expect(chainBreakLabel('SOMETHING_NEW')).toBe('Something new');
  });
});

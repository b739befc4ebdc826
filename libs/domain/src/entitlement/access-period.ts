import { Temporal } from 'temporal-polyfill';
import { DomainError } from '../shared/errors.js';

/**
 * What a payment buys: an ISO 8601 duration such as `P1M`, `P30D`, `P1Y` or `P1Y6M`, as the
 * checkout registered it (`POST /v1/checkouts`, `access_period`). Kept as the text the
 * registration gave, so the ledger records exactly what was sold.
 */
export type AccessPeriod = string & { readonly __accessPeriod: unique symbol };

/** Longest access period one payment may buy: ten years (docs/delivery.md, "Access periods"). */
export const MAX_ACCESS_PERIOD = 'P10Y';

const REFERENCE_INSTANT = Temporal.Instant.from('2000-01-01T00:00:00Z');

/** Adds a duration to an instant on the UTC calendar, clamping a missing day to the month's end. */
function addOnUtcCalendar(instant: Temporal.Instant, duration: Temporal.Duration): Temporal.Instant {
  return instant.toZonedDateTimeISO('UTC').add(duration, { overflow: 'constrain' }).toInstant();
}

/**
 * Checks an access period: an ISO 8601 duration (`P[n]Y[n]M[n]W[n]D[T[n]H[n]M[n]S]`) with whole,
 * non-negative components, longer than zero and at most {@link MAX_ACCESS_PERIOD}. Fractions
 * (`PT1.5H`) and negative durations are refused: a period is sold in whole units.
 *
 * @param text - the duration as registered, for example `P1M`.
 * @returns the same text, typed.
 * @throws DomainError `ENTITLEMENT.INVALID_ACCESS_PERIOD` naming the rule broken (never echoing more than the text).
 */
export function parseAccessPeriod(text: string): AccessPeriod {
  const invalid = (why: string) => new DomainError('ENTITLEMENT.INVALID_ACCESS_PERIOD', `access_period ${why}`);
  if (typeof text !== 'string' || text.length === 0 || text.length > 40 || !/^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?!$)(\d+H)?(\d+M)?(\d+S)?)?$/.test(text)) {
    throw invalid('must be an ISO 8601 duration with whole units, such as P1M, P30D or P1Y');
  }
  let duration: Temporal.Duration;
  try {
    duration = Temporal.Duration.from(text);
  } catch {
    throw invalid('must be an ISO 8601 duration with whole units, such as P1M, P30D or P1Y');
  }
  if (duration.blank) throw invalid('must be longer than zero');
  const end = addOnUtcCalendar(REFERENCE_INSTANT, duration);
  const limit = addOnUtcCalendar(REFERENCE_INSTANT, Temporal.Duration.from(MAX_ACCESS_PERIOD));
  if (Temporal.Instant.compare(end, limit) > 0) throw invalid(`must be at most ${MAX_ACCESS_PERIOD} (ten years)`);
  return text as AccessPeriod;
}

/**
 * The instant an access period that starts at `fromMs` ends, on the UTC calendar: years and
 * months first, then weeks and days, then hours, minutes and seconds (ISO 8601 and RFC 5545
 * order, as `Temporal` adds). A day of the month that the target month lacks is clamped to
 * its last day, so 31 January plus `P1M` is 28 February (29 in a leap year) and 29 February
 * plus `P1Y` is 28 February; days are 24 hours (UTC has no daylight saving). The result keeps
 * the start's time of day and milliseconds.
 *
 * Rule source: docs/delivery.md, "Access periods" (issue: grants are ledger facts).
 *
 * @param fromMs - start, epoch milliseconds.
 * @param period - a period checked by {@link parseAccessPeriod}.
 * @returns the end, epoch milliseconds.
 * @throws RangeError when the result is outside the calendar's range (years beyond 275760).
 */
export function addAccessPeriod(fromMs: number, period: AccessPeriod): number {
  return addOnUtcCalendar(Temporal.Instant.fromEpochMilliseconds(fromMs), Temporal.Duration.from(period)).epochMilliseconds;
}

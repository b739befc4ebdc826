import { describe, expect, it } from 'vitest';
import { addAccessPeriod, DomainError, parseAccessPeriod } from '@settle/domain';

const at = (iso: string) => Date.parse(iso);
const plus = (iso: string, period: string) => new Date(addAccessPeriod(at(iso), parseAccessPeriod(period))).toISOString();

describe('access periods (ISO 8601 durations on the UTC calendar)', () => {
  it.each([
    ['2027-01-15T10:00:00.000Z', 'P1M', '2027-02-15T10:00:00.000Z'],
    ['2027-01-31T10:00:00.000Z', 'P1M', '2027-02-28T10:00:00.000Z'],
    ['2028-01-31T10:00:00.000Z', 'P1M', '2028-02-29T10:00:00.000Z'],
    ['2027-03-31T23:59:59.999Z', 'P1M', '2027-04-30T23:59:59.999Z'],
    ['2028-02-29T00:00:00.000Z', 'P1Y', '2029-02-28T00:00:00.000Z'],
    ['2027-01-31T10:00:00.000Z', 'P30D', '2027-03-02T10:00:00.000Z'],
    ['2027-03-27T12:00:00.000Z', 'P2D', '2027-03-29T12:00:00.000Z'],
    ['2027-01-31T10:00:00.000Z', 'P1M1D', '2027-03-01T10:00:00.000Z'],
    ['2027-12-31T10:00:00.000Z', 'P1W', '2028-01-07T10:00:00.000Z'],
    ['2027-01-01T00:00:00.000Z', 'PT36H', '2027-01-02T12:00:00.000Z'],
    ['2027-01-01T00:00:00.000Z', 'P10Y', '2037-01-01T00:00:00.000Z'],
  ])('%s plus %s is %s', (from, period, to) => {
    expect(plus(from, period)).toBe(to);
  });

  it('adds months before days, so 31 January plus P1M1D is 1 March, not 3 March', () => {
    expect(plus('2027-01-31T00:00:00.000Z', 'P1M1D')).toBe('2027-03-01T00:00:00.000Z');
  });

  it.each(['', 'P', 'PT', '1M', 'P-1M', 'P1.5M', 'PT1.5H', 'P0D', 'PT0S', 'P11Y', 'P121M', 'p1m', 'P1M ', 'P1Y2X', 'P3661D'])(
    'refuses %j with ENTITLEMENT.INVALID_ACCESS_PERIOD',
    (text) => {
      const error = (() => {
        try {
          parseAccessPeriod(text);
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe('ENTITLEMENT.INVALID_ACCESS_PERIOD');
    },
  );

  it.each(['P1M', 'P30D', 'P1Y', 'P1Y6M', 'P2W', 'PT12H', 'P120M', 'P3652D'])('accepts %s', (text) => {
    expect(parseAccessPeriod(text)).toBe(text);
  });
});

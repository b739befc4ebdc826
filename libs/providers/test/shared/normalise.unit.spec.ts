import { describe, expect, it } from 'vitest';
import { AmountConversionError, currencyExponent, majorToMinor, normalisePhoneNumber } from '@settle/providers';

describe('currency exponents from the runtime (Intl / CLDR), not a table', () => {
  it.each([
    ['NGN', 2],
    ['KES', 2],
    ['USD', 2],
    ['JPY', 0],
    ['UGX', 0],
    ['XOF', 0],
    ['KWD', 3],
    ['bhd', 3],
  ])('%s has %i decimals', (currency, digits) => {
    expect(currencyExponent(currency)).toBe(digits);
  });

  it('rejects codes the runtime does not know (Intl alone would say 2)', () => {
    expect(() => currencyExponent('XYZ')).toThrow(AmountConversionError);
    expect(() => currencyExponent('US')).toThrow(expect.objectContaining({ code: 'PROVIDER.UNKNOWN_CURRENCY' }));
  });
});

describe('major to minor units, exactly', () => {
  it('shifts the decimal point without float arithmetic', () => {
    expect(majorToMinor(100.5, 'NGN')).toBe(10_050);
    expect(majorToMinor(1500, 'JPY')).toBe(1500);
    expect(majorToMinor(1.234, 'KWD')).toBe(1234);
    expect(majorToMinor(1.15, 'USD')).toBe(115); // 1.15 * 100 is 114.99999999999999 in floating point
    expect(majorToMinor(4.35, 'USD')).toBe(435); // 4.35 * 100 is 434.99999999999994
    expect(majorToMinor('0.07', 'USD')).toBe(7);
    expect(majorToMinor('100.500', 'NGN')).toBe(10_050);
    expect(majorToMinor(0, 'NGN')).toBe(0);
    expect(majorToMinor('45035996273704.96', 'NGN')).toBe(2 ** 52);
  });

  it('rejects more decimals than the exponent, negatives, exponents, and amounts beyond 2^52 minor units', () => {
    for (const [amount, currency] of [
      [100.505, 'NGN'],
      [1500.5, 'JPY'],
      [1.2345, 'KWD'],
      [-1, 'NGN'],
      ['1e3', 'NGN'],
      [Number.NaN, 'NGN'],
      [Number.POSITIVE_INFINITY, 'NGN'],
      ['45035996273704.97', 'NGN'],
      [' ', 'NGN'],
    ] as const) {
      expect(() => majorToMinor(amount, currency)).toThrow(expect.objectContaining({ code: 'PROVIDER.MALFORMED_AMOUNT' }));
    }
  });
});

describe('phone numbers to E.164 (libphonenumber-js)', () => {
  it('normalises international numbers and national ones with a region; keeps the rest as sent', () => {
    expect(normalisePhoneNumber('+254 712 345 678')).toBe('+254712345678');
    expect(normalisePhoneNumber('0712345678', 'KE')).toBe('+254712345678');
    expect(normalisePhoneNumber('08012345678', 'NG')).toBe('+2348012345678');
    expect(normalisePhoneNumber('08012345678')).toBe('08012345678');
    expect(normalisePhoneNumber(' 12 ', 'NG')).toBe('12');
    expect(normalisePhoneNumber(null)).toBeUndefined();
    expect(normalisePhoneNumber('  ')).toBeUndefined();
  });
});

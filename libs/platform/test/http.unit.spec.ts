import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '@settle/platform';

const NOW = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');

describe('Retry-After (RFC 9110 section 10.2.3)', () => {
  it('reads delay-seconds and HTTP dates, in milliseconds', () => {
    expect(parseRetryAfter('120', NOW)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:07 GMT', NOW)).toBe(7000);
    expect(parseRetryAfter(['3', '9'], NOW)).toBe(3000);
    // The obsolete RFC 850 and asctime forms (asctime has no zone: UTC).
    expect(parseRetryAfter('Wednesday, 21-Oct-15 07:28:07 GMT', NOW)).toBe(7000);
    expect(parseRetryAfter('Wed Oct 21 07:28:07 2015', NOW)).toBe(7000);
  });

  it('a date in the past is no delay; absent or unreadable values are ignored', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:00:00 GMT', NOW)).toBe(0);
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('', NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter('-5', NOW)).toBeUndefined();
    expect(parseRetryAfter('1.5', NOW)).toBeUndefined();
  });
});

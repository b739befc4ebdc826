import { describe, expect, it } from 'vitest';
import { DEFAULT_BREAKER_SETTINGS, ProviderCallError, parseRetryAfter, providerBackoff } from '@settle/providers';

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

describe('provider backoff', () => {
  const settings = { maxAttempts: 5, initialDelayMs: 100, maxDelayMs: 2000 };
  const failure = (error: unknown) => ({ attempt: 1, signal: new AbortController().signal, result: { error } });

  it('uses the Retry-After hint, capped by maxDelayMs', () => {
    const factory = providerBackoff(settings);
    expect(factory.next(failure(new ProviderCallError('PROVIDER.RATE_LIMITED', true, '429', 1500))).duration).toBe(1500);
    expect(factory.next(failure(new ProviderCallError('PROVIDER.RATE_LIMITED', true, '429', 60_000))).duration).toBe(2000);
  });

  it('falls back to exponential backoff with full jitter, below the cap', () => {
    let backoff = providerBackoff(settings).next(failure(new ProviderCallError('PROVIDER.TIMEOUT', true, 'slow')));
    const ceilings = [100, 200, 400, 800, 1600, 2000, 2000];
    for (const ceiling of ceilings) {
      expect(backoff.duration).toBeGreaterThanOrEqual(0);
      expect(backoff.duration).toBeLessThan(ceiling);
      backoff = backoff.next(failure(new ProviderCallError('PROVIDER.TIMEOUT', true, 'slow')));
    }
  });

  it('has documented breaker defaults', () => {
    expect(DEFAULT_BREAKER_SETTINGS).toEqual({ consecutiveFailures: 5, halfOpenAfterMs: 30_000 });
  });
});

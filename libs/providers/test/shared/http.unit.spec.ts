import { describe, expect, it } from 'vitest';
import { DEFAULT_BREAKER_SETTINGS, ProviderCallError, providerBackoff } from '@settle/providers';

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
    expect(DEFAULT_BREAKER_SETTINGS).toEqual({ failureRatio: 0.5, windowMs: 10_000, minimumVerifications: 10, halfOpenAfterMs: 5_000 });
  });
});

import { describe, expect, it } from 'vitest';
import { listThrough, ProviderCallError, providerPolicy } from '@settle/providers';

const retry = { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 50 };

describe('listThrough: a list call through the provider policy', () => {
  it('retries a retryable failure, honouring Retry-After up to the cap, then answers', async () => {
    const policy = providerPolicy({ retry });
    let calls = 0;
    const started = performance.now();
    const page = await listThrough(policy, async () => {
      calls += 1;
      if (calls === 1) throw new ProviderCallError('PROVIDER.RATE_LIMITED', true, 'Provider answered 429', 40);
      return 'page';
    });
    expect(page).toBe('page');
    expect(calls).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
  });

  it('throws the last failure once retries are spent, and never retries one that is not retryable', async () => {
    const policy = providerPolicy({ retry });
    let calls = 0;
    await expect(
      listThrough(policy, async () => {
        calls += 1;
        throw new ProviderCallError('PROVIDER.UNEXPECTED_STATUS_500', true, 'Provider answered 500');
      }),
    ).rejects.toMatchObject({ code: 'PROVIDER.UNEXPECTED_STATUS_500', retryable: true });
    expect(calls).toBe(3);
    calls = 0;
    await expect(
      listThrough(policy, async () => {
        calls += 1;
        throw new ProviderCallError('PROVIDER.AUTH_REJECTED', false, 'Refused');
      }),
    ).rejects.toMatchObject({ code: 'PROVIDER.AUTH_REJECTED' });
    expect(calls).toBe(1);
  });

  it('an open circuit is a retryable PROVIDER.CIRCUIT_OPEN, without a call', async () => {
    const policy = providerPolicy({ retry: { ...retry, maxAttempts: 1 }, breaker: { minimumVerifications: 1, failureRatio: 0.5, halfOpenAfterMs: 60_000 } });
    const failing = () => listThrough(policy, async () => Promise.reject(new ProviderCallError('PROVIDER.BAD_GATEWAY', true, '502')));
    await expect(failing()).rejects.toMatchObject({ code: 'PROVIDER.BAD_GATEWAY' });
    let called = false;
    await expect(
      listThrough(policy, async () => {
        called = true;
        return 'page';
      }),
    ).rejects.toMatchObject({ code: 'PROVIDER.CIRCUIT_OPEN', retryable: true });
    expect(called).toBe(false);
  });
});

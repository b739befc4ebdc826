import { describe, expect, it } from 'vitest';
import { withRegistryRetries } from '@settle/messaging';

const failing = (status: number) => Object.assign(new Error(`registry answered ${status}`), { status });

describe('withRegistryRetries (schema registration at boot)', () => {
  it('tries again after a registry failure and returns the first success', async () => {
    const answers = [failing(500), failing(400), 'registered'];
    const retried: number[] = [];
    const result = await withRegistryRetries(
      () => {
        const next = answers.shift();
        return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
      },
      { delayMs: 1, onRetry: (_error, attempt) => retried.push(attempt) },
    );
    expect(result).toBe('registered');
    expect(retried).toEqual([1, 2]);
  });

  it('keeps trying by default through more failures than one per pooled connection of a small pool', async () => {
    // A registry whose database restarted answers 500 once per pooled connection the restart
    // ended; a booting app flushes one per call (findings 6 and 8 of docs/reliability.md).
    const failures = 12;
    let calls = 0;
    const result = await withRegistryRetries(
      () => {
        calls += 1;
        return calls <= failures ? Promise.reject(failing(500)) : Promise.resolve('registered');
      },
      { delayMs: 1, maxDelayMs: 1 },
    );
    expect(result).toBe('registered');
    expect(calls).toBe(failures + 1);
  });

  it('throws a refused schema (409) at once', async () => {
    let calls = 0;
    const refused = failing(409);
    await expect(
      withRegistryRetries(
        () => {
          calls += 1;
          return Promise.reject(refused);
        },
        { delayMs: 1 },
      ),
    ).rejects.toBe(refused);
    expect(calls).toBe(1);
  });

  it('gives up after the last attempt with its failure', async () => {
    let calls = 0;
    await expect(
      withRegistryRetries(
        () => {
          calls += 1;
          return Promise.reject(failing(503));
        },
        { attempts: 3, delayMs: 1 },
      ),
    ).rejects.toThrow('registry answered 503');
    expect(calls).toBe(3);
  });
});

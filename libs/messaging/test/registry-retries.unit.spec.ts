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

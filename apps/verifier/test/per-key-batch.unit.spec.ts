/**
 * The verifier's per-key batch engine (apps/verifier/src/per-key-batch.ts): keys in parallel,
 * finished keys committed while a slow one still runs, errors in their documented order.
 */
import { describe, expect, it } from 'vitest';
import { runPerKey } from '../src/per-key-batch.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('runPerKey', () => {
  it('commits the keys that finish together once', async () => {
    const commits: string[][] = [];
    await runPerKey({
      keys: ['a', 'b', 'c'],
      concurrency: 8,
      flushIntervalMs: 1_000,
      run: async () => undefined,
      commit: async (finished) => void commits.push([...finished].sort()),
    });
    expect(commits.filter((c) => c.length > 0)).toEqual([['a', 'b', 'c']]);
  });

  it('commits the fast keys while a slow one still runs, then the slow one', async () => {
    const commits: Array<{ keys: string[]; at: number }> = [];
    const started = Date.now();
    await runPerKey({
      keys: ['fast-1', 'slow', 'fast-2'],
      concurrency: 8,
      flushIntervalMs: 20,
      run: async (key) => {
        if (key === 'slow') await sleep(300);
        return undefined;
      },
      commit: async (finished) => void (finished.length > 0 && commits.push({ keys: [...finished].sort(), at: Date.now() - started })),
    });
    expect(commits.map((c) => c.keys)).toEqual([['fast-1', 'fast-2'], ['slow']]);
    expect(commits[0]!.at).toBeLessThan(200);
  });

  it('runs at most `concurrency` keys at once', async () => {
    let running = 0;
    let most = 0;
    await runPerKey({
      keys: Array.from({ length: 10 }, (_, i) => i),
      concurrency: 3,
      flushIntervalMs: 5,
      run: async () => {
        most = Math.max(most, ++running);
        await sleep(10);
        running--;
        return undefined;
      },
      commit: async () => undefined,
    });
    expect(most).toBe(3);
  });

  it('commits every key, the stopped one included, then throws its transient error', async () => {
    const committed: string[] = [];
    const failure = new Error('provider connection reset');
    await expect(
      runPerKey({
        keys: ['ok', 'stopped'],
        concurrency: 8,
        flushIntervalMs: 1_000,
        run: async (key) => (key === 'stopped' ? failure : undefined),
        commit: async (finished) => void committed.push(...finished),
      }),
    ).rejects.toBe(failure);
    expect(committed.sort()).toEqual(['ok', 'stopped']);
  });

  it('throws a failed intermediate commit and commits nothing after it', async () => {
    let calls = 0;
    const refused = new Error('could not serialize access');
    await expect(
      runPerKey({
        keys: ['fast', 'slow'],
        concurrency: 8,
        flushIntervalMs: 10,
        run: async (key) => (key === 'slow' ? sleep(100).then(() => undefined) : undefined),
        commit: async (finished) => {
          if (finished.length === 0) return;
          calls++;
          throw refused;
        },
      }),
    ).rejects.toBe(refused);
    expect(calls).toBe(1);
  });
});

import { ConstantBackoff } from 'cockatiel';
import { describe, expect, it } from 'vitest';
import { Abandoned, retryBackoff, retryInPlace, type RetryInPlaceOptions } from '../src/retry-in-place.js';

class Transient extends Error {}
class Permanent extends Error {}

function options(overrides: Partial<RetryInPlaceOptions> = {}): RetryInPlaceOptions & { retries: number[]; heartbeats: number } {
  const state = { retries: [] as number[], heartbeats: 0 };
  return Object.assign(state, {
    retryable: (error: unknown) => error instanceof Transient,
    onRetry: (attempt: number) => state.retries.push(attempt),
    stale: () => false,
    heartbeat: () => {
      state.heartbeats += 1;
      return Promise.resolve();
    },
    backoff: new ConstantBackoff(1),
    ...overrides,
  });
}

describe('retryInPlace', () => {
  it('retries transient failures, with a heartbeat before each retry, until the work succeeds', async () => {
    const o = options();
    let calls = 0;
    const result = await retryInPlace(o, () => (++calls < 3 ? Promise.reject(new Transient('db down')) : Promise.resolve('done')));
    expect(result).toBe('done');
    expect(o.retries).toEqual([1, 2]);
    expect(o.heartbeats).toBe(2);
  });

  it('tells each retry which failure caused it, for the log line', async () => {
    const seen: unknown[] = [];
    const failures = [new Transient('db down'), new Transient('db still down')];
    let calls = 0;
    await retryInPlace(options({ onRetry: (_attempt, error) => seen.push(error) }), () =>
      calls < failures.length ? Promise.reject(failures[calls++]!) : Promise.resolve('done'),
    );
    expect(seen).toEqual(failures);
  });

  it('passes a failure that is not retryable through at once', async () => {
    const o = options();
    const error = new Permanent('broken rule');
    await expect(retryInPlace(o, () => Promise.reject(error))).rejects.toBe(error);
    expect(o.retries).toEqual([]);
  });

  it('ends with Abandoned, carrying the last failure, once the batch is stale', async () => {
    let stale = false;
    const o = options({ stale: () => stale });
    const error = new Transient('db down');
    const outcome = retryInPlace(o, () => {
      stale = true;
      return Promise.reject(error);
    });
    await expect(outcome).rejects.toBeInstanceOf(Abandoned);
    await expect(outcome).rejects.toMatchObject({ cause: error });
  });

  it('ends with Abandoned when a heartbeat fails (the member lost the group)', async () => {
    const o = options({ heartbeat: () => Promise.reject(new Error('REBALANCE_IN_PROGRESS')) });
    await expect(retryInPlace(o, () => Promise.reject(new Transient('db down')))).rejects.toBeInstanceOf(Abandoned);
  });
});

describe('retryBackoff', () => {
  it('never waits longer than a third of the session time-out', () => {
    let backoff = retryBackoff(3_000).next({ attempt: 1, signal: new AbortController().signal, result: { error: new Error('x') } });
    let longest = 0;
    for (let i = 0; i < 30; i++) {
      longest = Math.max(longest, backoff.duration);
      backoff = backoff.next({ attempt: i + 2, signal: new AbortController().signal, result: { error: new Error('x') } });
    }
    expect(longest).toBeLessThanOrEqual(1_000);
    expect(longest).toBeGreaterThan(200);
  });
});

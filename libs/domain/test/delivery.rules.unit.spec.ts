import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  attemptsPerRound,
  classifyAttempt,
  DEFAULT_DISABLE_AFTER_MS,
  DEFAULT_RETRY_POLICY,
  disableReason,
  nextAttemptAt,
  type RetryPolicy,
} from '@settle/domain';

const HOUR = 3_600_000;

describe('classifyAttempt', () => {
  it.each([
    [200, 'delivered'],
    [204, 'delivered'],
    [299, 'delivered'],
    [410, 'gone'],
    [429, 'throttled'],
    [503, 'throttled'],
    [301, 'failed'],
    [400, 'failed'],
    [404, 'failed'],
    [500, 'failed'],
    [502, 'failed'],
    [504, 'failed'],
  ] as const)('an answer %i is %s', (status, outcome) => {
    expect(classifyAttempt({ kind: 'answered', status }).outcome).toBe(outcome);
  });

  it('a time-out and a connection error are failures, never deliveries', () => {
    expect(classifyAttempt({ kind: 'timeout' })).toEqual({ outcome: 'failed', retryAfterMs: null });
    expect(classifyAttempt({ kind: 'connection_error', code: 'ECONNREFUSED' })).toEqual({ outcome: 'failed', retryAfterMs: null });
  });

  it('keeps Retry-After only where it is honoured (429 and 503)', () => {
    expect(classifyAttempt({ kind: 'answered', status: 429, retryAfterMs: 30_000 })).toEqual({ outcome: 'throttled', retryAfterMs: 30_000 });
    expect(classifyAttempt({ kind: 'answered', status: 503, retryAfterMs: 1_000 }).retryAfterMs).toBe(1_000);
    expect(classifyAttempt({ kind: 'answered', status: 500, retryAfterMs: 1_000 }).retryAfterMs).toBeNull();
  });
});

describe('retry schedule', () => {
  it('waits 5 s, 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then 14 h, and gives up after 14 attempts', () => {
    const noJitter = { ...DEFAULT_RETRY_POLICY, jitterRatio: 0 };
    const waits = Array.from({ length: 14 }, (_, i) => nextAttemptAt(noJitter, i + 1, 0, 0.5));
    expect(waits).toEqual([
      5_000,
      60_000,
      300_000,
      1_800_000,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      10 * HOUR,
      14 * HOUR,
      14 * HOUR,
      14 * HOUR,
      14 * HOUR,
      14 * HOUR,
      null,
    ]);
    expect(attemptsPerRound(DEFAULT_RETRY_POLICY)).toBe(14);
  });

  it('property: with any jitter, a delivery is tried for more than three days before it is given up', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 13, maxLength: 13 }), (draws) => {
        let at = 0;
        for (const [i, random] of draws.entries()) {
          const next = nextAttemptAt(DEFAULT_RETRY_POLICY, i + 1, at, random);
          expect(next).not.toBeNull();
          expect(next! - at).toBeGreaterThanOrEqual(Math.floor(DEFAULT_RETRY_POLICY.waitsMs[i]! * 0.8));
          expect(next! - at).toBeLessThanOrEqual(Math.ceil(DEFAULT_RETRY_POLICY.waitsMs[i]! * 1.2));
          at = next!;
        }
        expect(at).toBeGreaterThan(72 * HOUR);
        expect(nextAttemptAt(DEFAULT_RETRY_POLICY, 14, at, draws[0]!)).toBeNull();
      }),
    );
  });

  it('honours Retry-After as a minimum, capped', () => {
    const policy: RetryPolicy = { waitsMs: [5_000, 60_000], jitterRatio: 0, retryAfterMaxMs: 120_000 };
    expect(nextAttemptAt(policy, 1, 1_000, 0.5, 30_000)).toBe(31_000);
    expect(nextAttemptAt(policy, 1, 1_000, 0.5, 1_000)).toBe(6_000);
    expect(nextAttemptAt(policy, 2, 1_000, 0.5, 10 * HOUR)).toBe(121_000);
    expect(nextAttemptAt(policy, 3, 1_000, 0.5, 1_000)).toBeNull();
  });
});

describe('endpoint health', () => {
  const now = 10 * 24 * HOUR;
  it('410 disables at once; a delivery clears the failing run', () => {
    expect(disableReason('gone', null, now, DEFAULT_DISABLE_AFTER_MS)).toBe('gone');
    expect(disableReason('delivered', now - 30 * 24 * HOUR, now, DEFAULT_DISABLE_AFTER_MS)).toBeNull();
  });

  it('failing (or throttled) without a success for five days disables; for less it does not', () => {
    expect(disableReason('failed', now - DEFAULT_DISABLE_AFTER_MS, now, DEFAULT_DISABLE_AFTER_MS)).toBe('failing');
    expect(disableReason('throttled', now - DEFAULT_DISABLE_AFTER_MS - 1, now, DEFAULT_DISABLE_AFTER_MS)).toBe('failing');
    expect(disableReason('failed', now - DEFAULT_DISABLE_AFTER_MS + 1, now, DEFAULT_DISABLE_AFTER_MS)).toBeNull();
    expect(disableReason('failed', null, now, DEFAULT_DISABLE_AFTER_MS)).toBeNull();
  });
});

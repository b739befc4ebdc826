import { describe, expect, it } from 'vitest';
import { DEFAULT_RECOVERY_POLICY, dueTrigger, fire, isDue, observe, recheckDelay, type RecoveryPolicy, type Watch } from '@settle/domain';

const policy: RecoveryPolicy = DEFAULT_RECOVERY_POLICY;
/** The same schedule without jitter, so the expected times can be written down. */
const exact: RecoveryPolicy = { ...policy, recheck: { ...policy.recheck, jitterRatio: 0 } };
const ref = 'ref_orphan';

/** A fake clock: the sweeper fires every watch the moment it falls due (1 ms after, strictly more). */
function runUntilStopped(start: Watch, p: RecoveryPolicy, maxFires = 100): Array<{ at: number; trigger: string; check: number; final: boolean }> {
  const fired = [];
  let watch = start;
  while (watch.dueAt !== null && fired.length < maxFires) {
    const now = watch.dueAt + 1;
    const { request, watch: next } = fire(watch, now, p);
    fired.push({ at: now, trigger: request.trigger, check: request.check, final: request.final });
    watch = next;
  }
  return fired;
}

describe('sweeper watch (docs/spec.md, sections 1 and 8: more than 45 s of inactivity)', () => {
  it('is due strictly after 45 s without activity, not at exactly 45 s', () => {
    const watch = observe(null, ref, { kind: 'registered', at: 10_000 }, policy);
    expect(watch.dueAt).toBe(55_000);
    expect(isDue(watch, 55_000)).toBe(false);
    expect(isDue(watch, 55_001)).toBe(true);
  });

  it('any activity pushes the due time; late activity never pulls it back', () => {
    let watch = observe(null, ref, { kind: 'registered', at: 10_000 }, policy);
    watch = observe(watch, ref, { kind: 'completed', at: 30_000 }, policy);
    expect(watch.dueAt).toBe(75_000);
    watch = observe(watch, ref, { kind: 'verification_requested', at: 20_000, bySweeper: false }, policy);
    expect(watch.dueAt).toBe(75_000);
  });

  it('before its checkout is registered, is armed only by a signed webhook: an unmatched payment candidate, due after the grace period', () => {
    expect(observe(null, ref, { kind: 'completed', at: 1_000 }, policy).dueAt).toBeNull();
    let watch = observe(null, ref, { kind: 'webhook_received', at: 1_000 }, policy);
    expect(watch.dueAt).toBe(46_000);
    expect(dueTrigger(watch, policy)).toBe('unmatched_payment');
    // An honest registration racing its webhook wins: the watch is a checkout's again.
    watch = observe(watch, ref, { kind: 'registered', at: 2_000 }, policy);
    expect(watch.dueAt).toBe(47_000);
    expect(dueTrigger(watch, policy)).toBe('sweeper_orphaned');
  });

  it('an unmatched payment candidate is re-checked while the provider has no final answer, and stops at a final answer or the limit', () => {
    let watch = observe(null, ref, { kind: 'webhook_received', at: 0 }, policy);
    const first = fire(watch, 45_001, policy);
    expect(first.request).toMatchObject({ trigger: 'unmatched_payment', check: 1, final: false });
    watch = observe(first.watch, ref, { kind: 'unmatched_observed', at: 45_100, resolved: false }, policy);
    expect(watch.dueAt).toBe(45_001 + recheckDelay(1, ref, policy.recheck));
    const answered = observe(watch, ref, { kind: 'unmatched_observed', at: 50_000, resolved: true }, policy);
    expect(answered.dueAt).toBeNull();
    // A later registration arms it as a checkout (the payment is matched and verified as any other).
    expect(observe(answered, ref, { kind: 'registered', at: 60_000 }, policy).dueAt).toBe(105_000);
    let unanswered = watch;
    while (unanswered.dueAt !== null) {
      const fired = fire(unanswered, unanswered.dueAt + 1, policy);
      expect(fired.request.trigger).toBe('unmatched_payment');
      unanswered = fired.watch;
    }
    expect(unanswered.checks).toBe(policy.recheck.limit);
  });

  it('a completed checkout without a webhook is due as a missing webhook', () => {
    const watch = observe(observe(null, ref, { kind: 'registered', at: 0 }, policy), ref, { kind: 'completed', at: 1 }, policy);
    expect(dueTrigger(watch, policy)).toBe('sweeper_webhook_missing');
    const withWebhook = observe(watch, ref, { kind: 'webhook_received', at: 2 }, policy);
    expect(dueTrigger(withWebhook, policy)).toBe('sweeper_orphaned');
  });

  it('a terminal outcome disarms the watch for good, and so does manual review', () => {
    for (const status of ['SETTLED_CONSENSUS', 'FAILED_DECLINED', 'STATE_MISMATCH', 'MANUAL_REVIEW'] as const) {
      let watch = observe(null, ref, { kind: 'registered', at: 0 }, policy);
      watch = observe(watch, ref, { kind: 'outcome', at: 5, status, changed: true }, policy);
      expect(watch.dueAt).toBeNull();
      watch = observe(watch, ref, { kind: 'webhook_received', at: 10 }, policy);
      watch = observe(watch, ref, { kind: 'outcome', at: 20, status: 'RECOVERING', changed: true }, policy);
      expect(watch.status).toBe(status);
      expect(isDue(watch, Number.MAX_SAFE_INTEGER)).toBe(false);
    }
  });

  it('held in review (RECOVERING) is first re-checked after the initial re-check delay, not 45 s', () => {
    let watch = observe(null, ref, { kind: 'registered', at: 0 }, policy);
    watch = observe(watch, ref, { kind: 'outcome', at: 50_000, status: 'RECOVERING', changed: true }, policy);
    expect(watch.dueAt).toBe(50_000 + 60_000);
    expect(dueTrigger(watch, policy)).toBe('sweeper_review_recheck');
  });
});

describe('re-check schedule with backoff, on a fake clock', () => {
  it('doubles the wait from 60 s up to a 1 h cap (jitter off)', () => {
    const delays = Array.from({ length: 10 }, (_, i) => recheckDelay(i + 1, ref, exact.recheck));
    expect(delays).toEqual([60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000, 3_600_000, 3_600_000]);
  });

  it('keeps each wait within +/- the jitter ratio, the same for the same reference and count', () => {
    for (let checks = 1; checks < 30; checks++) {
      const base = recheckDelay(checks, ref, exact.recheck);
      for (const reference of ['a', 'b', 'ref_1', 'ref_2', 'x'.repeat(40)]) {
        const spread = recheckDelay(checks, reference, policy.recheck);
        expect(Math.abs(spread - base)).toBeLessThanOrEqual(base * policy.recheck.jitterRatio + 1);
        expect(recheckDelay(checks, reference, policy.recheck)).toBe(spread);
      }
    }
    const spreads = new Set(['a', 'b', 'c', 'd', 'e'].map((r) => recheckDelay(3, r, policy.recheck)));
    expect(spreads.size).toBeGreaterThan(1);
  });

  it('refuses a re-check delay before any check', () => {
    expect(() => recheckDelay(0, ref, policy.recheck)).toThrow(/at least one earlier check/);
  });

  it('a held-in-review transaction: 30 re-checks over about 24 h, the last one final', () => {
    let watch = observe(null, ref, { kind: 'registered', at: 0 }, exact);
    watch = observe(watch, ref, { kind: 'outcome', at: 1_000, status: 'RECOVERING', changed: true }, exact);
    const fired = runUntilStopped(watch, exact, 30);
    expect(fired).toHaveLength(30);
    expect(fired.slice(0, 29).every((f) => f.trigger === 'sweeper_review_recheck' && !f.final)).toBe(true);
    expect(fired[29]).toMatchObject({ trigger: 'sweeper_review_limit', check: 30, final: true });
    // 60 s, then 60 s, 2, 4, 8, 16, 32 min, then hourly: 86 640 s after being held, plus 1 ms per fire.
    expect(fired[0]!.at).toBe(1_000 + 60_000 + 1);
    expect(fired[29]!.at).toBe(1_000 + 86_640_000 + 30);
  });

  it('an orphan is asked about at 45 s, then on the same backoff, then at the limit asks for manual review', () => {
    let watch = observe(null, ref, { kind: 'registered', at: 0 }, exact);
    watch = observe(watch, ref, { kind: 'completed', at: 0 }, exact);
    const fired = runUntilStopped(watch, exact, 3);
    expect(fired.map((f) => [f.at, f.trigger])).toEqual([
      [45_001, 'sweeper_webhook_missing'],
      [105_002, 'sweeper_webhook_missing'],
      [225_003, 'sweeper_webhook_missing'],
    ]);
  });

  it('after the limit the final request repeats every max delay until its answer arrives: never a silent stall', () => {
    const small: RecoveryPolicy = { inactivityMs: 1_000, recheck: { ...exact.recheck, limit: 3 } };
    const watch = observe(null, ref, { kind: 'registered', at: 0 }, small);
    const fired = runUntilStopped(watch, small, 6);
    expect(fired.map((f) => f.trigger)).toEqual(['sweeper_orphaned', 'sweeper_orphaned', ...Array(4).fill('sweeper_review_limit')]);
    expect(fired[4]!.at - fired[3]!.at).toBe(small.recheck.maxDelayMs + 1);
    expect(fired.filter((f) => f.final)).toHaveLength(4);
  });

  it('a limit of 1 makes the very first request the final one', () => {
    const once: RecoveryPolicy = { inactivityMs: 1_000, recheck: { ...exact.recheck, limit: 1 } };
    const watch = observe(null, ref, { kind: 'registered', at: 0 }, once);
    expect(fire(watch, 1_001, once).request).toMatchObject({ trigger: 'sweeper_review_limit', final: true, check: 1 });
  });

  it("the sweeper's own requests and unchanged answers do not reset the count; progress does", () => {
    let watch = observe(null, ref, { kind: 'registered', at: 0 }, exact);
    ({ watch } = fire(watch, 45_001, exact));
    ({ watch } = fire(watch, 105_002, exact));
    expect(watch.checks).toBe(2);
    watch = observe(watch, ref, { kind: 'verification_requested', at: 105_002, bySweeper: true }, exact);
    watch = observe(watch, ref, { kind: 'outcome', at: 105_100, status: 'PENDING', changed: false }, exact);
    expect(watch.checks).toBe(2);
    expect(watch.dueAt).toBe(105_002 + 120_000);
    // A customer back in the app (or a webhook) is progress: a fresh 45 s window.
    watch = observe(watch, ref, { kind: 'verification_requested', at: 110_000, bySweeper: false }, exact);
    expect(watch).toMatchObject({ checks: 0, lastCheckAt: null, dueAt: 155_000 });
  });

  it('moving to RECOVERING starts a new episode with a fresh count', () => {
    let watch = observe(null, ref, { kind: 'registered', at: 0 }, exact);
    ({ watch } = fire(watch, 45_001, exact));
    watch = observe(watch, ref, { kind: 'outcome', at: 45_500, status: 'RECOVERING', changed: true }, exact);
    expect(watch).toMatchObject({ status: 'RECOVERING', checks: 0, dueAt: 45_500 + 60_000 });
  });

  it('late progress older than the last request does not reset the count (a lagging consumer)', () => {
    let watch = observe(null, ref, { kind: 'registered', at: 0 }, exact);
    ({ watch } = fire(watch, 45_001, exact));
    watch = observe(watch, ref, { kind: 'webhook_received', at: 40_000 }, exact);
    expect(watch.checks).toBe(1);
  });

  it('refuses to fire a watch that is not due', () => {
    const watch = observe(null, ref, { kind: 'registered', at: 0 }, policy);
    expect(() => fire(watch, 45_000, policy)).toThrow(/not due/);
  });
});

describe('sweeper watch guards', () => {
  it('refuses an activity time that is not a number, which would disarm the watch for ever', () => {
    expect(() => observe(null, ref, { kind: 'registered', at: Number.NaN }, policy)).toThrow(/not a number/);
  });
});

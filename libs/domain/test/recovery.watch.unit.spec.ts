import { describe, expect, it } from 'vitest';
import { dueTrigger, isDue, observe, type RecoveryPolicy } from '@settle/domain';

const policy: RecoveryPolicy = { inactivityMs: 45_000 };
const ref = 'ref_orphan';

describe('sweeper watch (spec sections 1 and 8: more than 45 s of inactivity)', () => {
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
    watch = observe(watch, ref, { kind: 'verification_requested', at: 20_000 }, policy);
    expect(watch.dueAt).toBe(75_000);
  });

  it('is not armed until the checkout is registered (a webhook may race the checkout)', () => {
    let watch = observe(null, ref, { kind: 'webhook_received', at: 1_000 }, policy);
    expect(watch.dueAt).toBeNull();
    watch = observe(watch, ref, { kind: 'registered', at: 2_000 }, policy);
    expect(watch.dueAt).toBe(47_000);
    expect(dueTrigger(watch)).toBe('sweeper_orphaned');
  });

  it('a completed checkout without a webhook is due as a missing webhook', () => {
    const watch = observe(observe(null, ref, { kind: 'registered', at: 0 }, policy), ref, { kind: 'completed', at: 1 }, policy);
    expect(dueTrigger(watch)).toBe('sweeper_webhook_missing');
    const withWebhook = observe(watch, ref, { kind: 'webhook_received', at: 2 }, policy);
    expect(dueTrigger(withWebhook)).toBe('sweeper_orphaned');
  });

  it('a terminal outcome disarms the watch for good', () => {
    let watch = observe(null, ref, { kind: 'registered', at: 0 }, policy);
    watch = observe(watch, ref, { kind: 'outcome', at: 5, terminal: true }, policy);
    expect(watch.dueAt).toBeNull();
    watch = observe(watch, ref, { kind: 'webhook_received', at: 10 }, policy);
    expect(watch.dueAt).toBeNull();
    expect(isDue(watch, Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  it('a non-terminal outcome (held in review, provider unreachable) re-arms the watch', () => {
    let watch = observe(null, ref, { kind: 'registered', at: 0 }, policy);
    watch = observe(watch, ref, { kind: 'outcome', at: 50_000, terminal: false }, policy);
    expect(watch.dueAt).toBe(95_000);
  });
});

describe('sweeper watch guards', () => {
  it('refuses an activity time that is not a number, which would disarm the watch for ever', () => {
    expect(() => observe(null, ref, { kind: 'registered', at: Number.NaN }, policy)).toThrow(/not a number/);
  });
});

/**
 * Property-based tests of the sweeper watch (spec sections 1 and 8: "more than 45 seconds"
 * of inactivity): random activity in random order, late and duplicated messages.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RECOVERY_POLICY, dueTrigger, isDue, observe, type Activity, type RecoveryPolicy, type Watch } from '@settle/domain';

const reference = 'ref_property';

/** epoch ms: mostly clustered (ties and near-ties), sometimes anywhere in a wide range. */
const atArb = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_000 + 600_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 ** 45 }) },
);

const activityArb: fc.Arbitrary<Activity> = fc.oneof(
  atArb.map((at): Activity => ({ kind: 'registered', at })),
  atArb.map((at): Activity => ({ kind: 'completed', at })),
  atArb.map((at): Activity => ({ kind: 'webhook_received', at })),
  atArb.map((at): Activity => ({ kind: 'verification_requested', at })),
  fc.record({ at: atArb, terminal: fc.boolean() }).map(({ at, terminal }): Activity => ({ kind: 'outcome', at, terminal })),
);

const policyArb: fc.Arbitrary<RecoveryPolicy> = fc.oneof(
  fc.constant(DEFAULT_RECOVERY_POLICY),
  fc.integer({ min: 1, max: 3_600_000 }).map((inactivityMs) => ({ inactivityMs })),
);

const activitiesArb = fc.array(activityArb, { minLength: 1, maxLength: 25 });

/** Every intermediate watch, in order. */
function watches(activities: readonly Activity[], policy: RecoveryPolicy): Watch[] {
  const out: Watch[] = [];
  let w: Watch | null = null;
  for (const a of activities) {
    w = observe(w, reference, a, policy);
    out.push(w);
  }
  return out;
}

const finalWatch = (activities: readonly Activity[], policy: RecoveryPolicy): Watch => watches(activities, policy).at(-1)!;

describe('sweeper watch: property-based', () => {
  it('8. the due time never moves backwards under out-of-order activity (while armed)', () => {
    fc.assert(
      fc.property(activitiesArb, policyArb, (activities, policy) => {
        const ws = watches(activities, policy);
        for (let i = 1; i < ws.length; i++) {
          const [prev, next] = [ws[i - 1]!, ws[i]!];
          expect(next.lastActivityAt).toBeGreaterThanOrEqual(prev.lastActivityAt);
          if (prev.dueAt !== null && next.dueAt !== null) expect(next.dueAt).toBeGreaterThanOrEqual(prev.dueAt);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('8. the due time is null until registered, null once terminal (for good), else last activity + window', () => {
    fc.assert(
      fc.property(activitiesArb, policyArb, (activities, policy) => {
        const ws = watches(activities, policy);
        for (const [i, w] of ws.entries()) {
          const seen = activities.slice(0, i + 1);
          const registered = seen.some((a) => a.kind === 'registered');
          const terminal = seen.some((a) => a.kind === 'outcome' && a.terminal);
          const last = Math.max(...seen.map((a) => a.at));
          expect(w.lastActivityAt).toBe(last);
          expect(w.registered).toBe(registered);
          expect(w.terminal).toBe(terminal);
          expect(w.dueAt).toBe(registered && !terminal ? last + policy.inactivityMs : null);
          if (terminal) expect(isDue(w, Number.MAX_SAFE_INTEGER)).toBe(false);
          if (!registered) expect(isDue(w, Number.MAX_SAFE_INTEGER)).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('8. isDue is false at exactly dueAt and true 1 ms after (strictly more than the window)', () => {
    fc.assert(
      fc.property(activitiesArb, policyArb, fc.integer({ min: -5, max: 5 }), (activities, policy, offset) => {
        const w = finalWatch(activities, policy);
        fc.pre(w.dueAt !== null);
        const dueAt = w.dueAt!;
        expect(isDue(w, dueAt)).toBe(false);
        expect(isDue(w, dueAt + 1)).toBe(true);
        expect(isDue(w, dueAt + offset)).toBe(offset > 0);
        // In terms of the spec: due iff more than the window has passed since the last activity.
        expect(isDue(w, w.lastActivityAt + policy.inactivityMs + offset)).toBe(offset > 0);
      }),
      { numRuns: 500 },
    );
  });

  it('the final watch does not depend on the order (or repetition) in which activity arrives', () => {
    fc.assert(
      fc.property(
        activitiesArb.chain((activities) =>
          fc.record({
            activities: fc.constant(activities),
            shuffled: fc.shuffledSubarray(activities, { minLength: activities.length, maxLength: activities.length }),
            repeated: fc.array(fc.nat(activities.length - 1), { maxLength: 10 }),
          }),
        ),
        policyArb,
        ({ activities, shuffled, repeated }, policy) => {
          const expected = finalWatch(activities, policy);
          expect(finalWatch(shuffled, policy)).toEqual(expected);
          expect(finalWatch([...shuffled, ...repeated.map((i) => activities[i]!)], policy)).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a due watch stands for a missing webhook iff the checkout completed and no webhook came', () => {
    fc.assert(
      fc.property(activitiesArb, policyArb, (activities, policy) => {
        const w = finalWatch(activities, policy);
        const completed = activities.some((a) => a.kind === 'completed');
        const webhook = activities.some((a) => a.kind === 'webhook_received');
        expect(dueTrigger(w)).toBe(completed && !webhook ? 'sweeper_webhook_missing' : 'sweeper_orphaned');
      }),
      { numRuns: 500 },
    );
  });
});

/**
 * Property-based tests of the sweeper watch (docs/spec.md, sections 1 and 8: "more than 45 seconds"
 * of inactivity): random activity in random order, late and duplicated messages.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RECOVERY_POLICY,
  dueTrigger,
  isDue,
  observe,
  statusRank,
  stopsAutomaticRecovery,
  type Activity,
  type RecoveryPolicy,
  type TransactionStatus,
  type Watch,
} from '@settle/domain';

const reference = 'ref_property';
const STATUSES: readonly TransactionStatus[] = ['PENDING', 'RECOVERING', 'MANUAL_REVIEW', 'SETTLED_CONSENSUS', 'FAILED_DECLINED', 'STATE_MISMATCH'];

/** epoch ms: mostly clustered (ties and near-ties), sometimes anywhere in a wide range. */
const atArb = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_000 + 600_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 ** 45 }) },
);

const activityArb: fc.Arbitrary<Activity> = fc.oneof(
  atArb.map((at): Activity => ({ kind: 'registered', at })),
  atArb.map((at): Activity => ({ kind: 'completed', at })),
  atArb.map((at): Activity => ({ kind: 'webhook_received', at })),
  fc.record({ at: atArb, bySweeper: fc.boolean() }).map(({ at, bySweeper }): Activity => ({ kind: 'verification_requested', at, bySweeper })),
  fc
    .record({ at: atArb, status: fc.constantFrom<TransactionStatus>(...STATUSES), changed: fc.boolean() })
    .map(({ at, status, changed }): Activity => ({ kind: 'outcome', at, status, changed })),
  fc.record({ at: atArb, resolved: fc.boolean() }).map(({ at, resolved }): Activity => ({ kind: 'unmatched_observed', at, resolved })),
);

const policyArb: fc.Arbitrary<RecoveryPolicy> = fc.oneof(
  fc.constant(DEFAULT_RECOVERY_POLICY),
  fc
    .record({ inactivityMs: fc.integer({ min: 1, max: 3_600_000 }), initialDelayMs: fc.integer({ min: 1, max: 3_600_000 }) })
    .map(({ inactivityMs, initialDelayMs }) => ({ inactivityMs, recheck: { ...DEFAULT_RECOVERY_POLICY.recheck, initialDelayMs } })),
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
  it('8. the due time never moves backwards under out-of-order activity (while armed, in one state)', () => {
    fc.assert(
      fc.property(activitiesArb, policyArb, (activities, policy) => {
        const ws = watches(activities, policy);
        for (let i = 1; i < ws.length; i++) {
          const [prev, next] = [ws[i - 1]!, ws[i]!];
          expect(next.lastActivityAt).toBeGreaterThanOrEqual(prev.lastActivityAt);
          expect(statusRank(next.status)).toBeGreaterThanOrEqual(statusRank(prev.status));
          // Entering RECOVERING swaps the 45 s window for the re-check delay, which may be shorter;
          // so does a registration turning an unmatched payment candidate into a checkout.
          const sameMode = prev.status === next.status && prev.registered === next.registered;
          if (prev.dueAt !== null && next.dueAt !== null && sameMode) expect(next.dueAt).toBeGreaterThanOrEqual(prev.dueAt);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('8. the due time is null until registered (unless a signed webhook made it an unmatched payment candidate, until answered), null once stopped (for good), else last activity + the window of the state', () => {
    fc.assert(
      fc.property(activitiesArb, policyArb, (activities, policy) => {
        const ws = watches(activities, policy);
        for (const [i, w] of ws.entries()) {
          const seen = activities.slice(0, i + 1);
          const registered = seen.some((a) => a.kind === 'registered');
          const statuses = seen.flatMap((a) => (a.kind === 'outcome' ? [a.status] : []));
          const furthest = statuses.reduce<TransactionStatus>((s, t) => (statusRank(t) > statusRank(s) ? t : s), 'PENDING');
          const stopped = stopsAutomaticRecovery(furthest);
          const candidate = seen.some((a) => a.kind === 'webhook_received') && !seen.some((a) => a.kind === 'unmatched_observed' && a.resolved);
          const last = Math.max(...seen.map((a) => a.at));
          const window = furthest === 'RECOVERING' ? policy.recheck.initialDelayMs : policy.inactivityMs;
          expect(w.lastActivityAt).toBe(last);
          expect(w.registered).toBe(registered);
          expect(w.status).toBe(furthest);
          expect(w.checks).toBe(0);
          if (registered) expect(w.dueAt).toBe(stopped ? null : last + window);
          else expect(w.dueAt).toBe(candidate ? last + policy.inactivityMs : null);
          if (registered && stopped) expect(isDue(w, Number.MAX_SAFE_INTEGER)).toBe(false);
          if (!registered && !candidate) expect(isDue(w, Number.MAX_SAFE_INTEGER)).toBe(false);
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
        const dueAt = w.dueAt;
        expect(isDue(w, dueAt)).toBe(false);
        expect(isDue(w, dueAt + 1)).toBe(true);
        expect(isDue(w, dueAt + offset)).toBe(offset > 0);
        // In terms of the spec: due iff more than the window has passed since the last activity.
        const window = w.registered && w.status === 'RECOVERING' ? policy.recheck.initialDelayMs : policy.inactivityMs;
        expect(isDue(w, w.lastActivityAt + window + offset)).toBe(offset > 0);
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

  it('a due watch stands for a missing webhook iff the checkout completed and no webhook came (outside review), and for an unmatched payment without a checkout', () => {
    fc.assert(
      fc.property(activitiesArb, policyArb, (activities, policy) => {
        const w = finalWatch(activities, policy);
        if (!w.registered) {
          expect(dueTrigger(w, policy)).toBe('unmatched_payment');
          return;
        }
        fc.pre(w.status === 'PENDING');
        const completed = activities.some((a) => a.kind === 'completed');
        const webhook = activities.some((a) => a.kind === 'webhook_received');
        expect(dueTrigger(w, policy)).toBe(completed && !webhook ? 'sweeper_webhook_missing' : 'sweeper_orphaned');
      }),
      { numRuns: 500 },
    );
  });
});

/**
 * Per-reference coalescing of verification requests (docs/webhooks.md, "Spoofed webhooks and
 * repeated verifications"): spoofed webhooks, `/verify` and `/attempts` cannot multiply provider
 * queries; honest triggers are never held back.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COALESCED_TRIGGERS,
  decideVerificationRequest,
  DEFAULT_COALESCING_POLICY,
  isUnauthenticatedTrigger,
  VERIFICATION_TRIGGERS,
  type CoalescingPolicy,
  type PreviousVerificationRequest,
  type VerificationRequestDecision,
  type VerificationTrigger,
} from '@settle/domain';

const policy: CoalescingPolicy = { windowMs: 5_000, pendingLimitMs: 60_000 };
const T0 = 1_800_000_000_000;
const previous = (requestedAt: number, requestId = 'req-1'): PreviousVerificationRequest => ({ requestId, requestedAt });

describe('which triggers are coalesced', () => {
  it('coalesces the triggers anybody can repeat: a rejected signature, /verify and /attempts', () => {
    expect([...COALESCED_TRIGGERS].sort()).toEqual(['attempt_check', 'customer_returned', 'webhook_signature_rejected']);
  });

  it.each(VERIFICATION_TRIGGERS.filter((t) => !COALESCED_TRIGGERS.has(t)))('never holds back %s, even right after a request and an answer', (trigger) => {
    expect(decideVerificationRequest({ trigger, previous: previous(T0), lastAnsweredAt: null, now: T0 + 1 }, policy)).toEqual({ kind: 'request' });
    expect(decideVerificationRequest({ trigger, previous: previous(T0), lastAnsweredAt: T0 + 1, now: T0 + 2 }, policy)).toEqual({ kind: 'request' });
  });
});

describe('which triggers anybody can cause without credentials', () => {
  it('is only a webhook whose signature was rejected', () => {
    expect(VERIFICATION_TRIGGERS.filter(isUnauthenticatedTrigger)).toEqual(['webhook_signature_rejected']);
  });
});

describe('given a coalesced trigger', () => {
  const trigger: VerificationTrigger = 'webhook_signature_rejected';

  it('requests when nothing was requested or answered before', () => {
    expect(decideVerificationRequest({ trigger, previous: null, lastAnsweredAt: null, now: T0 }, policy)).toEqual({ kind: 'request' });
  });

  it('coalesces with the previous request while it is unanswered, naming it', () => {
    expect(decideVerificationRequest({ trigger, previous: previous(T0, 'req-7'), lastAnsweredAt: null, now: T0 + 59_999 }, policy)).toEqual({
      kind: 'coalesce',
      reason: 'pending',
      requestId: 'req-7',
      requestedAt: T0,
    });
  });

  it('counts an answer decided before the previous request as no answer to it', () => {
    expect(decideVerificationRequest({ trigger, previous: previous(T0), lastAnsweredAt: T0 - 1, now: T0 + 30_000 }, policy)).toMatchObject({
      reason: 'pending',
    });
  });

  it('requests again once an unanswered request is older than the pending limit (it was never answered)', () => {
    expect(decideVerificationRequest({ trigger, previous: previous(T0), lastAnsweredAt: null, now: T0 + 60_000 }, policy)).toEqual({ kind: 'request' });
  });

  it('coalesces with an answer younger than the window, then requests once the window has passed', () => {
    const answered = T0 + 800;
    expect(decideVerificationRequest({ trigger, previous: previous(T0), lastAnsweredAt: answered, now: answered + 4_999 }, policy)).toEqual({
      kind: 'coalesce',
      reason: 'recent',
      answeredAt: answered,
    });
    expect(decideVerificationRequest({ trigger, previous: previous(T0), lastAnsweredAt: answered, now: answered + 5_000 }, policy)).toEqual({
      kind: 'request',
    });
  });

  it('coalesces with a recent answer of another trigger (a fresh provider answer is in hand) even without a request of its own', () => {
    expect(decideVerificationRequest({ trigger: 'customer_returned', previous: null, lastAnsweredAt: T0, now: T0 + 100 }, policy)).toMatchObject({
      reason: 'recent',
    });
  });

  it('counts times in the future (clocks slightly apart) as no time elapsed', () => {
    expect(decideVerificationRequest({ trigger, previous: previous(T0 + 500), lastAnsweredAt: null, now: T0 }, policy)).toMatchObject({ reason: 'pending' });
    expect(decideVerificationRequest({ trigger, previous: previous(T0), lastAnsweredAt: T0 + 500, now: T0 }, policy)).toMatchObject({ reason: 'recent' });
  });

  it('uses a 5 s window and a 60 s pending limit by default', () => {
    expect(DEFAULT_COALESCING_POLICY).toEqual({ windowMs: 5_000, pendingLimitMs: 60_000 });
  });
});

describe('a flood of one coalesced trigger for one reference (property)', () => {
  /**
   * Replays requests at the given times against a verifier that answers each published request
   * `latencyMs` later, and returns the times of the published ones.
   */
  function replay(times: number[], latencyMs: number, p: CoalescingPolicy): number[] {
    const published: number[] = [];
    let last: PreviousVerificationRequest | null = null;
    for (const now of [...times].sort((a, b) => a - b)) {
      const answers = published.map((at) => at + latencyMs).filter((at) => at <= now);
      const lastAnsweredAt = answers.length > 0 ? Math.max(...answers) : null;
      const decision: VerificationRequestDecision = decideVerificationRequest(
        { trigger: 'webhook_signature_rejected', previous: last, lastAnsweredAt, now },
        p,
      );
      if (decision.kind === 'request') {
        published.push(now);
        last = { requestId: `req-${published.length}`, requestedAt: now };
      }
    }
    return published;
  }

  it('publishes one request for any burst shorter than the window', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4_999 }), { minLength: 1, maxLength: 200 }), fc.integer({ min: 0, max: 10_000 }), (offsets, latency) => {
        expect(
          replay(
            offsets.map((o) => T0 + o),
            latency,
            policy,
          ),
        ).toHaveLength(1);
      }),
    );
  });

  it('while the verifier answers within the pending limit: one request outstanding, and the window after each answer', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 600_000 }), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 0, max: policy.pendingLimitMs - 1 }),
        (offsets, latency) => {
          const published = replay(
            offsets.map((o) => T0 + o),
            latency,
            policy,
          );
          for (let i = 1; i < published.length; i++) {
            expect(published[i]! - published[i - 1]!).toBeGreaterThanOrEqual(latency + policy.windowMs);
          }
        },
      ),
    );
  });

  it('whatever the verifier does (slow, silent), two requests are at least the window apart', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 600_000 }), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (offsets, latency) => {
          const published = replay(
            offsets.map((o) => T0 + o),
            latency,
            policy,
          );
          for (let i = 1; i < published.length; i++) expect(published[i]! - published[i - 1]!).toBeGreaterThanOrEqual(policy.windowMs);
        },
      ),
    );
  });
});

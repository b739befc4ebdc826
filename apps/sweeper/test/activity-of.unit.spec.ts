/**
 * Which messages are activity for the sweeper (`activityOf`): a spoofed webhook's verification
 * request, and an answer to it that changed nothing, are not (docs/webhooks.md, "Spoofed webhooks
 * and repeated verifications"), so a stream of spoofed webhooks cannot hold the schedule back.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RECOVERY_POLICY, observe, type TransactionStatus, type UnmatchedObservation, type VerificationTrigger, type Watch } from '@settle/domain';
import type { ConsensusResultV1, TypedEvent } from '@settle/messaging';
import { activityOf } from '../src/activity-intake.js';

const reference = 'ref_sweeper_spoof';
const base = (at: number) => ({ event_id: `evt-${at}`, occurred_at: at, correlation_id: 'corr-1', reference });

const requested = (trigger: VerificationTrigger, at: number, requestedBy = 'ingestion'): TypedEvent => ({
  type: 'VerificationRequested',
  payload: { ...base(at), trigger, requested_by: requestedBy },
});

function answered(trigger: VerificationTrigger, at: number, before: TransactionStatus, after: TransactionStatus): TypedEvent {
  const payload: ConsensusResultV1 = {
    ...base(at),
    causation_id: `req-${at}`,
    provider: 'paystack',
    trigger,
    verdict: after === 'RECOVERING' ? 'clearing' : 'unreachable',
    provider_status: null,
    detail: null,
    outcome: before === after ? 'UNCHANGED' : 'RECOVERING',
    ledger_event_type: null,
    ledger_expected_revision: 0,
    state_before: before,
    state_after: after,
    entitlement_status: 'LOCKED',
    checks: [],
    amount_minor: 500_000,
    currency: 'NGN',
    user_id: 'user-1',
    entitlement: 'pro-monthly',
    observed_amount_minor: null,
    charged_amount_minor: null,
    observed_currency: null,
    provider_transaction_id: null,
    access_period: 'P1M',
  };
  return { type: 'ConsensusResult', payload };
}

/** Folds the messages that are activity into a watch, as the sweeper does. */
function fold(events: TypedEvent[]): Watch | null {
  let watch: Watch | null = null;
  for (const event of events) {
    const found = activityOf(event);
    if (found) watch = observe(watch, reference, found.activity, DEFAULT_RECOVERY_POLICY);
  }
  return watch;
}

const registered: TypedEvent = {
  type: 'CheckoutRegistered',
  payload: {
    ...base(1_000),
    provider: 'paystack',
    amount_minor: 500_000,
    currency: 'NGN',
    user_id: 'user-1',
    customer_email: 'payer@example.com',
    customer_phone: null,
    entitlement: 'pro-monthly',
    access_period: 'P1M',
  },
};

function observed(observation: UnmatchedObservation, at: number): TypedEvent {
  return {
    type: 'UnmatchedPaymentObserved',
    payload: {
      ...base(at),
      causation_id: `req-${at}`,
      provider: 'paystack',
      observation,
      verdict: observation === 'recorded' ? 'cleared' : null,
      provider_status: null,
      amount_minor: null,
      currency: null,
      customer_email: null,
      customer_phone: null,
      customer_email_masked: null,
      customer_phone_masked: null,
      terms_verified: false,
      provider_transaction_id: null,
      close_reason: null,
      close_note: null,
      closed_by: null,
    },
  };
}

const signedWebhook: TypedEvent = {
  type: 'ProviderWebhookReceived',
  payload: { ...base(1_000), provider: 'paystack', provider_event_type: 'charge.success', body_sha256: 'a'.repeat(64) },
};

describe('activity for the sweeper: unmatched payment candidates (docs/unmatched-payments.md)', () => {
  it('a signed webhook with no checkout arms the candidate; a final answer (recorded, declined) ends its checks, an unresolved one does not', () => {
    expect(fold([signedWebhook])?.dueAt).toBe(1_000 + DEFAULT_RECOVERY_POLICY.inactivityMs);
    expect(fold([signedWebhook, observed('unresolved', 50_000)])?.dueAt).not.toBeNull();
    expect(fold([signedWebhook, observed('recorded', 50_000)])?.dueAt).toBeNull();
    expect(fold([signedWebhook, observed('declined', 50_000)])?.dueAt).toBeNull();
    // `matched` follows a registration, which is the activity that counts.
    expect(activityOf(observed('matched', 60_000))).toBeNull();
  });
});

describe('activity for the sweeper', () => {
  it("ignores a spoofed webhook's verification request and its unchanged answer", () => {
    expect(activityOf(requested('webhook_signature_rejected', 2_000))).toBeNull();
    expect(activityOf(answered('webhook_signature_rejected', 2_500, 'PENDING', 'PENDING'))).toBeNull();
  });

  it("counts a spoofed webhook's answer that moved the state", () => {
    expect(activityOf(answered('webhook_signature_rejected', 2_500, 'PENDING', 'RECOVERING'))?.activity).toEqual({
      kind: 'outcome',
      at: 2_500,
      status: 'RECOVERING',
      changed: true,
    });
  });

  it('still counts the other triggers: a customer coming back is progress, an unchanged answer is activity', () => {
    expect(activityOf(requested('customer_returned', 2_000))?.activity).toEqual({ kind: 'verification_requested', at: 2_000, bySweeper: false });
    expect(activityOf(answered('customer_returned', 2_500, 'PENDING', 'PENDING'))?.activity).toMatchObject({ kind: 'outcome', changed: false });
  });

  it('keeps the due time of a registered checkout whatever spoofed webhooks arrive after it', () => {
    const quiet = fold([registered]);
    const flooded = fold([
      registered,
      ...[10_000, 20_000, 30_000, 40_000].flatMap((at) => [
        requested('webhook_signature_rejected', at),
        answered('webhook_signature_rejected', at + 500, 'PENDING', 'PENDING'),
      ]),
    ]);
    expect(flooded?.dueAt).toBe(quiet?.dueAt);
    expect(flooded?.dueAt).toBe(1_000 + DEFAULT_RECOVERY_POLICY.inactivityMs);
  });
});

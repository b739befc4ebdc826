/** Consensus results as the verifier publishes them, for the projector's tests. */
import type { EntitlementStatus, TransactionStatus } from '@settle/domain';
import type { ConsensusResultV1 } from '@settle/messaging';
import { deterministicId } from '@settle/platform';
import type { ProjectionService } from '../src/projection.service.js';

let clock = 1_800_000_000_000;

/** A consensus result as the verifier publishes it. */
export function result(
  reference: string,
  step: {
    verdict: ConsensusResultV1['verdict'];
    before: TransactionStatus;
    after: TransactionStatus;
    ledger: string | null;
    revision: number;
    entitlement: EntitlementStatus;
  },
): ConsensusResultV1 {
  clock += 1_000;
  const settled = step.after === 'SETTLED_CONSENSUS';
  return {
    // Ids derived from the reference and the clock: the same histories give the same results.
    event_id: deterministicId('ConsensusResult', `${reference}:${clock}`),
    occurred_at: clock,
    correlation_id: `corr-${reference}`,
    causation_id: deterministicId('VerificationRequested', `${reference}:${clock}`),
    reference,
    provider: 'paystack',
    trigger: 'sweeper_orphaned',
    verdict: step.verdict,
    provider_status: step.verdict === 'clearing' ? 'ongoing' : null,
    detail: null,
    outcome: step.ledger ? (step.after as ConsensusResultV1['outcome']) : 'UNCHANGED',
    ledger_event_type: step.ledger,
    ledger_expected_revision: step.revision,
    state_before: step.before,
    state_after: step.after,
    entitlement_status: step.entitlement,
    checks: settled ? [{ check: 'amount', passed: true, code: null, expected: '500000', observed: '500000' }] : [],
    amount_minor: 500_000,
    currency: 'NGN',
    user_id: `user-${reference}`,
    entitlement: 'pro',
    observed_amount_minor: settled ? 500_000 : null,
    charged_amount_minor: null,
    observed_currency: settled ? 'NGN' : null,
    provider_transaction_id: null,
    access_period: 'P1M',
  };
}

export const HISTORIES = {
  settledAfterReview: [
    { verdict: 'clearing', before: 'PENDING', after: 'RECOVERING', ledger: 'PaymentHeldInReview', revision: 0, entitlement: 'HELD_IN_REVIEW' },
    { verdict: 'clearing', before: 'RECOVERING', after: 'RECOVERING', ledger: null, revision: 1, entitlement: 'HELD_IN_REVIEW' },
    { verdict: 'cleared', before: 'RECOVERING', after: 'SETTLED_CONSENSUS', ledger: 'TransactionSettled', revision: 1, entitlement: 'UNLOCKED' },
  ],
  declined: [{ verdict: 'declined', before: 'PENDING', after: 'FAILED_DECLINED', ledger: 'PaymentDeclined', revision: 0, entitlement: 'LOCKED' }],
  manualReview: [
    { verdict: 'clearing', before: 'PENDING', after: 'RECOVERING', ledger: 'PaymentHeldInReview', revision: 0, entitlement: 'HELD_IN_REVIEW' },
    { verdict: 'unreachable', before: 'RECOVERING', after: 'MANUAL_REVIEW', ledger: 'ManualReviewRequired', revision: 1, entitlement: 'HELD_IN_REVIEW' },
  ],
  neverSeen: [{ verdict: 'not_found', before: 'PENDING', after: 'PENDING', ledger: null, revision: 0, entitlement: 'LOCKED' }],
} as const;

/**
 * Projects eight transactions of each history, one result at a time as the consumer loop hands
 * them over, redelivering every other result (as Kafka may after a crash). 48 ledger events:
 * 40 outcomes and the 8 settlements' grants.
 */
export async function projectHistories(service: Pick<ProjectionService, 'handle'>, prefix = 'ref'): Promise<void> {
  const context = { topic: 't', partition: 0, offset: '0', key: null, timestamp: 0, headers: {} };
  let n = 0;
  clock = 1_800_000_000_000;
  for (const [name, steps] of Object.entries(HISTORIES)) {
    for (let i = 0; i < 8; i++) {
      const reference = `${prefix}_${name}_${i}`;
      for (const step of steps) {
        const payload = result(reference, step);
        await service.handle({ type: 'ConsensusResult', payload }, context);
        if (n++ % 2 === 0) await service.handle({ type: 'ConsensusResult', payload }, context);
      }
    }
  }
}

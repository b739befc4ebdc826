import { assertNever, type ProviderVerdict, type RegisteredTransaction, type TransactionEvent, type VerificationTrigger } from '@settle/domain';
import type { ConsensusResultV1 } from '@settle/messaging';

/** Maps an outcome event type to the contract's `outcome`. */
function outcomeOf(event: TransactionEvent | undefined): ConsensusResultV1['outcome'] {
  if (!event) return 'UNCHANGED';
  switch (event.type) {
    case 'TransactionSettled':
      return 'SETTLED_CONSENSUS';
    case 'PaymentDeclined':
      return 'FAILED_DECLINED';
    case 'PaymentHeldInReview':
      return 'RECOVERING';
    case 'StateMismatchDetected':
      return 'STATE_MISMATCH';
    case 'ManualReviewRequired':
      return 'MANUAL_REVIEW';
    case 'CheckoutRegistered':
    case 'CheckoutCompleted':
      return 'UNCHANGED';
    default:
      return assertNever(event);
  }
}

function verdictDetail(verdict: ProviderVerdict): { providerStatus: string | null; detail: string | null } {
  switch (verdict.kind) {
    case 'cleared':
      return { providerStatus: verdict.observation.providerStatus, detail: null };
    case 'declined':
      return { providerStatus: verdict.providerStatus, detail: verdict.reason };
    case 'clearing':
      return { providerStatus: verdict.providerStatus, detail: null };
    case 'not_found':
      return { providerStatus: null, detail: 'PROVIDER.REFERENCE_NOT_FOUND' };
    case 'unreachable':
      return { providerStatus: null, detail: verdict.cause };
    default:
      return assertNever(verdict);
  }
}

/**
 * Builds the integration event for one verification from the domain decision. The domain
 * event is never published as it is; this contract carries what downstream needs: the
 * verdict, the four checks with expected and observed values, the state before and after,
 * and the ledger revision the append must expect.
 */
export function toConsensusResult(input: {
  resultId: string;
  causationId: string;
  correlationId: string;
  trigger: VerificationTrigger;
  verdict: ProviderVerdict;
  before: RegisteredTransaction;
  after: RegisteredTransaction;
  events: readonly TransactionEvent[];
  decidedAt: number;
}): ConsensusResultV1 {
  const { verdict, before, after } = input;
  const { expectation } = before;
  const event = input.events[0];
  const checks = event && (event.type === 'TransactionSettled' || event.type === 'StateMismatchDetected') ? event.data.checks : [];
  const observation = verdict.kind === 'cleared' ? verdict.observation : null;
  const { providerStatus, detail } = verdictDetail(verdict);
  return {
    event_id: input.resultId,
    occurred_at: input.decidedAt,
    correlation_id: input.correlationId,
    causation_id: input.causationId,
    reference: expectation.reference,
    provider: expectation.provider,
    trigger: input.trigger,
    verdict: verdict.kind,
    provider_status: providerStatus,
    detail,
    outcome: outcomeOf(event),
    ledger_event_type: event ? event.type : null,
    ledger_expected_revision: before.outcomes,
    state_before: before.status,
    state_after: after.status,
    entitlement_status: after.entitlement,
    checks: checks.map((c) => ({ check: c.check, passed: c.passed, code: c.code, expected: c.expected, observed: c.observed })),
    amount_minor: expectation.amountMinor,
    currency: expectation.currency,
    user_id: expectation.userId,
    entitlement: expectation.entitlement,
    observed_amount_minor: observation?.amountMinor ?? null,
    charged_amount_minor: observation?.chargedAmountMinor ?? null,
    observed_currency: observation?.currency ?? null,
    provider_transaction_id: observation?.providerTransactionId ?? null,
    access_period: expectation.accessPeriod,
  };
}

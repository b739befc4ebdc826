import {
  evolveMoney,
  moneyStateOf,
  paymentMoney,
  resolutionAfter,
  returnedMinor,
  type MismatchCase,
  type MismatchResolutionEvent,
  type MismatchResolutionState,
  type MoneyMovementEvent,
  type PaymentMoney,
} from '@settle/domain';
import {
  isMismatchResolutionType,
  isMoneyMovementType,
  mismatchResolutionDataOf,
  moneyMovementEventOf,
  transactionOutcomeOf,
  type RecordedLedgerEvent,
  type ResolutionContext,
  type TransactionOutcomeData,
} from '@settle/ledger';

/**
 * A payment whose money arrived, as its transaction's ledger stream records it: the stream holds
 * outcomes, then the facts that follow a settlement or a State Mismatch (money facts: refunds,
 * reversals, disputes; a State Mismatch's resolution facts).
 */
export interface Payment {
  outcome: TransactionOutcomeData;
  /**
   * Whether the payment's grant stands (docs/delivery.md, "Access follows the money"): it settled,
   * or its State Mismatch was accepted as paid. A State Mismatch otherwise never granted.
   */
  granted: boolean;
  money: PaymentMoney;
  /** Where the State Mismatch's resolution stands; `null` for none (and for a settled payment). */
  resolution: MismatchResolutionState | null;
  /** The operator's request behind the resolution, when there is one. */
  resolutionRequestId: string | null;
  /** Events of the transaction stream so far: its next expected revision. */
  length: number;
  /** Its money facts already stored, oldest first: each with its id and the message that caused it. */
  stored: ReadonlyArray<{ eventId: string; causationId: string; rejected: boolean }>;
}

/** The domain event a stored resolution fact stands for (only its type matters to where the resolution stands). */
function resolutionEventOf(event: RecordedLedgerEvent): { event: Pick<MismatchResolutionEvent, 'type'>; requestId: string } {
  const { type, data } = mismatchResolutionDataOf(event);
  return { event: { type }, requestId: data.request_id };
}

/**
 * The payment a transaction stream records: its last outcome, when that outcome says the money
 * arrived (`SETTLED_CONSENSUS`, or `STATE_MISMATCH` with an amount the provider confirmed), its
 * money facts and its resolution so far; `null` otherwise. What was captured is the amount and
 * currency the provider confirmed (the registered ones when it gave none).
 *
 * @throws LedgerEventShapeError for an event the projector never writes there.
 */
export function paymentOf(reference: string, events: readonly RecordedLedgerEvent[]): Payment | null {
  let outcome: TransactionOutcomeData | null = null;
  let resolution: MismatchResolutionState | null = null;
  let resolutionRequestId: string | null = null;
  const facts: Array<{ event: MoneyMovementEvent; eventId: string; causationId: string }> = [];
  for (const event of events) {
    if (isMoneyMovementType(event.type)) facts.push({ event: moneyMovementEventOf(event), eventId: event.eventId, causationId: event.metadata.causationId });
    else if (isMismatchResolutionType(event.type)) {
      const fact = resolutionEventOf(event);
      resolution = resolutionAfter(fact.event);
      if (fact.event.type !== 'MismatchRefundDueClosed') resolutionRequestId = fact.requestId;
    } else outcome = transactionOutcomeOf(event).data;
  }
  if (!outcome || (outcome.state !== 'SETTLED_CONSENSUS' && outcome.state !== 'STATE_MISMATCH')) return null;
  const amountMinor = outcome.observed.amount_minor ?? outcome.expected.amount_minor;
  const currency = (outcome.observed.currency ?? outcome.expected.currency).toUpperCase();
  let money = paymentMoney(reference, { amountMinor, currency });
  for (const fact of facts) money = evolveMoney(money, fact.event);
  const stored = facts.map((f) => ({ eventId: f.eventId, causationId: f.causationId, rejected: f.event.type === 'MoneyMovementRejected' }));
  const granted = outcome.state === 'SETTLED_CONSENSUS' || resolution === 'accepted_as_paid';
  return { outcome, granted, money, resolution, resolutionRequestId, length: events.length, stored };
}

/** The State Mismatch a payment's stream records, as the resolution rules read it (libs/domain `decideMismatchResolution`). */
export function mismatchCaseOf(payment: Payment): MismatchCase {
  const { outcome } = payment;
  const observed =
    outcome.observed.amount_minor !== null && outcome.observed.currency !== null
      ? { amountMinor: outcome.observed.amount_minor, currency: outcome.observed.currency }
      : null;
  return {
    status: outcome.state,
    resolution: payment.resolution,
    expected: { amountMinor: outcome.expected.amount_minor, currency: outcome.expected.currency },
    observed,
    returnedMinor: returnedMinor(payment.money),
    disputeOpen: moneyStateOf(payment.money) === 'disputed',
  };
}

/**
 * What a resolution fact of this payment's stream records beside the decided event: the payment's
 * terms as its outcome holds them, and the ids given.
 */
export function resolutionContextOf(
  payment: Payment,
  ids: { requestId: string; eventId: string; correlationId: string; causationId: string; accessPeriod?: string | null },
): ResolutionContext {
  const { outcome } = payment;
  return {
    reference: outcome.reference,
    provider: outcome.provider,
    userId: outcome.expected.user_id,
    entitlement: outcome.expected.entitlement,
    expected: { amountMinor: outcome.expected.amount_minor, currency: outcome.expected.currency },
    observed: { amountMinor: outcome.observed.amount_minor, currency: outcome.observed.currency },
    accessPeriod: ids.accessPeriod ?? null,
    requestId: ids.requestId,
    eventId: ids.eventId,
    correlationId: ids.correlationId,
    causationId: ids.causationId,
  };
}

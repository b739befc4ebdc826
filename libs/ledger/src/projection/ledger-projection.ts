/**
 * The pure projection of committed ledger events: the read-model rows and the outbox messages
 * they stand for. Every store projects through these functions, so the read models and the
 * published settlement and entitlement events are the same whichever store holds the ledger
 * (PostgreSQL in the append's transaction, an event store from its checkpointed `$all`
 * projection, a rebuild from the ledger alone). Nothing here reads a clock or a database.
 */
import type { OutboxMessage } from '@settle/messaging';
import { deterministicId } from '@settle/platform';
import { accessChangeOf, isAccessChangeType } from '../events/entitlement-access.js';
import { entitlementGrantedOf, parseEntitlementStream } from '../events/entitlement-granted.js';
import { isMismatchResolutionType, mismatchResolutionDataOf, overrideDecidersOf } from '../events/mismatch-resolution.js';
import { isMoneyMovementType, moneyMovementDataOf } from '../events/money-movement.js';
import { CHECKPOINT_STREAM, ledgerCheckpointedOf } from '../events/ledger-checkpointed.js';
import { PRIVACY_ERASURE_STREAM, subjectErasedOf } from '../events/subject-erased.js';
import type { RecordedLedgerEvent } from '../ports/ledger.port.js';
import { LedgerEventShapeError, parseTransactionStream, transactionOutcomeOf } from '../events/transaction-outcome.js';
import {
  parseUnmatchedPaymentStream,
  UNMATCHED_PAYMENT_EVENT_TYPES,
  unmatchedPaymentClosedData,
  unmatchedPaymentMatchedData,
  unmatchedPaymentRecordedOf,
  type UnmatchedPaymentRecordedData,
} from '../events/unmatched-payment.js';
import { reconciliationRowOf, type ReconciliationExceptionRow, type ReconciliationRunRow } from './reconciliation-read-models.js';

/** One row of `read_model.transaction_status` (a ledger projection). */
export interface LedgerStatusRow {
  reference: string;
  provider: string;
  state: string;
  entitlementStatus: string;
  /** Registered amount, minor units. */
  amountMinor: number;
  currency: string;
  checks: unknown[] | null;
  /** Verdict and trigger of the verification behind the latest ledger entry. */
  lastVerdict: string | null;
  lastTrigger: string | null;
  /** Revision of the last ledger event reflected here. */
  ledgerRevision: number;
  /** When the latest ledger entry's outcome was decided. */
  updatedAt: Date;
}

/**
 * The verifier's latest answer for a reference (`read_model.latest_verification`): not a
 * ledger fact (answers that changed nothing are not in the ledger), recorded beside it.
 */
export interface LatestVerificationRow {
  reference: string;
  verdict: string;
  trigger: string;
  /** event_id of the message that triggered the verification. */
  causationId: string;
  state: string;
  entitlementStatus: string;
  /** When the verifier decided. */
  decidedAt: Date;
}

/** One row of `read_model.entitlements` (a projection of the entitlement streams). */
export interface EntitlementRow {
  userId: string;
  entitlement: string;
  /** Current access expiry. */
  expiresAt: Date;
  /** Events of the stream so far (grants, revocations, reinstatements): its length. */
  grants: number;
  lastEventId: string;
  /** Kind of the last event: a grant's (`subscription_started`, `subscription_renewed`) or an access change's (`subscription_revoked`, `subscription_reinstated`). */
  lastEvent: string;
  lastReference: string;
  /** Revision of the last event reflected here. */
  ledgerRevision: number;
  /** When the last grant's payment settled, or the last access change was decided. */
  updatedAt: Date;
}

/**
 * What a money fact of a transaction stream does to its `read_model.transaction_status` row
 * (docs/state-machine.md, "The money after settlement"): the payment's money state and the money
 * returned so far (minor units). A rejected provider object changes neither and has no row.
 */
export interface MoneyStateRow {
  reference: string;
  moneyState: string;
  /** Minor units. */
  returnedMinor: number;
  /** Revision of the money fact reflected here. */
  ledgerRevision: number;
}

/**
 * What a resolution fact of a State Mismatch does to its `read_model.transaction_status` row
 * (docs/state-machine.md, "Resolving a State Mismatch"): where the resolution stands, and, once
 * accepted as paid, the entitlement status (`UNLOCKED`: its grant follows on the entitlement stream).
 */
export interface ResolutionRow {
  reference: string;
  resolution: 'accepted_as_paid' | 'refund_due' | 'refunded';
  /** `UNLOCKED` once accepted as paid; `null` leaves the row's entitlement status as it is. */
  entitlementStatus: string | null;
  /** Revision of the resolution fact reflected here. */
  ledgerRevision: number;
}

/** The resolution a stored fact leaves the State Mismatch in. */
const RESOLUTION_AFTER = { SettledByOverride: 'accepted_as_paid', MismatchRefundDue: 'refund_due', MismatchRefundDueClosed: 'refunded' } as const;

/**
 * What one event of an unmatched payment's stream does to `read_model.unmatched_payments`
 * (docs/unmatched-payments.md): `recorded` inserts the payment as open, `matched` marks it
 * matched, `closed` marks it closed with the operator's reason.
 */
export type UnmatchedPaymentRow =
  | { kind: 'recorded'; reference: string; ledgerRevision: number; data: UnmatchedPaymentRecordedData }
  | { kind: 'matched'; reference: string; ledgerRevision: number; matchedAt: Date }
  | { kind: 'closed'; reference: string; ledgerRevision: number; closedAt: Date; reason: string; closedBy: string };

/**
 * The read-model row an event of an unmatched payment's stream stands for.
 *
 * @throws LedgerEventShapeError when the event is not a well-formed unmatched payment fact.
 */
export function unmatchedPaymentRowOf(
  event: Pick<RecordedLedgerEvent, 'eventId' | 'type' | 'data' | 'revision' | 'position'>,
  reference: string,
): UnmatchedPaymentRow {
  if (event.type === UNMATCHED_PAYMENT_EVENT_TYPES.matched) {
    const parsed = unmatchedPaymentMatchedData.safeParse(event.data);
    if (!parsed.success) throw new LedgerEventShapeError(event.eventId, event.position, 'an unmatched payment match');
    return { kind: 'matched', reference, ledgerRevision: event.revision, matchedAt: new Date(parsed.data.matched_at) };
  }
  if (event.type === UNMATCHED_PAYMENT_EVENT_TYPES.closed) {
    const parsed = unmatchedPaymentClosedData.safeParse(event.data);
    if (!parsed.success) throw new LedgerEventShapeError(event.eventId, event.position, 'an unmatched payment closing');
    const d = parsed.data;
    return { kind: 'closed', reference, ledgerRevision: event.revision, closedAt: new Date(d.closed_at), reason: d.reason, closedBy: d.closed_by };
  }
  return { kind: 'recorded', reference, ledgerRevision: event.revision, data: unmatchedPaymentRecordedOf(event) };
}

/**
 * What the projection reads of an event: where it stands (stream, revision, global position), what
 * it says, and (where the writer knows it) its stream hash, which entitlement records carry as the
 * customer's receipt (docs/ledger.md, "Receipts").
 */
export type ProjectedEvent = Pick<RecordedLedgerEvent, 'streamId' | 'eventId' | 'type' | 'data' | 'metadata' | 'revision' | 'position'> &
  Partial<Pick<RecordedLedgerEvent, 'streamHash'>>;

/**
 * The ledger-status row an outcome of a transaction stream stands for.
 *
 * @throws LedgerEventShapeError when the event is not a transaction outcome.
 */
export function ledgerStatusOf(event: Pick<RecordedLedgerEvent, 'eventId' | 'type' | 'data' | 'revision' | 'position'>): LedgerStatusRow {
  const { data: d } = transactionOutcomeOf(event);
  return {
    reference: d.reference,
    provider: d.provider,
    state: d.state,
    entitlementStatus: d.entitlement_status,
    amountMinor: d.expected.amount_minor,
    currency: d.expected.currency,
    checks: d.checks.length > 0 ? d.checks : null,
    lastVerdict: d.verdict,
    lastTrigger: d.trigger,
    ledgerRevision: event.revision,
    updatedAt: new Date(d.decided_at),
  };
}

/**
 * The entitlement row a stored grant, revocation or reinstatement leaves behind (its stream's
 * state after it).
 *
 * @throws LedgerEventShapeError when the event is none of them, well formed.
 */
export function entitlementRowOf(event: Pick<RecordedLedgerEvent, 'eventId' | 'type' | 'data' | 'revision' | 'position'>): EntitlementRow {
  const common = { grants: event.revision + 1, ledgerRevision: event.revision };
  if (isAccessChangeType(event.type)) {
    const { data: d } = accessChangeOf(event);
    return {
      ...common,
      userId: d.user_id,
      entitlement: d.entitlement,
      expiresAt: new Date(d.expires_at),
      lastEventId: d.event_id,
      lastEvent: d.event,
      lastReference: d.reference,
      updatedAt: new Date(d.changed_at),
    };
  }
  const d = entitlementGrantedOf(event);
  return {
    ...common,
    userId: d.user_id,
    entitlement: d.entitlement,
    expiresAt: new Date(d.expires_at),
    lastEventId: d.event_id,
    lastEvent: d.event,
    lastReference: d.reference,
    updatedAt: new Date(d.settled_at),
  };
}

/** The read-model rows of a run of ledger events (see {@link readModelRowsOf}). */
export interface ReadModelRows {
  statuses: LedgerStatusRow[];
  /** Money states of settled payments (refunds, reversals, disputes). */
  money: MoneyStateRow[];
  /** Resolutions of State Mismatches. */
  resolutions: ResolutionRow[];
  entitlements: EntitlementRow[];
  unmatched: UnmatchedPaymentRow[];
  /** Reconciliation runs' records (docs/reconciliation.md). */
  runs: ReconciliationRunRow[];
  /** Reconciliation exceptions raised and resolved. */
  exceptions: ReconciliationExceptionRow[];
  /** Erasures of data subjects (docs/privacy.md, "Erasure"): applied after the rows above, whatever their order in the run. */
  erasures: ErasureRow[];
}

/** What a `SubjectErased` fact changes in the read models: the references whose customer data reads `erased`. */
export interface ErasureRow {
  transactionReferences: string[];
  unmatchedReferences: string[];
}

/**
 * The read-model rows that events stand for: transaction streams feed
 * `read_model.transaction_status` (outcomes its state, money facts its money state), entitlement streams `read_model.entitlements`, unmatched
 * payment streams `read_model.unmatched_payments`, reconciliation streams
 * `read_model.reconciliation_runs` and `read_model.reconciliation_exceptions`, the erasure stream
 * marks the erased subjects' customer data in those read models; events of other streams are not
 * projected.
 * The upserts keep the row of the highest revision per key.
 *
 * @throws LedgerEventShapeError when an event of those streams is malformed.
 */
export function readModelRowsOf(events: readonly Omit<ProjectedEvent, 'metadata'>[]): ReadModelRows {
  const rows: ReadModelRows = { statuses: [], money: [], resolutions: [], entitlements: [], unmatched: [], runs: [], exceptions: [], erasures: [] };
  for (const event of events) {
    if (event.streamId === PRIVACY_ERASURE_STREAM) {
      const erased = subjectErasedOf(event);
      rows.erasures.push({ transactionReferences: erased.transaction_references, unmatchedReferences: erased.unmatched_references });
      continue;
    }
    const unmatchedReference = parseUnmatchedPaymentStream(event.streamId);
    if (parseEntitlementStream(event.streamId)) rows.entitlements.push(entitlementRowOf(event));
    else if (parseTransactionStream(event.streamId) !== null && isMoneyMovementType(event.type)) {
      const { data: d } = moneyMovementDataOf(event);
      if (d.money_state !== null && d.returned_minor !== null) {
        rows.money.push({ reference: d.reference, moneyState: d.money_state, returnedMinor: d.returned_minor, ledgerRevision: event.revision });
      }
    } else if (parseTransactionStream(event.streamId) !== null && isMismatchResolutionType(event.type)) {
      const { type, data: d } = mismatchResolutionDataOf(event);
      rows.resolutions.push({
        reference: d.reference,
        resolution: RESOLUTION_AFTER[type],
        // Unlocked only when the override grants (a checkout that bought no access period grants nothing).
        entitlementStatus: type === 'SettledByOverride' && d.access_period !== null ? 'UNLOCKED' : null,
        ledgerRevision: event.revision,
      });
    } else if (parseTransactionStream(event.streamId) !== null) rows.statuses.push(ledgerStatusOf(event));
    else if (unmatchedReference !== null) rows.unmatched.push(unmatchedPaymentRowOf(event, unmatchedReference));
    else {
      const reconciliation = reconciliationRowOf(event);
      if (reconciliation && 'run' in reconciliation) rows.runs.push(reconciliation.run);
      else if (reconciliation) rows.exceptions.push(reconciliation.exception);
    }
  }
  return rows;
}

/**
 * Every record type {@link outboxMessagesOf} publishes: what a publisher of the ledger's records
 * (the projector, `./settle ledger republish`) registers with its codec.
 */
export const LEDGER_RECORD_TYPES = [
  'SettlementRecorded',
  'SettledByOverride',
  'MoneyMovementRecorded',
  'EntitlementGranted',
  'EntitlementAccessChanged',
  'LedgerCheckpointed',
] as const;

/**
 * The outbox messages committed events stand for, in event order: a `SettlementRecorded`
 * (settlement-events topic, keyed by reference) for every outcome of a transaction stream, so
 * a settlement is published if and only if it is in the ledger, and a `MoneyMovementRecorded`
 * (same topic and key) for every money fact after it (a refund, a reversal, a dispute); an
 * `EntitlementGranted` (entitlement-events topic, keyed by user, docs/delivery.md) for every
 * grant and an `EntitlementAccessChanged` for every revocation or reinstatement; a
 * `SettledByOverride` (settlements topic) for a State Mismatch two people accepted as paid (the
 * other resolution facts are not published); a `LedgerCheckpointed` (ledger-checkpoints topic, keyed by
 * origin) for every signed checkpoint (docs/ledger.md, "Checkpoints"). Ids are derived
 * from the ledger events, so projecting an event twice yields the same messages (consumers
 * de-duplicate by `event_id`).
 *
 * @throws LedgerEventShapeError when an event of those streams is malformed.
 */
export function outboxMessagesOf(events: readonly ProjectedEvent[]): OutboxMessage[] {
  return events.flatMap((event): OutboxMessage[] => {
    if (event.streamId === CHECKPOINT_STREAM) return [checkpointMessage(event)];
    if (parseEntitlementStream(event.streamId) && isAccessChangeType(event.type)) return [accessChangeMessage(event)];
    if (parseTransactionStream(event.streamId) !== null && isMoneyMovementType(event.type)) return [moneyMovementMessage(event)];
    if (parseTransactionStream(event.streamId) !== null && isMismatchResolutionType(event.type)) return overrideMessages(event);
    if (parseEntitlementStream(event.streamId)) {
      const d = entitlementGrantedOf(event);
      return [
        {
          type: 'EntitlementGranted',
          key: d.user_id,
          causationId: event.metadata.causationId,
          payload: {
            event_id: d.event_id,
            occurred_at: Date.parse(d.settled_at),
            correlation_id: event.metadata.correlationId,
            reference: d.reference,
            event: d.event,
            user_id: d.user_id,
            entitlement: d.entitlement,
            expires_at: d.expires_at,
            previous_expires_at: d.previous_expires_at,
            starts_at: d.starts_at,
            settled_at: d.settled_at,
            access_period: d.access_period,
            ledger_stream: event.streamId,
            ledger_revision: event.revision,
            ledger_position: event.position,
            ledger_stream_hash: event.streamHash ?? null,
          },
        },
      ];
    }
    if (parseTransactionStream(event.streamId) === null) return [];
    const { data: d } = transactionOutcomeOf(event);
    // The causation of an outcome is the consensus result it records.
    const resultId = event.metadata.causationId;
    return [
      {
        type: 'SettlementRecorded',
        causationId: resultId,
        payload: {
          event_id: deterministicId('SettlementRecorded', resultId),
          occurred_at: d.decided_at,
          correlation_id: event.metadata.correlationId,
          reference: d.reference,
          provider: d.provider,
          outcome: d.outcome,
          state: d.state,
          entitlement_status: d.entitlement_status,
          user_id: d.expected.user_id,
          entitlement: d.expected.entitlement,
          amount_minor: d.expected.amount_minor,
          currency: d.expected.currency,
          ledger_stream: event.streamId,
          ledger_revision: event.revision,
          ledger_position: event.position,
        },
      },
    ];
  });
}

/** The `EntitlementAccessChanged` message of a stored revocation or reinstatement (entitlement-events topic, keyed by user). */
function accessChangeMessage(event: ProjectedEvent): OutboxMessage {
  const { data: d } = accessChangeOf(event);
  return {
    type: 'EntitlementAccessChanged',
    key: d.user_id,
    causationId: event.metadata.causationId,
    payload: {
      event_id: d.event_id,
      occurred_at: Date.parse(d.changed_at),
      correlation_id: event.metadata.correlationId,
      reference: d.reference,
      event: d.event,
      user_id: d.user_id,
      entitlement: d.entitlement,
      expires_at: d.expires_at,
      previous_expires_at: d.previous_expires_at,
      reason: d.reason,
      changed_at: d.changed_at,
      ledger_stream: event.streamId,
      ledger_revision: event.revision,
      ledger_position: event.position,
      ledger_stream_hash: event.streamHash ?? null,
    },
  };
}

/** The `MoneyMovementRecorded` message of a stored money fact (settlements topic, keyed by reference). */
function moneyMovementMessage(event: ProjectedEvent): OutboxMessage {
  const { type, data: d } = moneyMovementDataOf(event);
  return {
    type: 'MoneyMovementRecorded',
    causationId: event.metadata.causationId,
    payload: {
      event_id: deterministicId('MoneyMovementRecorded', event.eventId),
      occurred_at: d.decided_at,
      correlation_id: event.metadata.correlationId,
      reference: d.reference,
      provider: d.provider,
      type,
      kind: d.kind,
      provider_id: d.provider_id,
      provider_status: d.provider_status,
      amount_minor: d.amount_minor,
      currency: d.currency,
      returned_minor: d.returned_minor,
      money_state: d.money_state,
      full: d.full,
      dispute_outcome: d.outcome === 'open' ? null : d.outcome,
      reason: d.reason,
      user_id: d.user_id,
      entitlement: d.entitlement,
      ledger_stream: event.streamId,
      ledger_revision: event.revision,
      ledger_position: event.position,
    },
  };
}

/**
 * The `SettledByOverride` message of a State Mismatch accepted as paid (settlements topic, keyed
 * by reference): distinct from `SettlementRecorded`, so subscribers and auditors can tell it from a
 * settlement the four checks passed. The other resolution facts publish nothing.
 */
function overrideMessages(event: ProjectedEvent): OutboxMessage[] {
  const { type, data: d } = mismatchResolutionDataOf(event);
  if (type !== 'SettledByOverride') return [];
  const deciders = overrideDecidersOf(event);
  return [
    {
      type: 'SettledByOverride',
      causationId: event.metadata.causationId,
      payload: {
        event_id: deterministicId('SettledByOverride', event.eventId),
        occurred_at: d.decided_at,
        correlation_id: event.metadata.correlationId,
        reference: d.reference,
        provider: d.provider,
        user_id: d.user_id,
        entitlement: d.entitlement,
        amount_minor: d.expected.amount_minor,
        currency: d.expected.currency,
        observed_amount_minor: d.observed.amount_minor,
        observed_currency: d.observed.currency,
        difference_minor: d.difference_minor,
        proposal_id: deciders.proposalId,
        proposed_by: deciders.proposedBy,
        approved_by: deciders.approvedBy,
        note: deciders.note,
        ledger_stream: event.streamId,
        ledger_revision: event.revision,
        ledger_position: event.position,
      },
    },
  ];
}

/** The `LedgerCheckpointed` record of a checkpoint fact, keyed by origin (a compacted topic keeps the latest). */
function checkpointMessage(event: ProjectedEvent): OutboxMessage {
  const d = ledgerCheckpointedOf(event);
  return {
    type: 'LedgerCheckpointed',
    key: d.origin,
    causationId: event.metadata.causationId,
    payload: {
      event_id: event.eventId,
      occurred_at: Date.parse(d.at),
      correlation_id: event.metadata.correlationId,
      reference: `checkpoint-${d.size}`,
      origin: d.origin,
      size: d.size,
      root: d.root,
      global_hash: d.global_hash,
      key: d.key,
      note: d.note,
      ledger_stream: event.streamId,
      ledger_revision: event.revision,
      ledger_position: event.position,
    },
  };
}

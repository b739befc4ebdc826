import {
  DISPUTE_STATUSES,
  MONEY_MOVEMENT_EVENT_TYPES,
  MONEY_MOVEMENT_KINDS,
  MONEY_STATES,
  MOVEMENT_CHECK_NAMES,
  PROVIDERS,
  VERIFICATION_TRIGGERS,
  type MoneyMovementEvent,
  type ProviderName,
} from '@settle/domain';
import { z } from 'zod';
import type { LedgerEventInput, RecordedLedgerEvent } from '../ports/ledger.port.js';
import { LedgerEventShapeError } from './transaction-outcome.js';

/** Type names of the money facts a transaction stream holds after its outcome (docs/state-machine.md, "The money after settlement"). */
export type MoneyMovementType = MoneyMovementEvent['type'];

/** Whether a ledger event type is a fact about a settled payment's money. */
export function isMoneyMovementType(type: string): type is MoneyMovementType {
  return (MONEY_MOVEMENT_EVENT_TYPES as readonly string[]).includes(type);
}

const movementCheck = z.object({
  check: z.enum(MOVEMENT_CHECK_NAMES),
  passed: z.boolean(),
  code: z.string().nullable(),
  expected: z.string(),
  observed: z.string(),
});

/**
 * The `data` of a money fact on a transaction stream (`RefundRecorded`, `RefundFailed`,
 * `ReversalRecorded`, `DisputeOpened`, `DisputeResolved`, `MoneyMovementRejected`), appended after
 * the payment's outcome, which it never changes (docs/state-machine.md, decision 4): what the
 * provider's own refund, reversal or dispute object said when Settle read it server to server,
 * and the payment's money after it. Amounts are integers in minor units; times are epoch
 * milliseconds. Fields a type does not use are `null`. The one definition of the payload: the
 * projector writes it, the read model and the settlements outbox read it. Unknown extra fields
 * are kept.
 */
export const moneyMovementData = z.looseObject({
  reference: z.string().min(1),
  provider: z.enum(PROVIDERS),
  /** The user and entitlement of the payment's checkout (what its grant gave access to). */
  user_id: z.string(),
  entitlement: z.string(),
  /** Identity of the provider query that read the object. */
  verification_id: z.string().min(1),
  trigger: z.enum(VERIFICATION_TRIGGERS),
  /** When Settle decided, epoch ms. */
  decided_at: z.number().int(),
  kind: z.enum(MONEY_MOVEMENT_KINDS),
  /** The provider's id of the refund, dispute or reversal. */
  provider_id: z.string().min(1),
  provider_status: z.string(),
  /** Amount the object moves, minor units. */
  amount_minor: z.number().int(),
  /** ISO 4217: the captured payment's (for a rejected object: as the provider reported it). */
  currency: z.string().min(1),
  /** When the provider created the object, epoch ms. */
  created_at: z.number().int(),
  /** Money returned to the payer so far, this fact included, minor units; `null` for a rejected object. */
  returned_minor: z.number().int().nullable(),
  /** The payment's money state after this fact; `null` for a rejected object (nothing changed). */
  money_state: z.enum(MONEY_STATES).nullable(),
  /** `RefundRecorded`: whether the refunds so far return all the captured money. */
  full: z.boolean().nullable(),
  /** `DisputeOpened`: the provider's reason. */
  reason: z.string().nullable(),
  /** `DisputeResolved`: `won` or `lost`. */
  outcome: z.enum(DISPUTE_STATUSES).nullable(),
  /** `MoneyMovementRejected`: the object's normalised status and the checks it failed. */
  status: z.string().nullable(),
  checks: z.array(movementCheck).nullable(),
});

/** See {@link moneyMovementData}. */
export type MoneyMovementData = z.infer<typeof moneyMovementData>;

/** Kind of movement each fact type is about. */
function kindOf(event: MoneyMovementEvent): MoneyMovementData['kind'] {
  switch (event.type) {
    case 'RefundRecorded':
    case 'RefundFailed':
      return 'refund';
    case 'ReversalRecorded':
      return 'reversal';
    case 'DisputeOpened':
    case 'DisputeResolved':
      return 'dispute';
    case 'MoneyMovementRejected':
      return event.data.kind;
  }
}

/**
 * The ledger event recording a money fact. Its id is derived from the provider's object and the
 * fact's type (`<type>:<provider id>`, a rejection also from the status), so the same object
 * read again, by another trigger or a reconciliation run, is stored once.
 */
export function moneyMovementLedgerEvent(
  event: MoneyMovementEvent,
  cause: { provider: ProviderName; userId: string; entitlement: string; eventId: string; correlationId: string; causationId: string },
): LedgerEventInput & { type: MoneyMovementType; data: MoneyMovementData } {
  const d = event.data;
  const rejected = event.type === 'MoneyMovementRejected' ? event.data : null;
  const data: MoneyMovementData = {
    reference: d.reference,
    provider: cause.provider,
    user_id: cause.userId,
    entitlement: cause.entitlement,
    verification_id: d.verificationId,
    trigger: d.trigger,
    decided_at: d.decidedAt,
    kind: kindOf(event),
    provider_id: d.providerId,
    provider_status: d.providerStatus,
    amount_minor: d.amountMinor,
    currency: d.currency,
    created_at: d.createdAt,
    returned_minor: rejected ? null : (d as { returnedMinor: number }).returnedMinor,
    money_state: rejected ? null : (d as { moneyState: MoneyMovementData['money_state'] }).moneyState,
    full: event.type === 'RefundRecorded' ? event.data.full : null,
    reason: event.type === 'DisputeOpened' ? event.data.reason : null,
    outcome: event.type === 'DisputeResolved' ? event.data.outcome : null,
    status: rejected ? rejected.status : null,
    checks: rejected ? [...rejected.checks] : null,
  };
  return { eventId: cause.eventId, type: event.type, data, metadata: { correlationId: cause.correlationId, causationId: cause.causationId } };
}

/**
 * The typed data of a stored money fact.
 *
 * @throws LedgerEventShapeError when the event is not a well-formed money fact (not written by the projector).
 */
export function moneyMovementDataOf(event: Pick<RecordedLedgerEvent, 'type' | 'data' | 'eventId' | 'position'>): {
  type: MoneyMovementType;
  data: MoneyMovementData;
} {
  const parsed = moneyMovementData.safeParse(event.data);
  if (!isMoneyMovementType(event.type) || !parsed.success) throw new LedgerEventShapeError(event.eventId, event.position, 'a money fact');
  return { type: event.type, data: parsed.data };
}

/**
 * The domain event a stored money fact stands for, to fold a payment's money (taken as recorded).
 *
 * @throws LedgerEventShapeError when the event is not a well-formed money fact.
 */
export function moneyMovementEventOf(event: Pick<RecordedLedgerEvent, 'type' | 'data' | 'eventId' | 'position'>): MoneyMovementEvent {
  const { type, data: d } = moneyMovementDataOf(event);
  const base = {
    reference: d.reference,
    verificationId: d.verification_id,
    trigger: d.trigger,
    decidedAt: d.decided_at,
    providerId: d.provider_id,
    providerStatus: d.provider_status,
    amountMinor: d.amount_minor,
    currency: d.currency,
    createdAt: d.created_at,
  };
  const totals = { returnedMinor: d.returned_minor ?? 0, moneyState: d.money_state ?? 'none' };
  switch (type) {
    case 'RefundRecorded':
      return { type, data: { ...base, ...totals, full: d.full ?? false } };
    case 'RefundFailed':
    case 'ReversalRecorded':
      return { type, data: { ...base, ...totals } };
    case 'DisputeOpened':
      return { type, data: { ...base, ...totals, reason: d.reason } };
    case 'DisputeResolved':
      if (d.outcome === null || d.outcome === 'open') throw new LedgerEventShapeError(event.eventId, event.position, 'a decided dispute');
      return { type, data: { ...base, ...totals, outcome: d.outcome } };
    case 'MoneyMovementRejected':
      return { type, data: { ...base, kind: d.kind, status: d.status, checks: d.checks ?? [] } };
  }
}

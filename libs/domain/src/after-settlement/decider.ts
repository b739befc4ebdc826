import { assertNever } from '../shared/errors.js';
import { currencyCode, type Money } from '../shared/money.js';
import type { VerificationTrigger } from '../transaction/types.js';
import type { DisputeObservation, DisputeStatus, MoneyMovementKind, MoneyMovementObservation, RefundObservation, ReversalObservation } from './movement.js';

/**
 * The money state of a settled payment (docs/state-machine.md, "The money after settlement"): a
 * second field beside the payment's state, which stays what it was (a settled payment was
 * settled; nothing changes a terminal state, decision 4). Derived from the recorded facts by
 * {@link moneyStateOf}:
 * - `none`: all the captured money stayed with the merchant;
 * - `partially_refunded`: refunds returned part of it;
 * - `refunded`: refunds returned all of it;
 * - `reversed`: the provider or the payer's bank returned it (a reversal);
 * - `disputed`: a dispute is open (whatever was refunded before);
 * - `charged_back`: a dispute was lost.
 */
export const MONEY_STATES = ['none', 'partially_refunded', 'refunded', 'reversed', 'disputed', 'charged_back'] as const;
/** One of {@link MONEY_STATES}. */
export type MoneyState = (typeof MONEY_STATES)[number];

/** The checks a provider's refund, reversal or dispute object passes before it is recorded. */
export const MOVEMENT_CHECK_NAMES = ['payment_identity', 'currency', 'amount'] as const;
/** One of {@link MOVEMENT_CHECK_NAMES}. */
export type MovementCheckName = (typeof MOVEMENT_CHECK_NAMES)[number];

/** Stable codes, one per check. */
export const MOVEMENT_CHECK_CODES = {
  payment_identity: 'MOVEMENT.IDENTITY_MISMATCH',
  currency: 'MOVEMENT.CURRENCY_MISMATCH',
  amount: 'MOVEMENT.AMOUNT_EXCEEDS_CAPTURED',
} as const satisfies Record<MovementCheckName, string>;

/** One check's outcome, with what was expected and what the provider's object said (amounts in minor units). */
export interface MovementCheck {
  readonly check: MovementCheckName;
  readonly passed: boolean;
  /** `null` when passed, else the stable code from {@link MOVEMENT_CHECK_CODES}. */
  readonly code: string | null;
  readonly expected: string;
  readonly observed: string;
}

/** Fields every recorded fact about the money carries, for audit. */
interface MovementFactData {
  readonly reference: string;
  /** Identity of the provider query that read the object (idempotency key downstream). */
  readonly verificationId: string;
  /** What asked for the query: a provider notification (`webhook_received`), a reconciliation run, an admin. */
  readonly trigger: VerificationTrigger;
  /** epoch ms */
  readonly decidedAt: number;
  /** The provider's id of the refund, reversal or dispute. */
  readonly providerId: string;
  readonly providerStatus: string;
  /** Amount the object moves, minor units. */
  readonly amountMinor: number;
  /** ISO 4217, upper case: the captured payment's. */
  readonly currency: string;
  /** When the provider created the object, epoch ms. */
  readonly createdAt: number;
  /** Money returned to the payer so far, this fact included, minor units (refunds, a reversal, lost disputes). */
  readonly returnedMinor: number;
  /** The payment's money state after this fact. */
  readonly moneyState: MoneyState;
}

/** A refund succeeded at the provider (full when the refunds so far return all the captured money). */
export interface RefundRecorded {
  readonly type: 'RefundRecorded';
  readonly data: MovementFactData & { readonly full: boolean };
}

/** A refund recorded before failed or was cancelled at the provider: its money stayed with the merchant. */
export interface RefundFailed {
  readonly type: 'RefundFailed';
  readonly data: MovementFactData;
}

/** The provider or the payer's bank returned the payment's money (no refund the merchant asked for). */
export interface ReversalRecorded {
  readonly type: 'ReversalRecorded';
  readonly data: MovementFactData;
}

/** The payer's bank opened a dispute about the payment. */
export interface DisputeOpened {
  readonly type: 'DisputeOpened';
  readonly data: MovementFactData & { readonly reason: string | null };
}

/** A dispute was decided: `won` (the merchant keeps the money) or `lost` (a chargeback). */
export interface DisputeResolved {
  readonly type: 'DisputeResolved';
  readonly data: MovementFactData & { readonly outcome: Exclude<DisputeStatus, 'open'> };
}

/**
 * A provider's object failed a check ({@link MOVEMENT_CHECK_NAMES}): it names another payment,
 * another currency, or more money than is left to return. Nothing about the money is recorded
 * and a person must look, as for a State Mismatch.
 */
export interface MoneyMovementRejected {
  readonly type: 'MoneyMovementRejected';
  readonly data: Omit<MovementFactData, 'returnedMinor' | 'moneyState' | 'currency'> & {
    readonly kind: MoneyMovementKind;
    /** The object's normalised status (`null` for a reversal, which has none). */
    readonly status: string | null;
    /** The currency as the provider reported it. */
    readonly currency: string;
    readonly checks: readonly MovementCheck[];
  };
}

/** Every fact about a settled payment's money: the ones the ledger appends to the transaction's stream. */
export type MoneyMovementEvent = RefundRecorded | RefundFailed | ReversalRecorded | DisputeOpened | DisputeResolved | MoneyMovementRejected;

/** Type names of {@link MoneyMovementEvent}. */
export const MONEY_MOVEMENT_EVENT_TYPES = [
  'RefundRecorded',
  'RefundFailed',
  'ReversalRecorded',
  'DisputeOpened',
  'DisputeResolved',
  'MoneyMovementRejected',
] as const satisfies readonly MoneyMovementEvent['type'][];
/** One of {@link MONEY_MOVEMENT_EVENT_TYPES}. */
export type MoneyMovementEventType = (typeof MONEY_MOVEMENT_EVENT_TYPES)[number];

/** Record what a provider's refund, reversal or dispute object says. Time and ids come in with the command. */
export interface RecordMoneyMovement {
  readonly type: 'RecordMoneyMovement';
  readonly data: {
    readonly reference: string;
    readonly verificationId: string;
    readonly trigger: VerificationTrigger;
    readonly observation: MoneyMovementObservation;
    /** epoch ms */
    readonly decidedAt: number;
  };
}

/**
 * The money of one settled payment, folded from its facts. `captured` is what the provider
 * confirmed the payer paid when the payment settled (or when its State Mismatch was detected:
 * money arrived then too): the gross amount, before the provider's fees, which a refund never
 * returns to the merchant (docs/state-machine.md, "Fees").
 */
export interface PaymentMoney {
  readonly reference: string;
  readonly captured: Money;
  /** Succeeded refunds by provider id, minor units. */
  readonly refunds: ReadonlyMap<string, number>;
  /** Refunds recorded, then failed: final (a provider never turns a failed refund into a succeeded one). */
  readonly failedRefunds: ReadonlySet<string>;
  /** The reversal's provider id and amount, `null` when none. */
  readonly reversal: { readonly providerId: string; readonly amountMinor: number } | null;
  /** Disputes by provider id: their status and amount (minor units). */
  readonly disputes: ReadonlyMap<string, { readonly status: DisputeStatus; readonly amountMinor: number }>;
  /** Rejected objects already recorded, by provider id and status, so a repeated answer records nothing new. */
  readonly rejected: ReadonlySet<string>;
}

/** The money of a payment that just settled: nothing returned yet. */
export function paymentMoney(reference: string, captured: Money): PaymentMoney {
  return { reference, captured, refunds: new Map(), failedRefunds: new Set(), reversal: null, disputes: new Map(), rejected: new Set() };
}

/** Money returned to the payer so far, minor units: succeeded refunds, the reversal and lost disputes. */
export function returnedMinor(money: PaymentMoney): number {
  let total = money.reversal?.amountMinor ?? 0;
  for (const amount of money.refunds.values()) total += amount;
  for (const dispute of money.disputes.values()) if (dispute.status === 'lost') total += dispute.amountMinor;
  return total;
}

/** Succeeded refunds so far, minor units. */
export function refundedMinor(money: PaymentMoney): number {
  let total = 0;
  for (const amount of money.refunds.values()) total += amount;
  return total;
}

/** The payment's {@link MoneyState}, derived from its facts (a lost dispute outranks a reversal, which outranks an open dispute). */
export function moneyStateOf(money: PaymentMoney): MoneyState {
  const disputes = [...money.disputes.values()];
  if (disputes.some((d) => d.status === 'lost')) return 'charged_back';
  if (money.reversal !== null) return 'reversed';
  if (disputes.some((d) => d.status === 'open')) return 'disputed';
  const refunded = refundedMinor(money);
  if (refunded > 0 && refunded >= money.captured.amountMinor) return 'refunded';
  return refunded > 0 ? 'partially_refunded' : 'none';
}

function check(name: MovementCheckName, passed: boolean, expected: string, observed: string): MovementCheck {
  return { check: name, passed, code: passed ? null : MOVEMENT_CHECK_CODES[name], expected, observed };
}

/** The currency upper-cased, or the text as given when it is not an ISO 4217 code (then the check fails). */
function currencyOf(value: string): string {
  try {
    return currencyCode(value);
  } catch {
    return value;
  }
}

/**
 * The checks before a fact that returns money (or may: a dispute) is recorded, like the four
 * points for a payment:
 * - payment identity: the object names this payment's reference, exactly;
 * - currency: the captured payment's ISO 4217 code, after upper-casing the provider's;
 * - amount: a positive integer in minor units, and what was returned so far plus this amount
 *   never exceeds what was captured (for a dispute, its amount alone, since it may be won).
 */
export function checkMovement(money: PaymentMoney, observation: MoneyMovementObservation): MovementCheck[] {
  const left = money.captured.amountMinor - (observation.kind === 'dispute' ? 0 : returnedMinor(money));
  const amountOk = Number.isSafeInteger(observation.amountMinor) && observation.amountMinor > 0 && observation.amountMinor <= left;
  return [
    check('payment_identity', observation.paymentReference === money.reference, money.reference, observation.paymentReference),
    check('currency', currencyOf(observation.currency) === money.captured.currency, money.captured.currency, observation.currency),
    check('amount', amountOk, `at most ${left}`, String(observation.amountMinor)),
  ];
}

type Base = Omit<MovementFactData, 'returnedMinor' | 'moneyState'>;

/** The events' data with the money state each leaves (computed by folding them in turn). */
function withTotals(money: PaymentMoney, events: readonly MoneyMovementEvent[]): MoneyMovementEvent[] {
  let state = money;
  return events.map((event) => {
    if (event.type === 'MoneyMovementRejected') return event;
    const after = evolveMoney(state, event);
    const totals = { returnedMinor: returnedMinor(after), moneyState: moneyStateOf(after) };
    state = after;
    return { ...event, data: { ...event.data, ...totals } } as MoneyMovementEvent;
  });
}

const PENDING_TOTALS = { returnedMinor: 0, moneyState: 'none' } as const;

function decideRefund(money: PaymentMoney, observation: RefundObservation, base: Base): MoneyMovementEvent[] {
  const recorded = money.refunds.has(observation.providerId);
  if (observation.status === 'pending' || money.failedRefunds.has(observation.providerId)) return [];
  if (observation.status === 'failed')
    return recorded ? [{ type: 'RefundFailed', data: { ...base, amountMinor: money.refunds.get(observation.providerId)!, ...PENDING_TOTALS } }] : [];
  if (recorded) return [];
  const full = refundedMinor(money) + observation.amountMinor >= money.captured.amountMinor;
  return [{ type: 'RefundRecorded', data: { ...base, full, ...PENDING_TOTALS } }];
}

function decideReversal(money: PaymentMoney, _observation: ReversalObservation, base: Base): MoneyMovementEvent[] {
  return money.reversal === null ? [{ type: 'ReversalRecorded', data: { ...base, ...PENDING_TOTALS } }] : [];
}

function decideDispute(money: PaymentMoney, observation: DisputeObservation, base: Base): MoneyMovementEvent[] {
  const known = money.disputes.get(observation.providerId);
  if (known !== undefined && known.status !== 'open') return [];
  const opened: MoneyMovementEvent[] = known === undefined ? [{ type: 'DisputeOpened', data: { ...base, reason: observation.reason, ...PENDING_TOTALS } }] : [];
  if (observation.status === 'open') return opened;
  return [...opened, { type: 'DisputeResolved', data: { ...base, outcome: observation.status, ...PENDING_TOTALS } }];
}

/** Whether the observation would record something that moves money (and so must pass the checks first). */
function movesMoney(money: PaymentMoney, observation: MoneyMovementObservation): boolean {
  switch (observation.kind) {
    case 'refund':
      return observation.status === 'succeeded' && !money.refunds.has(observation.providerId) && !money.failedRefunds.has(observation.providerId);
    case 'reversal':
      return money.reversal === null;
    case 'dispute': {
      const known = money.disputes.get(observation.providerId);
      return known === undefined || (known.status === 'open' && observation.status !== 'open');
    }
    default:
      return assertNever(observation);
  }
}

/**
 * Decides what a provider's refund, reversal or dispute object adds to a settled payment's
 * history (docs/state-machine.md, "The money after settlement"):
 * - an object that would move money first passes {@link checkMovement}; one that fails records
 *   `MoneyMovementRejected` once (per object and status) and nothing else;
 * - refund `succeeded`: `RefundRecorded` once per refund id (`full` when the refunds return all
 *   the captured money); `failed` after it was recorded: `RefundFailed`, final for that id;
 *   `pending`, or `failed` never recorded: nothing;
 * - reversal: `ReversalRecorded`, once;
 * - dispute `open`: `DisputeOpened` once per dispute id; `won` or `lost`: `DisputeResolved` once
 *   (after a `DisputeOpened` in the same decision when the dispute is first seen decided, so the
 *   history is whole); a decided dispute never changes again.
 *
 * The payment's own state is not touched: this decides only the money's facts. Pure: ids and
 * times come in with the command. The same object observed twice records nothing the second time.
 */
export function decideMoneyMovement(command: RecordMoneyMovement, money: PaymentMoney): MoneyMovementEvent[] {
  const { observation, reference, verificationId, trigger, decidedAt } = command.data;
  const base: Base = {
    reference,
    verificationId,
    trigger,
    decidedAt,
    providerId: observation.providerId,
    providerStatus: observation.providerStatus,
    amountMinor: observation.amountMinor,
    currency: money.captured.currency,
    createdAt: observation.createdAt,
  };
  if (movesMoney(money, observation)) {
    const checks = checkMovement(money, observation);
    if (checks.some((c) => !c.passed)) {
      const key = rejectionKey(observation);
      if (money.rejected.has(key)) return [];
      return [
        { type: 'MoneyMovementRejected', data: { ...base, kind: observation.kind, status: statusOf(observation), currency: observation.currency, checks } },
      ];
    }
  }
  switch (observation.kind) {
    case 'refund':
      return withTotals(money, decideRefund(money, observation, base));
    case 'reversal':
      return withTotals(money, decideReversal(money, observation, base));
    case 'dispute':
      return withTotals(money, decideDispute(money, observation, base));
    default:
      return assertNever(observation);
  }
}

function statusOf(observation: MoneyMovementObservation): string | null {
  return observation.kind === 'reversal' ? null : observation.status;
}

function rejectionKey(observation: MoneyMovementObservation): string {
  return `${observation.kind}:${observation.providerId}:${statusOf(observation)}`;
}

/** Folds one fact into the payment's money. */
export function evolveMoney(money: PaymentMoney, event: MoneyMovementEvent): PaymentMoney {
  const d = event.data;
  switch (event.type) {
    case 'RefundRecorded':
      return { ...money, refunds: new Map([...money.refunds, [d.providerId, d.amountMinor]]) };
    case 'RefundFailed': {
      const refunds = new Map(money.refunds);
      refunds.delete(d.providerId);
      return { ...money, refunds, failedRefunds: new Set([...money.failedRefunds, d.providerId]) };
    }
    case 'ReversalRecorded':
      return { ...money, reversal: { providerId: d.providerId, amountMinor: d.amountMinor } };
    case 'DisputeOpened':
      return { ...money, disputes: new Map([...money.disputes, [d.providerId, { status: 'open', amountMinor: d.amountMinor }]]) };
    case 'DisputeResolved':
      return { ...money, disputes: new Map([...money.disputes, [d.providerId, { status: event.data.outcome, amountMinor: d.amountMinor }]]) };
    case 'MoneyMovementRejected':
      return { ...money, rejected: new Set([...money.rejected, `${event.data.kind}:${d.providerId}:${event.data.status}`]) };
    default:
      return assertNever(event);
  }
}

/** Folds a payment's money facts, oldest first. */
export function foldMoney(events: readonly MoneyMovementEvent[], from: PaymentMoney): PaymentMoney {
  return events.reduce(evolveMoney, from);
}

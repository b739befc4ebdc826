import { DomainError } from '../shared/errors.js';
import type { TransactionStatus } from '../transaction/types.js';

/**
 * What an operator can decide about a State Mismatch (docs/state-machine.md, "Resolving a State
 * Mismatch"): the money arrived, but not as registered (a lower amount, another currency), so
 * the four checks failed and nothing was granted.
 * - `accept_as_paid`: the merchant honours the payment as it is (an underpayment within a
 *   tolerance of its own). Needs two people (proposed by one operator, approved by a different
 *   admin, docs/approvals.md); grants the entitlement the checkout bought.
 * - `refund_due`: the payment is to be refunded. The exception stays open until the provider
 *   shows the captured money returned, then closes by itself.
 */
export const MISMATCH_RESOLUTIONS = ['accept_as_paid', 'refund_due'] as const;
/** One of {@link MISMATCH_RESOLUTIONS}. */
export type MismatchResolution = (typeof MISMATCH_RESOLUTIONS)[number];

/**
 * Where a State Mismatch's resolution stands (`read_model.transaction_status.resolution`,
 * `resolution` in the checkout's status answer): `accepted_as_paid`; `refund_due` (open: the
 * refund is awaited from the provider); `refunded` (closed: the provider shows the captured money
 * returned). The payment's state stays `STATE_MISMATCH` throughout: the checks did fail.
 */
export const MISMATCH_RESOLUTION_STATES = ['accepted_as_paid', 'refund_due', 'refunded'] as const;
/** One of {@link MISMATCH_RESOLUTION_STATES}. */
export type MismatchResolutionState = (typeof MISMATCH_RESOLUTION_STATES)[number];

/** An amount in minor units and its ISO 4217 currency. */
interface Amount {
  /** Minor units. */
  readonly amountMinor: number;
  readonly currency: string;
}

/** A State Mismatch as its transaction's ledger stream records it, for {@link decideMismatchResolution}. */
export interface MismatchCase {
  /** The state of the stream's last outcome. */
  readonly status: TransactionStatus;
  /** Where its resolution stands; `null` before any. */
  readonly resolution: MismatchResolutionState | null;
  /** What the checkout registered. */
  readonly expected: Amount;
  /** What the provider confirmed the payer paid (the captured money); `null` when it gave no amount. */
  readonly observed: Amount | null;
  /** Money returned to the payer so far by refunds, reversals and lost disputes, minor units. */
  readonly returnedMinor: number;
  /** Whether a dispute of the payment is open (its money may still go back). */
  readonly disputeOpen: boolean;
}

/** `SettledByOverride`: two people accepted a State Mismatch as paid; its entitlement is granted. */
export interface SettledByOverride {
  readonly type: 'SettledByOverride';
  readonly data: {
    readonly proposalId: string;
    /** The operator who proposed it and the different admin who approved it (e-mails). */
    readonly proposedBy: string;
    readonly approvedBy: string;
    readonly note: string;
    /** Registered amount minus captured amount, minor units, when both are in one currency; `null` otherwise. */
    readonly differenceMinor: number | null;
    /** Epoch milliseconds. */
    readonly decidedAt: number;
  };
}

/** `MismatchRefundDue`: an admin closed a State Mismatch as to be refunded. */
export interface MismatchRefundDue {
  readonly type: 'MismatchRefundDue';
  readonly data: { readonly closedBy: string; readonly note: string | null; readonly decidedAt: number };
}

/** `MismatchRefundDueClosed`: the provider shows the captured money of a refund-due State Mismatch returned. */
export interface MismatchRefundDueClosed {
  readonly type: 'MismatchRefundDueClosed';
  /** `returnedMinor`: minor units returned by then; `decidedAt`: epoch milliseconds. */
  readonly data: { readonly returnedMinor: number; readonly decidedAt: number };
}

/** The facts of a State Mismatch's resolution, appended to its transaction's stream after its outcome. */
export type MismatchResolutionEvent = SettledByOverride | MismatchRefundDue | MismatchRefundDueClosed;

/** The ledger event types of {@link MismatchResolutionEvent}. */
export const MISMATCH_RESOLUTION_EVENT_TYPES = ['SettledByOverride', 'MismatchRefundDue', 'MismatchRefundDueClosed'] as const;

/** An operator's resolution of a State Mismatch, as requested (the console's approved proposal, or an admin's close). */
export type ResolveMismatch =
  | {
      readonly type: 'AcceptAsPaid';
      readonly data: {
        readonly proposalId: string;
        readonly proposedBy: string;
        readonly approvedBy: string;
        readonly note: string;
        readonly decidedAt: number;
      };
    }
  | { readonly type: 'CloseRefundDue'; readonly data: { readonly closedBy: string; readonly note: string | null; readonly decidedAt: number } };

/** Whether the captured money is all returned (a full refund, a reversal, a lost dispute). */
function allReturned(c: MismatchCase): boolean {
  const captured = c.observed?.amountMinor ?? c.expected.amountMinor;
  return c.returnedMinor >= captured;
}

/**
 * Decides an operator's resolution of a State Mismatch (docs/state-machine.md, "Resolving a State
 * Mismatch"). Pure: the time comes in with the command.
 * - `AcceptAsPaid` records `SettledByOverride` with the difference accepted; only while no money
 *   went back (accepting a refunded payment as paid would grant what nobody paid for) and no
 *   dispute is open (its grant would start in force whatever the entitlement's dispute policy).
 * - `CloseRefundDue` records `MismatchRefundDue`, and `MismatchRefundDueClosed` at once when the
 *   captured money is already all returned.
 *
 * The same resolution requested again records nothing (a redelivered request).
 *
 * @throws DomainError `MISMATCH.NOT_STATE_MISMATCH` (the payment is in another state),
 *   `MISMATCH.ALREADY_RESOLVED` (another resolution was recorded), `MISMATCH.MONEY_RETURNED`
 *   (accepting a payment whose money went back, in part or whole), `MISMATCH.DISPUTE_OPEN`
 *   (accepting a payment with a dispute open).
 */
export function decideMismatchResolution(command: ResolveMismatch, c: MismatchCase): MismatchResolutionEvent[] {
  if (c.status !== 'STATE_MISMATCH') throw new DomainError('MISMATCH.NOT_STATE_MISMATCH', `The payment is ${c.status}, not in State Mismatch`, 'conflict');
  const wanted: MismatchResolutionState = command.type === 'AcceptAsPaid' ? 'accepted_as_paid' : 'refund_due';
  if (c.resolution !== null) {
    const same = c.resolution === wanted || (wanted === 'refund_due' && c.resolution === 'refunded');
    if (same) return [];
    throw new DomainError('MISMATCH.ALREADY_RESOLVED', `The State Mismatch is resolved already (${c.resolution})`, 'conflict');
  }
  if (command.type === 'AcceptAsPaid') {
    if (c.returnedMinor > 0)
      throw new DomainError('MISMATCH.MONEY_RETURNED', 'Money of this payment went back to the payer: it cannot be accepted as paid', 'conflict');
    if (c.disputeOpen)
      throw new DomainError('MISMATCH.DISPUTE_OPEN', 'A dispute of this payment is open: it cannot be accepted as paid until it is decided', 'conflict');
    const sameCurrency = c.observed !== null && c.observed.currency.toUpperCase() === c.expected.currency.toUpperCase();
    const differenceMinor = sameCurrency ? c.expected.amountMinor - c.observed.amountMinor : null;
    return [{ type: 'SettledByOverride', data: { ...command.data, differenceMinor } }];
  }
  const due: MismatchRefundDue = { type: 'MismatchRefundDue', data: command.data };
  return allReturned(c) ? [due, { type: 'MismatchRefundDueClosed', data: { returnedMinor: c.returnedMinor, decidedAt: command.data.decidedAt } }] : [due];
}

/**
 * Whether money facts just recorded close a refund-due State Mismatch: the resolution is
 * `refund_due` and the captured money is all returned (docs/state-machine.md, "Resolving a State
 * Mismatch"). Pure.
 *
 * @returns `MismatchRefundDueClosed`, or `null` when it stays as it is.
 */
export function closeRefundDue(c: MismatchCase, decidedAt: number): MismatchRefundDueClosed | null {
  if (c.resolution !== 'refund_due' || !allReturned(c)) return null;
  return { type: 'MismatchRefundDueClosed', data: { returnedMinor: c.returnedMinor, decidedAt } };
}

/** Where a resolution stands after one of its facts. */
export function resolutionAfter(event: Pick<MismatchResolutionEvent, 'type'>): MismatchResolutionState {
  switch (event.type) {
    case 'SettledByOverride':
      return 'accepted_as_paid';
    case 'MismatchRefundDue':
      return 'refund_due';
    case 'MismatchRefundDueClosed':
      return 'refunded';
  }
}

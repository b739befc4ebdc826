import { assertNever, DomainError } from '../shared/errors.js';
import type { CompleteCheckout, RecordVerification, RegisterCheckout, TransactionCommand } from './commands.js';
import { checkConsensus, consensusReached } from './consensus.js';
import type { ManualReviewRequired, TransactionEvent } from './events.js';
import { isTerminal, type EntitlementStatus, type Expectation, type TransactionStatus } from './types.js';

/**
 * State of one checkout transaction, folded from its events.
 * `outcomes` counts the outcome events so far: it is the ledger stream's next expected
 * revision (the ledger holds outcome events only).
 */
export interface TransactionState {
  readonly registered: boolean;
  readonly expectation: Expectation | null;
  readonly status: TransactionStatus;
  readonly entitlement: EntitlementStatus;
  /** epoch ms, `null` until the client completes the checkout. */
  readonly completedAt: number | null;
  /** Number of outcome events recorded so far (ledger stream length). */
  readonly outcomes: number;
}

/** State before any event. */
export function initialState(): TransactionState {
  return { registered: false, expectation: null, status: 'PENDING', entitlement: 'LOCKED', completedAt: null, outcomes: 0 };
}

function sameExpectation(a: Expectation, b: Expectation): boolean {
  return (
    a.reference === b.reference &&
    a.provider === b.provider &&
    a.amountMinor === b.amountMinor &&
    a.currency === b.currency &&
    a.userId === b.userId &&
    (a.customer.email ?? null) === (b.customer.email ?? null) &&
    (a.customer.phone ?? null) === (b.customer.phone ?? null) &&
    a.entitlement === b.entitlement &&
    a.accessPeriod === b.accessPeriod
  );
}

function requireRegistered(state: TransactionState, reference: string): Expectation {
  if (!state.registered || state.expectation === null) {
    throw new DomainError('TRANSACTION.UNKNOWN', `No checkout is registered under reference ${reference}`, 'not_found');
  }
  if (state.expectation.reference !== reference) {
    throw new DomainError('TRANSACTION.REFERENCE_MISMATCH', `Command for ${reference} applied to transaction ${state.expectation.reference}`);
  }
  return state.expectation;
}

function decideRegister(command: RegisterCheckout, state: TransactionState): TransactionEvent[] {
  const { expectation, registeredAt } = command.data;
  if (state.registered && state.expectation !== null) {
    if (sameExpectation(state.expectation, expectation)) return [];
    throw new DomainError('TRANSACTION.CONFLICT', `Reference ${expectation.reference} is registered with other terms`, 'conflict');
  }
  return [{ type: 'CheckoutRegistered', data: { expectation, registeredAt } }];
}

function decideComplete(command: CompleteCheckout, state: TransactionState): TransactionEvent[] {
  requireRegistered(state, command.data.reference);
  if (state.completedAt !== null) return [];
  return [{ type: 'CheckoutCompleted', data: command.data }];
}

/** Whether an unresolved answer to this verification moves the transaction to manual review. */
function escalates(state: TransactionState, trigger: RecordVerification['data']['trigger']): boolean {
  return trigger === 'sweeper_review_limit' && state.status !== 'MANUAL_REVIEW';
}

function manualReview(
  base: Omit<ManualReviewRequired['data'], 'lastVerdict' | 'providerStatus'>,
  lastVerdict: ManualReviewRequired['data']['lastVerdict'],
  providerStatus: string | null,
): TransactionEvent {
  return { type: 'ManualReviewRequired', data: { ...base, lastVerdict, providerStatus } };
}

/**
 * Applies the spec's transition table (docs/spec.md, section 3) and error table (section 7):
 * - cleared and all four checks pass: SETTLED_CONSENSUS, entitlement unlocked;
 * - cleared but a check fails: STATE_MISMATCH, entitlement stays locked;
 * - declined: FAILED_DECLINED, entitlement locked, a new attempt is safe;
 * - clearing: PENDING moves to RECOVERING (held in review); RECOVERING stays;
 * - unreachable or not found: no event, state preserved (a time-out is "unknown", never "failed");
 * - the sweeper's final re-check (`sweeper_review_limit`) answered clearing, not found or
 *   unreachable: MANUAL_REVIEW, entitlement unchanged (docs/state-machine.md, decision 6);
 * - in MANUAL_REVIEW only a definitive answer (cleared or declined) changes the state;
 * - any terminal state: no event (never settled twice, never un-settled).
 */
function decideVerification(command: RecordVerification, state: TransactionState): TransactionEvent[] {
  const { reference, verificationId, trigger, verdict, verifiedAt } = command.data;
  const expectation = requireRegistered(state, reference);
  if (isTerminal(state.status)) return [];
  const base = { reference, verificationId, trigger, decidedAt: verifiedAt };
  switch (verdict.kind) {
    case 'cleared': {
      const checks = checkConsensus(expectation, verdict.observation);
      return consensusReached(checks)
        ? [{ type: 'TransactionSettled', data: { ...base, checks, observation: verdict.observation } }]
        : [{ type: 'StateMismatchDetected', data: { ...base, checks, observation: verdict.observation } }];
    }
    case 'declined':
      return [{ type: 'PaymentDeclined', data: { ...base, providerStatus: verdict.providerStatus, reason: verdict.reason } }];
    case 'clearing':
      if (escalates(state, trigger)) return [manualReview(base, 'clearing', verdict.providerStatus)];
      return state.status === 'PENDING' ? [{ type: 'PaymentHeldInReview', data: { ...base, providerStatus: verdict.providerStatus } }] : [];
    case 'not_found':
    case 'unreachable':
      return escalates(state, trigger) ? [manualReview(base, verdict.kind, null)] : [];
    default:
      return assertNever(verdict);
  }
}

/**
 * Decides which events a command produces given the current state. Pure: time and ids come
 * in with the command.
 *
 * @throws DomainError `TRANSACTION.UNKNOWN` for a command on an unregistered reference;
 *   `TRANSACTION.REFERENCE_MISMATCH` for a command naming another transaction than the state's;
 *   `TRANSACTION.CONFLICT` when a reference is registered again with other terms.
 */
export function decide(command: TransactionCommand, state: TransactionState): TransactionEvent[] {
  switch (command.type) {
    case 'RegisterCheckout':
      return decideRegister(command, state);
    case 'CompleteCheckout':
      return decideComplete(command, state);
    case 'RecordVerification':
      return decideVerification(command, state);
    default:
      return assertNever(command);
  }
}

/** Folds one event into the state. */
export function evolve(state: TransactionState, event: TransactionEvent): TransactionState {
  switch (event.type) {
    case 'CheckoutRegistered':
      return { ...state, registered: true, expectation: event.data.expectation };
    case 'CheckoutCompleted':
      return { ...state, completedAt: event.data.completedAt };
    case 'TransactionSettled':
      return { ...state, status: 'SETTLED_CONSENSUS', entitlement: 'UNLOCKED', outcomes: state.outcomes + 1 };
    case 'PaymentDeclined':
      return { ...state, status: 'FAILED_DECLINED', entitlement: 'LOCKED', outcomes: state.outcomes + 1 };
    case 'PaymentHeldInReview':
      return { ...state, status: 'RECOVERING', entitlement: 'HELD_IN_REVIEW', outcomes: state.outcomes + 1 };
    case 'StateMismatchDetected':
      return { ...state, status: 'STATE_MISMATCH', entitlement: 'LOCKED', outcomes: state.outcomes + 1 };
    case 'ManualReviewRequired':
      return { ...state, status: 'MANUAL_REVIEW', outcomes: state.outcomes + 1 };
    default:
      return assertNever(event);
  }
}

/** Folds a whole history, oldest first. */
export function fold(events: readonly TransactionEvent[], from: TransactionState = initialState()): TransactionState {
  return events.reduce(evolve, from);
}

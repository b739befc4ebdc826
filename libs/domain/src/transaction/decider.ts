import { assertNever, DomainError } from '../shared/errors.js';
import type { CompleteCheckout, RecordVerification, RegisterCheckout, TransactionCommand } from './commands.js';
import { checkConsensus, consensusReached } from './consensus.js';
import type { ManualReviewRequired, TransactionEvent } from './events.js';
import { sameCheckoutTerms } from './terms.js';
import { isTerminal, type EntitlementStatus, type Expectation, type TransactionStatus } from './types.js';

/**
 * A reference no checkout was registered under (yet): the state before any event. Only a
 * registration applies to it; every other command is `TRANSACTION.UNKNOWN`.
 */
export interface UnregisteredTransaction {
  readonly status: 'UNREGISTERED';
}

/**
 * A registered checkout transaction, folded from its events: its terms are always known.
 * `outcomes` counts the outcome events so far: it is the ledger stream's next expected
 * revision (the ledger holds outcome events only).
 */
export interface RegisteredTransaction {
  readonly status: TransactionStatus;
  /** The registered terms, fixed for the reference ({@link sameCheckoutTerms}). */
  readonly expectation: Expectation;
  readonly entitlement: EntitlementStatus;
  /** epoch ms, `null` until the client completes the checkout. */
  readonly completedAt: number | null;
  /** Number of outcome events recorded so far (ledger stream length). */
  readonly outcomes: number;
}

/**
 * State of one checkout transaction, a tagged union on `status` (as Emmett's
 * `EmptyShoppingCart | OpenedShoppingCart | ClosedShoppingCart`): narrow with
 * {@link isRegistered} and the expectation is there, no non-null assertion needed.
 */
export type TransactionState = UnregisteredTransaction | RegisteredTransaction;

/** State before any event. */
export function initialState(): TransactionState {
  return { status: 'UNREGISTERED' };
}

/** Whether a checkout is registered under the state's reference (narrows to {@link RegisteredTransaction}). */
export function isRegistered(state: TransactionState): state is RegisteredTransaction {
  return state.status !== 'UNREGISTERED';
}

function requireRegistered(state: TransactionState, reference: string): RegisteredTransaction {
  if (!isRegistered(state)) {
    throw new DomainError('TRANSACTION.UNKNOWN', `No checkout is registered under reference ${reference}`, 'not_found');
  }
  if (state.expectation.reference !== reference) {
    throw new DomainError('TRANSACTION.REFERENCE_MISMATCH', `Command for ${reference} applied to transaction ${state.expectation.reference}`);
  }
  return state;
}

function decideRegister(command: RegisterCheckout, state: TransactionState): TransactionEvent[] {
  const { expectation, registeredAt } = command.data;
  if (isRegistered(state)) {
    if (sameCheckoutTerms(state.expectation, expectation)) return [];
    throw new DomainError('TRANSACTION.CONFLICT', `Reference ${expectation.reference} is registered with other terms`, 'conflict');
  }
  return [{ type: 'CheckoutRegistered', data: { expectation, registeredAt } }];
}

function decideComplete(command: CompleteCheckout, state: TransactionState): TransactionEvent[] {
  const registered = requireRegistered(state, command.data.reference);
  if (registered.completedAt !== null) return [];
  return [{ type: 'CheckoutCompleted', data: command.data }];
}

/** Whether an unresolved answer to this verification moves the transaction to manual review. */
function escalates(state: RegisteredTransaction, trigger: RecordVerification['data']['trigger']): boolean {
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
  const registered = requireRegistered(state, reference);
  const { expectation } = registered;
  if (isTerminal(registered.status)) return [];
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
      if (escalates(registered, trigger)) return [manualReview(base, 'clearing', verdict.providerStatus)];
      return registered.status === 'PENDING' ? [{ type: 'PaymentHeldInReview', data: { ...base, providerStatus: verdict.providerStatus } }] : [];
    case 'not_found':
    case 'unreachable':
      return escalates(registered, trigger) ? [manualReview(base, verdict.kind, null)] : [];
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
 *   `TRANSACTION.CONFLICT` when a reference is registered again with other terms ({@link sameCheckoutTerms}).
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

/**
 * Folds one event into the state. A registration opens the transaction; every other event
 * applies to a registered one ({@link decide} produces none for an unregistered reference,
 * so such an event changes nothing).
 */
export function evolve(state: RegisteredTransaction, event: TransactionEvent): RegisteredTransaction;
export function evolve(state: TransactionState, event: TransactionEvent): TransactionState;
export function evolve(state: TransactionState, event: TransactionEvent): TransactionState {
  if (event.type === 'CheckoutRegistered') {
    if (isRegistered(state)) return { ...state, expectation: event.data.expectation };
    return { status: 'PENDING', expectation: event.data.expectation, entitlement: 'LOCKED', completedAt: null, outcomes: 0 };
  }
  return isRegistered(state) ? evolveRegistered(state, event) : state;
}

function evolveRegistered(state: RegisteredTransaction, event: Exclude<TransactionEvent, { type: 'CheckoutRegistered' }>): RegisteredTransaction {
  switch (event.type) {
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
export function fold(events: readonly TransactionEvent[], from: RegisteredTransaction): RegisteredTransaction;
export function fold(events: readonly TransactionEvent[], from?: TransactionState): TransactionState;
export function fold(events: readonly TransactionEvent[], from: TransactionState = initialState()): TransactionState {
  return events.reduce<TransactionState>((state, event) => evolve(state, event), from);
}

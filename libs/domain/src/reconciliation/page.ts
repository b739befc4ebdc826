import { isTerminal } from '../transaction/types.js';
import { classify, EXCEPTION_CLASSES, type Classification, type ProviderRecord, type ReconciliationClass, type SettleRecord } from './classify.js';
import { inSettleScope, type MarkedTransaction, type ScopeMarker } from './scope.js';

/**
 * One page of a reconciliation run, decided (docs/reconciliation.md, "Runs"): which provider
 * transactions are in scope, the class of each, which exceptions are new, which open ones are
 * reported again or resolved, and which payments the verifier is asked to verify now. Pure: the
 * reconciler reads the page and Settle's records, this decides, the reconciler writes.
 */

/** The exception classes (every class but the counted ones), most serious first. */
export const RECONCILIATION_EXCEPTION_CLASSES = ['settled_not_successful', 'terms_differ', 'possible_duplicate', 'stuck', 'unknown_to_settle'] as const;
/** One of {@link RECONCILIATION_EXCEPTION_CLASSES}. */
export type ExceptionClass = (typeof RECONCILIATION_EXCEPTION_CLASSES)[number];

/** What happens to an exception: it is raised once, and resolved once. */
export const EXCEPTION_CHANGES = ['raised', 'resolved'] as const;

/**
 * How an exception was resolved: `matches` (a later run, or the live pipeline, found the payment
 * matching or unpaid on both sides), `reclassified` (it moved to another class, raised instead),
 * `operator` (an operator resolved it with a reason).
 */
export const EXCEPTION_RESOLUTIONS = ['matches', 'reclassified', 'operator'] as const;
/** One of {@link EXCEPTION_RESOLUTIONS}. */
export type ExceptionResolution = (typeof EXCEPTION_RESOLUTIONS)[number];

/** An exception still open, as the reconciler keeps it. */
export interface OpenException {
  readonly exceptionId: string;
  readonly reference: string;
  readonly class: ExceptionClass;
}

/** A provider transaction of a page: what the table compares, and what the scope rule and the grace period read. */
export type PageTransaction = ProviderRecord & MarkedTransaction & { readonly createdAtMs: number };

/** Everything one page is decided on. */
export interface PageInput {
  readonly transactions: readonly PageTransaction[];
  readonly marker: ScopeMarker;
  /** Settle's record of each reference registered here (absent: never registered). */
  readonly settle: ReadonlyMap<string, SettleRecord>;
  /** The open exceptions of the page's references, by reference. */
  readonly open: ReadonlyMap<string, readonly OpenException[]>;
  /** Possible duplicate charges among the page's references: reference → the earlier one it repeats. */
  readonly duplicates: ReadonlyMap<string, string>;
  /** References already known as unmatched payments (recorded, matched, closed...): not asked about again. */
  readonly knownUnmatched: ReadonlySet<string>;
  /** The run's clock, ms since the epoch. */
  readonly nowMs: number;
  /**
   * The grace period, milliseconds: a transaction created this recently and unknown here may be
   * racing its registration, so it is left to a later run (the next window overlaps this one).
   */
  readonly graceMs: number;
}

/** Counts a run reports: every class, and the transactions left out of the comparison. */
export type RunCounts = Record<ReconciliationClass | 'out_of_scope' | 'too_recent', number>;

/** Counts of zero for every key of {@link RunCounts}. */
export function emptyCounts(): RunCounts {
  return {
    settled_not_successful: 0,
    terms_differ: 0,
    possible_duplicate: 0,
    stuck: 0,
    unknown_to_settle: 0,
    matches: 0,
    not_paid: 0,
    not_paid_unknown: 0,
    out_of_scope: 0,
    too_recent: 0,
  };
}

/** Adds `b` into `a`, key by key. */
export function addCounts(a: RunCounts, b: Readonly<RunCounts>): RunCounts {
  for (const key of Object.keys(a) as Array<keyof RunCounts>) a[key] += b[key];
  return a;
}

/** A new exception: the classification with the provider transaction it is about. */
export interface NewException extends Classification {
  readonly class: ExceptionClass;
  readonly transaction: PageTransaction;
}

/** What one page decided. */
export interface PageOutcome {
  readonly counts: RunCounts;
  /** Exceptions not open yet: each becomes a `ReconciliationExceptionRaised` fact. */
  readonly raise: readonly NewException[];
  /** Open exceptions found again in the same class: reported in the run's counts, never raised twice. */
  readonly reportedAgain: readonly OpenException[];
  /**
   * Open exceptions that no longer apply: the payment now matches (or is unpaid on both sides), or
   * it moved to another class (which is raised instead). Each becomes a `ReconciliationExceptionResolved` fact.
   */
  readonly resolve: ReadonlyArray<{ readonly exception: OpenException; readonly now: ReconciliationClass }>;
  /**
   * Payments the verifier is asked to verify at once (trigger `reconciliation`): `stuck` ones not
   * in a terminal state, `unknown_to_settle` ones not yet known as unmatched payments, and
   * `settled_not_successful` ones when first raised (a settled payment the provider now shows
   * reversed or refunded: the verifier reads its refunds, disputes and reversal, docs/state-machine.md,
   * "The money after settlement", so a reversal nobody notified is recorded and its access revoked).
   */
  readonly verify: ReadonlyArray<{ readonly reference: string; readonly class: VerifiedClass; readonly transaction: PageTransaction }>;
}

/** The exception classes whose payments a run asks the verifier about. */
export type VerifiedClass = 'stuck' | 'unknown_to_settle' | 'settled_not_successful';

/**
 * Decides one page: each transaction out of scope is counted; one created within the grace period
 * and unknown here is counted as too recent; every other one is classified by {@link classify}.
 * An exception already open for the reference in the same class is reported again, not raised; an
 * open exception of another class is resolved. Transactions of the page with the same reference
 * (a provider listing one twice across a page boundary) are decided once.
 */
export function decidePage(input: PageInput): PageOutcome {
  const counts = emptyCounts();
  const raise: NewException[] = [];
  const reportedAgain: OpenException[] = [];
  const resolve: Array<{ exception: OpenException; now: ReconciliationClass }> = [];
  const verify: Array<{ reference: string; class: VerifiedClass; transaction: PageTransaction }> = [];
  const seen = new Set<string>();
  for (const transaction of input.transactions) {
    if (!inSettleScope(transaction, input.marker)) {
      counts.out_of_scope += 1;
      continue;
    }
    if (seen.has(transaction.reference)) continue;
    seen.add(transaction.reference);
    const settle = input.settle.get(transaction.reference) ?? null;
    if (settle === null && input.nowMs - transaction.createdAtMs < input.graceMs) {
      counts.too_recent += 1;
      continue;
    }
    const classification = classify(transaction, settle, input.duplicates.get(transaction.reference) ?? null);
    counts[classification.class] += 1;
    const open = input.open.get(transaction.reference) ?? [];
    for (const exception of open) {
      if (exception.class !== classification.class) resolve.push({ exception, now: classification.class });
    }
    if (!isException(classification.class)) continue;
    const again = open.find((e) => e.class === classification.class);
    if (again) reportedAgain.push(again);
    else raise.push({ ...classification, class: classification.class, transaction });
    if (classification.class === 'settled_not_successful' && !again) {
      verify.push({ reference: transaction.reference, class: 'settled_not_successful', transaction });
    }
    if (classification.class === 'stuck' && settle !== null && !isTerminal(settle.status)) {
      verify.push({ reference: transaction.reference, class: 'stuck', transaction });
    }
    if (classification.class === 'unknown_to_settle' && !input.knownUnmatched.has(transaction.reference)) {
      verify.push({ reference: transaction.reference, class: 'unknown_to_settle', transaction });
    }
  }
  return { counts, raise, reportedAgain, resolve, verify };
}

function isException(cls: ReconciliationClass): cls is ExceptionClass {
  return EXCEPTION_CLASSES.has(cls);
}

/** One of {@link EXCEPTION_CHANGES}. */
export type ExceptionChange = (typeof EXCEPTION_CHANGES)[number];

/** How long the transaction page waits for a reconciliation to show: 30 s. */
export const RECONCILE_WAIT_MS = 30_000;

/** How often it reads the transaction again meanwhile: every 1.5 s. */
export const RECONCILE_POLL_MS = 1_500;

/** What the page compares before and after: the state and how many ledger events the transaction has. */
export interface TransactionMark {
  state: string;
  events: number;
}

/** Where a reconciliation the page asked for stands. */
export type ReconcileProgress = 'waiting' | 'changed' | 'recorded' | 'timed_out';

/**
 * Whether to keep reading the transaction after asking for a reconciliation: `changed` when the
 * state moved, `recorded` when the ledger has a new event but the state stayed (a payment still
 * clearing), `timed_out` after {@link RECONCILE_WAIT_MS} of neither, else `waiting`.
 *
 * @param startedAt - epoch milliseconds when the reconciliation was accepted.
 * @param now - epoch milliseconds.
 */
export function reconcileProgress(
  before: TransactionMark,
  current: TransactionMark,
  startedAt: number,
  now: number,
  waitMs = RECONCILE_WAIT_MS,
): ReconcileProgress {
  if (current.state !== before.state) return 'changed';
  if (current.events > before.events) return 'recorded';
  return now - startedAt >= waitMs ? 'timed_out' : 'waiting';
}

/**
 * How many of a timeline's entries are the transaction's own ledger events: the admin actions
 * merged into it (those with an `actor`) are left out, so the request a reconciliation records
 * before it runs is not mistaken for its outcome.
 */
export function ledgerEventCount(timeline: ReadonlyArray<{ actor?: unknown }>): number {
  return timeline.filter((entry) => entry.actor === undefined).length;
}

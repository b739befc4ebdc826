import type { ProviderName, TransactionStatus } from '@settle/domain';
import type { ListedMovement } from '@settle/providers';
import { readsMovements } from '../money-movements.js';

/**
 * The movement phase of a reconciliation run (docs/reconciliation.md, "Refund and dispute
 * lists"): after the provider's transaction list, the same run pages its refund and dispute lists
 * for the same window, and asks the verifier to read the money of each settled payment they name.
 * Pure: what the run's stored cursor means, and which payments a page asks about.
 */

/**
 * Where a run stands, as its stored cursor says: paging the provider's transactions, or its refunds
 * and disputes, with the provider's own cursor in that list (`null` for its first page).
 */
export type RunPhase = { readonly phase: 'transactions'; readonly cursor: string | null } | { readonly phase: 'movements'; readonly cursor: string | null };

/**
 * The prefix of a stored cursor in the movement phase. A transaction-list cursor is stored as the
 * provider wrote it (a page number, a Stripe `pi_...` id), which never starts with it.
 */
export const MOVEMENT_PHASE_PREFIX = 'm|';

/**
 * Reads a run's stored cursor: `null` (a run not started) and any text without the prefix (every
 * cursor stored before the movement phase existed included) are the transaction list's; `m|`
 * followed by the movement lister's cursor (empty for its first page) is the movement phase.
 */
export function runPhaseOf(stored: string | null): RunPhase {
  if (stored === null || !stored.startsWith(MOVEMENT_PHASE_PREFIX)) return { phase: 'transactions', cursor: stored };
  const cursor = stored.slice(MOVEMENT_PHASE_PREFIX.length);
  return { phase: 'movements', cursor: cursor === '' ? null : cursor };
}

/** The cursor a run stores for where it stands next: `null` once it has read everything (the run completes). */
export function storedCursorOf(phase: RunPhase | null): string | null {
  if (phase === null) return null;
  return phase.phase === 'transactions' ? phase.cursor : `${MOVEMENT_PHASE_PREFIX}${phase.cursor ?? ''}`;
}

/**
 * Where a run goes after a page: the same list's next page while the provider has one; after the
 * transaction list's last page, the first movement page when the adapter can list refunds and
 * disputes; else nowhere (`null`: the run completes).
 *
 * @param next - the page's own `next` (the provider's cursor of the list's next page; `null` on its last).
 * @param listsMovements - whether the provider's adapter can list refunds and disputes (`canListMovements`).
 */
export function nextRunPhase(current: RunPhase['phase'], next: string | null, listsMovements: boolean): RunPhase | null {
  if (next !== null) return { phase: current, cursor: next };
  return current === 'transactions' && listsMovements ? { phase: 'movements', cursor: null } : null;
}

/** The distinct payment references a page of refunds and disputes names, first named first. */
export function movementReferences(movements: readonly ListedMovement[]): string[] {
  return [...new Set(movements.map((m) => m.reference))];
}

/** What the run needs of Settle's record of a reference to decide whether to ask about it. */
export interface MovementSubject {
  readonly provider: ProviderName;
  readonly status: TransactionStatus;
  readonly correlationId: string;
}

/** A payment to read again: its reference and the correlation id its verification request carries. */
export interface MovementRead {
  readonly reference: string;
  readonly correlationId: string;
}

/**
 * The payments a page of refunds and disputes asks the verifier to read (one `VerificationRequested`
 * each, trigger `reconciliation`): among the references it names, those Settle knows for this
 * provider in a state whose money the verifier reads on that trigger (`readsMovements`:
 * `SETTLED_CONSENSUS` or `STATE_MISMATCH`). A reference Settle does not know is left to the
 * payment list (it finds a payment Settle never heard of), one not settled to its own verification.
 *
 * @param references - the page's distinct references ({@link movementReferences}), in their order.
 * @param settle - Settle's records of those it knows, by reference.
 */
export function movementReads(provider: ProviderName, references: readonly string[], settle: ReadonlyMap<string, MovementSubject>): MovementRead[] {
  return references.flatMap((reference) => {
    const record = settle.get(reference);
    if (!record || record.provider !== provider || !readsMovements(record.status, 'reconciliation', false)) return [];
    return [{ reference, correlationId: record.correlationId }];
  });
}

import type { MoneyMovementObservation } from '@settle/domain';
import type { PaymentMovements } from './movement.port.js';
import type { SkippedRow } from './transaction-list.port.js';

/** One object of a provider's answer read as an observation, why it cannot be, or `null` to leave it out on purpose. */
export type ReadMovement = MoneyMovementObservation | Omit<SkippedRow, 'index'> | null;

/** Oldest first, then by the provider's id: the order every reader answers in. */
export function byCreation(a: MoneyMovementObservation, b: MoneyMovementObservation): number {
  return a.createdAt - b.createdAt || a.providerId.localeCompare(b.providerId);
}

/**
 * A payment's movements from its provider's answers (docs/providers.md, "A refunds and disputes
 * reader"): every row of each answer read in turn by that answer's reader (pure), those that
 * cannot be read kept apart with their position in their answer, the rest oldest first.
 */
export function readMovements(answers: ReadonlyArray<{ readonly rows: readonly unknown[]; readonly read: (raw: unknown) => ReadMovement }>): PaymentMovements {
  const observations: MoneyMovementObservation[] = [];
  const skipped: SkippedRow[] = [];
  for (const { rows, read } of answers) {
    rows.forEach((raw, index) => {
      const row = read(raw);
      if (row === null) return;
      if ('kind' in row) observations.push(row);
      else skipped.push({ index, ...row });
    });
  }
  observations.sort(byCreation);
  return { observations, ...(skipped.length > 0 ? { skipped } : {}) };
}

import { inListWindow } from './list.js';
import type { ListedMovement, MovementPage } from './movement-list.port.js';
import { ProviderCallError } from './provider.port.js';
import type { ListWindow, SkippedRow } from './transaction-list.port.js';

/**
 * What the refund and dispute list adapters share (docs/reconciliation.md, "Refund and dispute
 * lists"): the one cursor that walks a provider's refund list, then its dispute list, and the page
 * a list answer's rows make. Pure.
 */

/** The provider lists a movement cursor walks, in this order. */
export const MOVEMENT_LISTS = ['refunds', 'disputes'] as const;
/** One of {@link MOVEMENT_LISTS}: `disputes` is Flutterwave's chargeback list. */
export type MovementListName = (typeof MOVEMENT_LISTS)[number];

/** Where a movement cursor stands: which list, and the provider's own cursor in it. */
export interface MovementCursor {
  readonly list: MovementListName;
  /** The provider's cursor in that list (a page number, a Stripe object id); `null` for its first page. */
  readonly cursor: string | null;
}

const CURSOR = /^(refunds|disputes):(.*)$/s;

/**
 * Reads a movement cursor: `null` is the first page of refunds, `refunds:<provider cursor>` a later
 * one, `disputes:` the first page of disputes, `disputes:<provider cursor>` a later one. The
 * provider's part is checked by the adapter (a page number, a Stripe id) when it builds its call.
 *
 * @throws ProviderCallError `PROVIDER.INVALID_CURSOR` (not retryable) for any other text: a cursor
 *   no movement lister wrote (a transaction-list cursor included).
 */
export function readMovementCursor(cursor: string | null): MovementCursor {
  if (cursor === null) return { list: 'refunds', cursor: null };
  const match = CURSOR.exec(cursor);
  const list = match?.[1] as MovementListName | undefined;
  const rest = match?.[2];
  if (list === undefined || rest === undefined || (list === 'refunds' && rest === '')) {
    throw new ProviderCallError('PROVIDER.INVALID_CURSOR', false, 'The cursor is not a refund or dispute list cursor');
  }
  return { list, cursor: rest === '' ? null : rest };
}

/**
 * The cursor after a page of one list: the same list's next page while the provider has one, else
 * the first page of disputes after the last page of refunds, else `null` (both lists read).
 *
 * @param next - the provider's own cursor of the list's next page; `null` on its last page.
 */
export function nextMovementCursor(list: MovementListName, next: string | null): string | null {
  if (next !== null) return `${list}:${next}`;
  return list === 'refunds' ? 'disputes:' : null;
}

/** The kind of the objects a list holds. */
export function movementKindOf(list: MovementListName): ListedMovement['kind'] {
  return list === 'refunds' ? 'refund' : 'dispute';
}

/** One row of a list answer as an adapter read it: a value with its creation time, or why it was not listed. */
export type RowRead<T> = { kind: 'listed'; value: T } | { kind: 'skipped'; row: Omit<SkippedRow, 'index'> };

/** The rows of one list answer, read: those in the window with their position in the answer, those outside it counted, those that could not be read with why. */
export interface WindowRows<T> {
  readonly listed: ReadonlyArray<{ readonly index: number; readonly value: T }>;
  readonly skipped: readonly SkippedRow[];
  readonly outsideWindow: number;
}

/**
 * Reads every row of a list answer and keeps those created in the window (`fromMs` inclusive,
 * `untilMs` exclusive). Pure.
 *
 * @param read - one row to a value with its creation time (ms), or why it cannot be read (pure).
 */
export function readWindowRows<T extends { readonly createdAtMs: number }>(
  window: ListWindow,
  rows: readonly unknown[],
  read: (raw: unknown) => RowRead<T>,
): WindowRows<T> {
  const listed: Array<{ index: number; value: T }> = [];
  const skipped: SkippedRow[] = [];
  let outsideWindow = 0;
  rows.forEach((raw, index) => {
    const row = read(raw);
    if (row.kind === 'skipped') skipped.push({ index, ...row.row });
    else if (inListWindow(window, row.value.createdAtMs)) listed.push({ index, value: row.value });
    else outsideWindow += 1;
  });
  return { listed, skipped, outsideWindow };
}

/**
 * The page read rows make: the movements in the window, `rows` the answer's row count, the
 * skipped rows and those outside the window only when there are some.
 *
 * @param next - the movement cursor of the next page ({@link nextMovementCursor}).
 */
export function movementPage(read: WindowRows<ListedMovement>, rows: number, next: string | null): MovementPage {
  return {
    movements: read.listed.map((entry) => entry.value),
    next,
    rows,
    ...(read.skipped.length > 0 ? { skipped: read.skipped } : {}),
    ...(read.outsideWindow > 0 ? { outsideWindow: read.outsideWindow } : {}),
  };
}

/** {@link readWindowRows} then {@link movementPage}: the page of one list answer's rows. */
export function movementPageOf(
  window: ListWindow,
  rows: readonly unknown[],
  read: (raw: unknown) => RowRead<ListedMovement>,
  next: string | null,
): MovementPage {
  return movementPage(readWindowRows(window, rows, read), rows.length, next);
}

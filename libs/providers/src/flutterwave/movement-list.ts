import { z } from 'zod';
import { listAnswerError, listedInstant, listJson, malformedList, rowIdentity } from '../shared/list.js';
import type { ListedMovement, MovementPage } from '../shared/movement-list.port.js';
import { movementKindOf, movementPage, nextMovementCursor, type MovementListName, type RowRead, type WindowRows } from '../shared/movement-list.js';
import type { ListWindow, SkippedRow } from '../shared/transaction-list.port.js';
import { flutterwaveListDates } from './list.js';

/**
 * Flutterwave's refund and chargeback lists by creation date (docs/provider-facts.md, "Refunds,
 * reversals and disputes", Flutterwave, "Lists by time"): `GET /v3/refunds?from=YYYY-MM-DD&to=YYYY-MM-DD&page=<n>`
 * and `GET /v3/chargebacks?from=&to=&page=`, answered `{ status: "success", message, meta: {
 * page_info: { total, current_page, total_pages } }, data }`, newest first, pages of Flutterwave's
 * size. As the transaction list, `from` and `to` are whole dates: the dates covering the window are
 * asked and the rows are filtered to it by `created_at`. A chargeback names its payment at `tx_ref`;
 * a refund only by the transaction's numeric id (`transaction_id`, `tx_id`), so the adapter reads
 * that transaction's `tx_ref` with the verify-by-id call before it can name the payment. Pure.
 */

const LABEL = 'Flutterwave';

/** The call's path per list. */
const PATHS: Readonly<Record<MovementListName, string>> = { refunds: '/v3/refunds', disputes: '/v3/chargebacks' };

const listAnswer = z.object({
  status: z.literal('success'),
  data: z.array(z.unknown()),
  meta: z.object({
    page_info: z.object({ current_page: z.coerce.number().int().positive(), total_pages: z.coerce.number().int().nonnegative() }).loose(),
  }),
});

const numericId = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]);

const row = z
  .object({
    id: z.union([z.number().int(), z.string().min(1)]),
    created_at: z.string(),
    tx_ref: z.string().nullish(),
    transaction_id: numericId.nullish(),
    tx_id: numericId.nullish(),
  })
  .loose();

/** A refund or chargeback of a list as read, before its payment is named: its `tx_ref` when the row has one, else the transaction's id to look it up by. */
export interface FlutterwaveListedRow {
  readonly id: string;
  readonly createdAtMs: number;
  /** The payment's `tx_ref` when the row gives it (a chargeback), else `null`. */
  readonly txRef: string | null;
  /** Flutterwave's numeric id of the transaction (`transaction_id`, else `tx_id`), as text; `null` when the row gives none. */
  readonly transactionId: string | null;
}

/** What a look-up of a transaction's `tx_ref` by its id found: the `tx_ref`, or why there is none. */
export type FlutterwaveTxRefLookup = string | { readonly reason: string };

/** The answer's rows and the provider's next page number (`null` on the last page). */
export interface FlutterwaveMovementAnswer {
  readonly data: readonly unknown[];
  readonly next: string | null;
}

/**
 * Path and query of one page of Flutterwave's refund or chargeback list for a window: the UTC
 * dates covering it (`flutterwaveListDates`, as the transaction list; the zone Flutterwave reads
 * them in is (unconfirmed)) and the page.
 *
 * @param page - from 1.
 */
export function flutterwaveMovementListPath(list: MovementListName, window: ListWindow, page: number): string {
  const { from, to } = flutterwaveListDates(window);
  return `${PATHS[list]}?${new URLSearchParams({ from, to, page: String(page) }).toString()}`;
}

/**
 * The rows and next page number of one answer of Flutterwave's refund or chargeback list. Pure.
 *
 * @throws ProviderCallError for an answer other than 200 (`listAnswerError`), or
 *   `PROVIDER.MALFORMED_RESPONSE` for a 200 whose envelope (`status`, `data`, `meta.page_info`) cannot be read.
 */
export function flutterwaveMovementListAnswer(status: number, body: string): FlutterwaveMovementAnswer {
  if (status !== 200) throw listAnswerError(status, LABEL);
  const parsed = listAnswer.safeParse(listJson(body, LABEL));
  if (!parsed.success) throw malformedList(LABEL, 'no status success, data array or meta.page_info');
  const { current_page: page, total_pages: totalPages } = parsed.data.meta.page_info;
  return { data: parsed.data.data, next: page < totalPages ? String(page + 1) : null };
}

/**
 * One Flutterwave refund or chargeback of a list, read: its `id`, `created_at`, `tx_ref` when
 * given, and the transaction's numeric id (`transaction_id`, else `tx_id`). A row with neither a
 * `tx_ref` nor a transaction id names no payment and is skipped with that reason. Pure.
 */
export function flutterwaveListedRow(raw: unknown): RowRead<FlutterwaveListedRow> {
  const identity = rowIdentity(raw, 'id', 'tx_ref');
  const parsed = row.safeParse(raw);
  const createdAtMs = parsed.success ? listedInstant(parsed.data.created_at) : null;
  if (!parsed.success || createdAtMs === null) return { kind: 'skipped', row: { ...identity, reason: 'the row lacks an id or a readable created_at' } };
  const data = parsed.data;
  const txRef = data.tx_ref?.trim() ? data.tx_ref : null;
  const transaction = data.transaction_id ?? data.tx_id;
  const transactionId = transaction === undefined || transaction === null ? null : String(transaction);
  if (txRef === null && transactionId === null) return { kind: 'skipped', row: { ...identity, reason: 'the row names no tx_ref and no transaction id' } };
  return { kind: 'listed', value: { id: String(data.id), createdAtMs, txRef, transactionId } };
}

/** The distinct transaction ids whose `tx_ref` must be looked up: those of the rows in the window that give no `tx_ref`, first seen first. */
export function flutterwaveTransactionsToName(read: WindowRows<FlutterwaveListedRow>): string[] {
  return [...new Set(read.listed.flatMap(({ value }) => (value.txRef === null && value.transactionId !== null ? [value.transactionId] : [])))];
}

/**
 * The movement page of one answer's rows once the transactions they name by id were looked up:
 * each row in the window named by its `tx_ref`, or by the `tx_ref` its transaction's look-up
 * found; a row whose look-up found none is skipped with why. `next` is the same list's next page,
 * else the first page of chargebacks after refunds, else `null`. Pure.
 *
 * @param rows - how many rows the answer held.
 * @param next - the provider's next page number of this list (`null` on its last page).
 * @param txRefs - transaction id to its look-up, for the ids {@link flutterwaveTransactionsToName} gave.
 */
export function flutterwaveMovementPage(
  list: MovementListName,
  read: WindowRows<FlutterwaveListedRow>,
  rows: number,
  next: string | null,
  txRefs: ReadonlyMap<string, FlutterwaveTxRefLookup>,
): MovementPage {
  const kind = movementKindOf(list);
  const listed: Array<{ index: number; value: ListedMovement }> = [];
  const skipped: SkippedRow[] = [...read.skipped];
  for (const { index, value } of read.listed) {
    const found = value.txRef ?? txRefs.get(value.transactionId ?? '') ?? { reason: 'its transaction was not looked up' };
    if (typeof found === 'string') listed.push({ index, value: { kind, id: value.id, reference: found, createdAtMs: value.createdAtMs } });
    else skipped.push({ index, id: value.id, reason: `its transaction ${value.transactionId ?? ''} gives no tx_ref: ${found.reason}` });
  }
  skipped.sort((a, b) => a.index - b.index);
  return movementPage({ listed, skipped, outsideWindow: read.outsideWindow }, rows, nextMovementCursor(list, next));
}

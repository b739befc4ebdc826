import { z } from 'zod';
import { assertListWindow, listAnswerError, listedInstant, listJson, malformedList, rowIdentity } from '../shared/list.js';
import type { ListedMovement, MovementPage } from '../shared/movement-list.port.js';
import { movementKindOf, movementPageOf, nextMovementCursor, type MovementListName, type RowRead } from '../shared/movement-list.js';
import type { ListWindow } from '../shared/transaction-list.port.js';

/**
 * Paystack's refund and dispute lists by creation time (docs/provider-facts.md, "Refunds,
 * reversals and disputes", Paystack, "Lists by time"): `GET /refund?from=<ISO>&to=<ISO>&perPage=<n>&page=<n>`
 * and `GET /dispute?from=&to=&perPage=&page=`, answered `{ status: true, message, data, meta: {
 * total, skipped, perPage, page, pageCount } }` as the transaction list. A refund row names its
 * payment at `transaction_reference` (its `transaction` is Paystack's numeric transaction id); a
 * dispute row at `transaction.reference` (its `transaction_reference` is `null` in the samples).
 * Pure.
 */

/** Rows asked for per page (`perPage`; Paystack's default is 50), as the transaction list's. */
export const PAYSTACK_MOVEMENT_LIST_PAGE_SIZE = 100;

const LABEL = 'Paystack';

/** The call's path per list. */
const PATHS: Readonly<Record<MovementListName, string>> = { refunds: '/refund', disputes: '/dispute' };

const listAnswer = z.object({
  status: z.literal(true),
  data: z.array(z.unknown()),
  meta: z
    .object({
      page: z.coerce.number().int().positive(),
      pageCount: z.coerce.number().int().nonnegative(),
    })
    .loose(),
});

const row = z
  .object({
    id: z.union([z.number().int(), z.string().min(1)]),
    transaction: z.unknown().optional(),
    transaction_reference: z.string().nullish(),
  })
  .loose();

/**
 * Path and query of one page of Paystack's refund or dispute list for a window: `from` and `to`
 * the window's instants in ISO 8601 (whether `to` includes that very instant is not documented:
 * rows are filtered to the window after the call), `perPage` and `page`.
 *
 * @param page - from 1.
 * @param perPage - rows per page, {@link PAYSTACK_MOVEMENT_LIST_PAGE_SIZE} by default.
 */
export function paystackMovementListPath(list: MovementListName, window: ListWindow, page: number, perPage: number = PAYSTACK_MOVEMENT_LIST_PAGE_SIZE): string {
  assertListWindow(window);
  const query = new URLSearchParams({
    from: new Date(window.fromMs).toISOString(),
    to: new Date(window.untilMs).toISOString(),
    perPage: String(perPage),
    page: String(page),
  });
  return `${PATHS[list]}?${query.toString()}`;
}

/** The transaction reference a row names: `transaction.reference` when the transaction is an object, else `transaction_reference`. */
function referenceOf(transaction: unknown, transactionReference: string | null | undefined): string | null {
  const nested = typeof transaction === 'object' && transaction !== null ? (transaction as { reference?: unknown }).reference : undefined;
  if (typeof nested === 'string' && nested.trim() !== '') return nested;
  return transactionReference?.trim() ? transactionReference : null;
}

/**
 * One Paystack refund or dispute of a list read as the payment it names, or why it cannot be: its
 * `id` (as text), the reference `transaction.reference` (a dispute's expanded transaction) else
 * `transaction_reference` (a refund's), created `createdAt` (the list samples' spelling) else
 * `created_at`. A row naming the transaction by its numeric id only is skipped with that reason.
 * Pure.
 */
export function paystackListedMovement(kind: ListedMovement['kind'], raw: unknown): RowRead<ListedMovement> {
  const identity = rowIdentity(raw, 'id', 'transaction_reference');
  const parsed = row.safeParse(raw);
  const createdAtMs = listedInstant((raw as { createdAt?: unknown } | null)?.createdAt ?? (raw as { created_at?: unknown } | null)?.created_at);
  if (!parsed.success || createdAtMs === null) {
    return { kind: 'skipped', row: { ...identity, reason: `the ${kind} lacks an id or a readable creation time (createdAt)` } };
  }
  const reference = referenceOf(parsed.data.transaction, parsed.data.transaction_reference);
  if (reference === null) return { kind: 'skipped', row: { ...identity, reason: `the ${kind} names no transaction reference` } };
  return { kind: 'listed', value: { kind, id: String(parsed.data.id), reference, createdAtMs } };
}

/**
 * Maps one answer of Paystack's refund or dispute list to a movement page. Pure, for unit tests.
 *
 * - 200 `{ status: true, data, meta }`: each row as {@link paystackListedMovement} reads it; rows
 *   outside the window counted in `outsideWindow`. `next` is the same list's next page while
 *   `meta.page < meta.pageCount`, else the first page of disputes after refunds, else `null`.
 * - 401/403: `PROVIDER.AUTH_REJECTED`; other answers as `listAnswerError` says.
 *
 * @throws ProviderCallError for an answer other than 200, or `PROVIDER.MALFORMED_RESPONSE` for a
 *   200 whose envelope (`status`, `data`, `meta.page`, `meta.pageCount`) cannot be read.
 */
export function paystackMovementListPage(list: MovementListName, status: number, body: string, window: ListWindow): MovementPage {
  if (status !== 200) throw listAnswerError(status, LABEL);
  const parsed = listAnswer.safeParse(listJson(body, LABEL));
  if (!parsed.success) throw malformedList(LABEL, 'no status true, data array or meta.page and meta.pageCount');
  const { data, meta } = parsed.data;
  const kind = movementKindOf(list);
  const next = meta.page < meta.pageCount ? String(meta.page + 1) : null;
  return movementPageOf(window, data, (raw) => paystackListedMovement(kind, raw), nextMovementCursor(list, next));
}

import { currencyCode } from '@settle/domain';
import { ProviderCallError } from './provider.port.js';
import type { ListedTransaction, ListWindow, SkippedRow, TransactionPage } from './transaction-list.port.js';

/**
 * What the list adapters share (docs/reconciliation.md, "Providers' lists"): reading a window,
 * a row's times, currency and metadata, the errors of a list answer, and the page a list of read
 * rows makes. Pure.
 */

/**
 * Checks a reconciliation window: two integer instants (milliseconds since the epoch), `fromMs`
 * strictly before `untilMs`.
 *
 * @throws RangeError for anything else: a programming error of the caller, never a provider's.
 */
export function assertListWindow(window: ListWindow): void {
  if (!Number.isSafeInteger(window.fromMs) || !Number.isSafeInteger(window.untilMs) || window.fromMs >= window.untilMs) {
    throw new RangeError(`A list window is two integer instants, from before until (got ${window.fromMs} to ${window.untilMs})`);
  }
}

/** Whether an instant (ms) is in the window: `fromMs` inclusive, `untilMs` exclusive. */
export function inListWindow(window: ListWindow, atMs: number): boolean {
  return atMs >= window.fromMs && atMs < window.untilMs;
}

/**
 * A list page's cursor when it is a page number (Paystack, Flutterwave): `null` is page 1, else
 * the decimal text a previous page's `next` carried.
 *
 * @throws ProviderCallError `PROVIDER.INVALID_CURSOR` (not retryable) for any other text: a cursor
 *   this adapter never wrote.
 */
export function pageNumberCursor(cursor: string | null): number {
  if (cursor === null) return 1;
  if (!/^[1-9]\d{0,8}$/.test(cursor)) throw new ProviderCallError('PROVIDER.INVALID_CURSOR', false, 'The list cursor is not a page number');
  return Number(cursor);
}

/**
 * An instant as a provider lists it (ISO 8601 text: Paystack's `created_at`, Flutterwave's
 * `created_at`), in milliseconds since the epoch; `null` for anything that is not a date with a
 * time zone (`Z` or an offset), so that a local time is never read in this machine's zone.
 */
export function listedInstant(value: unknown): number | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(value.trim())) return null;
  const ms = Date.parse(value.trim().replace(' ', 'T'));
  return Number.isFinite(ms) ? ms : null;
}

/** A provider's currency upper-cased as ISO 4217 (`ngn` to `NGN`), or `null` when it is not a three-letter code. */
export function listedCurrency(value: string): string | null {
  try {
    return currencyCode(value);
  } catch {
    return null;
  }
}

/** Keys read from Paystack's `metadata.custom_fields` entries (Paystack documentation, "Metadata"). */
interface CustomField {
  variable_name?: unknown;
  value?: unknown;
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * A provider's metadata as the flat string record reconciliation's scope rule reads
 * (`ListedTransaction.metadata`):
 * - an object's scalar values (text, numbers, booleans) by their key, as text (`1` gives `"1"`);
 * - nested objects and arrays as their JSON text, except Paystack's `custom_fields` array, whose
 *   entries `{ variable_name, value }` with a scalar value give `variable_name: value` (a key of
 *   the object itself wins over a custom field of the same name);
 * - `null` values are left out;
 * - a JSON text that holds an object (Paystack may list metadata as a string) is read as that
 *   object; anything else (`null`, `""`, `0`, an array, text that is no object) is no metadata.
 *
 * @returns the record, or `undefined` when there is no metadata or it has no key.
 */
export function flattenMetadata(value: unknown): Record<string, string> | undefined {
  let source = value;
  if (typeof source === 'string') {
    try {
      source = JSON.parse(source);
    } catch {
      return undefined;
    }
  }
  if (typeof source !== 'object' || source === null || Array.isArray(source)) return undefined;
  const flat: Record<string, string> = {};
  const fields = (source as { custom_fields?: unknown }).custom_fields;
  if (Array.isArray(fields)) {
    for (const field of fields as CustomField[]) {
      if (typeof field !== 'object' || field === null) continue;
      const name = typeof field.variable_name === 'string' ? field.variable_name : undefined;
      const text = scalarText(field.value);
      if (name && text !== undefined) flat[name] = text;
    }
  }
  for (const [key, entry] of Object.entries(source)) {
    if (entry === null || entry === undefined) continue;
    const text = scalarText(entry);
    if (text !== undefined) flat[key] = text;
    else if (key !== 'custom_fields') flat[key] = JSON.stringify(entry);
  }
  return Object.keys(flat).length > 0 ? flat : undefined;
}

/**
 * The error a list answer other than 200 is thrown as (after the shared HTTP layer has already
 * thrown 429, 502, 503 and 504 as retryable):
 * - 401, 403: `PROVIDER.AUTH_REJECTED`, not retryable (our key is wrong or lacks the permission);
 * - any other 5xx (a 500): `PROVIDER.UNEXPECTED_STATUS_<n>`, retryable (the provider failed; the
 *   call is retried like a 502, and a later run may succeed);
 * - any other status (a 400 for parameters it refused, a 404): `PROVIDER.UNEXPECTED_STATUS_<n>`,
 *   not retryable (the same request would be refused again).
 */
export function listAnswerError(status: number, label: string): ProviderCallError {
  if (status === 401 || status === 403) return new ProviderCallError('PROVIDER.AUTH_REJECTED', false, `${label} refused the credentials (${status})`);
  return new ProviderCallError(`PROVIDER.UNEXPECTED_STATUS_${status}`, status >= 500, `${label} answered ${status} to a list call`);
}

/** The error of a list answer that cannot be read (its envelope, not one row): not retryable. */
export function malformedList(label: string, why: string): ProviderCallError {
  return new ProviderCallError('PROVIDER.MALFORMED_RESPONSE', false, `${label}'s list answer cannot be read: ${why}`);
}

/** Parses a list answer's JSON body. @throws ProviderCallError `PROVIDER.MALFORMED_RESPONSE` */
export function listJson(body: string, label: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw malformedList(label, 'the body is not JSON');
  }
}

/** One row of a list answer as an adapter read it: a transaction, or why it was not listed. */
export type ReadRow = { kind: 'listed'; transaction: ListedTransaction } | { kind: 'skipped'; row: Omit<SkippedRow, 'index'> };

/**
 * The page a list answer's rows make: the rows read as transactions in the window, those
 * outside it counted (`outsideWindow`), those that could not be read kept with their reason
 * (`skipped`), every row counted in `rows`.
 *
 * @param rows - the answer's `data` array, as it came.
 * @param read - one row to a transaction or a reason (pure).
 */
export function listPageOf(
  window: ListWindow,
  rows: readonly unknown[],
  read: (row: unknown) => ReadRow,
  page: { next: string | null; totalPages?: number | undefined },
): TransactionPage {
  const transactions: ListedTransaction[] = [];
  const skipped: SkippedRow[] = [];
  let outsideWindow = 0;
  rows.forEach((raw, index) => {
    const row = read(raw);
    if (row.kind === 'skipped') skipped.push({ index, ...row.row });
    else if (inListWindow(window, row.transaction.createdAtMs)) transactions.push(row.transaction);
    else outsideWindow += 1;
  });
  return {
    transactions,
    next: page.next,
    ...(page.totalPages === undefined ? {} : { totalPages: page.totalPages }),
    rows: rows.length,
    ...(skipped.length > 0 ? { skipped } : {}),
    ...(outsideWindow > 0 ? { outsideWindow } : {}),
  };
}

/** A row's identifiers as text when it has them, for a skipped row's log line. */
export function rowIdentity(row: unknown, idKey: string, referenceKey: string): Pick<SkippedRow, 'id' | 'reference'> {
  if (typeof row !== 'object' || row === null) return {};
  const record = row as Record<string, unknown>;
  const id = scalarText(record[idKey]);
  const reference = scalarText(record[referenceKey]);
  return { ...(id === undefined ? {} : { id }), ...(reference === undefined ? {} : { reference }) };
}

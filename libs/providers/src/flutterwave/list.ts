import type { ProviderPaymentStatus } from '@settle/domain';
import type { CountryCode } from 'libphonenumber-js';
import { z } from 'zod';
import {
  assertListWindow,
  flattenMetadata,
  listAnswerError,
  listedCurrency,
  listedInstant,
  listJson,
  listPageOf,
  malformedList,
  pageNumberCursor,
  rowIdentity,
  type ReadRow,
} from '../shared/list.js';
import { AmountConversionError, majorToMinor, normalisePhoneNumber } from '../shared/normalise.js';
import type { ListWindow, TransactionPage } from '../shared/transaction-list.port.js';

/**
 * Flutterwave's transaction list (docs/provider-facts.md, Flutterwave, "Get transactions"):
 * `GET /v3/transactions?from=YYYY-MM-DD&to=YYYY-MM-DD&page=<n>`, answered `{ status: "success",
 * message, meta: { page_info: { total, current_page, total_pages } }, data: [transactions] }`,
 * newest first, 10 rows a page (the caller cannot choose). Its `from` and `to` are whole DATES:
 * the window is asked as the dates that cover it and the rows are filtered to it here, by
 * `created_at`.
 */

/** Rows per page of Flutterwave's list, as its documented answers show (158 transactions in 16 pages); not a parameter. */
export const FLUTTERWAVE_LIST_PAGE_SIZE = 10;

/**
 * Flutterwave `status` values in a list and their normalised status for reconciliation:
 * `successful` succeeded, `failed` failed, `pending` pending. Any other value is a row that
 * cannot be read (kept in the page's `skipped`, with its reason). A refund does not change a
 * transaction's status as far as its documented answers show (unconfirmed): refunds are found in
 * Flutterwave's refund list, not here.
 */
export const FLUTTERWAVE_LIST_STATUSES: Readonly<Record<string, ProviderPaymentStatus>> = {
  successful: 'succeeded',
  failed: 'failed',
  pending: 'pending',
};

const LABEL = 'Flutterwave';

const listAnswer = z.object({
  status: z.literal('success'),
  data: z.array(z.unknown()),
  meta: z.object({
    page_info: z
      .object({
        current_page: z.coerce.number().int().positive(),
        total_pages: z.coerce.number().int().nonnegative(),
        total: z.coerce.number().int().nonnegative().optional(),
      })
      .loose(),
  }),
});

const row = z
  .object({
    id: z.union([z.number().int(), z.string()]).nullish(),
    tx_ref: z.string().min(1),
    amount: z.union([z.number(), z.string()]),
    currency: z.string(),
    status: z.string(),
    created_at: z.string(),
    customer: z.object({ email: z.string().nullish(), phone_number: z.string().nullish() }).loose().nullish(),
    /** Older answers list the payer flat (Flutterwave's Node SDK sample). */
    customer_email: z.string().nullish(),
    meta: z.unknown().optional(),
  })
  .loose();

/** `YYYY-MM-DD` of an instant, in UTC. */
function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The dates Flutterwave's list is asked for, for a window: `from` the UTC date of `fromMs`, `to`
 * the UTC date of `untilMs` (inclusive; the date of the window's exclusive end, so that a window
 * ending at midnight still covers its last instants whatever Flutterwave's reading of `to`).
 * Flutterwave does not document the time zone it reads these dates in (unconfirmed): in UTC, or
 * in West Africa Time (UTC+1) for a window ending at a UTC midnight, these dates cover the window;
 * the rows are filtered to the window by `created_at` afterwards in every case.
 */
export function flutterwaveListDates(window: ListWindow): { from: string; to: string } {
  assertListWindow(window);
  return { from: utcDate(window.fromMs), to: utcDate(window.untilMs) };
}

/**
 * Path and query of one page of Flutterwave's list for a window: the covering dates of
 * {@link flutterwaveListDates} and the page, no `status` (every status is wanted).
 *
 * @param page - from 1.
 */
export function flutterwaveListPath(window: ListWindow, page: number): string {
  const { from, to } = flutterwaveListDates(window);
  return `/v3/transactions?${new URLSearchParams({ from, to, page: String(page) }).toString()}`;
}

/** Options of {@link flutterwaveListPage}. */
export interface FlutterwaveListOptions {
  /** Region for national phone numbers (`NG`), as verification reads them. */
  phoneRegion?: CountryCode | undefined;
}

/** One row of Flutterwave's list read as a transaction, or why it cannot be (pure). */
export function flutterwaveListRow(raw: unknown, options: FlutterwaveListOptions = {}): ReadRow {
  const identity = rowIdentity(raw, 'id', 'tx_ref');
  const parsed = row.safeParse(raw);
  if (!parsed.success)
    return { kind: 'skipped', row: { ...identity, reason: 'the row lacks a tx_ref, amount, currency, status or created_at of the documented types' } };
  const data = parsed.data;
  const status = FLUTTERWAVE_LIST_STATUSES[data.status];
  if (status === undefined) return { kind: 'skipped', row: { ...identity, reason: `unknown status "${data.status.slice(0, 40)}"` } };
  const currency = listedCurrency(data.currency);
  if (currency === null) return { kind: 'skipped', row: { ...identity, reason: 'the currency is not an ISO 4217 code' } };
  let amountMinor: number;
  try {
    amountMinor = majorToMinor(data.amount, currency);
  } catch (error) {
    if (error instanceof AmountConversionError) return { kind: 'skipped', row: { ...identity, reason: `${error.code}: ${error.message}` } };
    throw error;
  }
  const createdAtMs = listedInstant(data.created_at);
  if (createdAtMs === null) return { kind: 'skipped', row: { ...identity, reason: 'no readable creation time (created_at)' } };
  const rawPhone = data.customer?.phone_number?.trim();
  const phone = rawPhone && rawPhone.toUpperCase() !== 'N/A' ? normalisePhoneNumber(rawPhone, options.phoneRegion) : undefined;
  const email = (data.customer?.email ?? data.customer_email ?? undefined)?.trim() || undefined;
  const metadata = flattenMetadata(data.meta);
  return {
    kind: 'listed',
    transaction: {
      provider: 'flutterwave',
      reference: data.tx_ref,
      providerTransactionId: data.id === undefined || data.id === null ? undefined : String(data.id),
      status,
      providerStatus: data.status,
      amountMinor,
      currency,
      customer: { email, phone },
      ...(metadata ? { metadata } : {}),
      createdAtMs,
      paidAtMs: null,
    },
  };
}

/**
 * Maps one answer of Flutterwave's list to a page. Pure, for unit tests. Source of every rule:
 * docs/provider-facts.md, Flutterwave.
 *
 * - 200 `{ status: "success", data, meta.page_info }`: each row as {@link flutterwaveListRow}
 *   reads it: reference `tx_ref`, provider id `id`, status by {@link FLUTTERWAVE_LIST_STATUSES},
 *   `amount` in MAJOR units converted exactly to minor units with the currency's ISO 4217
 *   exponent (`majorToMinor`, as verification: NGN 100.5 is 10050, JPY 1500 is 1500, KWD 1.234
 *   is 1234; more decimals than the exponent allows is a row that cannot be read, never
 *   rounded), customer `customer.email` (or the older flat `customer_email`) and
 *   `customer.phone_number` (E.164 when it parses; `N/A` is no phone), metadata `meta`
 *   flattened, created `created_at`, no paid time. Rows outside the window (the dates asked
 *   cover more) are counted in `outsideWindow`, not listed. `next` is the next page number while
 *   `current_page < total_pages`, else `null`; `totalPages` is `total_pages`.
 * - 401/403: `PROVIDER.AUTH_REJECTED`; other answers as `listAnswerError` says.
 *
 * @throws ProviderCallError for an answer other than 200, or `PROVIDER.MALFORMED_RESPONSE` for
 *   a 200 whose envelope (`status`, `data`, `meta.page_info`) cannot be read.
 */
export function flutterwaveListPage(status: number, body: string, window: ListWindow, options: FlutterwaveListOptions = {}): TransactionPage {
  if (status !== 200) throw listAnswerError(status, LABEL);
  const parsed = listAnswer.safeParse(listJson(body, LABEL));
  if (!parsed.success) throw malformedList(LABEL, 'no status success, data array or meta.page_info');
  const { data, meta } = parsed.data;
  const { current_page: page, total_pages: totalPages } = meta.page_info;
  return listPageOf(window, data, (raw) => flutterwaveListRow(raw, options), { next: page < totalPages ? String(page + 1) : null, totalPages });
}

/** The page a Flutterwave cursor names (a page number; `null` is the first). @throws ProviderCallError `PROVIDER.INVALID_CURSOR` */
export function flutterwaveListCursor(cursor: string | null): number {
  return pageNumberCursor(cursor);
}

import type { ProviderPaymentStatus } from '@settle/domain';
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
import type { ListWindow, TransactionPage } from '../shared/transaction-list.port.js';

/**
 * Paystack's transaction list (docs/provider-facts.md, Paystack, "List transactions"):
 * `GET /transaction?from=<ISO>&to=<ISO>&perPage=<n>&page=<n>`, answered
 * `{ status: true, message, data: [transactions, as verify's data], meta: { total, skipped,
 * perPage, page, pageCount } }`, newest first.
 */

/** Rows asked for per page (`perPage`). Paystack's default is 50; 100 is the usual ceiling of its lists (unconfirmed as a documented maximum). */
export const PAYSTACK_LIST_PAGE_SIZE = 100;

/**
 * Paystack `status` values in a list and their normalised status for reconciliation (the domain's
 * `ProviderPaymentStatus`). `abandoned` (initialised, the customer never finished) is `failed`
 * here although verification holds it as clearing: reconciliation reads a past window, where a
 * payment still abandoned was not made; should the customer complete it later, the next run (or
 * its webhook and verification) sees `success`. A `failed` or `pending` provider status is never
 * an exception unless Settle settled the reference (docs/reconciliation.md, "Classes").
 */
export const PAYSTACK_LIST_STATUSES: Readonly<Record<string, ProviderPaymentStatus>> = {
  success: 'succeeded',
  failed: 'failed',
  abandoned: 'failed',
  reversed: 'reversed',
  ongoing: 'pending',
  pending: 'pending',
  processing: 'pending',
  queued: 'pending',
};

const LABEL = 'Paystack';

const listAnswer = z.object({
  status: z.literal(true),
  data: z.array(z.unknown()),
  meta: z
    .object({
      page: z.coerce.number().int().positive(),
      pageCount: z.coerce.number().int().nonnegative(),
      total: z.coerce.number().int().nonnegative().optional(),
      perPage: z.coerce.number().int().positive().optional(),
    })
    .loose(),
});

const row = z
  .object({
    id: z.union([z.number(), z.string()]).nullish(),
    reference: z.string().min(1),
    status: z.string(),
    amount: z.number().int().nonnegative(),
    requested_amount: z.number().int().nonnegative().nullish(),
    currency: z.string(),
    created_at: z.string().nullish(),
    createdAt: z.string().nullish(),
    paid_at: z.string().nullish(),
    paidAt: z.string().nullish(),
    customer: z.object({ email: z.string().nullish(), phone: z.string().nullish() }).loose().nullish(),
    metadata: z.unknown().optional(),
  })
  .loose();

/**
 * Path and query of one page of Paystack's list for a window: `from` and `to` as ISO 8601
 * instants (`to` is the window's exclusive end: whether Paystack includes a transaction at that
 * very millisecond is not documented, so rows are filtered to the window after the call), no
 * `status` (every status is wanted).
 *
 * @param page - from 1.
 * @param perPage - rows per page, {@link PAYSTACK_LIST_PAGE_SIZE} by default.
 */
export function paystackListPath(window: ListWindow, page: number, perPage: number = PAYSTACK_LIST_PAGE_SIZE): string {
  assertListWindow(window);
  const query = new URLSearchParams({
    from: new Date(window.fromMs).toISOString(),
    to: new Date(window.untilMs).toISOString(),
    perPage: String(perPage),
    page: String(page),
  });
  return `/transaction?${query.toString()}`;
}

function trimmed(value: string | null | undefined): string | undefined {
  const text = value?.trim();
  return text ? text : undefined;
}

/** One row of Paystack's list read as a transaction, or why it cannot be (pure). */
export function paystackListRow(raw: unknown): ReadRow {
  const identity = rowIdentity(raw, 'id', 'reference');
  const parsed = row.safeParse(raw);
  if (!parsed.success)
    return { kind: 'skipped', row: { ...identity, reason: 'the row lacks a reference, status, amount or currency of the documented types' } };
  const data = parsed.data;
  const status = PAYSTACK_LIST_STATUSES[data.status];
  if (status === undefined) return { kind: 'skipped', row: { ...identity, reason: `unknown status "${data.status.slice(0, 40)}"` } };
  const currency = listedCurrency(data.currency);
  if (currency === null) return { kind: 'skipped', row: { ...identity, reason: 'the currency is not an ISO 4217 code' } };
  const createdAtMs = listedInstant(data.created_at ?? data.createdAt);
  if (createdAtMs === null) return { kind: 'skipped', row: { ...identity, reason: 'no readable creation time (created_at)' } };
  const metadata = flattenMetadata(data.metadata);
  return {
    kind: 'listed',
    transaction: {
      provider: 'paystack',
      reference: data.reference,
      providerTransactionId: data.id === undefined || data.id === null ? undefined : String(data.id),
      status,
      providerStatus: data.status,
      amountMinor: data.requested_amount ?? data.amount,
      currency,
      customer: { email: trimmed(data.customer?.email), phone: trimmed(data.customer?.phone) },
      ...(metadata ? { metadata } : {}),
      createdAtMs,
      paidAtMs: status === 'succeeded' || status === 'reversed' ? listedInstant(data.paid_at ?? data.paidAt) : null,
    },
  };
}

/**
 * Maps one answer of Paystack's list to a page. Pure, for unit tests. Source of every rule:
 * docs/provider-facts.md, Paystack.
 *
 * - 200 `{ status: true, data, meta }`: each row as {@link paystackListRow} reads it: reference
 *   `reference`, amount in minor units `requested_amount` when present, else `amount` (as
 *   verification's amount check), currency upper-cased, status by
 *   {@link PAYSTACK_LIST_STATUSES}, customer `customer.email` and `customer.phone`, metadata
 *   flattened (`metadata`, its `custom_fields` too), created `created_at`, paid `paid_at`. Rows
 *   outside the window are counted, not listed; rows that cannot be read are kept in `skipped`.
 *   `next` is the next page number while `meta.page < meta.pageCount`, else `null`;
 *   `totalPages` is `meta.pageCount`.
 * - 401/403: `PROVIDER.AUTH_REJECTED`; other answers as `listAnswerError` says.
 *
 * @param status - HTTP status of the answer (429, 502, 503, 504 never reach here: the HTTP layer throws them).
 * @param body - the answer's body text (JSON).
 * @throws ProviderCallError for an answer other than 200, or `PROVIDER.MALFORMED_RESPONSE`
 *   (not retryable) for a 200 whose envelope (`status`, `data`, `meta.page`, `meta.pageCount`)
 *   cannot be read.
 */
export function paystackListPage(status: number, body: string, window: ListWindow): TransactionPage {
  if (status !== 200) throw listAnswerError(status, LABEL);
  const parsed = listAnswer.safeParse(listJson(body, LABEL));
  if (!parsed.success) throw malformedList(LABEL, 'no status true, data array or meta.page and meta.pageCount');
  const { data, meta } = parsed.data;
  return listPageOf(window, data, paystackListRow, { next: meta.page < meta.pageCount ? String(meta.page + 1) : null, totalPages: meta.pageCount });
}

/** The page a Paystack cursor names (a page number; `null` is the first). @throws ProviderCallError `PROVIDER.INVALID_CURSOR` */
export function paystackListCursor(cursor: string | null): number {
  return pageNumberCursor(cursor);
}

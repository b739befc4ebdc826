import type { ProviderPaymentStatus } from '@settle/domain';
import { z } from 'zod';
import {
  assertListWindow,
  flattenMetadata,
  listAnswerError,
  listedCurrency,
  listJson,
  listPageOf,
  malformedList,
  rowIdentity,
  type ReadRow,
} from '../shared/list.js';
import { ProviderCallError } from '../shared/provider.port.js';
import type { ListWindow, TransactionPage } from '../shared/transaction-list.port.js';

/**
 * Stripe's PaymentIntent list (docs/provider-facts.md, Stripe, "List all PaymentIntents"):
 * `GET /v1/payment_intents?created[gte]=<unix s>&created[lt]=<unix s>&limit=<1..100>&starting_after=<pi id>`,
 * answered `{ object: "list", data: [PaymentIntents], has_more, url }`, newest first; the next
 * page starts after the last id of this one.
 */

/** Rows asked for per page (`limit`): Stripe's maximum (its default is 10). */
export const STRIPE_LIST_PAGE_SIZE = 100;

/**
 * Stripe PaymentIntent `status` values and their normalised status for reconciliation. There is
 * no failed status: an intent left in `requires_payment_method` (declined, with
 * `last_payment_error`, or never attempted) or `canceled` was not paid. The open states (`processing`,
 * `requires_action`, `requires_confirmation`, `requires_capture`) are pending. A refunded or
 * disputed intent stays `succeeded`: refunds and disputes are in Stripe's own lists, not here
 * (docs/reconciliation.md, "Classes").
 */
export const STRIPE_LIST_STATUSES: Readonly<Record<string, ProviderPaymentStatus>> = {
  succeeded: 'succeeded',
  processing: 'pending',
  requires_action: 'pending',
  requires_confirmation: 'pending',
  requires_capture: 'pending',
  requires_payment_method: 'failed',
  canceled: 'failed',
};

const LABEL = 'Stripe';

const listAnswer = z.object({
  object: z.literal('list'),
  data: z.array(z.unknown()),
  has_more: z.boolean(),
});

const minorAmount = z.number().int().nonnegative();

const row = z
  .object({
    id: z.string().min(1),
    status: z.string(),
    amount: minorAmount,
    amount_received: minorAmount.nullish(),
    currency: z.string(),
    created: z.number().int().nonnegative(),
    receipt_email: z.string().nullish(),
    latest_charge: z.union([z.string(), z.object({ billing_details: z.object({ email: z.string().nullish() }).loose().nullish() }).loose()]).nullish(),
    metadata: z.unknown().optional(),
  })
  .loose();

/** A cursor this adapter wrote: a Stripe object id (`pi_...`, `re_...`, `dp_...`). */
export const STRIPE_OBJECT_ID = /^[A-Za-z0-9_]{1,255}$/;

/**
 * Path and query of one page of Stripe's list for a window. Stripe's `created` is whole Unix
 * seconds, so the window is asked as `created[gte] = ceil(fromMs / 1000)` and
 * `created[lt] = ceil(untilMs / 1000)`: exactly the intents whose `created` (seconds, times
 * 1000) is in [fromMs, untilMs), so that adjacent windows never share or lose an intent. The
 * latest charge is expanded (`expand[]=data.latest_charge`), as verification expands it, for the
 * payer's billing e-mail when `receipt_email` is not set.
 *
 * @param startingAfter - the last intent id of the previous page; `null` for the first.
 * @param limit - rows per page, {@link STRIPE_LIST_PAGE_SIZE} by default.
 * @throws ProviderCallError `PROVIDER.INVALID_CURSOR` for a cursor that is no object id.
 */
export function stripeListPath(window: ListWindow, startingAfter: string | null, limit: number = STRIPE_LIST_PAGE_SIZE): string {
  assertListWindow(window);
  if (startingAfter !== null && !STRIPE_OBJECT_ID.test(startingAfter)) {
    throw new ProviderCallError('PROVIDER.INVALID_CURSOR', false, 'The list cursor is not a Stripe object id');
  }
  const query = new URLSearchParams({
    'created[gte]': String(Math.ceil(window.fromMs / 1000)),
    'created[lt]': String(Math.ceil(window.untilMs / 1000)),
    limit: String(limit),
    'expand[]': 'data.latest_charge',
  });
  if (startingAfter !== null) query.set('starting_after', startingAfter);
  return `/v1/payment_intents?${query.toString()}`;
}

/** One PaymentIntent of Stripe's list read as a transaction, or why it cannot be (pure). */
export function stripeListRow(raw: unknown): ReadRow {
  const identity = rowIdentity(raw, 'id', 'id');
  const parsed = row.safeParse(raw);
  if (!parsed.success)
    return { kind: 'skipped', row: { ...identity, reason: 'the intent lacks an id, status, amount, currency or created of the documented types' } };
  const intent = parsed.data;
  const status = STRIPE_LIST_STATUSES[intent.status];
  if (status === undefined) return { kind: 'skipped', row: { ...identity, reason: `unknown status "${intent.status.slice(0, 40)}"` } };
  const currency = listedCurrency(intent.currency);
  if (currency === null) return { kind: 'skipped', row: { ...identity, reason: 'the currency is not an ISO 4217 code' } };
  let amountMinor = intent.amount;
  if (status === 'succeeded') {
    if (intent.amount_received === undefined || intent.amount_received === null) {
      return { kind: 'skipped', row: { ...identity, reason: 'a succeeded intent without amount_received' } };
    }
    amountMinor = intent.amount_received;
  }
  const charge = typeof intent.latest_charge === 'object' && intent.latest_charge !== null ? intent.latest_charge : undefined;
  const email = (intent.receipt_email ?? charge?.billing_details?.email ?? undefined)?.trim() || undefined;
  const metadata = flattenMetadata(intent.metadata);
  return {
    kind: 'listed',
    transaction: {
      provider: 'stripe',
      reference: intent.id,
      providerTransactionId: intent.id,
      status,
      providerStatus: intent.status,
      amountMinor,
      currency,
      customer: { email, phone: undefined },
      ...(metadata ? { metadata } : {}),
      createdAtMs: intent.created * 1000,
      paidAtMs: null,
    },
  };
}

/**
 * Maps one answer of Stripe's PaymentIntent list to a page. Pure, for unit tests. Source of
 * every rule: docs/provider-facts.md, Stripe.
 *
 * - 200 `{ object: "list", data, has_more }`: each intent as {@link stripeListRow} reads it:
 *   reference and provider id the intent id (`pi_...`, how Settle knows a Stripe checkout),
 *   status by {@link STRIPE_LIST_STATUSES}, amount in minor units `amount_received` for a
 *   succeeded intent (what was paid, as verification's amount check) and `amount` (asked) for
 *   the others, currency upper-cased (`usd` to `USD`; Stripe's amounts are already in the
 *   currency's smallest unit, JPY 500 is 500), customer `receipt_email` else the expanded
 *   `latest_charge.billing_details.email` (no phone: free text typed by the payer), metadata as
 *   listed, created `created` (seconds) times 1000, no paid time (the intent has none).
 *   `next` is the last intent's id while `has_more`, else `null`; Stripe gives no page count.
 * - 401/403: `PROVIDER.AUTH_REJECTED`; other answers as `listAnswerError` says.
 *
 * @throws ProviderCallError for an answer other than 200, or `PROVIDER.MALFORMED_RESPONSE` for
 *   a 200 whose envelope cannot be read or that has more rows and no last id to continue from.
 */
export function stripeListPage(status: number, body: string, window: ListWindow): TransactionPage {
  if (status !== 200) throw listAnswerError(status, LABEL);
  const parsed = listAnswer.safeParse(listJson(body, LABEL));
  if (!parsed.success) throw malformedList(LABEL, 'no list object with data and has_more');
  const { data, has_more: hasMore } = parsed.data;
  return listPageOf(window, data, stripeListRow, { next: stripeStartingAfter(data, hasMore) });
}

/**
 * The `starting_after` of the page after one answer of a Stripe list (PaymentIntents, refunds,
 * disputes): the id of its last row while `has_more`, else `null`. Pure.
 *
 * @throws ProviderCallError `PROVIDER.MALFORMED_RESPONSE` for `has_more` with no last id to start
 *   after (an empty page, a last row without an id): the list could not be continued.
 */
export function stripeStartingAfter(data: readonly unknown[], hasMore: boolean): string | null {
  if (!hasMore) return null;
  const last = data.at(-1);
  const id = typeof last === 'object' && last !== null ? (last as { id?: unknown }).id : undefined;
  if (typeof id !== 'string' || !STRIPE_OBJECT_ID.test(id)) throw malformedList(LABEL, 'has_more without a last id to start after');
  return id;
}

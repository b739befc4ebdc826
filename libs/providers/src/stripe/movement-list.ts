import { z } from 'zod';
import { assertListWindow, listAnswerError, listJson, malformedList, rowIdentity } from '../shared/list.js';
import type { ListedMovement, MovementPage } from '../shared/movement-list.port.js';
import { movementKindOf, movementPageOf, nextMovementCursor, type MovementListName, type RowRead } from '../shared/movement-list.js';
import { ProviderCallError } from '../shared/provider.port.js';
import type { ListWindow } from '../shared/transaction-list.port.js';
import { STRIPE_OBJECT_ID, stripeStartingAfter } from './list.js';

/**
 * Stripe's refund and dispute lists by creation time (docs/provider-facts.md, "Refunds,
 * reversals and disputes", Stripe, "Lists by time"):
 * `GET /v1/refunds?created[gte]=<unix s>&created[lt]=<unix s>&limit=100&starting_after=<re_...>`
 * and the same on `/v1/disputes`, each answered `{ object: "list", data, has_more, url }`, newest
 * first, as the PaymentIntent list. Each object names its payment at `payment_intent` (the intent
 * id, or the intent itself when expanded; `null` for a charge made without one). Pure.
 */

/** Rows asked for per page (`limit`): Stripe's maximum. */
export const STRIPE_MOVEMENT_LIST_PAGE_SIZE = 100;

const LABEL = 'Stripe';

const listAnswer = z.object({ object: z.literal('list'), data: z.array(z.unknown()), has_more: z.boolean() });

const row = z
  .object({
    id: z.string().min(1),
    created: z.number().int().nonnegative(),
    payment_intent: z.union([z.string().min(1), z.object({ id: z.string().min(1) }).loose()]).nullish(),
  })
  .loose();

/**
 * Path and query of one page of Stripe's refund or dispute list for a window: `created[gte] =
 * ceil(fromMs / 1000)` and `created[lt] = ceil(untilMs / 1000)` (whole Unix seconds: exactly the
 * objects whose `created`, times 1000, is in [fromMs, untilMs), as `stripeListPath`), `limit`,
 * and `starting_after` the last id of the previous page.
 *
 * @param startingAfter - the last object id of the previous page of the same list; `null` for its first.
 * @param limit - rows per page, {@link STRIPE_MOVEMENT_LIST_PAGE_SIZE} by default.
 * @throws ProviderCallError `PROVIDER.INVALID_CURSOR` for a cursor that is no Stripe object id.
 */
export function stripeMovementListPath(
  list: MovementListName,
  window: ListWindow,
  startingAfter: string | null,
  limit: number = STRIPE_MOVEMENT_LIST_PAGE_SIZE,
): string {
  assertListWindow(window);
  if (startingAfter !== null && !STRIPE_OBJECT_ID.test(startingAfter)) {
    throw new ProviderCallError('PROVIDER.INVALID_CURSOR', false, 'The list cursor is not a Stripe object id');
  }
  const query = new URLSearchParams({
    'created[gte]': String(Math.ceil(window.fromMs / 1000)),
    'created[lt]': String(Math.ceil(window.untilMs / 1000)),
    limit: String(limit),
  });
  if (startingAfter !== null) query.set('starting_after', startingAfter);
  return `/v1/${list}?${query.toString()}`;
}

/**
 * One Stripe Refund or Dispute of a list read as the payment it names, or why it cannot be: its
 * `id`, `payment_intent` (an id, or the expanded intent's `id`) as the reference, `created`
 * (seconds) times 1000. One that names no PaymentIntent (a charge made without one, which no
 * Settle checkout is) is skipped with that reason. Pure.
 */
export function stripeListedMovement(kind: ListedMovement['kind'], raw: unknown): RowRead<ListedMovement> {
  const identity = rowIdentity(raw, 'id', 'payment_intent');
  const parsed = row.safeParse(raw);
  if (!parsed.success) return { kind: 'skipped', row: { ...identity, reason: `the ${kind} lacks an id, created or payment_intent of the documented types` } };
  const { id, created, payment_intent: intent } = parsed.data;
  if (intent === undefined || intent === null) {
    return { kind: 'skipped', row: { ...identity, reason: `the ${kind} names no PaymentIntent (a charge made without one is no Settle checkout)` } };
  }
  return { kind: 'listed', value: { kind, id, reference: typeof intent === 'string' ? intent : intent.id, createdAtMs: created * 1000 } };
}

/**
 * Maps one answer of Stripe's refund or dispute list to a movement page. Pure, for unit tests.
 *
 * - 200 `{ object: "list", data, has_more }`: each object as {@link stripeListedMovement} reads
 *   it; rows outside the window counted in `outsideWindow` (defensively: Stripe filters by
 *   `created`). `next` continues the same list after its last id while `has_more`, else moves on
 *   from refunds to disputes, else is `null` (`nextMovementCursor`).
 * - 401/403: `PROVIDER.AUTH_REJECTED`; other answers as `listAnswerError` says.
 *
 * @throws ProviderCallError for an answer other than 200, or `PROVIDER.MALFORMED_RESPONSE` for a
 *   200 whose envelope cannot be read or that has more rows and no last id to continue from.
 */
export function stripeMovementListPage(list: MovementListName, status: number, body: string, window: ListWindow): MovementPage {
  if (status !== 200) throw listAnswerError(status, LABEL);
  const parsed = listAnswer.safeParse(listJson(body, LABEL));
  if (!parsed.success) throw malformedList(LABEL, 'no list object with data and has_more');
  const { data, has_more: hasMore } = parsed.data;
  const kind = movementKindOf(list);
  return movementPageOf(window, data, (raw) => stripeListedMovement(kind, raw), nextMovementCursor(list, stripeStartingAfter(data, hasMore)));
}

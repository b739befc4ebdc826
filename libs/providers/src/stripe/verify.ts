import type { ProviderVerdict } from '@settle/domain';
import type Stripe from 'stripe';
import { z } from 'zod';
import { providerCurrency } from '../shared/normalise.js';
import { BearerGetProvider, type BearerProviderOptions } from '../shared/bearer-get.js';
import type { VerificationRequest } from '../shared/provider.port.js';
import type { ListWindow, TransactionPage } from '../shared/transaction-list.port.js';
import { STRIPE_LIST_PAGE_SIZE, stripeListPage, stripeListPath } from './list.js';
import type { PaymentMovements } from '../shared/movement.port.js';
import { stripeMovementRows, stripeMovements, stripeMovementsPath } from './movements.js';
import type { MovementPage } from '../shared/movement-list.port.js';
import { readMovementCursor } from '../shared/movement-list.js';
import { STRIPE_MOVEMENT_LIST_PAGE_SIZE, stripeMovementListPage, stripeMovementListPath } from './movement-list.js';

const minorAmount = z.number().int().nonnegative();

/**
 * Stripe's `GET /v1/payment_intents/:id` answer (docs/provider-facts.md, Stripe).
 * Only the fields the verdict needs are checked; the rest pass through.
 */
const paymentIntent = z
  .object({
    id: z.string().min(1),
    object: z.literal('payment_intent').optional(),
    status: z.string(),
    amount: minorAmount,
    amount_received: minorAmount.nullish(),
    currency: z.string(),
    receipt_email: z.string().nullish(),
    cancellation_reason: z.string().nullish(),
    last_payment_error: z
      .object({
        type: z.string().nullish(),
        code: z.string().nullish(),
        decline_code: z.string().nullish(),
        message: z.string().nullish(),
      })
      .loose()
      .nullish(),
    /** A charge id (`ch_...`), or the charge itself when expanded (`expand[]=latest_charge`). */
    latest_charge: z
      .union([
        z.string(),
        z
          .object({
            billing_details: z.object({ email: z.string().nullish() }).loose().nullish(),
          })
          .loose(),
      ])
      .nullish(),
  })
  .loose();

/** Stripe's error envelope: `{ error: { type, code, message, ... } }`. */
const stripeError = z.object({
  error: z.object({ type: z.string().nullish(), code: z.string().nullish(), message: z.string().nullish() }).loose(),
});

/**
 * Stripe PaymentIntent `status` values and their verdict kind (docs/provider-facts.md, Stripe).
 * `requires_payment_method` is resolved by {@link stripeVerdict} itself: with a
 * `last_payment_error` it is a decline, without one the intent is still open.
 */
const STATUS_MAP: Record<string, 'cleared' | 'declined' | 'clearing'> = {
  succeeded: 'cleared',
  // Funds still clearing (bank debits, some wallets).
  processing: 'clearing',
  // Created but not yet confirmed, or waiting for the customer (3-D Secure, redirect): the
  // payment is not over and may still succeed; the recovery schedule bounds the wait.
  requires_confirmation: 'clearing',
  requires_action: 'clearing',
  // Authorised, funds held, not captured: not cleared (a capture may still fail or the hold
  // be released), not failed either; it becomes `succeeded` once captured.
  requires_capture: 'clearing',
  canceled: 'declined',
};

/**
 * Maps one Stripe `GET /v1/payment_intents/:id` answer to a verdict. Pure, for unit tests.
 * Source of every rule: docs/provider-facts.md, Stripe (Stripe PaymentIntents).
 *
 * - 200 `succeeded`: `cleared`. The amount check uses `amount_received` (what was actually
 *   paid, minor units; it is below `amount` after a partial capture); `amount` (what the
 *   intent asked for, minor units) is recorded as `requestedAmountMinor` for audit. Currency lower case to upper (`usd` to `USD`).
 *   Customer email: `receipt_email`, else `latest_charge.billing_details.email` when the
 *   charge is expanded (the adapter asks for `expand[]=latest_charge`). No phone is taken:
 *   Stripe's billing phone is free text typed by the payer. Reference and
 *   `providerTransactionId`: the intent id (`pi_...`).
 * - 200 `processing`: `clearing`.
 * - 200 `requires_payment_method` with `last_payment_error`: `declined` (Stripe has no
 *   `failed` status; a decline sends the intent back here), reason `decline_code`, else
 *   `code`, else `message`.
 * - 200 `requires_payment_method` without an error, `requires_confirmation`,
 *   `requires_action`, `requires_capture`: `clearing`, because the intent is open and may
 *   still succeed (no attempt yet, not confirmed, waiting for 3-D Secure, or authorised and
 *   not captured). Treating them as declined would let a customer pay twice; the recovery
 *   schedule ends the wait.
 * - 200 `canceled`: `declined`, reason `cancellation_reason` (else the last error, else
 *   `canceled`).
 * - 404 with `error.code` `resource_missing`: `not_found` (also Stripe's answer for a live
 *   intent queried with a test key).
 * - 401 (invalid key) and 403 (restricted key without permission): unreachable
 *   `PROVIDER.AUTH_REJECTED`, not retried.
 * - any other status, an unknown `status` or a body that does not validate: unreachable,
 *   state preserved.
 *
 * @param status - HTTP status of the answer.
 * @param body - the answer's body text (JSON).
 */
export function stripeVerdict(status: number, body: string): ProviderVerdict {
  if (status === 401 || status === 403) return { kind: 'unreachable', cause: 'PROVIDER.AUTH_REJECTED' };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { kind: 'unreachable', cause: status === 200 ? 'PROVIDER.MALFORMED_RESPONSE' : `PROVIDER.UNEXPECTED_STATUS_${status}` };
  }
  if (status === 404) {
    const error = stripeError.safeParse(json);
    return error.success && error.data.error.code === 'resource_missing'
      ? { kind: 'not_found' }
      : { kind: 'unreachable', cause: 'PROVIDER.UNEXPECTED_STATUS_404' };
  }
  if (status !== 200) return { kind: 'unreachable', cause: `PROVIDER.UNEXPECTED_STATUS_${status}` };
  const parsed = paymentIntent.safeParse(json);
  if (!parsed.success) return { kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' };
  const intent = parsed.data;
  const error = intent.last_payment_error;
  const errorReason = error ? (error.decline_code ?? error.code ?? error.message ?? error.type ?? 'payment_failed') : undefined;

  if (intent.status === 'requires_payment_method') {
    return errorReason === undefined
      ? { kind: 'clearing', providerStatus: intent.status }
      : { kind: 'declined', providerStatus: intent.status, reason: errorReason };
  }
  switch (STATUS_MAP[intent.status]) {
    case 'cleared': {
      if (intent.amount_received === undefined || intent.amount_received === null) {
        return { kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' };
      }
      const charge = typeof intent.latest_charge === 'object' && intent.latest_charge !== null ? intent.latest_charge : undefined;
      return {
        kind: 'cleared',
        observation: {
          reference: intent.id,
          amountMinor: intent.amount_received,
          requestedAmountMinor: intent.amount,
          currency: providerCurrency(intent.currency),
          customer: { email: intent.receipt_email ?? charge?.billing_details?.email ?? undefined, phone: undefined },
          providerTransactionId: intent.id,
          providerStatus: intent.status,
        },
      };
    }
    case 'declined':
      return { kind: 'declined', providerStatus: intent.status, reason: intent.cancellation_reason ?? errorReason ?? intent.status };
    case 'clearing':
      return { kind: 'clearing', providerStatus: intent.status };
    default:
      return { kind: 'unreachable', cause: 'PROVIDER.UNKNOWN_STATUS' };
  }
}

/**
 * The Stripe API version the adapter pins by default (`Stripe-Version`, docs/provider-facts.md,
 * Stripe): the one the `stripe` npm package's types are written for (its `apiVersion`). The
 * package is a devDependency whose types are the provider sandbox's contract (every Stripe
 * answer of the sandbox is checked against them), so the build fails here when the package is
 * upgraded until this pin, and the sandbox with it, follow.
 */
export const STRIPE_DEFAULT_API_VERSION = '2026-10-28.endive' satisfies Stripe.LatestApiVersion;

/** Constructor options of {@link StripeProvider}. */
export interface StripeOptions extends BearerProviderOptions {
  /**
   * Pins `Stripe-Version` (e.g. {@link STRIPE_DEFAULT_API_VERSION}); the account's default
   * version when absent (the verifier always gives one: `STRIPE_API_VERSION`).
   */
  apiVersion?: string | undefined;
}

/**
 * Provider B (Stripe): `GET {baseUrl}/v1/payment_intents/:id?expand[]=latest_charge` with
 * `Authorization: Bearer <secret key>` (docs/provider-facts.md, Stripe), through
 * {@link BearerGetProvider}, mapped by {@link stripeVerdict}. The reference is the
 * PaymentIntent id (`pi_...`). The charge is expanded so the payer's billing email is there
 * when `receipt_email` is not set.
 */
export class StripeProvider extends BearerGetProvider<StripeOptions, 'stripe'> {
  constructor(options: StripeOptions) {
    super('stripe', options);
  }

  protected path({ reference }: VerificationRequest): string {
    return `/v1/payment_intents/${encodeURIComponent(reference)}?expand%5B%5D=latest_charge`;
  }

  protected override extraHeaders(): Record<string, string> {
    return this.options.apiVersion ? { 'stripe-version': this.options.apiVersion } : {};
  }

  protected verdict(status: number, body: string): ProviderVerdict {
    return stripeVerdict(status, body);
  }

  /**
   * One page of Stripe's PaymentIntent list for a window (`TransactionLister`, docs/reconciliation.md,
   * "Providers' lists"): `GET /v1/payment_intents?created[gte]=&created[lt]=&limit=&expand[]=data.latest_charge&starting_after=`,
   * mapped by {@link stripeListPage}. The cursor is the last intent id of the previous page.
   *
   * @throws ProviderCallError once retries are spent, for a refused key (`PROVIDER.AUTH_REJECTED`),
   *   an answer it cannot read or a cursor it never wrote.
   */
  listPage(window: ListWindow, cursor: string | null): Promise<TransactionPage> {
    const path = stripeListPath(window, cursor, this.options.listPageSize ?? STRIPE_LIST_PAGE_SIZE);
    return this.listGet(path, (answer) => stripeListPage(answer.status, answer.body, window));
  }

  /**
   * A payment's refunds and disputes (`MoneyMovementReader`, docs/state-machine.md, "The money
   * after settlement"): `GET /v1/refunds?payment_intent=` and `GET /v1/disputes?payment_intent=`,
   * mapped by {@link stripeMovements}. Stripe has no reversal apart from these: a bank's
   * reversal of a card payment is a dispute.
   *
   * @throws ProviderCallError once retries are spent, for a refused key or an answer it cannot read.
   */
  async movementsOf(reference: string): Promise<PaymentMovements> {
    const [refunds, disputes] = await Promise.all([
      this.listGet(stripeMovementsPath('refunds', reference), (answer) => stripeMovementRows(answer.status, answer.body)),
      this.listGet(stripeMovementsPath('disputes', reference), (answer) => stripeMovementRows(answer.status, answer.body)),
    ]);
    return stripeMovements(refunds, disputes);
  }

  /**
   * One page of Stripe's refund list, then of its dispute list, for a window (`MovementLister`,
   * docs/reconciliation.md, "Refund and dispute lists"): `GET /v1/refunds` then `GET /v1/disputes`
   * with `created[gte]=&created[lt]=&limit=&starting_after=`, mapped by {@link stripeMovementListPage}.
   * The cursor names the list and the last object id of the previous page (`refunds:re_...`,
   * `disputes:`, `disputes:dp_...`).
   *
   * @throws ProviderCallError once retries are spent, for a refused key (`PROVIDER.AUTH_REJECTED`),
   *   an answer it cannot read or a cursor it never wrote (`PROVIDER.INVALID_CURSOR`).
   */
  async listMovementPage(window: ListWindow, cursor: string | null): Promise<MovementPage> {
    const at = readMovementCursor(cursor);
    const path = stripeMovementListPath(at.list, window, at.cursor, this.options.listPageSize ?? STRIPE_MOVEMENT_LIST_PAGE_SIZE);
    return this.listGet(path, (answer) => stripeMovementListPage(at.list, answer.status, answer.body, window));
  }
}

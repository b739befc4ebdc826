import { currencyCode, type ProviderVerdict } from '@settle/domain';
import { z } from 'zod';
import { BearerGetProvider, type BearerProviderOptions } from '../shared/bearer-get.js';
import { messageOf } from '../shared/normalise.js';
import type { VerificationRequest } from '../shared/provider.port.js';
import type { ListWindow, TransactionPage } from '../shared/transaction-list.port.js';
import { PAYSTACK_LIST_PAGE_SIZE, paystackListCursor, paystackListPage, paystackListPath } from './list.js';
import type { PaymentMovements } from '../shared/movement.port.js';
import { paystackMovementRows, paystackMovements, paystackMovementsPaths, paystackVerifiedTransaction } from './movements.js';
import type { MovementPage } from '../shared/movement-list.port.js';
import { readMovementCursor } from '../shared/movement-list.js';
import { PAYSTACK_MOVEMENT_LIST_PAGE_SIZE, paystackMovementListPage, paystackMovementListPath } from './movement-list.js';

/**
 * Paystack's `GET /transaction/verify/:reference` answer (docs/provider-facts.md,
 * Paystack). Only the fields the verdict needs are required; the rest pass through.
 */
const verifyAnswer = z.object({
  status: z.boolean(),
  message: z.string().optional(),
  data: z
    .object({
      id: z.union([z.number(), z.string()]).optional(),
      status: z.string(),
      reference: z.string(),
      amount: z.number().int(),
      requested_amount: z.number().int().nullish(),
      currency: z.string(),
      gateway_response: z.string().nullish(),
      customer: z.object({ email: z.string().nullish(), phone: z.string().nullish() }).loose().nullish(),
    })
    .loose(),
});

/** Paystack `data.status` values and their normalised verdict kind. */
const STATUS_MAP: Record<string, 'cleared' | 'declined' | 'clearing'> = {
  success: 'cleared',
  failed: 'declined',
  reversed: 'declined',
  // `abandoned`: initialised, the customer has not finished; not terminal early on.
  abandoned: 'clearing',
  ongoing: 'clearing',
  pending: 'clearing',
  processing: 'clearing',
  queued: 'clearing',
};

/** Path of Paystack's verify call for a reference: `/transaction/verify/:reference`. */
export function paystackVerifyPath(reference: string): string {
  return `/transaction/verify/${encodeURIComponent(reference)}`;
}

/** Constructor options of {@link PaystackProvider}. */
export type PaystackOptions = BearerProviderOptions;

/**
 * Maps one Paystack verify answer to a verdict. Pure, for unit tests.
 * - 200 with `data.status`: see {@link STATUS_MAP}; the amount check uses `requested_amount`
 *   when present (what the merchant asked for; `amount` then includes fees passed on);
 * - 400 "Transaction reference not found": `not_found`;
 * - 401/403 (wrong key): unreachable `PROVIDER.AUTH_REJECTED`, not retried;
 * - anything else: unreachable, state preserved.
 */
export function paystackVerdict(status: number, body: string): ProviderVerdict {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' };
  }
  if (status === 400 && /not found/i.test(messageOf(json))) {
    return { kind: 'not_found' };
  }
  if (status === 401 || status === 403) return { kind: 'unreachable', cause: 'PROVIDER.AUTH_REJECTED' };
  if (status !== 200) return { kind: 'unreachable', cause: `PROVIDER.UNEXPECTED_STATUS_${status}` };
  const parsed = verifyAnswer.safeParse(json);
  if (!parsed.success || !parsed.data.status) return { kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' };
  const data = parsed.data.data;
  const kind = STATUS_MAP[data.status];
  switch (kind) {
    case 'cleared': {
      let currency: string;
      try {
        currency = currencyCode(data.currency);
      } catch {
        currency = data.currency;
      }
      return {
        kind: 'cleared',
        observation: {
          reference: data.reference,
          amountMinor: data.requested_amount ?? data.amount,
          chargedAmountMinor: data.amount,
          currency,
          customer: { email: data.customer?.email ?? undefined, phone: data.customer?.phone ?? undefined },
          providerTransactionId: data.id === undefined ? undefined : String(data.id),
          providerStatus: data.status,
        },
      };
    }
    case 'declined':
      return { kind: 'declined', providerStatus: data.status, reason: data.gateway_response ?? data.status };
    case 'clearing':
      return { kind: 'clearing', providerStatus: data.status };
    default:
      return { kind: 'unreachable', cause: 'PROVIDER.UNKNOWN_STATUS' };
  }
}

/**
 * Provider A (Paystack-style): `GET {baseUrl}/transaction/verify/:reference` with
 * `Authorization: Bearer <secret key>`, through {@link BearerGetProvider} (time-out, retries
 * with backoff and jitter, `Retry-After`, circuit breaker), mapped by {@link paystackVerdict}.
 */
export class PaystackProvider extends BearerGetProvider<PaystackOptions, 'paystack'> {
  constructor(options: PaystackOptions) {
    super('paystack', options);
  }

  protected path({ reference }: VerificationRequest): string {
    return paystackVerifyPath(reference);
  }

  protected verdict(status: number, body: string): ProviderVerdict {
    return paystackVerdict(status, body);
  }

  /**
   * One page of Paystack's transaction list for a window (`TransactionLister`, docs/reconciliation.md,
   * "Providers' lists"): `GET /transaction?from=&to=&perPage=&page=`, mapped by
   * {@link paystackListPage}. The cursor is the next page number.
   *
   * @throws ProviderCallError once retries are spent, for a refused key (`PROVIDER.AUTH_REJECTED`),
   *   an answer it cannot read or a cursor it never wrote.
   */
  listPage(window: ListWindow, cursor: string | null): Promise<TransactionPage> {
    const path = paystackListPath(window, paystackListCursor(cursor), this.options.listPageSize ?? PAYSTACK_LIST_PAGE_SIZE);
    return this.listGet(path, (answer) => paystackListPage(answer.status, answer.body, window));
  }

  /**
   * A payment's refunds, disputes and reversal (`MoneyMovementReader`, docs/state-machine.md, "The
   * money after settlement"): the verify call for Paystack's transaction id, then
   * `GET /refund?transaction=` and `GET /dispute?transaction=`, mapped by {@link paystackMovements}.
   *
   * @throws ProviderCallError once retries are spent, for a refused key, a reference Paystack does
   *   not know (`PROVIDER.UNEXPECTED_STATUS_400`) or an answer it cannot read.
   */
  async movementsOf(reference: string): Promise<PaymentMovements> {
    const transaction = await this.listGet(paystackVerifyPath(reference), (answer) => paystackVerifiedTransaction(answer.status, answer.body));
    const paths = paystackMovementsPaths(String(transaction.id));
    const [refunds, disputes] = await Promise.all([
      this.listGet(paths.refunds, (answer) => paystackMovementRows(answer.status, answer.body)),
      this.listGet(paths.disputes, (answer) => paystackMovementRows(answer.status, answer.body)),
    ]);
    return paystackMovements(transaction, refunds, disputes, Date.now());
  }

  /**
   * One page of Paystack's refund list, then of its dispute list, for a window (`MovementLister`,
   * docs/reconciliation.md, "Refund and dispute lists"): `GET /refund` then `GET /dispute` with
   * `from=&to=&perPage=&page=`, mapped by {@link paystackMovementListPage}. The cursor names the
   * list and the next page number (`refunds:2`, `disputes:`, `disputes:2`).
   *
   * @throws ProviderCallError once retries are spent, for a refused key (`PROVIDER.AUTH_REJECTED`),
   *   an answer it cannot read or a cursor it never wrote (`PROVIDER.INVALID_CURSOR`).
   */
  async listMovementPage(window: ListWindow, cursor: string | null): Promise<MovementPage> {
    const at = readMovementCursor(cursor);
    const path = paystackMovementListPath(at.list, window, paystackListCursor(at.cursor), this.options.listPageSize ?? PAYSTACK_MOVEMENT_LIST_PAGE_SIZE);
    return this.listGet(path, (answer) => paystackMovementListPage(at.list, answer.status, answer.body, window));
  }
}

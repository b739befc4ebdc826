import type { ProviderVerdict } from '@settle/domain';
import type { CountryCode } from 'libphonenumber-js';
import { z } from 'zod';
import { AmountConversionError, majorToMinor, normalisePhoneNumber, providerCurrency, messageOf } from '../shared/normalise.js';
import { BearerGetProvider, type BearerProviderOptions } from '../shared/bearer-get.js';
import type { VerificationRequest } from '../shared/provider.port.js';
import type { ListWindow, TransactionPage } from '../shared/transaction-list.port.js';
import { flutterwaveListCursor, flutterwaveListPage, flutterwaveListPath } from './list.js';
import type { PaymentMovements } from '../shared/movement.port.js';
import { flutterwaveMovementRows, flutterwaveMovements, flutterwaveMovementsPaths, flutterwaveVerifiedTransaction } from './movements.js';
import type { MovementPage } from '../shared/movement-list.port.js';
import { readMovementCursor, readWindowRows } from '../shared/movement-list.js';
import { ProviderCallError } from '../shared/provider.port.js';
import {
  flutterwaveListedRow,
  flutterwaveMovementListAnswer,
  flutterwaveMovementListPath,
  flutterwaveMovementPage,
  flutterwaveTransactionsToName,
  type FlutterwaveTxRefLookup,
} from './movement-list.js';

/** A major-unit amount as Flutterwave sends it: a JSON number (`100.5`), tolerated as a decimal string. */
const majorAmount = z.union([z.number(), z.string()]);

/**
 * Flutterwave v3 verify answer, the same for `GET /v3/transactions/:id/verify` and
 * `GET /v3/transactions/verify_by_reference?tx_ref=` (docs/provider-facts.md,
 * Flutterwave). Only the fields the verdict needs are checked; the rest pass through.
 */
const verifyAnswer = z.object({
  status: z.literal('success'),
  message: z.string().nullish(),
  data: z
    .object({
      id: z.union([z.number().int(), z.string()]).nullish(),
      tx_ref: z.string().min(1),
      flw_ref: z.string().nullish(),
      amount: majorAmount,
      currency: z.string(),
      charged_amount: majorAmount.nullish(),
      processor_response: z.string().nullish(),
      status: z.string(),
      customer: z.object({ email: z.string().nullish(), phone_number: z.string().nullish(), name: z.string().nullish() }).loose().nullish(),
    })
    .loose(),
});

/** Flutterwave `data.status` values and their verdict kind (docs/provider-facts.md, Flutterwave). */
const STATUS_MAP: Record<string, 'cleared' | 'declined' | 'clearing'> = {
  successful: 'cleared',
  failed: 'declined',
  pending: 'clearing',
};

/** Options of {@link flutterwaveVerdict}. */
export interface FlutterwaveVerdictOptions {
  /**
   * Region used to read a national phone number (`08012345678` with `NG`) into E.164;
   * without it only numbers in international form are normalised.
   */
  phoneRegion?: CountryCode | undefined;
}

/**
 * Maps one Flutterwave v3 verify answer (by id or by `tx_ref`) to a verdict. Pure, for unit
 * tests. Source of every rule: docs/provider-facts.md, Flutterwave (Flutterwave v3).
 *
 * - 200 `data.status` `successful`: `cleared`. Amounts are in MAJOR units and converted to
 *   minor units exactly with the currency's ISO 4217 exponent ({@link majorToMinor}: NGN
 *   100.5 gives 10050, JPY 1500 gives 1500, KWD 1.234 gives 1234); an amount with more
 *   decimals than the exponent, or an unknown currency, is a malformed answer (unreachable
 *   `PROVIDER.MALFORMED_AMOUNT` / `PROVIDER.UNKNOWN_CURRENCY`), never rounded. The amount
 *   check uses `amount` (what the merchant asked for; equality is required, although
 *   Flutterwave's own guide accepts amount >= expected); `charged_amount` (with fees passed
 *   to the customer) is recorded as `chargedAmountMinor`. Reference for the identity check:
 *   `tx_ref` (our reference), whichever endpoint answered. Customer: `customer.email` and
 *   `customer.phone_number` (E.164 when it parses, see `phoneRegion`).
 *   `providerTransactionId`: Flutterwave's numeric `id`.
 * - 200 `failed`: `declined`, reason `processor_response`.
 * - 200 `pending`: `clearing`.
 * - 400 with a message "No transaction was found ...": `not_found`.
 * - 401/403 (wrong secret key): unreachable `PROVIDER.AUTH_REJECTED`, not retried.
 * - any other status, an unknown `data.status`, a top-level `status` other than `success`
 *   or a body that does not validate: unreachable, state preserved.
 *
 * @param status - HTTP status of the answer.
 * @param body - the answer's body text (JSON).
 */
export function flutterwaveVerdict(status: number, body: string, options: FlutterwaveVerdictOptions = {}): ProviderVerdict {
  if (status === 401 || status === 403) return { kind: 'unreachable', cause: 'PROVIDER.AUTH_REJECTED' };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { kind: 'unreachable', cause: status === 200 ? 'PROVIDER.MALFORMED_RESPONSE' : `PROVIDER.UNEXPECTED_STATUS_${status}` };
  }
  if (status === 400 && /no transaction was found/i.test(messageOf(json))) {
    return { kind: 'not_found' };
  }
  if (status !== 200) return { kind: 'unreachable', cause: `PROVIDER.UNEXPECTED_STATUS_${status}` };
  const parsed = verifyAnswer.safeParse(json);
  if (!parsed.success) return { kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' };
  const data = parsed.data.data;
  switch (STATUS_MAP[data.status]) {
    case 'cleared': {
      let amountMinor: number;
      let chargedAmountMinor: number | undefined;
      try {
        amountMinor = majorToMinor(data.amount, data.currency);
        chargedAmountMinor = data.charged_amount === undefined || data.charged_amount === null ? undefined : majorToMinor(data.charged_amount, data.currency);
      } catch (error) {
        if (error instanceof AmountConversionError) return { kind: 'unreachable', cause: error.code };
        throw error;
      }
      return {
        kind: 'cleared',
        observation: {
          reference: data.tx_ref,
          amountMinor,
          chargedAmountMinor,
          currency: providerCurrency(data.currency),
          customer: {
            email: data.customer?.email ?? undefined,
            phone: normalisePhoneNumber(data.customer?.phone_number, options.phoneRegion),
          },
          providerTransactionId: data.id === undefined || data.id === null ? undefined : String(data.id),
          providerStatus: data.status,
        },
      };
    }
    case 'declined':
      return { kind: 'declined', providerStatus: data.status, reason: data.processor_response ?? data.status };
    case 'clearing':
      return { kind: 'clearing', providerStatus: data.status };
    default:
      return { kind: 'unreachable', cause: 'PROVIDER.UNKNOWN_STATUS' };
  }
}

/**
 * Chooses the verify endpoint (path and query, relative to the API root) for a reference:
 * - a numeric reference (`4099260516`, as a webhook's `data.id` carries it) that is not the
 *   checkout's own `tx_ref`: `GET /v3/transactions/:id/verify`, Flutterwave's id lookup;
 * - anything else, including a `tx_ref` that happens to be all digits:
 *   `GET /v3/transactions/verify_by_reference?tx_ref=<ref>`.
 * The identity check then compares the answer's `tx_ref` with the checkout's reference,
 * so an id that belongs to another checkout ends as a mismatch, not a settlement.
 *
 * @param reference - the verification request's reference.
 * @param txRef - the checkout's registered reference (`expectation.reference`); `null` for a
 *   payment with no checkout, whose reference is then a Flutterwave id when it is numeric.
 */
export function flutterwaveVerifyPath(reference: string, txRef: string | null): string {
  if (/^[1-9]\d*$/.test(reference) && reference !== txRef) {
    return `/v3/transactions/${reference}/verify`;
  }
  return `/v3/transactions/verify_by_reference?tx_ref=${encodeURIComponent(reference)}`;
}

/** Constructor options of {@link FlutterwaveProvider}. */
export interface FlutterwaveOptions extends BearerProviderOptions {
  /** Region for national phone numbers in answers (e.g. `NG`); see {@link FlutterwaveVerdictOptions}. */
  phoneRegion?: CountryCode | undefined;
}

/**
 * Provider C (Flutterwave v3): `GET {baseUrl}/v3/transactions/verify_by_reference?tx_ref=`
 * (or `/v3/transactions/:id/verify` for a numeric Flutterwave id, see
 * {@link flutterwaveVerifyPath}) with `Authorization: Bearer <secret key>`, through
 * {@link BearerGetProvider}, mapped by {@link flutterwaveVerdict}.
 */
export class FlutterwaveProvider extends BearerGetProvider<FlutterwaveOptions, 'flutterwave'> {
  constructor(options: FlutterwaveOptions) {
    super('flutterwave', options);
  }

  protected path({ reference, expectation }: VerificationRequest): string {
    return flutterwaveVerifyPath(reference, expectation?.reference ?? null);
  }

  protected verdict(status: number, body: string): ProviderVerdict {
    return flutterwaveVerdict(status, body, { phoneRegion: this.options.phoneRegion });
  }

  /**
   * One page of Flutterwave's transaction list for a window (`TransactionLister`,
   * docs/reconciliation.md, "Providers' lists"): `GET /v3/transactions?from=&to=&page=` with the
   * dates covering the window ({@link flutterwaveListDates}), mapped by {@link flutterwaveListPage},
   * which keeps only the rows created in the window. The cursor is the next page number; pages
   * hold 10 rows (Flutterwave's size, not ours: `listPageSize` does not apply).
   *
   * @throws ProviderCallError once retries are spent, for a refused key (`PROVIDER.AUTH_REJECTED`),
   *   an answer it cannot read or a cursor it never wrote.
   */
  listPage(window: ListWindow, cursor: string | null): Promise<TransactionPage> {
    const path = flutterwaveListPath(window, flutterwaveListCursor(cursor));
    return this.listGet(path, (answer) => flutterwaveListPage(answer.status, answer.body, window, { phoneRegion: this.options.phoneRegion }));
  }

  /**
   * A transaction's refunds and chargebacks (`MoneyMovementReader`, docs/state-machine.md, "The
   * money after settlement"): the verify call by `tx_ref` for its id, `flw_ref` and currency, then
   * `GET /v3/refunds?id=` and `GET /v3/chargebacks?flw_ref=`, mapped by {@link flutterwaveMovements}.
   *
   * @param reference - the checkout's `tx_ref`.
   * @throws ProviderCallError once retries are spent, for a refused key, a reference Flutterwave
   *   does not know, or an answer it cannot read.
   */
  async movementsOf(reference: string): Promise<PaymentMovements> {
    const transaction = await this.listGet(flutterwaveVerifyPath(reference, reference), (answer) => flutterwaveVerifiedTransaction(answer.status, answer.body));
    const paths = flutterwaveMovementsPaths(transaction);
    const [refunds, chargebacks] = await Promise.all([
      this.listGet(paths.refunds, (answer) => flutterwaveMovementRows(answer.status, answer.body)),
      this.listGet(paths.chargebacks, (answer) => flutterwaveMovementRows(answer.status, answer.body)),
    ]);
    return flutterwaveMovements(transaction, refunds, chargebacks);
  }

  /**
   * One page of Flutterwave's refund list, then of its chargeback list, for a window
   * (`MovementLister`, docs/reconciliation.md, "Refund and dispute lists"): `GET /v3/refunds` then
   * `GET /v3/chargebacks` with the dates covering the window and `page`, rows kept to the window
   * by `created_at`. A refund names its transaction by id only: each distinct transaction of the
   * page's refunds is read once by `GET /v3/transactions/:id/verify` for its `tx_ref` (one call
   * per transaction, after the list call, through the same retries and breaker). The cursor names
   * the list and the next page number (`refunds:2`, `disputes:`, `disputes:2`).
   *
   * @throws ProviderCallError once retries are spent, for a refused key (`PROVIDER.AUTH_REJECTED`),
   *   an answer it cannot read or a cursor it never wrote (`PROVIDER.INVALID_CURSOR`).
   */
  async listMovementPage(window: ListWindow, cursor: string | null): Promise<MovementPage> {
    const at = readMovementCursor(cursor);
    const path = flutterwaveMovementListPath(at.list, window, flutterwaveListCursor(at.cursor));
    const answer = await this.listGet(path, (reply) => flutterwaveMovementListAnswer(reply.status, reply.body));
    const read = readWindowRows(window, answer.data, flutterwaveListedRow);
    const txRefs = new Map<string, FlutterwaveTxRefLookup>();
    for (const id of flutterwaveTransactionsToName(read)) txRefs.set(id, await this.txRefOf(id));
    return flutterwaveMovementPage(at.list, read, answer.data.length, answer.next, txRefs);
  }

  /**
   * A transaction's `tx_ref`, by its Flutterwave id (`GET /v3/transactions/:id/verify`), or why it
   * has none: an answer refused for this transaction (a 400 "No transaction was found", an answer
   * that cannot be read) is a reason, and the row is skipped; a refused key and transient failures
   * (retryable: the run keeps its cursor and reads the page again later) are thrown, as for the
   * list call.
   */
  private async txRefOf(id: string): Promise<FlutterwaveTxRefLookup> {
    try {
      const transaction = await this.listGet(flutterwaveVerifyPath(id, null), (answer) => flutterwaveVerifiedTransaction(answer.status, answer.body));
      return transaction.tx_ref;
    } catch (error) {
      if (error instanceof ProviderCallError && !error.retryable && error.code !== 'PROVIDER.AUTH_REJECTED') return { reason: error.code };
      throw error;
    }
  }
}

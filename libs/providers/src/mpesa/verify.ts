import type { Secret } from '@settle/config';
import type { Expectation, ProviderVerdict } from '@settle/domain';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import {
  callProvider,
  providerAgent,
  providerPolicy,
  verifyThrough,
  type BackoffSettings,
  type BreakerSettings,
  type HttpAnswer,
  type ProviderPolicy,
} from '../shared/http.js';
import type { ProviderMetrics } from '../shared/metrics.js';
import { ProviderCallError, type PaymentProvider, type VerificationRequest } from '../shared/provider.port.js';

/**
 * Currency of every Lipa na M-Pesa Online (STK push) payment: Kenyan shillings. Daraja's STK
 * push and query carry no currency field; the adapter states it instead of copying the
 * checkout's, so the consensus currency check still catches a non-KES checkout sent to M-Pesa.
 */
export const MPESA_CURRENCY = 'KES';

/** Time zone of Daraja's `Timestamp` (docs/provider-facts.md, M-Pesa: "in Africa/Nairobi time"). */
export const MPESA_TIME_ZONE = 'Africa/Nairobi';

/** Error code of an expired or wrong access token (docs/provider-facts.md, M-Pesa). */
export const MPESA_INVALID_TOKEN = '404.001.03';

/** Error code of the query while the customer has not answered the prompt yet (docs/provider-facts.md, M-Pesa). */
export const MPESA_STILL_PROCESSING = '500.001.1001';

const timestampFormat = new Intl.DateTimeFormat('en-US', {
  timeZone: MPESA_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/**
 * Daraja's `Timestamp`: `YYYYMMDDHHmmss` in Africa/Nairobi time (docs/provider-facts.md, M-Pesa),
 * computed with `Intl.DateTimeFormat` and the IANA zone, never a hand-written offset.
 * Pure. Example: 2024-01-31T21:30:05Z gives `20240201003005` (Nairobi is UTC+3).
 *
 * @param at - the instant to format (milliseconds are dropped).
 */
export function mpesaTimestamp(at: Date): string {
  const parts = Object.fromEntries(timestampFormat.formatToParts(at).map((part) => [part.type, part.value]));
  return `${parts['year']}${parts['month']}${parts['day']}${parts['hour']}${parts['minute']}${parts['second']}`;
}

/**
 * Daraja's `Password`: base64(BusinessShortCode + PassKey + Timestamp), UTF-8
 * (docs/provider-facts.md, M-Pesa). Pure. The result reveals the pass key to anyone who decodes it:
 * send it only to Daraja, never log it.
 *
 * @param shortCode - the paybill or till shortcode (sandbox `174379`).
 * @param passKey - the Lipa na M-Pesa Online pass key (the revealed secret).
 * @param timestamp - the same {@link mpesaTimestamp} value sent as `Timestamp`.
 */
export function mpesaPassword(shortCode: string, passKey: string, timestamp: string): string {
  return Buffer.from(`${shortCode}${passKey}${timestamp}`, 'utf8').toString('base64');
}

/** OAuth answer: `{ access_token, expires_in }`, `expires_in` in seconds (Daraja sends it as a string). */
const tokenAnswer = z.object({
  access_token: z.string().min(1),
  expires_in: z.union([z.number().int().positive(), z.string().regex(/^\d+$/).transform(Number)]),
});

/**
 * Reads Daraja's `GET /oauth/v1/generate?grant_type=client_credentials` answer. Pure.
 *
 * @returns the token and its lifetime in milliseconds.
 * @throws ProviderCallError, not retryable: `PROVIDER.AUTH_REJECTED` for 400, 401 or 403
 *   (wrong consumer key or secret), `PROVIDER.UNEXPECTED_STATUS_<n>` for another status,
 *   `PROVIDER.MALFORMED_RESPONSE` for a body without a token. No message names a secret.
 */
export function readMpesaToken(answer: HttpAnswer): { accessToken: string; expiresInMs: number } {
  if (answer.status === 400 || answer.status === 401 || answer.status === 403) {
    throw new ProviderCallError('PROVIDER.AUTH_REJECTED', false, `M-Pesa OAuth answered ${answer.status}`);
  }
  if (answer.status !== 200) {
    throw new ProviderCallError(`PROVIDER.UNEXPECTED_STATUS_${answer.status}`, false, `M-Pesa OAuth answered ${answer.status}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    throw new ProviderCallError('PROVIDER.MALFORMED_RESPONSE', false, 'M-Pesa OAuth answer is not JSON');
  }
  const parsed = tokenAnswer.safeParse(json);
  if (!parsed.success) throw new ProviderCallError('PROVIDER.MALFORMED_RESPONSE', false, 'M-Pesa OAuth answer has no token');
  return { accessToken: parsed.data.access_token, expiresInMs: parsed.data.expires_in * 1000 };
}

/** Daraja's error envelope: `{ requestId, errorCode, errorMessage }`. */
const errorAnswer = z.object({ requestId: z.string().nullish(), errorCode: z.string(), errorMessage: z.string().nullish() }).loose();

/** STK query answer (HTTP 200). `ResultCode` is a string in the docs; a number is tolerated. */
const queryAnswer = z
  .object({
    ResponseCode: z.union([z.string(), z.number()]).nullish(),
    ResponseDescription: z.string().nullish(),
    MerchantRequestID: z.string().nullish(),
    CheckoutRequestID: z.string().min(1),
    ResultCode: z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative().transform(String)]),
    ResultDesc: z.string().nullish(),
  })
  .loose();

/**
 * STK query `ResultCode` values and their meaning (docs/provider-facts.md, M-Pesa):
 * - `cleared`: `0`, the customer paid;
 * - `declined`: `1` insufficient funds and `2001` wrong PIN, and `1032` cancelled by the
 *   user, `1037` phone unreachable / timed out, `1019` expired: definitive for this STK
 *   attempt (its prompt is over and can no longer be paid); the customer may start a new one;
 * - `transient`: `17`, `1001` (subscriber busy), `1025`, `9999` (prompt not sent). Mapped to
 *   `unreachable` (`PROVIDER.MPESA_RESULT_<code>`), not `clearing`: they say M-Pesa could
 *   not run the attempt, not that money is moving, so the transaction keeps its state and is
 *   asked about again by the recovery schedule (which ends in manual review), instead of
 *   being held in review as "still clearing" and blocking a new attempt.
 */
const RESULT_CODES: Readonly<Record<string, 'cleared' | 'declined' | 'transient'>> = {
  '0': 'cleared',
  '1': 'declined',
  '2001': 'declined',
  '1032': 'declined',
  '1037': 'declined',
  '1019': 'declined',
  '17': 'transient',
  '1001': 'transient',
  '1025': 'transient',
  '9999': 'transient',
};

/** Whether a query answer says the access token is expired or wrong (HTTP 401 or `404.001.03`), so a fresh token may help. */
export function isMpesaTokenRejected(answer: HttpAnswer): boolean {
  if (answer.status === 401) return true;
  try {
    const parsed = errorAnswer.safeParse(JSON.parse(answer.body));
    return parsed.success && parsed.data.errorCode === MPESA_INVALID_TOKEN;
  } catch {
    return false;
  }
}

/**
 * Maps one Daraja STK query answer (`POST /mpesa/stkpushquery/v1/query`) to a verdict.
 * Pure, for unit tests. Source of every rule: docs/provider-facts.md, M-Pesa Daraja
 * STK push.
 *
 * - 200 with `ResultCode`: see {@link RESULT_CODES}; decline reason `ResultDesc`,
 *   `providerStatus` the `ResultCode`; an unknown code is unreachable `PROVIDER.UNKNOWN_STATUS`.
 * - 500 `500.001.1001` with the message "The transaction is being processed": `clearing`
 *   (the customer has not answered the prompt yet). The same code with another message is
 *   reported for configuration errors, so it is unreachable `PROVIDER.MPESA_500.001.1001`.
 * - 401 or `404.001.03` (token expired or wrong, still after the adapter's one refresh):
 *   unreachable `PROVIDER.AUTH_REJECTED`.
 * - any other error code: unreachable `PROVIDER.MPESA_<errorCode>`; any other status or a
 *   body that does not validate: unreachable, state preserved. No answer maps to
 *   `not_found`: docs/provider-facts.md documents none for the query.
 *
 * Where each point of the four-point checklist comes from for `ResultCode` `0` (the query
 * answer carries no amount and no phone):
 * - transaction identity: `CheckoutRequestID` of the answer (provider), compared with the
 *   checkout's reference, the `CheckoutRequestID` stored when the STK push was initiated;
 * - currency: {@link MPESA_CURRENCY}, `KES`, a fact of the product, not the checkout's;
 * - amount: `expectation.amountMinor`, the service's own STK initiation record: the service
 *   set the amount server side when it sent the push, and the customer cannot change it on
 *   the prompt. The check therefore passes by construction; the provider's echo of the
 *   amount is the STK callback's `CallbackMetadata.Amount`, outside this query;
 * - customer: `expectation.customer.phone`, the same initiation record (the phone the push
 *   was sent to), as it was registered (no E.164 rewrite, so it compares equal); no e-mail.
 *   Passes by construction too; the callback's `PhoneNumber` is the provider's echo.
 * `providerTransactionId` is the `MerchantRequestID` (the query has no M-Pesa receipt number).
 *
 * @param status - HTTP status of the answer.
 * @param body - the answer's body text (JSON).
 * Without an initiation record (`expectation` null: a payment with no checkout,
 * docs/unmatched-payments.md) a completed push confirms neither amount nor phone: the
 * observation lists both in `unconfirmed` (its amount 0 and empty customer are placeholders).
 *
 * @param expectation - the checkout's registered terms (the STK initiation record), or `null`.
 */
export function mpesaQueryVerdict(status: number, body: string, expectation: Expectation | null): ProviderVerdict {
  if (status === 401) return { kind: 'unreachable', cause: 'PROVIDER.AUTH_REJECTED' };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { kind: 'unreachable', cause: status === 200 ? 'PROVIDER.MALFORMED_RESPONSE' : `PROVIDER.UNEXPECTED_STATUS_${status}` };
  }
  const error = errorAnswer.safeParse(json);
  if (error.success) {
    const { errorCode, errorMessage } = error.data;
    if (errorCode === MPESA_INVALID_TOKEN) return { kind: 'unreachable', cause: 'PROVIDER.AUTH_REJECTED' };
    if (status === 500 && errorCode === MPESA_STILL_PROCESSING && /being processed/i.test(errorMessage ?? '')) {
      return { kind: 'clearing', providerStatus: MPESA_STILL_PROCESSING };
    }
    return {
      kind: 'unreachable',
      cause: /^[\w.]{1,32}$/.test(errorCode) ? `PROVIDER.MPESA_${errorCode}` : `PROVIDER.UNEXPECTED_STATUS_${status}`,
    };
  }
  if (status !== 200) return { kind: 'unreachable', cause: `PROVIDER.UNEXPECTED_STATUS_${status}` };
  const parsed = queryAnswer.safeParse(json);
  if (!parsed.success) return { kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' };
  const answer = parsed.data;
  const code = answer.ResultCode;
  switch (RESULT_CODES[code]) {
    case 'cleared':
      return {
        kind: 'cleared',
        observation: {
          reference: answer.CheckoutRequestID,
          amountMinor: expectation?.amountMinor ?? 0,
          currency: MPESA_CURRENCY,
          customer: expectation ? { phone: expectation.customer.phone } : {},
          providerTransactionId: answer.MerchantRequestID ?? undefined,
          providerStatus: code,
          ...(expectation ? {} : { unconfirmed: ['amount', 'customer'] as const }),
        },
      };
    case 'declined':
      return { kind: 'declined', providerStatus: code, reason: answer.ResultDesc ?? `ResultCode ${code}` };
    case 'transient':
      return { kind: 'unreachable', cause: `PROVIDER.MPESA_RESULT_${code}` };
    default:
      return { kind: 'unreachable', cause: 'PROVIDER.UNKNOWN_STATUS' };
  }
}

/** Constructor options of {@link MpesaProvider}. */
export interface MpesaOptions {
  /** API root: `https://sandbox.safaricom.co.ke` or `https://api.safaricom.co.ke` (a trailing `/` is ignored). */
  baseUrl: string;
  /** Daraja app consumer key; with the secret, sent as `Authorization: Basic` to the OAuth endpoint only. */
  consumerKey: Secret;
  consumerSecret: Secret;
  /** `BusinessShortCode` of the STK push (sandbox `174379`). */
  businessShortCode: string;
  /** Lipa na M-Pesa Online pass key, used only inside the `Password`. */
  passKey: Secret;
  /** Per-call time-out, milliseconds (each of the OAuth and query calls). */
  timeoutMs: number;
  retry: BackoffSettings;
  /** Circuit breaker; missing fields take `DEFAULT_BREAKER_SETTINGS` (5 failures, 5 000 ms). */
  breaker?: Partial<BreakerSettings> | undefined;
  /**
   * How long before `expires_in` the cached token is replaced, milliseconds; default
   * 60 000 (Daraja tokens live 3 599 s), so a token never expires between cache and use.
   */
  tokenRefreshMarginMs?: number | undefined;
  /** Clock, epoch milliseconds (`Timestamp` and token expiry); `Date.now` when absent. Tests inject one. */
  now?: (() => number) | undefined;
  /** Connection pool; a keep-alive `providerAgent()` when absent. */
  dispatcher?: Dispatcher;
  /** Where the calls' latency (operations `verify` and `token`), retries and the breaker's state are reported; nothing when absent. */
  metrics?: ProviderMetrics | undefined;
}

/** Default {@link MpesaOptions.tokenRefreshMarginMs}, milliseconds. */
export const MPESA_TOKEN_REFRESH_MARGIN_MS = 60_000;

/**
 * M-Pesa Daraja STK push status query (docs/provider-facts.md, M-Pesa):
 * 1. an OAuth token from `GET {baseUrl}/oauth/v1/generate?grant_type=client_credentials`
 *    with `Authorization: Basic base64(consumerKey:consumerSecret)`, cached until
 *    `tokenRefreshMarginMs` before its `expires_in` (one fetch shared by concurrent calls);
 * 2. `POST {baseUrl}/mpesa/stkpushquery/v1/query` with `Authorization: Bearer <token>` and
 *    `{ BusinessShortCode, Password, Timestamp, CheckoutRequestID }` ({@link mpesaTimestamp},
 *    {@link mpesaPassword}); the request's reference is the `CheckoutRequestID`;
 * 3. when the query says the token is expired or wrong (401 or `404.001.03`), the token is
 *    dropped, fetched again and the query repeated once.
 * The whole sequence runs inside the shared policy (retries with backoff and `Retry-After`
 * for 502, 503, 504, 429, time-outs and connection failures, in a per-provider circuit
 * breaker). The answer is mapped by {@link mpesaQueryVerdict}, which takes amount and phone
 * from the request's expectation (the service's STK initiation record).
 */
export class MpesaProvider implements PaymentProvider {
  readonly name = 'mpesa' as const;
  private readonly dispatcher: Dispatcher;
  private readonly now: () => number;
  private readonly refreshMarginMs: number;
  private token: { value: string; refreshAt: number } | undefined;
  private tokenRequest: Promise<string> | undefined;
  /** Retries inside a circuit breaker; the breaker is this instance's own. */
  readonly policy: ProviderPolicy;

  constructor(private readonly options: MpesaOptions) {
    this.dispatcher = options.dispatcher ?? providerAgent();
    this.now = options.now ?? Date.now;
    this.refreshMarginMs = options.tokenRefreshMarginMs ?? MPESA_TOKEN_REFRESH_MARGIN_MS;
    this.policy = providerPolicy({
      retry: options.retry,
      breaker: options.breaker,
      metrics: options.metrics ? { provider: this.name, metrics: options.metrics } : undefined,
    });
  }

  /**
   * Queries the STK push whose `CheckoutRequestID` is `reference`. Never rejects for
   * provider or network failures: those resolve as `unreachable` (`PROVIDER.CIRCUIT_OPEN`
   * when the breaker is open, `PROVIDER.AUTH_REJECTED` for rejected credentials).
   */
  async verify({ reference, expectation }: VerificationRequest): Promise<ProviderVerdict> {
    return verifyThrough(
      this.policy,
      () => this.queryWithFreshToken(reference),
      (answer) => mpesaQueryVerdict(answer.status, answer.body, expectation),
    );
  }

  /** Closes the connection pool. */
  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  private get base(): string {
    return this.options.baseUrl.replace(/\/$/, '');
  }

  private async queryWithFreshToken(checkoutRequestId: string): Promise<HttpAnswer> {
    const token = await this.accessToken();
    const answer = await this.query(token, checkoutRequestId);
    if (!isMpesaTokenRejected(answer)) return answer;
    if (this.token?.value === token) this.token = undefined;
    return this.query(await this.accessToken(), checkoutRequestId);
  }

  private query(token: string, checkoutRequestId: string): Promise<HttpAnswer> {
    const timestamp = mpesaTimestamp(new Date(this.now()));
    return callProvider(this.dispatcher, `${this.base}/mpesa/stkpushquery/v1/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        BusinessShortCode: this.options.businessShortCode,
        Password: mpesaPassword(this.options.businessShortCode, this.options.passKey.reveal(), timestamp),
        Timestamp: timestamp,
        CheckoutRequestID: checkoutRequestId,
      }),
      timeoutMs: this.options.timeoutMs,
      observe: this.options.metrics?.callObserver(this.name, 'verify'),
    });
  }

  private accessToken(): Promise<string> {
    if (this.token && this.now() < this.token.refreshAt) return Promise.resolve(this.token.value);
    this.tokenRequest ??= this.fetchToken().finally(() => {
      this.tokenRequest = undefined;
    });
    return this.tokenRequest;
  }

  private async fetchToken(): Promise<string> {
    const requestedAt = this.now();
    const basic = Buffer.from(`${this.options.consumerKey.reveal()}:${this.options.consumerSecret.reveal()}`, 'utf8').toString('base64');
    const answer = await callProvider(this.dispatcher, `${this.base}/oauth/v1/generate?grant_type=client_credentials`, {
      method: 'GET',
      headers: { authorization: `Basic ${basic}`, accept: 'application/json' },
      timeoutMs: this.options.timeoutMs,
      observe: this.options.metrics?.callObserver(this.name, 'token'),
    });
    const { accessToken, expiresInMs } = readMpesaToken(answer);
    this.token = { value: accessToken, refreshAt: requestedAt + Math.max(0, expiresInMs - this.refreshMarginMs) };
    return accessToken;
  }
}

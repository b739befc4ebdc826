import type { Secret } from '@settle/config';
import { currencyCode, type ProviderVerdict } from '@settle/domain';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import {
  callProvider,
  providerAgent,
  providerPolicy,
  verifyThrough,
  type BackoffSettings,
  type BreakerSettings,
  type ProviderPolicy,
} from './http.js';
import type { PaymentProvider, VerificationRequest } from './provider.port.js';

/**
 * Paystack's `GET /transaction/verify/:reference` answer (shared/reference/providers.md,
 * provider A). Only the fields the verdict needs are required; the rest pass through.
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
      customer: z
        .object({ email: z.string().nullish(), phone: z.string().nullish() })
        .loose()
        .nullish(),
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

/** Constructor options of {@link PaystackProvider}. */
export interface PaystackOptions {
  /** API root, e.g. `https://api.paystack.co` (a trailing `/` is ignored). */
  baseUrl: string;
  /** Secret key (`sk_...`), sent as `Authorization: Bearer`; never logged. */
  secretKey: Secret;
  /** Per-call time-out, milliseconds. */
  timeoutMs: number;
  retry: BackoffSettings;
  /** Circuit breaker; missing fields take `DEFAULT_BREAKER_SETTINGS` (5 failures, 30 000 ms). */
  breaker?: Partial<BreakerSettings> | undefined;
  /** Connection pool; a keep-alive `providerAgent()` when absent. */
  dispatcher?: Dispatcher;
}

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
  if (status === 400 && /not found/i.test(String((json as { message?: unknown })?.message ?? ''))) {
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
 * `Authorization: Bearer <secret key>`, server to server, with a per-call time-out,
 * retries with exponential backoff and full jitter for 502, 503, 504, 429 (honouring
 * `Retry-After`), time-outs and connection failures, and a per-provider circuit breaker
 * around the retries (`providerPolicy`).
 */
export class PaystackProvider implements PaymentProvider {
  readonly name = 'paystack' as const;
  private readonly dispatcher: Dispatcher;
  /** Retries inside a circuit breaker; the breaker is this instance's own. */
  readonly policy: ProviderPolicy;

  constructor(private readonly options: PaystackOptions) {
    this.dispatcher = options.dispatcher ?? providerAgent();
    this.policy = providerPolicy({ retry: options.retry, breaker: options.breaker });
  }

  /**
   * Queries Paystack for `reference` and maps the answer with {@link paystackVerdict}.
   * Never rejects for provider or network failures: those resolve as `unreachable`
   * (`PROVIDER.CIRCUIT_OPEN` when the breaker is open).
   */
  async verify({ reference }: VerificationRequest): Promise<ProviderVerdict> {
    const url = `${this.options.baseUrl.replace(/\/$/, '')}/transaction/verify/${encodeURIComponent(reference)}`;
    return verifyThrough(
      this.policy,
      () =>
        callProvider(this.dispatcher, url, {
          method: 'GET',
          headers: { authorization: `Bearer ${this.options.secretKey.reveal()}`, accept: 'application/json' },
          timeoutMs: this.options.timeoutMs,
        }),
      (answer) => paystackVerdict(answer.status, answer.body),
    );
  }

  /** Closes the connection pool. */

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

import { randomBytes, randomInt } from 'node:crypto';
import { Body, Controller, Get, Headers, Post, Query, Res } from '@nestjs/common';
import { blankIsUnset, int, optionalSecret, type Secret } from '@settle/config';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { basicCredentials, bearerToken, secretEquals } from './credentials.js';
import { toMajorUnits } from './money.js';
import { ProviderController } from './provider.controllers.js';
import { ProviderSimulator } from './provider.simulator.js';
import { behaviourSchema, createTransactionSchema, json, observe, type DeclineReason, type SandboxAnswer, type SandboxTransaction } from './sandbox.core.js';
import { requireTogether } from './sandbox.env.js';
import { simulation } from './simulation.js';
import type { Notifier, OutgoingWebhook } from './webhook-sender.js';

/** What the M-Pesa simulator needs from configuration. */
export interface MpesaSettings {
  consumerKey: Secret;
  consumerSecret: Secret;
  passkey: Secret;
  shortcode: string;
  tokenTtlMs: number;
  /** Its last path segment is the receiver's secret token. */
  callbackUrl: Secret | null;
}

/** Daraja error bodies; the codes and wording in one place, so they are easy to correct. */
export const DARAJA_ERRORS = {
  invalidToken: { status: 401, errorCode: '404.001.03', errorMessage: 'Invalid Access Token' },
  invalidAuthentication: { status: 400, errorCode: '400.008.01', errorMessage: 'Invalid Authentication passed' },
  invalidGrantType: { status: 400, errorCode: '400.008.02', errorMessage: 'Invalid grant type passed' },
  invalidShortcode: { status: 400, errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid BusinessShortCode' },
  invalidTimestamp: { status: 400, errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid Timestamp' },
  invalidPassword: { status: 400, errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid Password' },
  invalidCheckoutRequestId: { status: 400, errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid CheckoutRequestID' },
  processing: { status: 500, errorCode: '500.001.1001', errorMessage: 'The transaction is being processed' },
} as const;

/** Result codes and descriptions of a settled STK push. */
export const MPESA_RESULTS = {
  success: { code: '0', desc: 'The service request is processed successfully.' },
  insufficient_funds: { code: '1', desc: 'The balance is insufficient for the transaction.' },
  wrong_pin: { code: '2001', desc: 'The initiator information is invalid.' },
} as const satisfies Record<'success' | DeclineReason, { code: string; desc: string }>;

/** `YYYYMMDDHHmmss` in Africa/Nairobi time (Daraja's `Timestamp` and `TransactionDate`). */
export function darajaTimestamp(date: Date): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Africa/Nairobi',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '00';
  return `${part('year')}${part('month')}${part('day')}${part('hour')}${part('minute')}${part('second')}`;
}

const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');
const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const ALPHANUMERIC = `${UPPER_ALNUM}abcdefghijklmnopqrstuvwxyz`;

/** An STK callback URL with its secret token (last path segment) replaced, for logs or spoofing. */
export function withCallbackToken(url: string, token: (real: string) => string): string {
  const parsed = new URL(url);
  const segments = parsed.pathname.split('/');
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i];
    if (segment) {
      segments[i] = token(segment);
      break;
    }
  }
  parsed.pathname = segments.join('/');
  return parsed.toString();
}

/**
 * M-Pesa Daraja STK push, simulated (docs/provider-facts.md, M-Pesa):
 * OAuth tokens from `GET /oauth/v1/generate` (Basic consumer key and secret; tokens expire),
 * `POST /mpesa/stkpushquery/v1/query` (Bearer token; `Password` = base64(shortcode + passkey
 * + timestamp) checked), and the unsigned STK callback sent to a URL holding a secret token.
 * The reference is the CheckoutRequestID (`ws_CO_...`). The query answers 500
 * `500.001.1001` while the customer has not answered or the payment is clearing, then a
 * `ResultCode`; the amount and phone come only in the callback (KES major units, phone as a
 * number). Amounts are whole shillings, so `lower_amount` rounds down to a shilling and
 * `other_currency` cannot be simulated (Daraja reports no currency).
 */
export class MpesaSimulator extends ProviderSimulator {
  readonly name = 'mpesa' as const;
  readonly label = 'M-Pesa';
  protected readonly createSchema = createTransactionSchema
    .extend({
      /** The CheckoutRequestID; the sandbox assigns one when it is left out. */
      reference: z
        .string()
        .regex(/^ws_CO_[A-Za-z0-9_]{1,94}$/, 'an M-Pesa reference is the CheckoutRequestID (ws_CO_...)')
        .optional(),
      currency: z.literal('KES', { error: 'M-Pesa charges KES only' }),
      amount: z.number().int().positive().multipleOf(100, { error: 'M-Pesa charges whole shillings: amount (minor units) must be a multiple of 100' }),
      email: z.email().optional(),
      phone: z.string().regex(/^\+?254\d{9}$/, 'phone must be a Kenyan MSISDN (254XXXXXXXXX)'),
      behaviour: behaviourSchema
        .refine((b) => b.outcome !== 'other_currency', { error: 'other_currency cannot be simulated for M-Pesa: Daraja reports no currency' })
        .default(behaviourSchema.parse({})),
    })
    .strict();

  /** Access token -> expiry (epoch milliseconds). */
  private readonly tokens = new Map<string, number>();

  constructor(
    private readonly settings: MpesaSettings,
    notifier: Notifier,
    now: () => number = Date.now,
  ) {
    super(notifier, 1, now);
  }

  protected override newReference(): string {
    const stamp = darajaTimestamp(new Date(this.now()));
    // ws_CO_ + DDMMYYYYHHmmss + digits, like Daraja's ids.
    const ddmmyyyy = `${stamp.slice(6, 8)}${stamp.slice(4, 6)}${stamp.slice(0, 4)}${stamp.slice(8)}`;
    let id = `ws_CO_${ddmmyyyy}${digits(6)}`;
    while (this.book.has(id)) id = `ws_CO_${ddmmyyyy}${digits(6)}`;
    return id;
  }

  protected override newDetails(): Record<string, string | number> {
    return {
      MerchantRequestID: `${randomInt(10_000, 99_999)}-${randomInt(10_000_000, 99_999_999)}-1`,
      MpesaReceiptNumber: Array.from(randomBytes(10), (b) => UPPER_ALNUM[b % UPPER_ALNUM.length]).join(''),
    };
  }

  private error(kind: keyof typeof DARAJA_ERRORS): SandboxAnswer {
    const { status, errorCode, errorMessage } = DARAJA_ERRORS[kind];
    return json(status, { requestId: this.requestId(), errorCode, errorMessage });
  }

  private requestId(): string {
    return `${randomInt(1_000, 99_999)}-${randomInt(1_000_000, 99_999_999)}-1`;
  }

  /** `GET /oauth/v1/generate?grant_type=client_credentials` with Basic consumer key and secret. */
  oauth(authorization: string | undefined, grantType: string | undefined): SandboxAnswer {
    if (grantType !== 'client_credentials') return this.error('invalidGrantType');
    const presented = basicCredentials(authorization);
    // Both halves are compared every time (no short circuit).
    const keyOk = secretEquals(presented?.user, this.settings.consumerKey);
    const secretOk = secretEquals(presented?.password, this.settings.consumerSecret);
    if (!(keyOk && secretOk)) return this.error('invalidAuthentication');
    const now = this.now();
    for (const [token, expiresAt] of this.tokens) if (expiresAt <= now) this.tokens.delete(token);
    const token = Array.from(randomBytes(28), (b) => ALPHANUMERIC[b % ALPHANUMERIC.length]).join('');
    this.tokens.set(token, now + this.settings.tokenTtlMs);
    return json(200, { access_token: token, expires_in: String(Math.floor(this.settings.tokenTtlMs / 1000)) });
  }

  /** Expires every token issued so far (control API knob); returns how many were live. */
  expireTokens(): number {
    const now = this.now();
    let live = 0;
    for (const [token, expiresAt] of this.tokens) {
      if (expiresAt > now) live += 1;
      this.tokens.delete(token);
    }
    return live;
  }

  private tokenValid(authorization: string | undefined): boolean {
    const token = bearerToken(authorization);
    const expiresAt = token === null ? undefined : this.tokens.get(token);
    return expiresAt !== undefined && expiresAt > this.now();
  }

  /** `POST /mpesa/stkpushquery/v1/query`. */
  query(authorization: string | undefined, body: unknown): SandboxAnswer {
    if (!this.tokenValid(authorization)) return this.error('invalidToken');
    const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');
    const shortcode = text(fields.BusinessShortCode);
    const timestamp = text(fields.Timestamp);
    const password = typeof fields.Password === 'string' ? fields.Password : '';
    const checkoutRequestId = typeof fields.CheckoutRequestID === 'string' ? fields.CheckoutRequestID : '';
    if (!secretEquals(shortcode, this.settings.shortcode)) return this.error('invalidShortcode');
    if (!/^\d{14}$/.test(timestamp)) return this.error('invalidTimestamp');
    const expected = Buffer.from(`${this.settings.shortcode}${this.settings.passkey.reveal()}${timestamp}`, 'utf8').toString('base64');
    if (!secretEquals(password, expected)) return this.error('invalidPassword');
    const tx = this.book.get(checkoutRequestId);
    if (!tx) return this.error('invalidCheckoutRequestId');
    const checked = this.check(tx);
    if ('answer' in checked) return checked.answer;
    if (checked.state === 'unpaid' || checked.state === 'clearing') return this.error('processing');
    const result = this.result(tx, checked.state);
    return json(200, {
      ResponseCode: '0',
      // Daraja's own spelling.
      ResponseDescription: 'The service request has been accepted successsfully',
      MerchantRequestID: tx.details?.MerchantRequestID ?? '',
      CheckoutRequestID: tx.reference,
      ResultCode: result.code,
      ResultDesc: result.desc,
    });
  }

  private result(tx: SandboxTransaction, state: 'succeeded' | 'declined'): { code: string; desc: string } {
    return state === 'succeeded' ? MPESA_RESULTS.success : MPESA_RESULTS[tx.behaviour.decline ?? 'insufficient_funds'];
  }

  /** The STK callback body (`Body.stkCallback`); metadata only for a successful payment. */
  callback(tx: SandboxTransaction, state: 'succeeded' | 'declined'): Record<string, unknown> {
    const result = this.result(tx, state);
    const seen = observe(tx, 100);
    const stkCallback: Record<string, unknown> = {
      MerchantRequestID: tx.details?.MerchantRequestID ?? '',
      CheckoutRequestID: tx.reference,
      ResultCode: Number(result.code),
      ResultDesc: result.desc,
    };
    if (state === 'succeeded') {
      stkCallback.CallbackMetadata = {
        Item: [
          { Name: 'Amount', Value: toMajorUnits(seen.amount, 'KES') },
          { Name: 'MpesaReceiptNumber', Value: tx.details?.MpesaReceiptNumber ?? '' },
          { Name: 'TransactionDate', Value: Number(darajaTimestamp(new Date(tx.paidAt ?? this.now()))) },
          { Name: 'PhoneNumber', Value: Number((seen.phone ?? '').replace(/\D/g, '')) },
        ],
      };
    }
    return { Body: { stkCallback } };
  }

  protected gatewayFailure(status: 502 | 504): unknown {
    return { requestId: this.requestId(), errorMessage: status === 502 ? 'Bad Gateway' : 'Gateway Timeout' };
  }

  /** The STK callback, to the configured URL (a wrong token in it when spoofing). */
  protected notification(tx: SandboxTransaction, state: 'succeeded' | 'declined'): (() => OutgoingWebhook) | null {
    const callbackUrl = this.settings.callbackUrl;
    if (!callbackUrl) return null;
    return () => {
      const real = callbackUrl.reveal();
      const url = tx.behaviour.webhook === 'spoof' ? withCallbackToken(real, spoofToken) : real;
      return { url, target: withCallbackToken(real, () => 'REDACTED'), headers: {}, body: JSON.stringify(this.callback(tx, state)) };
    };
  }
}

/** A random token as long as `real` and different from it. */
function spoofToken(real: string): string {
  let token = real;
  while (token === real) token = randomBytes(real.length).toString('base64url').slice(0, real.length);
  return token;
}

/** M-Pesa Daraja: OAuth token and STK push query. 503 when M-Pesa is not configured. */
@Controller()
export class MpesaController extends ProviderController {
  @Get('oauth/v1/generate')
  oauth(@Query('grant_type') grantType: string | undefined, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<MpesaSimulator>(reply, 'mpesa', (mpesa) => mpesa.oauth(authorization, grantType));
  }

  @Post('mpesa/stkpushquery/v1/query')
  query(@Body() body: unknown, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<MpesaSimulator>(reply, 'mpesa', (mpesa) => mpesa.query(authorization, body));
  }

  /** Control API: expires every M-Pesa OAuth token issued so far (to test token renewal). */
  @Post('_sandbox/mpesa/oauth/expire')
  expireTokens(@Res() reply: FastifyReply) {
    return this.answer<MpesaSimulator>(reply, 'mpesa', (mpesa) => json(200, { expired: mpesa.expireTokens() }));
  }
}

/** M-Pesa's sandbox variables: on when its three credentials are set (all or none). */
export const mpesaSandboxEnv = z
  .object({
    MPESA_CONSUMER_KEY: optionalSecret('MPESA_CONSUMER_KEY').meta({
      description: 'Daraja app consumer key (OAuth Basic credentials, with the consumer secret).',
    }),
    MPESA_CONSUMER_SECRET: optionalSecret('MPESA_CONSUMER_SECRET').meta({
      description: 'Daraja app consumer secret (OAuth Basic credentials, with the consumer key).',
    }),
    MPESA_PASSKEY: optionalSecret('MPESA_PASSKEY').meta({
      description: 'Lipa na M-Pesa Online passkey: `Password` = base64(shortcode + passkey + timestamp).',
    }),
    MPESA_SHORTCODE: z
      .preprocess(
        blankIsUnset,
        z
          .string()
          .trim()
          .regex(/^\d{5,7}$/, 'MPESA_SHORTCODE must be 5 to 7 digits')
          .default('174379'),
      )
      .meta({ description: "The business shortcode queries must name (Daraja's sandbox uses 174379)." }),
    SANDBOX_MPESA_CALLBACK_URL: optionalSecret('SANDBOX_MPESA_CALLBACK_URL', {
      test: (v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol) && new URL(v).pathname.split('/').some(Boolean),
      hint: 'be an http(s) URL ending in a secret token path segment',
    }).meta({
      description:
        'Where STK callbacks are delivered. Its last path segment is the secret token the receiver checks (callbacks carry no signature), so the whole URL is a secret.',
    }),
    SANDBOX_MPESA_TOKEN_TTL_MS: int(3_599_000, 1).meta({ description: 'Lifetime of an M-Pesa OAuth token, milliseconds (Daraja: about an hour).' }),
  })
  .superRefine(
    requireTogether({
      any: ['MPESA_CONSUMER_KEY', 'MPESA_CONSUMER_SECRET', 'MPESA_PASSKEY', 'SANDBOX_MPESA_CALLBACK_URL'],
      requires: ['MPESA_CONSUMER_KEY', 'MPESA_CONSUMER_SECRET', 'MPESA_PASSKEY'],
    }),
  );

/** M-Pesa in the sandbox: on with its three credentials; callbacks sent when its callback URL is set. */
export const mpesaSimulation = simulation({
  name: 'mpesa',
  label: 'M-Pesa',
  env: mpesaSandboxEnv,
  switchOn: 'MPESA_CONSUMER_KEY, MPESA_CONSUMER_SECRET and MPESA_PASSKEY',
  webhookUrlVariable: 'SANDBOX_MPESA_CALLBACK_URL',
  settings: (e): MpesaSettings | null =>
    e.MPESA_CONSUMER_KEY && e.MPESA_CONSUMER_SECRET && e.MPESA_PASSKEY
      ? {
          consumerKey: e.MPESA_CONSUMER_KEY,
          consumerSecret: e.MPESA_CONSUMER_SECRET,
          passkey: e.MPESA_PASSKEY,
          shortcode: e.MPESA_SHORTCODE,
          tokenTtlMs: e.SANDBOX_MPESA_TOKEN_TTL_MS,
          callbackUrl: e.SANDBOX_MPESA_CALLBACK_URL ?? null,
        }
      : null,
  describe: (settings) => `on, callbacks ${settings.callbackUrl ? 'on' : 'off (SANDBOX_MPESA_CALLBACK_URL unset)'}`,
  create: (settings, notifier, now) => new MpesaSimulator(settings, notifier, now),
  controllers: [MpesaController],
});

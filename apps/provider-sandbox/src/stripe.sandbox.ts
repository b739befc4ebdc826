import { createHmac, randomBytes } from 'node:crypto';
import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { optionalSecret, optionalUrl, type Secret } from '@settle/config';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { bearerToken, secretEquals } from './credentials.js';
import { ProviderController } from './provider.controllers.js';
import { ProviderSimulator } from './provider.simulator.js';
import { createTransactionSchema, json, observe, type DeclineReason, type PaymentState, type SandboxAnswer, type SandboxTransaction } from './sandbox.core.js';
import { requireTogether } from './sandbox.env.js';
import { simulation } from './simulation.js';
import type { Notifier, OutgoingWebhook } from './webhook-sender.js';
import { queryInteger, queryText, type ListQuery } from './sandbox.list.js';
import type { CreateRequest, TimeIndex } from './sandbox.core.js';

/** What the Stripe simulator needs from configuration. */
export interface StripeSettings {
  secretKey: Secret;
  webhook: { url: string; secret: Secret } | null;
}

/** The API version stamped on events. */
export const STRIPE_API_VERSION = '2024-06-20';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A Stripe-looking object id: prefix, underscore, 24 alphanumerics. */
export function stripeId(prefix: string): string {
  return `${prefix}_${Array.from(randomBytes(24), (b) => ALPHANUMERIC[b % ALPHANUMERIC.length]).join('')}`;
}

const STATUS: Record<PaymentState, string> = {
  unpaid: 'requires_payment_method',
  declined: 'requires_payment_method',
  clearing: 'processing',
  succeeded: 'succeeded',
};

const DECLINES: Record<DeclineReason, { decline_code: string; message: string }> = {
  insufficient_funds: { decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  wrong_pin: { decline_code: 'incorrect_pin', message: 'Your card was declined.' },
};

/**
 * `Stripe-Signature` header value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`,
 * keyed with the endpoint secret (the whole `whsec_...` string).
 */
export function stripeSignature(body: string, secret: string, timestamp: number): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

/**
 * Stripe PaymentIntents, simulated (docs/provider-facts.md, Stripe):
 * `GET /v1/payment_intents/:id` with the secret key as Bearer, and `payment_intent.succeeded`
 * / `payment_intent.payment_failed` events signed with `Stripe-Signature`. The transaction's
 * reference is the `pi_` id (assigned by the sandbox when the create request names none).
 * Amounts are minor units; `currency` is lower case. A decline leaves the intent in
 * `requires_payment_method` with `last_payment_error`; `processing` means still clearing.
 */
export class StripeSimulator extends ProviderSimulator {
  readonly name = 'stripe' as const;
  readonly label = 'Stripe';
  protected readonly createSchema = createTransactionSchema.extend({
    /** The PaymentIntent id; the sandbox assigns one when it is left out. */
    reference: z
      .string()
      .regex(/^pi_[A-Za-z0-9]{1,97}$/, 'a Stripe reference is the PaymentIntent id (pi_ and letters or digits)')
      .optional(),
  });

  constructor(
    private readonly settings: StripeSettings,
    notifier: Notifier,
    now: () => number = Date.now,
  ) {
    super(notifier, 1, now);
  }

  protected override newReference(): string {
    let id = stripeId('pi');
    while (this.book.has(id)) id = stripeId('pi');
    return id;
  }

  protected override newDetails(tx: CreateRequest & { reference: string }): Record<string, string | number> {
    return { latest_charge: stripeId('ch'), payment_method: stripeId('pm'), created: Math.floor((tx.createdAtMs ?? this.now()) / 1000) };
  }

  /** The PaymentIntent object as `GET /v1/payment_intents/:id` returns it in a given state. */
  paymentIntent(tx: SandboxTransaction, state: PaymentState): Record<string, unknown> {
    const seen = observe(tx);
    const charge = String(tx.details?.latest_charge ?? '');
    const paymentMethod = String(tx.details?.payment_method ?? '');
    const decline = DECLINES[tx.behaviour.decline ?? 'insufficient_funds'];
    return {
      id: tx.reference,
      object: 'payment_intent',
      amount: seen.amount,
      amount_capturable: 0,
      amount_received: state === 'succeeded' ? seen.amount : 0,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: 'automatic',
      confirmation_method: 'automatic',
      created: tx.details?.created ?? 0,
      currency: seen.currency.toLowerCase(),
      customer: null,
      description: null,
      last_payment_error:
        state === 'declined'
          ? {
              type: 'card_error',
              code: 'card_declined',
              decline_code: decline.decline_code,
              message: decline.message,
              charge,
              payment_method: { id: paymentMethod, object: 'payment_method', type: 'card' },
            }
          : null,
      latest_charge: state === 'unpaid' ? null : charge,
      livemode: false,
      metadata: seen.phone ? { phone: seen.phone } : {},
      payment_method: state === 'clearing' || state === 'succeeded' ? paymentMethod : null,
      payment_method_types: ['card'],
      receipt_email: seen.email,
      status: STATUS[state],
    };
  }

  /** `GET /v1/payment_intents/:id`. */
  retrieve(authorization: string | undefined, id: string): SandboxAnswer {
    const presented = bearerToken(authorization);
    if (presented === null) {
      return json(401, {
        error: {
          type: 'invalid_request_error',
          message:
            "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
        },
      });
    }
    if (!secretEquals(presented, this.settings.secretKey)) {
      return json(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } });
    }
    const tx = this.book.get(id);
    if (!tx) {
      return json(404, {
        error: {
          code: 'resource_missing',
          doc_url: 'https://stripe.com/docs/error-codes/resource-missing',
          message: `No such payment_intent: '${id}'`,
          param: 'intent',
          type: 'invalid_request_error',
        },
      });
    }
    const checked = this.check(tx);
    if ('answer' in checked) return checked.answer;
    return json(200, this.paymentIntent(tx, checked.state));
  }

  protected gatewayFailure(status: 502 | 504): unknown {
    return { error: { type: 'api_error', message: status === 502 ? 'Bad Gateway' : 'Gateway Timeout' } };
  }

  /** `payment_intent.succeeded` or `payment_intent.payment_failed`, signed (with a wrong secret when spoofing). */
  protected notification(tx: SandboxTransaction, state: 'succeeded' | 'declined'): (() => OutgoingWebhook) | null {
    const webhook = this.settings.webhook;
    if (!webhook) return null;
    return () => {
      const created = Math.floor(this.now() / 1000);
      const body = JSON.stringify({
        id: stripeId('evt'),
        object: 'event',
        api_version: STRIPE_API_VERSION,
        created,
        data: { object: this.paymentIntent(tx, state) },
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type: state === 'succeeded' ? 'payment_intent.succeeded' : 'payment_intent.payment_failed',
      });
      const secret = tx.behaviour.webhook === 'spoof' ? `whsec_${randomBytes(24).toString('base64url')}` : webhook.secret.reveal();
      return { url: webhook.url, target: webhook.url, headers: { 'stripe-signature': stripeSignature(body, secret, created) }, body };
    };
  }

  /** Stripe creates the PaymentIntent when the checkout starts: its list is by creation time. */
  protected override listIndex(): TimeIndex {
    return this.book.created;
  }

  /** A bulk-seeded intent's id: `pi_<prefix><n>`. */
  protected override bulkReference(prefix: string, n: number): string {
    return `pi_${prefix}${n}`;
  }

  protected override bulkPrefixProblem(prefix: string): string | null {
    return /^[A-Za-z0-9]+$/.test(prefix) ? null : 'a Stripe reference prefix is letters and digits only (the ids are pi_<prefix><n>)';
  }

  /**
   * One intent as `GET /v1/payment_intents` lists it: the PaymentIntent object of retrieval (the
   * same builder) in its current state, consuming nothing (`peek`), with its metadata. A reversal
   * (refund, dispute) does not show: the intent stays `succeeded`, as Stripe's does.
   */
  listItem(tx: SandboxTransaction): Record<string, unknown> {
    const intent = this.paymentIntent(tx, this.book.peek(tx));
    return tx.metadata ? { ...intent, metadata: { ...(intent.metadata as Record<string, string>), ...tx.metadata } } : intent;
  }

  private listRefused(authorization: string | undefined): SandboxAnswer | null {
    const presented = bearerToken(authorization);
    if (presented === null) {
      return json(401, {
        error: {
          type: 'invalid_request_error',
          message: 'You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth.',
        },
      });
    }
    if (!secretEquals(presented, this.settings.secretKey)) return json(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } });
    return null;
  }

  /**
   * `GET /v1/payment_intents?created[gte|gt|lte|lt]=<unix s>&limit=&starting_after=`
   * (docs/provider-facts.md, Stripe, "List all PaymentIntents"): Bearer secret key (401
   * otherwise), newest first, `limit` 1 to 100 (default 10; 400 outside), `{ object: "list",
   * data, has_more, url }`. `starting_after` continues after an intent of a previous page, so a
   * page never repeats or skips an intent whatever is created meanwhile. `expand[]` is accepted
   * and ignored (the charge stays an id, as in retrieval); `ending_before` is not simulated (400).
   */
  list(authorization: string | undefined, query: ListQuery): SandboxAnswer {
    const refused = this.listRefused(authorization);
    if (refused) return refused;
    const failure = this.listFailure();
    if (failure) return failure;
    const invalid = (param: string, message: string) =>
      json(400, { error: { type: 'invalid_request_error', code: 'parameter_invalid_integer', param, message } });
    const limit = queryInteger(query, 'limit') ?? 10;
    if (limit === null || limit < 1 || limit > 100) return invalid('limit', 'This value must be greater than or equal to 1 and less than or equal to 100.');
    const created: Record<string, number | undefined> = {};
    for (const param of ['created', 'created[gte]', 'created[gt]', 'created[lte]', 'created[lt]']) {
      const seconds = queryInteger(query, param);
      if (seconds === null) return invalid(param, 'Invalid integer');
      created[param] = seconds;
    }
    const ms = (seconds: number | undefined, plus = 0) => (seconds === undefined ? [] : [(seconds + plus) * 1000]);
    // `created` is whole seconds: an intent created at 1.5 s has created 1, so `created[lte]=1` ends at 2000 ms.
    const fromMs = Math.max(Number.MIN_SAFE_INTEGER, ...ms(created.created), ...ms(created['created[gte]']), ...ms(created['created[gt]'], 1));
    const untilMs = Math.min(Number.MAX_SAFE_INTEGER, ...ms(created.created, 1), ...ms(created['created[lte]'], 1), ...ms(created['created[lt]']));
    if (queryText(query, 'ending_before') !== undefined) {
      return json(400, { error: { type: 'invalid_request_error', param: 'ending_before', message: 'ending_before is not simulated by the sandbox' } });
    }
    const index = this.book.created;
    const { lo, hi } = index.range(fromMs, Math.max(fromMs, untilMs));
    let end = hi;
    const after = queryText(query, 'starting_after');
    if (after !== undefined) {
      const tx = this.book.get(after);
      const position = tx ? index.positionOf(tx, Date.parse(tx.createdAt)) : -1;
      if (position < 0) {
        return json(400, {
          error: { type: 'invalid_request_error', code: 'resource_missing', param: 'starting_after', message: `No such payment_intent: '${after}'` },
        });
      }
      end = Math.max(lo, Math.min(hi, position));
    }
    const page = index.newestFirst(lo, end, 0, limit);
    return json(200, { object: 'list', data: page.map((tx) => this.listItem(tx)), has_more: end - lo > page.length, url: '/v1/payment_intents' });
  }

  /** Stripe's error shape for a list call failed on purpose. */
  protected override listErrorBody(status: number): unknown {
    return status === 429
      ? { error: { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests hit the API too quickly.' } }
      : { error: { type: 'api_error', message: 'An unknown error occurred.' } };
  }
}

/** Stripe's PaymentIntent retrieval (`Authorization: Bearer sk_...`). 503 when Stripe is not configured. */
@Controller('v1')
export class StripeController extends ProviderController {
  @Get('payment_intents/:id')
  retrieve(@Param('id') id: string, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<StripeSimulator>(reply, 'stripe', (stripe) => stripe.retrieve(authorization, id));
  }

  @Get('payment_intents')
  list(@Query() query: ListQuery, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<StripeSimulator>(reply, 'stripe', (stripe) => stripe.list(authorization, query));
  }
}

/**
 * Stripe's sandbox variables: on when its secret key is set; a webhook URL needs its signing
 * secret.
 */
export const stripeSandboxEnv = z
  .object({
    STRIPE_SECRET_KEY: optionalSecret('STRIPE_SECRET_KEY', { test: (v) => /^sk_\S+$/.test(v), hint: 'start with sk_' }).meta({
      description: 'Stripe secret key expected as `Authorization: Bearer sk_...`.',
    }),
    STRIPE_WEBHOOK_SECRET: optionalSecret('STRIPE_WEBHOOK_SECRET', { test: (v) => /^whsec_\S+$/.test(v), hint: 'start with whsec_' }).meta({
      description: 'Stripe webhook endpoint secret the `Stripe-Signature` header is computed with.',
    }),
    SANDBOX_STRIPE_WEBHOOK_URL: optionalUrl('SANDBOX_STRIPE_WEBHOOK_URL').meta({
      description: 'Where `payment_intent.*` events are delivered; unset: none are sent.',
    }),
  })
  .superRefine(
    requireTogether({
      any: ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'SANDBOX_STRIPE_WEBHOOK_URL'],
      requires: ['STRIPE_SECRET_KEY'],
      webhook: { url: 'SANDBOX_STRIPE_WEBHOOK_URL', secret: 'STRIPE_WEBHOOK_SECRET' },
    }),
  );

/** Stripe in the sandbox: on with its secret key; events sent when its webhook URL is set. */
export const stripeSimulation = simulation({
  name: 'stripe',
  label: 'Stripe',
  env: stripeSandboxEnv,
  switchOn: 'STRIPE_SECRET_KEY',
  webhookUrlVariable: 'SANDBOX_STRIPE_WEBHOOK_URL',
  settings: (e): StripeSettings | null =>
    e.STRIPE_SECRET_KEY
      ? {
          secretKey: e.STRIPE_SECRET_KEY,
          webhook: e.SANDBOX_STRIPE_WEBHOOK_URL && e.STRIPE_WEBHOOK_SECRET ? { url: e.SANDBOX_STRIPE_WEBHOOK_URL, secret: e.STRIPE_WEBHOOK_SECRET } : null,
        }
      : null,
  describe: (settings) => `on, webhooks ${settings.webhook ? 'on' : 'off (SANDBOX_STRIPE_WEBHOOK_URL unset)'}`,
  create: (settings, notifier, now) => new StripeSimulator(settings, notifier, now),
  controllers: [StripeController],
});

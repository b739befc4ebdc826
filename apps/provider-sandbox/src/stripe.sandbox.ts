import { createHmac, randomBytes } from 'node:crypto';
import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { optionalSecret, optionalUrl, type Secret } from '@settle/config';
import type { FastifyReply } from 'fastify';
import type Stripe from 'stripe';
import { z } from 'zod';
import { bearerToken, secretEquals } from './credentials.js';
import { ProviderController } from './provider.controllers.js';
import { ProviderSimulator } from './provider.simulator.js';
import {
  createTransactionSchema,
  json,
  observe,
  type DeclineReason,
  type PaymentState,
  type SandboxAnswer,
  type SandboxDispute,
  type SandboxRefund,
  type SandboxTransaction,
} from './sandbox.core.js';
import { listStripeMovements, retrieveStripeDispute, retrieveStripeRefund, stripeCreatedWindow, stripeDispute, stripeRefund } from './stripe.movements.js';
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

/**
 * The Stripe API version whose shapes the sandbox answers (and stamps on its events): the one the
 * `stripe` npm package's types are written for. Those types are the sandbox's contract: every
 * object it answers is typed with them (a field they require that a builder leaves out fails the
 * build), and `apps/provider-sandbox/test/stripe.contract.int.spec.ts` checks the JSON answered
 * over HTTP against a schema generated from them (docs/providers.md, "The sandbox").
 */
export const STRIPE_API_VERSION = '2026-10-28.endive' satisfies Stripe.LatestApiVersion;

/** Stripe's error envelope, as the sandbox answers it: `error.type` and `error.message` always present. */
export interface StripeErrorBody {
  error: Stripe.StripeRawError & { type: Stripe.RawErrorType; message: string };
}

/**
 * The `expand[]` values of a request's query as Fastify parses it: `expand[]=a` (Settle's
 * adapter), `expand[0]=a` (Stripe's Node client), or `expand=a`, once or repeated.
 */
export function stripeExpansions(query: Readonly<Record<string, unknown>> | undefined): string[] {
  return Object.entries(query ?? {})
    .filter(([key]) => /^expand(\[\d*\])?$/.test(key))
    .flatMap(([, value]) => (Array.isArray(value) ? (value as unknown[]) : [value]))
    .filter((value): value is string => typeof value === 'string');
}

/**
 * The body of Stripe's 404 for a URL it does not route (`invalid_request_error`, "Unrecognized
 * request URL"), which its clients read as an error of the API rather than of the network.
 */
export function stripeUnknownRoute(method: string, path: string): StripeErrorBody {
  return {
    error: {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    },
  };
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A Stripe-looking object id: prefix, underscore, 24 alphanumerics. */
export function stripeId(prefix: string): string {
  return `${prefix}_${Array.from(randomBytes(24), (b) => ALPHANUMERIC[b % ALPHANUMERIC.length]).join('')}`;
}

const STATUS: Record<PaymentState, Stripe.PaymentIntent.Status> = {
  unpaid: 'requires_payment_method',
  declined: 'requires_payment_method',
  clearing: 'processing',
  succeeded: 'succeeded',
};

/** How each decline reads: its decline code and message, and the last digits of Stripe's test card that gives it. */
const DECLINES: Record<DeclineReason, { decline_code: string; message: string; last4: string }> = {
  insufficient_funds: { decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.', last4: '9995' },
  wrong_pin: { decline_code: 'incorrect_pin', message: 'Your card was declined.', last4: '0002' },
};

/** The card the sandbox's customers pay with when nothing declines it (Stripe's Visa test card). */
const CARD = { brand: 'visa', country: 'US', exp_month: 12, exp_year: 2034, funding: 'credit', last4: '4242' } as const;

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
    /**
     * Whether the intent carries the customer's email as `receipt_email` (the default); `false`:
     * only its charge's `billing_details.email` does, as when the payment form collected it.
     */
    receipt_email: z.boolean().default(true),
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

  protected override newDetails(input: CreateRequest & { reference: string; receipt_email?: boolean }): Record<string, string | number> {
    return {
      latest_charge: stripeId('ch'),
      payment_method: stripeId('pm'),
      balance_transaction: stripeId('txn'),
      client_secret: `${input.reference}_secret_${stripeId('x').slice(2)}`,
      fingerprint: randomBytes(8).toString('hex'),
      // A bulk-seeded intent was created at its own instant (the lists), any other one now.
      created: Math.floor((input.createdAtMs ?? this.now()) / 1000),
      receipt_email: input.receipt_email === false ? 0 : 1,
    };
  }

  /**
   * The PaymentIntent object as `GET /v1/payment_intents/:id` returns it in a given state, at
   * {@link STRIPE_API_VERSION}; with `expand` naming `latest_charge`, the charge is the
   * {@link charge} object instead of its id.
   */
  paymentIntent(tx: SandboxTransaction, state: PaymentState, expand: readonly string[] = []): Stripe.PaymentIntent {
    const seen = observe(tx);
    const chargeId = String(tx.details?.latest_charge ?? '');
    const paymentMethod = String(tx.details?.payment_method ?? '');
    const decline = DECLINES[tx.behaviour.decline ?? 'insufficient_funds'];
    return {
      id: tx.reference,
      object: 'payment_intent',
      allowed_payment_method_types: null,
      amount: seen.amount,
      amount_capturable: 0,
      amount_received: state === 'succeeded' ? seen.amount : 0,
      application: null,
      application_fee_amount: null,
      automatic_payment_methods: null,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: 'automatic_async',
      client_secret: String(tx.details?.client_secret ?? `${tx.reference}_secret`),
      confirmation_method: 'automatic',
      created: Number(tx.details?.created ?? 0),
      currency: seen.currency.toLowerCase(),
      customer: null,
      customer_account: null,
      description: null,
      excluded_payment_method_types: null,
      last_payment_error:
        state === 'declined'
          ? {
              type: 'card_error',
              code: 'card_declined',
              decline_code: decline.decline_code,
              doc_url: 'https://stripe.com/docs/error-codes/card-declined',
              message: decline.message,
              charge: chargeId,
              payment_method: this.paymentMethod(tx),
            }
          : null,
      latest_charge: state === 'unpaid' ? null : expand.includes('latest_charge') ? this.charge(tx, state) : chargeId,
      livemode: false,
      managed_payments: null,
      metadata: seen.phone ? { phone: seen.phone } : {},
      next_action: null,
      on_behalf_of: null,
      payment_method: state === 'clearing' || state === 'succeeded' ? paymentMethod : null,
      payment_method_configuration_details: null,
      payment_method_options: { card: { installments: null, mandate_options: null, network: null, request_three_d_secure: 'automatic' } },
      payment_method_types: ['card'],
      payment_record: null,
      processing: null,
      receipt_email: tx.details?.receipt_email === 0 ? null : seen.email,
      review: null,
      setup_future_usage: null,
      shipping: null,
      source: null,
      statement_descriptor: null,
      statement_descriptor_suffix: null,
      status: STATUS[state],
      transfer_group: null,
    };
  }

  /**
   * The intent's latest Charge, as `expand[]=latest_charge` embeds it: `failed` for a decline,
   * `pending` while the payment clears, `succeeded` once it has; its `billing_details.email` is
   * the customer's email as the provider saw it.
   */
  charge(tx: SandboxTransaction, state: Exclude<PaymentState, 'unpaid'>): Stripe.Charge {
    const seen = observe(tx);
    const succeeded = state === 'succeeded';
    const declined = state === 'declined';
    const decline = DECLINES[tx.behaviour.decline ?? 'insufficient_funds'];
    return {
      id: String(tx.details?.latest_charge ?? ''),
      object: 'charge',
      amount: seen.amount,
      amount_captured: succeeded ? seen.amount : 0,
      amount_refunded: 0,
      application: null,
      application_fee: null,
      application_fee_amount: null,
      balance_transaction: succeeded ? String(tx.details?.balance_transaction ?? '') : null,
      billing_details: this.billingDetails(seen.email),
      calculated_statement_descriptor: 'SETTLE SANDBOX',
      captured: succeeded,
      created: Number(tx.details?.created ?? 0),
      currency: seen.currency.toLowerCase(),
      customer: null,
      description: null,
      disputed: false,
      failure_balance_transaction: null,
      failure_code: declined ? 'card_declined' : null,
      failure_message: declined ? decline.message : null,
      fraud_details: {},
      livemode: false,
      metadata: {},
      on_behalf_of: null,
      outcome: succeeded
        ? {
            advice_code: null,
            network_advice_code: null,
            network_decline_code: null,
            network_status: 'approved_by_network',
            reason: null,
            risk_level: 'normal',
            seller_message: 'Payment complete.',
            type: 'authorized',
          }
        : declined
          ? {
              advice_code: 'try_again_later',
              network_advice_code: null,
              network_decline_code: null,
              network_status: 'declined_by_network',
              reason: decline.decline_code,
              risk_level: 'normal',
              seller_message: `The bank returned the decline code \`${decline.decline_code}\`.`,
              type: 'issuer_declined',
            }
          : null,
      paid: succeeded,
      payment_intent: tx.reference,
      payment_method: String(tx.details?.payment_method ?? ''),
      payment_method_details: {
        type: 'card',
        card: {
          ...this.card(tx),
          amount_authorized: succeeded ? seen.amount : null,
          authorization_code: succeeded ? '123456' : null,
          checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
          electronic_commerce_indicator: null,
          installments: null,
          mandate: null,
          network: CARD.brand,
          network_transaction_id: succeeded ? '1041029786787710' : null,
          three_d_secure: null,
          transaction_link_id: null,
          wallet: null,
        },
      },
      receipt_email: tx.details?.receipt_email === 0 ? null : seen.email,
      receipt_number: null,
      receipt_url: null,
      refunded: false,
      review: null,
      shipping: null,
      source: null,
      source_transfer: null,
      statement_descriptor: null,
      statement_descriptor_suffix: null,
      status: succeeded ? 'succeeded' : declined ? 'failed' : 'pending',
      transfer_data: null,
      transfer_group: null,
    };
  }

  /** The card PaymentMethod the customer paid (or tried to pay) with, as a decline's `last_payment_error` embeds it. */
  paymentMethod(tx: SandboxTransaction): Stripe.PaymentMethod {
    const { email } = observe(tx);
    const { brand, country, exp_month, exp_year, funding, last4, fingerprint } = this.card(tx);
    return {
      id: String(tx.details?.payment_method ?? ''),
      object: 'payment_method',
      allow_redisplay: 'unspecified',
      billing_details: this.billingDetails(email),
      card: {
        brand,
        checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
        country,
        display_brand: brand,
        exp_month,
        exp_year,
        fingerprint,
        funding,
        generated_from: null,
        last4,
        networks: { available: [brand], preferred: null },
        regulated_status: 'unregulated',
        three_d_secure_usage: { supported: true },
        wallet: null,
      },
      created: Number(tx.details?.created ?? 0),
      customer: null,
      customer_account: null,
      livemode: false,
      metadata: {},
      type: 'card',
    };
  }

  /** The card's own facts (brand, country, expiry, funding, last digits; a declining test card for a decline). */
  private card(tx: SandboxTransaction) {
    const last4 = tx.behaviour.outcome === 'declined' ? DECLINES[tx.behaviour.decline ?? 'insufficient_funds'].last4 : CARD.last4;
    return { ...CARD, last4, fingerprint: String(tx.details?.fingerprint ?? ''), regulated_status: 'unregulated' as const };
  }

  /** Billing details as a card payment form collects them: the email, nothing else. */
  private billingDetails(email: string | null): Stripe.Charge.BillingDetails {
    return {
      address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
      email,
      name: null,
      phone: null,
      tax_id: null,
    };
  }

  /**
   * `GET /v1/payment_intents/:id`, with the `expand[]` values of its query ({@link stripeExpansions}).
   * Errors answer in Stripe's error envelope ({@link StripeErrorBody}).
   */
  retrieve(authorization: string | undefined, id: string, expand: readonly string[] = []): SandboxAnswer {
    const presented = bearerToken(authorization);
    if (presented === null) {
      return json(401, {
        error: {
          type: 'invalid_request_error',
          message:
            "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
        },
      } satisfies StripeErrorBody);
    }
    if (!secretEquals(presented, this.settings.secretKey)) {
      return json(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } } satisfies StripeErrorBody);
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
      } satisfies StripeErrorBody);
    }
    const checked = this.check(tx);
    if ('answer' in checked) return checked.answer;
    return json(200, this.paymentIntent(tx, checked.state, expand));
  }

  protected gatewayFailure(status: 502 | 504): StripeErrorBody {
    return { error: { type: 'api_error', message: status === 502 ? 'Bad Gateway' : 'Gateway Timeout' } };
  }

  /** `payment_intent.succeeded` or `payment_intent.payment_failed`, signed (with a wrong secret when spoofing). */
  protected notification(tx: SandboxTransaction, state: 'succeeded' | 'declined'): (() => OutgoingWebhook) | null {
    const webhook = this.settings.webhook;
    if (!webhook) return null;
    return () => {
      const created = Math.floor(this.now() / 1000);
      const event: Stripe.PaymentIntentSucceededEvent | Stripe.PaymentIntentPaymentFailedEvent = {
        id: stripeId('evt'),
        object: 'event',
        api_version: STRIPE_API_VERSION,
        created,
        data: { object: this.paymentIntent(tx, state) },
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type: state === 'succeeded' ? 'payment_intent.succeeded' : 'payment_intent.payment_failed',
      };
      const body = JSON.stringify(event);
      const secret = tx.behaviour.webhook === 'spoof' ? `whsec_${randomBytes(24).toString('base64url')}` : webhook.secret.reveal();
      return { url: webhook.url, target: webhook.url, headers: { 'stripe-signature': stripeSignature(body, secret, created) }, body };
    };
  }

  /** Stripe's refund and dispute ids: `re_...`, `dp_...`. */
  protected override newMovementId(kind: 'refund' | 'dispute'): string {
    return stripeId(kind === 'refund' ? 're' : 'dp');
  }

  /** `refund.created` for a new refund, `refund.updated` when its status moves on, `refund.failed` when it fails; the Refund object as `data.object`. */
  protected override refundNotification(
    _tx: SandboxTransaction,
    refund: SandboxRefund,
    change: 'created' | 'updated',
  ): ((tx: SandboxTransaction) => OutgoingWebhook) | null {
    const type = refund.status === 'failed' ? 'refund.failed' : change === 'created' ? 'refund.created' : 'refund.updated';
    return this.movementEvent(type, (tx) => stripeRefund(tx, refund));
  }

  /** `charge.dispute.created` for a new dispute, `charge.dispute.closed` once it is decided; the Dispute object as `data.object`. */
  protected override disputeNotification(_tx: SandboxTransaction, dispute: SandboxDispute): ((tx: SandboxTransaction) => OutgoingWebhook) | null {
    return this.movementEvent(dispute.status === 'open' ? 'charge.dispute.created' : 'charge.dispute.closed', (tx) => stripeDispute(tx, dispute));
  }

  /** A signed event carrying a refund or a dispute (signed with a wrong secret when the control request says `spoof`). */
  private movementEvent(
    type: string,
    object: (tx: SandboxTransaction) => Stripe.Refund | Stripe.Dispute,
  ): ((tx: SandboxTransaction) => OutgoingWebhook) | null {
    const webhook = this.settings.webhook;
    if (!webhook) return null;
    return (tx) => {
      const created = Math.floor(this.now() / 1000);
      const event = {
        id: stripeId('evt'),
        object: 'event',
        api_version: STRIPE_API_VERSION,
        created,
        data: { object: object(tx) },
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
      } satisfies Omit<Stripe.Event, 'type' | 'data'> & { type: string; data: { object: Stripe.Refund | Stripe.Dispute } };
      const body = JSON.stringify(event);
      const secret = tx.behaviour.webhook === 'spoof' ? `whsec_${randomBytes(24).toString('base64url')}` : webhook.secret.reveal();
      return { url: webhook.url, target: webhook.url, headers: { 'stripe-signature': stripeSignature(body, secret, created) }, body };
    };
  }

  /** The key check of `GET /v1/refunds`, `GET /v1/disputes` and their reads by id (stripe.movements.ts): the list's. */
  protected override refuseKey(authorization: string | undefined): SandboxAnswer | null {
    return this.listRefused(authorization);
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
  listItem(tx: SandboxTransaction, expand: readonly string[] = []): Stripe.PaymentIntent {
    const intent = this.paymentIntent(tx, this.book.peek(tx), expand);
    return tx.metadata ? { ...intent, metadata: { ...intent.metadata, ...tx.metadata } } : intent;
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
   * page never repeats or skips an intent whatever is created meanwhile. `expand[]=data.latest_charge`
   * embeds each intent's charge, as retrieval's `expand[]=latest_charge` does (Settle's adapter asks
   * for it, for the payer's billing e-mail); `ending_before` is not simulated (400).
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
    const window = stripeCreatedWindow(query);
    if ('invalid' in window) return invalid(window.invalid, 'Invalid integer');
    if (queryText(query, 'ending_before') !== undefined) {
      return json(400, { error: { type: 'invalid_request_error', param: 'ending_before', message: 'ending_before is not simulated by the sandbox' } });
    }
    const index = this.book.created;
    const { lo, hi } = index.range(window.fromMs, window.untilMs);
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
    const expand = stripeExpansions(query as Record<string, unknown>)
      .filter((e) => e.startsWith('data.'))
      .map((e) => e.slice('data.'.length));
    return json(200, { object: 'list', data: page.map((tx) => this.listItem(tx, expand)), has_more: end - lo > page.length, url: '/v1/payment_intents' });
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
    const expand = stripeExpansions(reply.request.query as Record<string, unknown> | undefined);
    return this.answer<StripeSimulator>(reply, 'stripe', (stripe) => stripe.retrieve(authorization, id, expand));
  }

  @Get('payment_intents')
  list(@Query() query: ListQuery, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<StripeSimulator>(reply, 'stripe', (stripe) => stripe.list(authorization, query));
  }

  @Get('refunds/:id')
  refund(@Param('id') id: string, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<StripeSimulator>(reply, 'stripe', (stripe) => stripe.movements(authorization, (book) => retrieveStripeRefund(book, id)));
  }

  @Get('refunds')
  refunds(@Query() query: ListQuery, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<StripeSimulator>(reply, 'stripe', (stripe) => stripe.movements(authorization, (book) => listStripeMovements(book, 'refunds', query)));
  }

  @Get('disputes/:id')
  dispute(@Param('id') id: string, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<StripeSimulator>(reply, 'stripe', (stripe) => stripe.movements(authorization, (book) => retrieveStripeDispute(book, id)));
  }

  @Get('disputes')
  disputes(@Query() query: ListQuery, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<StripeSimulator>(reply, 'stripe', (stripe) => stripe.movements(authorization, (book) => listStripeMovements(book, 'disputes', query)));
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
  api: { roots: ['/v1'], unknownRoute: (method, path) => ({ status: 404, body: stripeUnknownRoute(method, path) }) },
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

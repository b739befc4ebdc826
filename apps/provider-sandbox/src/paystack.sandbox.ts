import { createHash, createHmac, randomBytes } from 'node:crypto';
import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { secret, url, type Secret } from '@settle/config';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { bearerMatches } from './credentials.js';
import { ProviderController } from './provider.controllers.js';
import { ProviderSimulator } from './provider.simulator.js';
import {
  createTransactionSchema,
  json,
  observe,
  type PaymentState,
  type SandboxAnswer,
  type SandboxDispute,
  type SandboxRefund,
  type SandboxTransaction,
} from './sandbox.core.js';
import {
  listPaystackMovements,
  paystackDisputeEvent,
  paystackListWindow,
  paystackRefundEvent,
  retrievePaystackDispute,
  retrievePaystackRefund,
} from './paystack.movements.js';
import { simulation } from './simulation.js';
import type { Notifier, OutgoingWebhook } from './webhook-sender.js';
import { newestFirstPage, queryInteger, queryText, type ListQuery } from './sandbox.list.js';
import type { TimeIndex } from './sandbox.core.js';

/** What the Paystack simulator needs from configuration. */
export interface PaystackSettings {
  secretKey: Secret;
  webhookUrl: string;
}

const STATUS: Record<PaymentState, string> = { unpaid: 'abandoned', declined: 'failed', clearing: 'pending', succeeded: 'success' };

/**
 * The roots of Paystack's API paths (it has no version prefix), as its API reference's code samples
 * call them (docs/provider-facts.md, Paystack): an unknown route under one answers
 * {@link paystackUnknownRoute}.
 */
export const PAYSTACK_API_ROOTS = [
  '/address_verification',
  '/apple-pay',
  '/balance',
  '/bank',
  '/bulkcharge',
  '/capitec-pay',
  '/charge',
  '/country',
  '/customer',
  '/decision',
  '/dedicated_account',
  '/directdebit',
  '/dispute',
  '/integration',
  '/order',
  '/page',
  '/paymentrequest',
  '/plan',
  '/preauthorization',
  '/product',
  '/refund',
  '/settlement',
  '/split',
  '/storefront',
  '/subaccount',
  '/subscription',
  '/terminal',
  '/transaction',
  '/transfer',
  '/transferrecipient',
  '/virtual_terminal',
] as const;

/** Paystack's error envelope, `{ status: false, message }`. */
export interface PaystackErrorBody {
  status: false;
  message: string;
}

/** The 404 of a path under Paystack's roots that it does not route, in its error envelope (the message is the sandbox's). */
export function paystackUnknownRoute(method: string, path: string): PaystackErrorBody {
  return { status: false, message: `No route found for ${method} ${path}` };
}

/**
 * The Paystack-style provider, simulated (docs/provider-facts.md, Paystack):
 * `GET /transaction/verify/:reference` with Paystack's response shape, Bearer secret key,
 * and `charge.success` webhooks signed with `x-paystack-signature` (hex HMAC-SHA512 of the
 * body keyed with the secret key). Webhooks are sent for successful charges only.
 */
export class PaystackSimulator extends ProviderSimulator {
  readonly name = 'paystack' as const;
  readonly label = 'Paystack';
  protected readonly createSchema = createTransactionSchema;

  constructor(
    private readonly settings: PaystackSettings,
    notifier: Notifier,
    now: () => number = Date.now,
  ) {
    super(notifier, 4_099_260_000, now);
  }

  protected override newDetails(): Record<string, string | number> {
    return { created_at: new Date(this.now()).toISOString() };
  }

  /**
   * The `data` object Paystack returns for a transaction in a given status, with every key of
   * Paystack's published verify sample (`test/fixtures/paystack/verify-200.json`): the card's
   * `authorization` once the customer has tried to pay (`{}` while the transaction is abandoned),
   * the `log` of the attempt, and the customer's Paystack `id` and `customer_code`. A payment time
   * and a fee only for a successful charge.
   */
  data(tx: SandboxTransaction, status: string): Record<string, unknown> {
    const { reference, amount, currency, email } = observe(tx);
    const phone = tx.phone;
    const createdAt = String(tx.details?.created_at ?? tx.paidAt ?? new Date(0).toISOString());
    const paidAt = status === 'success' ? tx.paidAt : null;
    const code = (prefix: string, length: number) => `${prefix}_${createHash('sha256').update(`${prefix}:${tx.reference}`).digest('hex').slice(0, length)}`;
    const attempted = status !== 'abandoned';
    return {
      id: tx.id,
      domain: 'test',
      status,
      reference,
      receipt_number: null,
      amount,
      message: null,
      gateway_response: status === 'success' ? 'Successful' : status === 'failed' ? 'Declined' : 'Transaction in progress',
      paid_at: paidAt,
      created_at: createdAt,
      channel: 'card',
      currency,
      ip_address: '127.0.0.1',
      metadata: '',
      log: attempted
        ? {
            start_time: Math.floor(Date.parse(createdAt) / 1000),
            time_spent: 4,
            attempts: 1,
            errors: status === 'failed' ? 1 : 0,
            success: status === 'success',
            mobile: false,
            input: [],
            history: [
              { type: 'action', message: 'Attempted to pay with card', time: 3 },
              ...(status === 'success' ? [{ type: 'success', message: 'Successfully paid with card', time: 4 }] : []),
              ...(status === 'failed' ? [{ type: 'error', message: 'Error: Declined', time: 4 }] : []),
            ],
          }
        : null,
      fees: status === 'success' ? Math.round(amount * 0.015) : null,
      fees_split: null,
      authorization: attempted
        ? {
            authorization_code: code('AUTH', 10),
            bin: '408408',
            last4: '4081',
            exp_month: '12',
            exp_year: '2030',
            channel: 'card',
            card_type: 'visa ',
            bank: 'TEST BANK',
            country_code: 'NG',
            brand: 'visa',
            reusable: status === 'success',
            signature: code('SIG', 20),
            account_name: null,
          }
        : {},
      customer: {
        id: 180_000_000 + (tx.id % 1_000_000),
        first_name: null,
        last_name: null,
        email,
        customer_code: `CUS_${tx.id}`,
        phone,
        metadata: null,
        risk_action: 'default',
        international_format_phone: phone,
      },
      plan: null,
      split: {},
      order_id: null,
      paidAt,
      createdAt,
      requested_amount: amount,
      pos_transaction_data: null,
      source: null,
      fees_breakdown: null,
      connect: null,
      transaction_date: createdAt,
      plan_object: {},
      subaccount: {},
    };
  }

  /** `GET /transaction/verify/:reference`. */
  verify(authorization: string | undefined, reference: string): SandboxAnswer {
    if (!bearerMatches(authorization, this.settings.secretKey)) return json(401, { status: false, message: 'Invalid key' });
    const tx = this.book.get(reference);
    if (!tx) return json(400, { status: false, message: 'Transaction reference not found' });
    const checked = this.check(tx);
    if ('answer' in checked) return checked.answer;
    const status = checked.state === 'succeeded' && this.reversed(tx) ? 'reversed' : STATUS[checked.state];
    return json(200, { status: true, message: 'Verification successful', data: this.data(tx, status) });
  }

  protected gatewayFailure(status: 502 | 504): unknown {
    return { status: false, message: status === 502 ? 'Bad Gateway' : 'Gateway Timeout' };
  }

  /** The `charge.success` webhook (successful charges only), signed with a wrong key when spoofing. */
  protected notification(tx: SandboxTransaction, state: 'succeeded' | 'declined'): (() => OutgoingWebhook) | null {
    if (state !== 'succeeded') return null;
    return () => this.signed(tx, { event: 'charge.success', data: this.data(tx, 'success') });
  }

  /** Paystack creates its transaction when the checkout is initialised: its list is by creation time. */
  protected override listIndex(): TimeIndex {
    return this.book.created;
  }

  /** Paystack's status of a transaction as its list shows it now (nothing consumed: `peek`); `reversed` once reversed. */
  listStatus(tx: SandboxTransaction): string {
    return this.reversed(tx) ? 'reversed' : STATUS[this.book.peek(tx)];
  }

  /**
   * Whether Paystack shows a paid transaction as `reversed`: reversed after settlement, or refunded
   * (a processed refund, in full or in part: docs/provider-facts.md, "Refunds, reversals and
   * disputes"; the status of a partly refunded one is (unconfirmed)). A failed refund turns it back.
   */
  private reversed(tx: SandboxTransaction): boolean {
    return tx.reversedAt !== null || tx.refunds.some((r) => r.status === 'succeeded');
  }

  /** `refund.pending`, `refund.processed` or `refund.failed`, signed (with a wrong key when spoofing). */
  protected override refundNotification(_tx: SandboxTransaction, refund: SandboxRefund): ((tx: SandboxTransaction) => OutgoingWebhook) | null {
    return (tx) => this.signed(tx, paystackRefundEvent(tx, refund));
  }

  /** `charge.dispute.create` for a new dispute, `charge.dispute.resolve` once it is decided. */
  protected override disputeNotification(_tx: SandboxTransaction, dispute: SandboxDispute): ((tx: SandboxTransaction) => OutgoingWebhook) | null {
    return (tx) => this.signed(tx, paystackDisputeEvent(tx, dispute));
  }

  /** A Paystack webhook: the body, its `x-paystack-signature` (HMAC-SHA512 with the secret key, or a random one when spoofing). */
  private signed(tx: SandboxTransaction, event: unknown): OutgoingWebhook {
    const body = JSON.stringify(event);
    const key = tx.behaviour.webhook === 'spoof' ? randomBytes(32).toString('hex') : this.settings.secretKey.reveal();
    const url = this.settings.webhookUrl;
    return { url, target: url, headers: { 'x-paystack-signature': createHmac('sha512', key).update(body).digest('hex') }, body };
  }

  /** The key check of `GET /refund`, `GET /dispute` and their reads by id (paystack.movements.ts): Bearer secret key. */
  protected override refuseKey(authorization: string | undefined): SandboxAnswer | null {
    return bearerMatches(authorization, this.settings.secretKey) ? null : json(401, { status: false, message: 'Invalid key' });
  }

  /** One transaction as `GET /transaction` lists it: verify's `data` (the same builder), with its creation time and metadata. */
  listItem(tx: SandboxTransaction): Record<string, unknown> {
    return { ...this.data(tx, this.listStatus(tx)), created_at: tx.createdAt, ...(tx.metadata ? { metadata: tx.metadata } : {}) };
  }

  /**
   * `GET /transaction?from=&to=&perPage=&page=&status=` (docs/provider-facts.md, Paystack, "List
   * transactions"): Bearer secret key (401 otherwise), transactions created from `from` to `to`
   * (both inclusive: ISO instants, or dates meaning the whole day, UTC), newest first, `perPage`
   * (default 50, capped at 100) a page, `{ status: true, message, data, meta: { total, skipped,
   * perPage, page, pageCount } }`. Page numbers are not stable while transactions are added in
   * the window: a page may repeat rows of the previous one (newest first, new rows push the others
   * down), never skip one. `status` filters by Paystack status (a scan of the window).
   */
  list(authorization: string | undefined, query: ListQuery): SandboxAnswer {
    if (!bearerMatches(authorization, this.settings.secretKey)) return json(401, { status: false, message: 'Invalid key' });
    const failure = this.listFailure();
    if (failure) return failure;
    const perPageAsked = queryInteger(query, 'perPage');
    const page = queryInteger(query, 'page') ?? 1;
    if (perPageAsked === null || page === null || page < 1) return json(400, { status: false, message: 'perPage and page must be positive integers' });
    const perPage = Math.min(100, Math.max(1, perPageAsked ?? 50));
    const window = paystackListWindow(query);
    if (window === null) return json(400, { status: false, message: 'Invalid date: from and to are ISO 8601 dates or instants' });
    const { lo, hi } = this.book.created.range(window.fromMs, window.untilMs);
    const status = queryText(query, 'status');
    const keep = status === undefined ? undefined : (tx: SandboxTransaction) => this.listStatus(tx) === status;
    const { page: rows, total } = newestFirstPage(this.book.created, lo, hi, (page - 1) * perPage, perPage, keep);
    return json(200, {
      status: true,
      message: 'Transactions retrieved',
      data: rows.map((tx) => this.listItem(tx)),
      meta: { total, skipped: (page - 1) * perPage, perPage, page, pageCount: Math.ceil(total / perPage) },
    });
  }

  /** Paystack's error shape for a list call failed on purpose. */
  protected override listErrorBody(status: number): unknown {
    return { status: false, message: status === 429 ? 'Too many requests. Please try again later.' : 'An error occurred' };
  }
}

/** Paystack's verify endpoint: Bearer secret key required, real response shapes. */
@Controller()
export class PaystackController extends ProviderController {
  @Get('transaction/verify/:reference')
  verify(@Param('reference') reference: string, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<PaystackSimulator>(reply, 'paystack', (paystack) => paystack.verify(authorization, reference));
  }

  @Get('transaction')
  list(@Query() query: ListQuery, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<PaystackSimulator>(reply, 'paystack', (paystack) => paystack.list(authorization, query));
  }

  @Get('refund/:id')
  refund(@Param('id') id: string, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<PaystackSimulator>(reply, 'paystack', (paystack) => paystack.movements(authorization, (book) => retrievePaystackRefund(book, id)));
  }

  @Get('refund')
  refunds(@Query() query: ListQuery, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<PaystackSimulator>(reply, 'paystack', (paystack) =>
      paystack.movements(authorization, (book) => listPaystackMovements(book, 'refunds', query)),
    );
  }

  @Get('dispute/:id')
  dispute(@Param('id') id: string, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<PaystackSimulator>(reply, 'paystack', (paystack) => paystack.movements(authorization, (book) => retrievePaystackDispute(book, id)));
  }

  @Get('dispute')
  disputes(@Query() query: ListQuery, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<PaystackSimulator>(reply, 'paystack', (paystack) =>
      paystack.movements(authorization, (book) => listPaystackMovements(book, 'disputes', query)),
    );
  }
}

/** Paystack's sandbox variables: always on, so both are required. */
export const paystackSandboxEnv = z.object({
  PAYSTACK_SECRET_KEY: secret('PAYSTACK_SECRET_KEY').meta({ description: 'The secret key the sandbox expects as Bearer and signs its webhooks with.' }),
  SANDBOX_WEBHOOK_URL: url('SANDBOX_WEBHOOK_URL').meta({ description: "Where Paystack-style webhooks are delivered (ingestion's `/v1/webhooks/paystack`)." }),
});

/** Paystack in the sandbox: always on (its variables are required), webhooks always sent. */
export const paystackSimulation = simulation({
  name: 'paystack',
  label: 'Paystack',
  env: paystackSandboxEnv,
  switchOn: null,
  webhookUrlVariable: 'SANDBOX_WEBHOOK_URL',
  api: { roots: PAYSTACK_API_ROOTS, unknownRoute: (method, path) => ({ status: 404, body: paystackUnknownRoute(method, path) }) },
  settings: (e): PaystackSettings => ({ secretKey: e.PAYSTACK_SECRET_KEY, webhookUrl: e.SANDBOX_WEBHOOK_URL }),
  describe: () => 'on, webhooks on',
  create: (settings, notifier, now) => new PaystackSimulator(settings, notifier, now),
  controllers: [PaystackController],
});

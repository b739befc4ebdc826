import { createHmac, randomBytes } from 'node:crypto';
import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { secret, url, type Secret } from '@settle/config';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { bearerMatches } from './credentials.js';
import { ProviderController } from './provider.controllers.js';
import { ProviderSimulator } from './provider.simulator.js';
import { createTransactionSchema, json, observe, type PaymentState, type SandboxAnswer, type SandboxTransaction } from './sandbox.core.js';
import { simulation } from './simulation.js';
import type { Notifier, OutgoingWebhook } from './webhook-sender.js';
import { filterInstant, newestFirstPage, queryInteger, queryText, type ListQuery } from './sandbox.list.js';
import type { TimeIndex } from './sandbox.core.js';

/** What the Paystack simulator needs from configuration. */
export interface PaystackSettings {
  secretKey: Secret;
  webhookUrl: string;
}

const STATUS: Record<PaymentState, string> = { unpaid: 'abandoned', declined: 'failed', clearing: 'pending', succeeded: 'success' };

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

  /** The `data` object Paystack returns for a transaction in a given status. */
  data(tx: SandboxTransaction, status: string): Record<string, unknown> {
    const { reference, amount, currency, email } = observe(tx);
    return {
      id: tx.id,
      domain: 'test',
      status,
      reference,
      amount,
      requested_amount: amount,
      currency,
      gateway_response: status === 'success' ? 'Successful' : status === 'failed' ? 'Declined' : 'Transaction in progress',
      paid_at: status === 'success' ? tx.paidAt : null,
      channel: 'card',
      fees: status === 'success' ? Math.round(amount * 0.015) : null,
      customer: { email, phone: tx.phone, customer_code: `CUS_${tx.id}` },
      metadata: null,
    };
  }

  /** `GET /transaction/verify/:reference`. */
  verify(authorization: string | undefined, reference: string): SandboxAnswer {
    if (!bearerMatches(authorization, this.settings.secretKey)) return json(401, { status: false, message: 'Invalid key' });
    const tx = this.book.get(reference);
    if (!tx) return json(400, { status: false, message: 'Transaction reference not found' });
    const checked = this.check(tx);
    if ('answer' in checked) return checked.answer;
    const status = tx.reversedAt !== null && checked.state === 'succeeded' ? 'reversed' : STATUS[checked.state];
    return json(200, { status: true, message: 'Verification successful', data: this.data(tx, status) });
  }

  protected gatewayFailure(status: 502 | 504): unknown {
    return { status: false, message: status === 502 ? 'Bad Gateway' : 'Gateway Timeout' };
  }

  /** The `charge.success` webhook (successful charges only), signed with a wrong key when spoofing. */
  protected notification(tx: SandboxTransaction, state: 'succeeded' | 'declined'): (() => OutgoingWebhook) | null {
    if (state !== 'succeeded') return null;
    return () => {
      const body = JSON.stringify({ event: 'charge.success', data: this.data(tx, 'success') });
      const key = tx.behaviour.webhook === 'spoof' ? randomBytes(32).toString('hex') : this.settings.secretKey.reveal();
      const signature = createHmac('sha512', key).update(body).digest('hex');
      const url = this.settings.webhookUrl;
      return { url, target: url, headers: { 'x-paystack-signature': signature }, body };
    };
  }

  /** Paystack creates its transaction when the checkout is initialised: its list is by creation time. */
  protected override listIndex(): TimeIndex {
    return this.book.created;
  }

  /** Paystack's status of a transaction as its list shows it now (nothing consumed: `peek`); `reversed` once reversed. */
  listStatus(tx: SandboxTransaction): string {
    return tx.reversedAt !== null ? 'reversed' : STATUS[this.book.peek(tx)];
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
    const toText = queryText(query, 'to');
    const from = filterInstant(queryText(query, 'from'));
    const to = filterInstant(toText, true);
    if (from === null || to === null) return json(400, { status: false, message: 'Invalid date: from and to are ISO 8601 dates or instants' });
    // A date means its whole day (filterInstant gives the next day's start); an instant is included.
    const toExclusive = to === undefined ? Number.MAX_SAFE_INTEGER : toText!.trim().length === 10 ? to : to + 1;
    const { lo, hi } = this.book.created.range(from ?? Number.MIN_SAFE_INTEGER, toExclusive);
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
  settings: (e): PaystackSettings => ({ secretKey: e.PAYSTACK_SECRET_KEY, webhookUrl: e.SANDBOX_WEBHOOK_URL }),
  describe: () => 'on, webhooks on',
  create: (settings, notifier, now) => new PaystackSimulator(settings, notifier, now),
  controllers: [PaystackController],
});

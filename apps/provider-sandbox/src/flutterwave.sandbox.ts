import { createHmac, randomBytes } from 'node:crypto';
import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { optionalSecret, optionalUrl, type Secret } from '@settle/config';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { bearerMatches } from './credentials.js';
import { toMajorUnits } from './money.js';
import { flutterwaveListWindow, listFlutterwaveMovements } from './flutterwave.movements.js';
import { ProviderController } from './provider.controllers.js';
import { ProviderSimulator } from './provider.simulator.js';
import { createTransactionSchema, json, observe, type DeclineReason, type PaymentState, type SandboxAnswer, type SandboxTransaction } from './sandbox.core.js';
import { requireTogether } from './sandbox.env.js';
import { simulation } from './simulation.js';
import type { Notifier, OutgoingWebhook } from './webhook-sender.js';
import { newestFirstPage, queryInteger, queryText, type ListQuery } from './sandbox.list.js';
import type { TimeIndex } from './sandbox.core.js';

/** Rows a page of Flutterwave's transaction list holds (fixed by Flutterwave). */
export const FLUTTERWAVE_LIST_PAGE_SIZE = 10;

/** What the Flutterwave simulator needs from configuration. */
export interface FlutterwaveSettings {
  secretKey: Secret;
  webhook: { url: string; secretHash: Secret } | null;
}

const STATUS: Record<Exclude<PaymentState, 'unpaid'>, string> = { declined: 'failed', clearing: 'pending', succeeded: 'successful' };

const DECLINES: Record<DeclineReason, string> = { insufficient_funds: 'Insufficient funds', wrong_pin: 'Incorrect PIN' };

/** Flutterwave's error envelope, `{ status: "error", message, data: null }`. */
export interface FlutterwaveErrorBody {
  status: 'error';
  message: string;
  data: null;
}

/** The 404 of a path under Flutterwave's `/v3` that it does not route, in its error envelope (the message is the sandbox's). */
export function flutterwaveUnknownRoute(method: string, path: string): FlutterwaveErrorBody {
  return { status: 'error', message: `No route found for ${method} ${path}`, data: null };
}

/** Flutterwave's answer for an id or tx_ref it does not know (HTTP 400). */
export const FLUTTERWAVE_NOT_FOUND = { status: 'error', message: 'No transaction was found for this id', data: null } as const;

/** `flutterwave-signature`: base64 HMAC-SHA256 of the raw body keyed with the secret hash (unconfirmed scheme). */
export function flutterwaveSignature(body: string, secretHash: string): string {
  return createHmac('sha256', secretHash).update(body, 'utf8').digest('base64');
}

/**
 * Flutterwave v3, simulated (docs/provider-facts.md, Flutterwave):
 * `GET /v3/transactions/:id/verify` and `GET /v3/transactions/verify_by_reference?tx_ref=`
 * with `Authorization: Bearer FLWSECK...`; amounts in MAJOR units (converted from the
 * minor units held here with the currency's ISO 4217 exponent). A transaction exists on
 * Flutterwave's side only once the customer has tried to pay, so an unpaid one is "not
 * found". `charge.completed` webhooks (successful and failed charges) carry the secret hash
 * as `verif-hash`, plus the newer `flutterwave-signature`.
 */
export class FlutterwaveSimulator extends ProviderSimulator {
  readonly name = 'flutterwave' as const;
  readonly label = 'Flutterwave';
  protected readonly createSchema = createTransactionSchema;

  constructor(
    private readonly settings: FlutterwaveSettings,
    notifier: Notifier,
    now: () => number = Date.now,
  ) {
    super(notifier, 8_800_000, now);
  }

  protected override newDetails(): Record<string, string | number> {
    return {
      flw_ref: `FLW-MOCK-${randomBytes(16).toString('hex')}`,
      customer_id: 1_000_000 + Math.floor(Math.random() * 9_000_000),
      card_token: `flw-t1nf-${randomBytes(16).toString('hex')}-m03k`,
    };
  }

  /**
   * The transaction `data` object (verify answers and webhooks) in a given state, with every key of
   * Flutterwave's published verify sample (`test/fixtures/flutterwave/verify-200.json`): the
   * `card` paid with (Flutterwave's test Mastercard) and `amount_settled`, what reaches the
   * merchant after the fee, in major units (`null` until the charge is successful).
   */
  data(tx: SandboxTransaction, state: Exclude<PaymentState, 'unpaid'>): Record<string, unknown> {
    const seen = observe(tx);
    const major = (minor: number) => toMajorUnits(minor, seen.currency);
    const createdAt = tx.paidAt ?? new Date(0).toISOString();
    const processorResponse =
      state === 'succeeded'
        ? 'Approved by Financial Institution'
        : state === 'declined'
          ? DECLINES[tx.behaviour.decline ?? 'insufficient_funds']
          : 'Transaction in progress';
    return {
      id: tx.id,
      tx_ref: tx.reference,
      flw_ref: tx.details?.flw_ref ?? null,
      device_fingerprint: 'N/A',
      amount: major(seen.amount),
      currency: seen.currency,
      charged_amount: major(seen.amount),
      app_fee: major(Math.round(seen.amount * 0.014)),
      merchant_fee: 0,
      processor_response: processorResponse,
      auth_model: 'PIN',
      ip: '127.0.0.1',
      narration: 'Settle sandbox',
      status: STATUS[state],
      payment_type: 'card',
      created_at: createdAt,
      account_id: 20_937,
      card: {
        first_6digits: '553188',
        last_4digits: '2950',
        issuer: 'MASTERCARD  CREDIT',
        country: 'NIGERIA NG',
        type: 'MASTERCARD',
        token: tx.details?.card_token ?? null,
        expiry: '09/32',
      },
      meta: null,
      amount_settled: state === 'succeeded' ? major(seen.amount - Math.round(seen.amount * 0.014)) : null,
      customer: {
        id: tx.details?.customer_id ?? null,
        name: 'Sandbox Customer',
        phone_number: seen.phone ?? 'N/A',
        email: seen.email,
        created_at: createdAt,
      },
    };
  }

  /** `GET /v3/transactions/:id/verify`. */
  verifyById(authorization: string | undefined, id: string): SandboxAnswer {
    if (!bearerMatches(authorization, this.settings.secretKey)) return this.unauthorized();
    return this.answer(/^\d{1,15}$/.test(id) ? this.book.getById(Number(id)) : undefined);
  }

  /** `GET /v3/transactions/verify_by_reference?tx_ref=...`. */
  verifyByReference(authorization: string | undefined, txRef: string | undefined): SandboxAnswer {
    if (!bearerMatches(authorization, this.settings.secretKey)) return this.unauthorized();
    if (!txRef) return json(400, { status: 'error', message: 'tx_ref is required', data: null });
    return this.answer(this.book.get(txRef));
  }

  /** The key check of `GET /v3/refunds` and `GET /v3/chargebacks` (flutterwave.movements.ts): Bearer secret key. */
  protected override refuseKey(authorization: string | undefined): SandboxAnswer | null {
    return bearerMatches(authorization, this.settings.secretKey) ? null : this.unauthorized();
  }

  private unauthorized(): SandboxAnswer {
    return json(401, { status: 'error', message: 'Invalid authorization key', data: null });
  }

  private answer(tx: SandboxTransaction | undefined): SandboxAnswer {
    if (!tx) return json(400, FLUTTERWAVE_NOT_FOUND);
    const checked = this.check(tx);
    if ('answer' in checked) return checked.answer;
    if (checked.state === 'unpaid') return json(400, FLUTTERWAVE_NOT_FOUND);
    return json(200, { status: 'success', message: 'Transaction fetched successfully', data: this.data(tx, checked.state) });
  }

  protected gatewayFailure(status: 502 | 504): unknown {
    return { status: 'error', message: status === 502 ? 'Bad Gateway' : 'Gateway Timeout', data: null };
  }

  /** `charge.completed` for a successful or failed charge; a wrong hash when spoofing. */
  protected notification(tx: SandboxTransaction, state: 'succeeded' | 'declined'): (() => OutgoingWebhook) | null {
    const webhook = this.settings.webhook;
    if (!webhook) return null;
    return () => {
      const body = JSON.stringify({ event: 'charge.completed', data: this.data(tx, state), 'event.type': 'CARD_TRANSACTION' });
      const real = webhook.secretHash.reveal();
      const hash = tx.behaviour.webhook === 'spoof' ? spoofOf(real) : real;
      return {
        url: webhook.url,
        target: webhook.url,
        headers: { 'verif-hash': hash, 'flutterwave-signature': flutterwaveSignature(body, hash) },
        body,
      };
    };
  }

  /**
   * Flutterwave creates its transaction when the customer pays (an unpaid checkout is "not found"):
   * its list is by payment time, which its `created_at` shows.
   */
  protected override listIndex(): TimeIndex {
    return this.book.paid;
  }

  /**
   * One transaction as `GET /v3/transactions` lists it: verify's `data` (the same builder) in its
   * current state, consuming nothing (`peek`), with its metadata as `meta`. A reversal does not
   * show: the transaction stays `successful` (unconfirmed: Flutterwave's refunds are their own list).
   */
  listItem(tx: SandboxTransaction): Record<string, unknown> {
    const state = this.book.peek(tx);
    // Never unpaid: the list reads the index of paid transactions.
    const data = this.data(tx, state === 'unpaid' ? 'clearing' : state);
    return tx.metadata ? { ...data, meta: tx.metadata } : data;
  }

  /**
   * `GET /v3/transactions?from=YYYY-MM-DD&to=YYYY-MM-DD&page=&status=` (docs/provider-facts.md,
   * Flutterwave, "Get transactions"): Bearer secret key (401 otherwise), transactions created on
   * the dates from `from` to `to` (both whole days, inclusive, UTC in this sandbox), newest first,
   * 10 a page, `{ status: "success", message, meta: { page_info: { total, current_page,
   * total_pages } }, data }`. Page numbers are not stable while transactions are added on those
   * dates (rows may repeat, never be skipped). `status` filters (a scan of the dates).
   */
  list(authorization: string | undefined, query: ListQuery): SandboxAnswer {
    if (!bearerMatches(authorization, this.settings.secretKey)) return this.unauthorized();
    const failure = this.listFailure();
    if (failure) return failure;
    const page = queryInteger(query, 'page') ?? 1;
    if (page === null || page < 1) return json(400, { status: 'error', message: 'page must be a positive integer', data: null });
    const window = flutterwaveListWindow(query);
    if (window === null) return json(400, { status: 'error', message: 'from and to must be dates in the format YYYY-MM-DD', data: null });
    const index = this.book.paid;
    const { lo, hi } = index.range(window.fromMs, window.untilMs);
    const status = queryText(query, 'status');
    const keep = status === undefined ? undefined : (tx: SandboxTransaction) => this.listItem(tx).status === status;
    const { page: rows, total } = newestFirstPage(index, lo, hi, (page - 1) * FLUTTERWAVE_LIST_PAGE_SIZE, FLUTTERWAVE_LIST_PAGE_SIZE, keep);
    return json(200, {
      status: 'success',
      message: 'Transactions fetched',
      meta: { page_info: { total, current_page: page, total_pages: Math.ceil(total / FLUTTERWAVE_LIST_PAGE_SIZE) } },
      data: rows.map((tx) => this.listItem(tx)),
    });
  }

  /** Flutterwave's error shape for a list call failed on purpose. */
  protected override listErrorBody(status: number): unknown {
    return { status: 'error', message: status === 429 ? 'Too many requests' : 'An error occurred', data: null };
  }
}

/** A random value as long as `secret` and different from it. */
function spoofOf(secret: string): string {
  let spoof = secret;
  while (spoof === secret) spoof = randomBytes(secret.length).toString('base64url').slice(0, Math.max(secret.length, 8));
  return spoof;
}

/** Flutterwave v3 verification, by Flutterwave id and by tx_ref. 503 when Flutterwave is not configured. */
@Controller('v3/transactions')
export class FlutterwaveController extends ProviderController {
  @Get('verify_by_reference')
  verifyByReference(@Query('tx_ref') txRef: string | undefined, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<FlutterwaveSimulator>(reply, 'flutterwave', (flutterwave) => flutterwave.verifyByReference(authorization, txRef));
  }

  @Get(':id/verify')
  verifyById(@Param('id') id: string, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<FlutterwaveSimulator>(reply, 'flutterwave', (flutterwave) => flutterwave.verifyById(authorization, id));
  }

  @Get()
  list(@Query() query: ListQuery, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<FlutterwaveSimulator>(reply, 'flutterwave', (flutterwave) => flutterwave.list(authorization, query));
  }
}

/** Flutterwave v3 refunds and chargebacks of a transaction. 503 when Flutterwave is not configured. */
@Controller('v3')
export class FlutterwaveMovementsController extends ProviderController {
  @Get('refunds')
  refunds(@Query() query: ListQuery, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<FlutterwaveSimulator>(reply, 'flutterwave', (flutterwave) =>
      flutterwave.movements(authorization, (book) => listFlutterwaveMovements(book, 'refunds', query)),
    );
  }

  @Get('chargebacks')
  chargebacks(@Query() query: ListQuery, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<FlutterwaveSimulator>(reply, 'flutterwave', (flutterwave) =>
      flutterwave.movements(authorization, (book) => listFlutterwaveMovements(book, 'chargebacks', query)),
    );
  }
}

/**
 * Flutterwave's sandbox variables: on when its secret key is set; a webhook URL needs the secret
 * hash.
 */
export const flutterwaveSandboxEnv = z
  .object({
    FLUTTERWAVE_SECRET_KEY: optionalSecret('FLUTTERWAVE_SECRET_KEY', { test: (v) => /^FLWSECK\S+$/.test(v), hint: 'start with FLWSECK' }).meta({
      description: 'Flutterwave secret key expected as `Authorization: Bearer FLWSECK...`.',
    }),
    FLUTTERWAVE_SECRET_HASH: optionalSecret('FLUTTERWAVE_SECRET_HASH').meta({
      description: 'The dashboard "secret hash" sent as the `verif-hash` webhook header.',
    }),
    SANDBOX_FLUTTERWAVE_WEBHOOK_URL: optionalUrl('SANDBOX_FLUTTERWAVE_WEBHOOK_URL').meta({
      description: 'Where `charge.completed` webhooks are delivered; unset: none are sent.',
    }),
  })
  .superRefine(
    requireTogether({
      any: ['FLUTTERWAVE_SECRET_KEY', 'FLUTTERWAVE_SECRET_HASH', 'SANDBOX_FLUTTERWAVE_WEBHOOK_URL'],
      requires: ['FLUTTERWAVE_SECRET_KEY'],
      webhook: { url: 'SANDBOX_FLUTTERWAVE_WEBHOOK_URL', secret: 'FLUTTERWAVE_SECRET_HASH' },
    }),
  );

/** Flutterwave in the sandbox: on with its secret key; webhooks sent when its webhook URL is set. */
export const flutterwaveSimulation = simulation({
  name: 'flutterwave',
  label: 'Flutterwave',
  env: flutterwaveSandboxEnv,
  switchOn: 'FLUTTERWAVE_SECRET_KEY',
  webhookUrlVariable: 'SANDBOX_FLUTTERWAVE_WEBHOOK_URL',
  // Flutterwave's Node client (flutterwave-node-v3) joins its base URL's trailing slash and paths
  // that start with one: `//v3/transactions`.
  api: { roots: ['/v3'], collapseSlashes: true, unknownRoute: (method, path) => ({ status: 404, body: flutterwaveUnknownRoute(method, path) }) },
  settings: (e): FlutterwaveSettings | null =>
    e.FLUTTERWAVE_SECRET_KEY
      ? {
          secretKey: e.FLUTTERWAVE_SECRET_KEY,
          webhook:
            e.SANDBOX_FLUTTERWAVE_WEBHOOK_URL && e.FLUTTERWAVE_SECRET_HASH
              ? { url: e.SANDBOX_FLUTTERWAVE_WEBHOOK_URL, secretHash: e.FLUTTERWAVE_SECRET_HASH }
              : null,
        }
      : null,
  describe: (settings) => `on, webhooks ${settings.webhook ? 'on' : 'off (SANDBOX_FLUTTERWAVE_WEBHOOK_URL unset)'}`,
  create: (settings, notifier, now) => new FlutterwaveSimulator(settings, notifier, now),
  controllers: [FlutterwaveController, FlutterwaveMovementsController],
});

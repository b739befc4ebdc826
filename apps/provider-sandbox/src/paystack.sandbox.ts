import { createHmac, randomBytes } from 'node:crypto';
import { Controller, Get, Headers, Param, Res } from '@nestjs/common';
import { secret, url, type Secret } from '@settle/config';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { bearerMatches } from './credentials.js';
import { ProviderController } from './provider.controllers.js';
import { ProviderSimulator } from './provider.simulator.js';
import { createTransactionSchema, json, observe, type PaymentState, type SandboxAnswer, type SandboxTransaction } from './sandbox.core.js';
import { simulation } from './simulation.js';
import type { Notifier, OutgoingWebhook } from './webhook-sender.js';

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
    return json(200, { status: true, message: 'Verification successful', data: this.data(tx, STATUS[checked.state]) });
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
}

/** Paystack's verify endpoint: Bearer secret key required, real response shapes. */
@Controller()
export class PaystackController extends ProviderController {
  @Get('transaction/verify/:reference')
  verify(@Param('reference') reference: string, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.answer<PaystackSimulator>(reply, 'paystack', (paystack) => paystack.verify(authorization, reference));
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

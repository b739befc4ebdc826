import { Body, Controller, Get, Headers, Inject, Param, Post, Query, Res } from '@nestjs/common';
import type { SandboxConfig } from '@settle/config';
import type { FastifyReply } from 'fastify';
import { json, type SandboxAnswer } from './sandbox.core.js';
import { SANDBOX_CONFIG, sendAnswer } from './sandbox.http.js';
import { notConfigured, SandboxRegistry } from './sandbox.registry.js';

/** Shared plumbing of the provider-facing controllers: the hold time of "time-out" answers. */
abstract class ProviderController {
  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    protected readonly registry: SandboxRegistry,
  ) {}

  protected send(reply: FastifyReply, answer: SandboxAnswer): Promise<void> {
    return sendAnswer(reply, answer, this.config.timeoutHoldMs);
  }
}

/** Paystack's verify endpoint: Bearer secret key required, real response shapes. */
@Controller()
export class PaystackController extends ProviderController {
  @Get('transaction/verify/:reference')
  verify(@Param('reference') reference: string, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    return this.send(reply, this.registry.paystack.verify(authorization, reference));
  }
}

/** Stripe's PaymentIntent retrieval (`Authorization: Bearer sk_...`). 503 when Stripe is not configured. */
@Controller('v1')
export class StripeController extends ProviderController {
  @Get('payment_intents/:id')
  retrieve(@Param('id') id: string, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    const stripe = this.registry.stripe;
    return this.send(reply, stripe ? stripe.retrieve(authorization, id) : json(503, notConfigured('stripe')));
  }
}

/** Flutterwave v3 verification, by Flutterwave id and by tx_ref. 503 when Flutterwave is not configured. */
@Controller('v3/transactions')
export class FlutterwaveController extends ProviderController {
  @Get('verify_by_reference')
  verifyByReference(@Query('tx_ref') txRef: string | undefined, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    const flutterwave = this.registry.flutterwave;
    return this.send(reply, flutterwave ? flutterwave.verifyByReference(authorization, txRef) : json(503, notConfigured('flutterwave')));
  }

  @Get(':id/verify')
  verifyById(@Param('id') id: string, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    const flutterwave = this.registry.flutterwave;
    return this.send(reply, flutterwave ? flutterwave.verifyById(authorization, id) : json(503, notConfigured('flutterwave')));
  }
}

/** M-Pesa Daraja: OAuth token and STK push query. 503 when M-Pesa is not configured. */
@Controller()
export class MpesaController extends ProviderController {
  @Get('oauth/v1/generate')
  oauth(@Query('grant_type') grantType: string | undefined, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    const mpesa = this.registry.mpesa;
    return this.send(reply, mpesa ? mpesa.oauth(authorization, grantType) : json(503, notConfigured('mpesa')));
  }

  @Post('mpesa/stkpushquery/v1/query')
  query(@Body() body: unknown, @Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    const mpesa = this.registry.mpesa;
    return this.send(reply, mpesa ? mpesa.query(authorization, body) : json(503, notConfigured('mpesa')));
  }
}

/** Every provider-facing controller. */
export const PROVIDER_CONTROLLERS = [PaystackController, StripeController, FlutterwaveController, MpesaController];

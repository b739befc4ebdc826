import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, Res } from '@nestjs/common';
import type { SandboxConfig } from '@settle/config';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { bearerMatches, createTransactionSchema, PaystackSandbox } from './paystack.sandbox.js';
import { WebhookSender } from './webhook-sender.js';

export const SANDBOX_CONFIG = Symbol('SandboxConfig');

/**
 * Provider A (Paystack-style) as seen by the verifier, plus the sandbox's control API
 * (`/_sandbox/...`) that tests and the demo use to create transactions and set their knobs.
 */
@Controller()
export class SandboxController {
  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    private readonly sandbox: PaystackSandbox,
    private readonly webhooks: WebhookSender,
  ) {}

  @Get('_sandbox/health')
  health() {
    return { status: 'ok', ...this.sandbox.stats() };
  }

  @Post('_sandbox/paystack/transactions')
  @HttpCode(201)
  create(@Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const parsed = createTransactionSchema.safeParse(body);
    if (!parsed.success) {
      void reply.status(400);
      return { error: 'invalid', issues: z.treeifyError(parsed.error) };
    }
    return this.sandbox.create(parsed.data);
  }

  @Post('_sandbox/paystack/transactions/:reference/pay')
  @HttpCode(200)
  pay(@Param('reference') reference: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const tx = this.sandbox.get(reference);
    if (!tx) {
      void reply.status(404);
      return { error: 'not found' };
    }
    if (this.sandbox.pay(tx)) this.webhooks.dispatch(tx);
    return tx;
  }

  @Get('_sandbox/paystack/transactions/:reference')
  inspect(@Param('reference') reference: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const tx = this.sandbox.get(reference);
    if (!tx) {
      void reply.status(404);
      return { error: 'not found' };
    }
    return tx;
  }

  /** Paystack's verify endpoint: Bearer secret key required, real response shapes. */
  @Get('transaction/verify/:reference')
  async verify(
    @Param('reference') reference: string,
    @Headers('authorization') authorization: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (!bearerMatches(authorization, this.config.paystack.secretKey.reveal())) {
      await reply.status(401).send({ status: false, message: 'Invalid key' });
      return;
    }
    const { answer, clearedNow } = this.sandbox.verify(reference);
    if (clearedNow) this.webhooks.dispatch(clearedNow);
    if (answer.kind === 'hang') {
      await new Promise((resolve) => setTimeout(resolve, this.config.timeoutHoldMs));
      await reply.status(504).send({ status: false, message: 'Gateway Timeout' });
      return;
    }
    await reply.status(answer.status).send(answer.body);
  }
}

import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { isProviderName, PROVIDERS } from './sandbox.core.js';
import { notConfigured, SandboxRegistry } from './sandbox.registry.js';
import type { ProviderSimulator } from './provider.simulator.js';

/**
 * The sandbox's control API (`/_sandbox/...`), which tests and the demo use to create
 * transactions, set their knobs and have the customer pay, for every provider:
 * `POST /_sandbox/:provider/transactions`, `POST .../:reference/pay`, `GET .../:reference`
 * (provider = one of `PROVIDERS`); a provider's own control routes are beside its simulator
 * (M-Pesa's `POST /_sandbox/mpesa/oauth/expire`).
 */
@Controller('_sandbox')
export class SandboxController {
  constructor(private readonly registry: SandboxRegistry) {}

  /** Liveness and counters (Paystack's at the top level, as before; every provider's under `providers`). */
  @Get('health')
  health() {
    return { status: 'ok', ...this.registry.stats() };
  }

  /** Creates a transaction with its knobs (idempotent on the reference). 400 with the issues when the body is invalid. */
  @Post(':provider/transactions')
  @HttpCode(201)
  create(@Param('provider') provider: string, @Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const simulator = this.resolve(provider, reply);
    if (!('book' in simulator)) return simulator;
    const outcome = simulator.create(body);
    if (!outcome.ok) {
      void reply.status(outcome.status);
      return outcome.body;
    }
    return outcome.transaction;
  }

  /** The customer pays; the webhook follows as the knobs say. */
  @Post(':provider/transactions/:reference/pay')
  @HttpCode(200)
  pay(@Param('provider') provider: string, @Param('reference') reference: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const simulator = this.resolve(provider, reply);
    if (!('book' in simulator)) return simulator;
    const tx = simulator.pay(reference);
    if (!tx) {
      void reply.status(404);
      return { error: 'not found' };
    }
    return tx;
  }

  /** The transaction with its counters (verify calls, failures served, webhooks sent). */
  @Get(':provider/transactions/:reference')
  inspect(@Param('provider') provider: string, @Param('reference') reference: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const simulator = this.resolve(provider, reply);
    if (!('book' in simulator)) return simulator;
    const tx = simulator.book.get(reference);
    if (!tx) {
      void reply.status(404);
      return { error: 'not found' };
    }
    return tx;
  }

  /** The provider's simulator, or the error body (404 unknown provider, 503 not configured). */
  private resolve(provider: string, reply: FastifyReply): ProviderSimulator | { error: string; message?: string } {
    const simulator = this.registry.simulator(provider);
    if (simulator === undefined) {
      void reply.status(404);
      return { error: 'not found', message: `provider must be ${PROVIDERS.slice(0, -1).join(', ')} or ${PROVIDERS.at(-1)}` };
    }
    if (simulator === null) {
      void reply.status(503);
      return isProviderName(provider) ? notConfigured(provider) : { error: 'not configured' };
    }
    return simulator;
  }
}

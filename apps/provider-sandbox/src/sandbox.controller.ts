import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { isProviderName, PROVIDERS } from './sandbox.core.js';
import { notConfigured, SandboxRegistry } from './sandbox.registry.js';
import type { ControlOutcome, ProviderSimulator } from './provider.simulator.js';

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

  /**
   * Seeds many transactions at once, as history, for the providers' lists (body:
   * `bulkSeedSchema`, sandbox.list.ts): `count` (up to 1,000,000) created over `[from, until)`,
   * references `<reference_prefix><n>`, an outcome mix by weight. 201 `{ created, existing,
   * first_reference, last_reference }`; 400 with the issues; 404 for a provider with no list.
   */
  @Post(':provider/transactions/bulk')
  @HttpCode(201)
  bulk(@Param('provider') provider: string, @Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const simulator = this.resolve(provider, reply);
    if (!('book' in simulator)) return simulator;
    return this.outcome(simulator.bulk(body), reply);
  }

  /** Reverses a settled payment after settlement (Paystack shows `reversed`; Stripe and Flutterwave show no change). 409 when it is not a succeeded payment. */
  @Post(':provider/transactions/:reference/reverse')
  @HttpCode(200)
  reverse(@Param('provider') provider: string, @Param('reference') reference: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const simulator = this.resolve(provider, reply);
    if (!('book' in simulator)) return simulator;
    return this.outcome(simulator.reverse(reference), reply);
  }

  /**
   * Refunds a succeeded payment, in full or in part (body: `refundSchema`: `amount`, `status`
   * `pending` or `succeeded`, `webhook` `deliver`, `drop` or `spoof`); the provider's refund
   * object and notification follow. 201 the refund; 404; 409 not a succeeded payment or too much.
   */
  @Post(':provider/transactions/:reference/refunds')
  @HttpCode(201)
  refund(@Param('provider') provider: string, @Param('reference') reference: string, @Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const simulator = this.resolve(provider, reply);
    if (!('book' in simulator)) return simulator;
    return this.outcome(simulator.refund(reference, body), reply);
  }

  /** Moves a refund on (body: `refundUpdateSchema`: `status` `succeeded` or `failed`, `webhook`). 404; 409 a failed refund. */
  @Post(':provider/refunds/:id')
  @HttpCode(200)
  updateRefund(@Param('provider') provider: string, @Param('id') id: string, @Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const simulator = this.resolve(provider, reply);
    if (!('book' in simulator)) return simulator;
    return this.outcome(simulator.updateRefund(id, body), reply);
  }

  /** Opens a dispute on a succeeded payment (body: `disputeSchema`: `amount`, `reason`, `webhook`). 201 the dispute; 404; 409. */
  @Post(':provider/transactions/:reference/disputes')
  @HttpCode(201)
  dispute(@Param('provider') provider: string, @Param('reference') reference: string, @Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const simulator = this.resolve(provider, reply);
    if (!('book' in simulator)) return simulator;
    return this.outcome(simulator.openDispute(reference, body), reply);
  }

  /** Decides a dispute (body: `disputeResolutionSchema`: `outcome` `won` or `lost`, `webhook`). 404; 409 decided already. */
  @Post(':provider/disputes/:id/resolve')
  @HttpCode(200)
  resolveDispute(@Param('provider') provider: string, @Param('id') id: string, @Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const simulator = this.resolve(provider, reply);
    if (!('book' in simulator)) return simulator;
    return this.outcome(simulator.resolveDispute(id, body), reply);
  }

  /**
   * The next `times` list calls of the provider answer `status` (429 by default, with
   * `Retry-After: retry_after_seconds`, 1 by default; or 500, 502, 503, 504) in its error shape
   * (body: `listFailuresSchema`); `times: 0` clears it.
   */
  @Post(':provider/list/failures')
  @HttpCode(200)
  failLists(@Param('provider') provider: string, @Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const simulator = this.resolve(provider, reply);
    if (!('book' in simulator)) return simulator;
    return this.outcome(simulator.failLists(body), reply);
  }

  private outcome<T>(outcome: ControlOutcome<T>, reply: FastifyReply): unknown {
    if (outcome.ok) return outcome.value;
    void reply.status(outcome.status);
    return outcome.body;
  }
}

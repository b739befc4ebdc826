import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { parseBody } from '@settle/http';
import { ProblemError } from '@settle/platform';
import { ApiKeyGuard } from '../http/api-key.guard.js';
import { CompleteCheckoutCommand, RegisterCheckoutCommand } from './checkout.commands.js';
import { pathReference, registerCheckoutBody } from './checkout.request.js';
import { CheckoutRepository, type CheckoutView } from './checkout.repository.js';
import { attemptAnswer, parseWaitMs as waitMs, VerifyCheckoutCommand, type AttemptAnswer, type VerificationAnswer } from './verify.commands.js';

/**
 * The checkout API for upstream checkout services (API key required):
 * - `POST /v1/checkouts` registers a session: 202 `{ reference, state }`;
 * - `POST /v1/checkouts/{reference}/complete`: the client finished; 202;
 * - `GET /v1/checkouts/{reference}`: the status from the read model; 404 when unknown;
 * - `POST /v1/checkouts/{reference}/verify`: verify now (the customer is back after an
 *   out-of-band payment) and answer with the state, waiting up to `?wait_ms=` (default 5000);
 * - `POST /v1/checkouts/{reference}/attempts`: may the client start a new payment attempt?
 *   Verifies the existing reference first (docs/spec.md, section 1, rule 3).
 */
@Controller('v1/checkouts')
@UseGuards(ApiKeyGuard)
export class CheckoutsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly checkouts: CheckoutRepository,
  ) {}

  @Post()
  @HttpCode(202)
  async register(@Body() body: unknown): Promise<{ reference: string; state: string }> {
    const parsed = parseBody(registerCheckoutBody, body);
    const { reference, state } = await this.commands.execute(new RegisterCheckoutCommand(parsed, new Date()));
    return { reference, state };
  }

  @Post(':reference/complete')
  @HttpCode(202)
  async complete(@Param('reference') reference: string): Promise<{ reference: string; state: string }> {
    return this.commands.execute(new CompleteCheckoutCommand(pathReference(reference), new Date()));
  }

  @Post(':reference/verify')
  @HttpCode(200)
  async verify(@Param('reference') reference: string, @Query('wait_ms') wait?: string): Promise<VerificationAnswer> {
    return this.commands.execute(new VerifyCheckoutCommand(pathReference(reference), 'customer_returned', waitMs(wait), new Date()));
  }

  @Post(':reference/attempts')
  @HttpCode(200)
  async attempts(@Param('reference') reference: string, @Query('wait_ms') wait?: string): Promise<AttemptAnswer> {
    const answer = await this.commands.execute(new VerifyCheckoutCommand(pathReference(reference), 'attempt_check', waitMs(wait), new Date()));
    return attemptAnswer(answer);
  }

  @Get(':reference')
  async status(@Param('reference') reference: string): Promise<CheckoutView> {
    const view = await this.checkouts.view(pathReference(reference));
    if (!view) throw new ProblemError(404, 'CHECKOUT.NOT_FOUND', 'Checkout not found');
    return view;
  }
}

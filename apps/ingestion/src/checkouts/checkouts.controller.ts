import { Body, Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ProblemError } from '@settle/platform';
import { ApiKeyGuard } from '../http/api-key.guard.js';
import { CompleteCheckoutCommand, RegisterCheckoutCommand } from './checkout.commands.js';
import { parseBody, pathReference, registerCheckoutBody } from './checkout.request.js';
import { CheckoutRepository, type CheckoutView } from './checkout.repository.js';

/**
 * The checkout API for upstream checkout services (API key required):
 * - `POST /v1/checkouts` registers a session: 202 `{ reference, state }`;
 * - `POST /v1/checkouts/{reference}/complete`: the client finished; 202;
 * - `GET /v1/checkouts/{reference}`: the status from the read model; 404 when unknown.
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

  @Get(':reference')
  async status(@Param('reference') reference: string): Promise<CheckoutView> {
    const view = await this.checkouts.view(pathReference(reference));
    if (!view) throw new ProblemError(404, 'CHECKOUT.NOT_FOUND', 'Checkout not found');
    return view;
  }
}

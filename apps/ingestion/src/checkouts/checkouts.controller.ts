import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiBodyOf, ApiKeyId, ApiProblems, ApiQueryOf, JSON_BODY_PROBLEMS } from '@settle/http';
import { ProblemError } from '@settle/platform';
import { ApiKeyGuard } from '../http/api-key.guard.js';
import { attemptAnswer as attemptAnswerSchema, checkoutAnswer, intakeAnswer, verificationAnswer, waitQuery } from '../http/openapi/answers.js';
import { SECURITY } from '../http/openapi/security.js';
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
@ApiTags('checkouts')
@ApiBearerAuth(SECURITY.apiKey)
@ApiProblems([401, 'AUTH.MISSING_API_KEY'], [401, 'AUTH.INVALID_API_KEY'], [503, 'SERVICE.UNAVAILABLE'])
@Controller('v1/checkouts')
@UseGuards(ApiKeyGuard)
export class CheckoutsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly checkouts: CheckoutRepository,
  ) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Register a checkout',
    description:
      'Before the client pays: the provider, reference, amount (integer, minor units), currency (ISO 4217), user, customer and what the payment buys. The same body again answers the same (idempotent by reference); other terms for a known reference answer 409.',
  })
  @ApiBodyOf(registerCheckoutBody)
  @ApiAnswer(202, intakeAnswer, 'Registered (or registered before with the same terms)')
  @ApiProblems(...JSON_BODY_PROBLEMS, [400, 'REQUEST.VALIDATION_FAILED'], [409, 'CHECKOUT.CONFLICT'])
  async register(@Body() body: unknown, @ApiKeyId() keyId: string): Promise<{ reference: string; state: string }> {
    // Validated by the intake, as a RegisterCheckout command from the topic is (docs/api.md, "Two ways in").
    const { reference, state } = await this.commands.execute(new RegisterCheckoutCommand(body, new Date(), `api_key:${keyId}`));
    return { reference, state };
  }

  @Post(':reference/complete')
  @HttpCode(202)
  @ApiOperation({ summary: 'The client finished paying', description: "Starts the wait for the provider's webhook; the sweeper verifies when none comes." })
  @ApiParam({ name: 'reference', description: "The checkout's transaction reference (1-100 URL-safe characters)" })
  @ApiAnswer(202, intakeAnswer, 'Recorded')
  @ApiProblems([404, 'CHECKOUT.NOT_FOUND'])
  async complete(@Param('reference') reference: string): Promise<{ reference: string; state: string }> {
    return this.commands.execute(new CompleteCheckoutCommand(reference, new Date()));
  }

  @Post(':reference/verify')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Verify now (the customer is back)',
    description:
      'After an out-of-band payment (docs/spec.md, section 1, trigger 3): asks the provider through the verifier and answers once the result is in, or when the wait runs out. Coalesced per reference (docs/webhooks.md).',
  })
  @ApiParam({ name: 'reference', description: "The checkout's transaction reference (1-100 URL-safe characters)" })
  @ApiQueryOf(waitQuery)
  @ApiAnswer(200, verificationAnswer, 'The state after the verification, or as it stands when the wait ran out')
  @ApiProblems([400, 'REQUEST.VALIDATION_FAILED'], [404, 'CHECKOUT.NOT_FOUND'], [503, 'READ_MODEL.NOT_READY'])
  async verify(@Param('reference') reference: string, @Query('wait_ms') wait?: string): Promise<VerificationAnswer> {
    return this.commands.execute(new VerifyCheckoutCommand(pathReference(reference), 'customer_returned', waitMs(wait), new Date()));
  }

  @Post(':reference/attempts')
  @HttpCode(200)
  @ApiOperation({
    summary: 'May the client start a new payment attempt?',
    description: 'Verifies the existing reference first (docs/spec.md, section 1, rule 3), then answers `allowed` and its `reason`.',
  })
  @ApiParam({ name: 'reference', description: "The checkout's transaction reference (1-100 URL-safe characters)" })
  @ApiQueryOf(waitQuery)
  @ApiAnswer(200, attemptAnswerSchema, 'The decision, with the verification behind it')
  @ApiProblems([400, 'REQUEST.VALIDATION_FAILED'], [404, 'CHECKOUT.NOT_FOUND'], [503, 'READ_MODEL.NOT_READY'])
  async attempts(@Param('reference') reference: string, @Query('wait_ms') wait?: string): Promise<AttemptAnswer> {
    const answer = await this.commands.execute(new VerifyCheckoutCommand(pathReference(reference), 'attempt_check', waitMs(wait), new Date()));
    return attemptAnswer(answer);
  }

  @Get(':reference')
  @ApiOperation({
    summary: "A checkout's state",
    description: 'From the read model the ledger projector keeps: state, entitlement status, terms and the last four checks.',
  })
  @ApiParam({ name: 'reference', description: "The checkout's transaction reference (1-100 URL-safe characters)" })
  @ApiAnswer(200, checkoutAnswer, 'The checkout')
  @ApiProblems([404, 'CHECKOUT.NOT_FOUND'], [503, 'READ_MODEL.NOT_READY'])
  async status(@Param('reference') reference: string): Promise<CheckoutView> {
    const view = await this.checkouts.view(pathReference(reference));
    if (!view) throw new ProblemError(404, 'CHECKOUT.NOT_FOUND', 'Checkout not found');
    return view;
  }
}

import { Controller, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiProblems, ApiQueryOf } from '@settle/http';
import { AdminKeyGuard } from '../http/api-key.guard.js';
import { verificationAnswer, waitQuery } from '../http/openapi/answers.js';
import { SECURITY } from '../http/openapi/security.js';
import { pathReference } from './checkout.request.js';
import { parseWaitMs, VerifyCheckoutCommand, type VerificationAnswer } from './verify.commands.js';

/**
 * The admin API (admin key required): `POST /v1/admin/checkouts/{reference}/reconcile` is the
 * spec's fourth automatic trigger (docs/spec.md, section 1: "an admin triggers manual reconciliation"). It
 * goes through the same `VerificationRequested` path as the sweeper, webhooks and the customer
 * coming back, and answers like `/verify`, waiting up to `?wait_ms=`.
 */
@ApiTags('admin')
@ApiBearerAuth(SECURITY.adminApiKey)
@ApiProblems([401, 'AUTH.MISSING_API_KEY'], [401, 'AUTH.INVALID_API_KEY'], [503, 'SERVICE.UNAVAILABLE'])
@Controller('v1/admin/checkouts')
@UseGuards(AdminKeyGuard)
export class AdminController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':reference/reconcile')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Manual reconciliation (admin)',
    description:
      "The spec's fourth trigger (docs/spec.md, section 1): verifies through the same path as every automatic trigger, never coalesced, and answers like `/verify`.",
  })
  @ApiParam({ name: 'reference', description: "The checkout's transaction reference" })
  @ApiQueryOf(waitQuery)
  @ApiAnswer(200, verificationAnswer, 'The state after the verification, or as it stands when the wait ran out')
  @ApiProblems([400, 'REQUEST.VALIDATION_FAILED'], [404, 'CHECKOUT.NOT_FOUND'], [503, 'READ_MODEL.NOT_READY'])
  async reconcile(@Param('reference') reference: string, @Query('wait_ms') wait?: string): Promise<VerificationAnswer> {
    return this.commands.execute(new VerifyCheckoutCommand(pathReference(reference), 'admin_reconciliation', parseWaitMs(wait), new Date()));
  }
}

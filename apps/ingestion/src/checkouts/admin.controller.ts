import { Controller, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { AdminKeyGuard } from '../http/api-key.guard.js';
import { pathReference } from './checkout.request.js';
import { parseWaitMs, VerifyCheckoutCommand, type VerificationAnswer } from './verify.commands.js';

/**
 * The admin API (admin key required): `POST /v1/admin/checkouts/{reference}/reconcile` is the
 * spec's fourth automatic trigger (docs/spec.md, section 1: "an admin triggers manual reconciliation"). It
 * goes through the same `VerificationRequested` path as the sweeper, webhooks and the customer
 * coming back, and answers like `/verify`, waiting up to `?wait_ms=`.
 */
@Controller('v1/admin/checkouts')
@UseGuards(AdminKeyGuard)
export class AdminController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':reference/reconcile')
  @HttpCode(200)
  async reconcile(@Param('reference') reference: string, @Query('wait_ms') wait?: string): Promise<VerificationAnswer> {
    return this.commands.execute(new VerifyCheckoutCommand(pathReference(reference), 'admin_reconciliation', parseWaitMs(wait), new Date()));
  }
}

import { Body, Controller, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { isWellFormedReference, UNMATCHED_CLOSE_REASONS } from '@settle/domain';
import { ApiAnswer, ApiBodyOf, ApiProblems, JSON_BODY_PROBLEMS, parseBody } from '@settle/http';
import { z } from 'zod';
import type { AuditTrail } from '../audit/audit-trail.port.js';
import { ConsoleError } from '../errors.js';
import type { UnmatchedPaymentCloser } from '../unmatched/unmatched-payment-closer.js';
import { SECURITY } from './openapi/document.js';
import { CurrentSession, MinRole, SessionGuard, type RequestSession } from './session.guard.js';
import { AUDIT_TRAIL, UNMATCHED_CLOSER } from './tokens.js';

/** `POST /api/v1/unmatched-payments/:reference/close` body. */
const closeBody = z
  .object({
    reason: z.enum(UNMATCHED_CLOSE_REASONS).describe('`refunded_outside_settle`, `test_payment` or `not_ours`'),
    note: z.string().trim().max(500).optional().describe('Free text, at most 500 characters'),
  })
  .strict();

/** `POST /api/v1/unmatched-payments/:reference/close`. */
const closeAnswer = z.strictObject({ reference: z.string(), status: z.literal('closing') });

/**
 * Unmatched payments' one-operator action (docs/unmatched-payments.md): `POST
 * /api/v1/unmatched-payments/:reference/close` (operator or admin) closes one with a reason,
 * through ingestion's admin API, recorded in the ledger with its actor first. Matching one takes
 * two people and is a proposal (ApprovalsController).
 */
@ApiTags('unmatched payments')
@ApiCookieAuth(SECURITY.session)
@ApiProblems([401, 'CONSOLE.UNAUTHENTICATED'])
@Controller('api/v1/unmatched-payments')
@UseGuards(SessionGuard)
export class UnmatchedPaymentsController {
  constructor(
    @Inject(UNMATCHED_CLOSER) private readonly closer: UnmatchedPaymentCloser,
    @Inject(AUDIT_TRAIL) private readonly audit: AuditTrail,
  ) {}

  @Post(':reference/close')
  @MinRole('operator')
  @HttpCode(202)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({
    summary: 'Close an unmatched payment with a reason (operator or admin)',
    description: 'Refunded outside Settle, a test payment, or not ours. Nothing is granted or refunded by Settle. Recorded in the ledger with the actor first.',
  })
  @ApiParam({ name: 'reference', description: "The unmatched payment's reference" })
  @ApiBodyOf(closeBody)
  @ApiAnswer(202, closeAnswer, 'Requested: the payment reads closed once the ledger recorded it')
  @ApiProblems(
    ...JSON_BODY_PROBLEMS,
    [400, 'REQUEST.VALIDATION_FAILED'],
    [403, 'CONSOLE.CSRF_REJECTED'],
    [403, 'CONSOLE.FORBIDDEN'],
    [404, 'CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND'],
    [409, 'CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN'],
    [503, 'CONSOLE.INGESTION_UNAVAILABLE'],
    [503, 'CONSOLE.AUDIT_UNAVAILABLE'],
    [500, 'CONSOLE.INGESTION_REJECTED'],
  )
  close(
    @Param('reference') reference: string,
    @Body() body: unknown,
    @CurrentSession() session: RequestSession,
  ): Promise<{ reference: string; status: 'closing' }> {
    if (!isWellFormedReference(reference)) throw new ConsoleError('CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND', 'Unmatched payment not found');
    const { reason, note } = parseBody(closeBody, body);
    return this.audit.run(
      {
        actor: session.user,
        action: 'unmatched_payment.close',
        target: { kind: 'unmatched_payment', id: reference },
        parameters: { reason, note: note ?? null },
      },
      () => this.closer.close(reference, { reason, note: note ?? null, closedBy: session.user.email }),
      () => ({ reason }),
    );
  }
}

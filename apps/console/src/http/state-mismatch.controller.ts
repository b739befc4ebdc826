import { Body, Controller, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { isWellFormedReference } from '@settle/domain';
import { ApiAnswer, ApiBodyOf, ApiProblems, JSON_BODY_PROBLEMS, parseBody } from '@settle/http';
import { z } from 'zod';
import type { AuditTrail } from '../audit/audit-trail.port.js';
import { ConsoleError } from '../errors.js';
import type { MismatchRefundDueCloser } from '../mismatch/mismatch-resolution.js';
import { SECURITY } from './openapi/document.js';
import { CurrentSession, MinRole, SessionGuard, type RequestSession } from './session.guard.js';
import { AUDIT_TRAIL, REFUND_DUE_CLOSER } from './tokens.js';

/** `POST /api/v1/transactions/:reference/close-refund-due` body. */
const refundDueBody = z.object({ note: z.string().trim().max(500).optional().describe('Free text, at most 500 characters') }).strict();

/** `POST /api/v1/transactions/:reference/close-refund-due`. */
const refundDueAnswer = z.strictObject({ reference: z.string(), status: z.literal('closing') });

/**
 * A State Mismatch's one-admin resolution (docs/state-machine.md, "Resolving a State Mismatch"):
 * `POST /api/v1/transactions/:reference/close-refund-due` closes it as to be refunded, through
 * ingestion's admin API, recorded in the ledger with its actor first; it stays open until the
 * provider shows the money returned. Accepting one as paid takes two people and is a proposal
 * (ApprovalsController).
 */
@ApiTags('transactions')
@ApiCookieAuth(SECURITY.session)
@ApiProblems([401, 'CONSOLE.UNAUTHENTICATED'])
@Controller('api/v1/transactions')
@UseGuards(SessionGuard)
export class StateMismatchController {
  constructor(
    @Inject(REFUND_DUE_CLOSER) private readonly closer: MismatchRefundDueCloser,
    @Inject(AUDIT_TRAIL) private readonly audit: AuditTrail,
  ) {}

  @Post(':reference/close-refund-due')
  @MinRole('admin')
  @HttpCode(202)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({
    summary: 'Close a State Mismatch: refund due (admin)',
    description:
      'The payment is to be refunded from the provider: the exception stays open until the provider shows the captured money returned, then closes by itself. Settle refunds nothing. Recorded in the ledger with the actor first.',
  })
  @ApiParam({ name: 'reference', description: "The transaction's reference" })
  @ApiBodyOf(refundDueBody)
  @ApiAnswer(202, refundDueAnswer, 'Requested: the transaction reads `refund_due` once the ledger recorded it')
  @ApiProblems(
    ...JSON_BODY_PROBLEMS,
    [400, 'REQUEST.VALIDATION_FAILED'],
    [403, 'CONSOLE.CSRF_REJECTED'],
    [403, 'CONSOLE.FORBIDDEN'],
    [404, 'CONSOLE.TRANSACTION_NOT_FOUND'],
    [409, 'CONSOLE.NOT_STATE_MISMATCH'],
    [409, 'CONSOLE.MISMATCH_RESOLVED'],
    [503, 'READ_MODEL.NOT_READY'],
    [503, 'CONSOLE.INGESTION_UNAVAILABLE'],
    [503, 'CONSOLE.AUDIT_UNAVAILABLE'],
    [500, 'CONSOLE.INGESTION_REJECTED'],
  )
  closeRefundDue(
    @Param('reference') reference: string,
    @Body() body: unknown,
    @CurrentSession() session: RequestSession,
  ): Promise<{ reference: string; status: 'closing' }> {
    if (!isWellFormedReference(reference)) throw new ConsoleError('CONSOLE.TRANSACTION_NOT_FOUND', 'Transaction not found');
    const { note } = parseBody(refundDueBody, body);
    return this.audit.run(
      { actor: session.user, action: 'state_mismatch.refund_due', target: { kind: 'transaction', id: reference }, parameters: { note: note ?? null } },
      () => this.closer.close(reference, { note: note ?? null, closedBy: session.user.email }),
      () => ({ resolution: 'refund_due' }),
    );
  }
}

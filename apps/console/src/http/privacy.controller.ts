import { Body, Controller, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiBodyOf, ApiProblems, JSON_BODY_PROBLEMS, parseBody } from '@settle/http';
import type { ApprovalService, ProposalView } from '../approvals/approval.service.js';
import { erasureRequest, PRIVACY_ERASE, subjectTargetId } from '../privacy/privacy-erase.js';
import { proposal } from './approvals.controller.js';
import { SECURITY } from './openapi/document.js';
import { CurrentSession, MinRole, SessionGuard, type RequestSession } from './session.guard.js';
import { APPROVALS } from './tokens.js';

/**
 * Erasure of a data subject (docs/privacy.md, "Erasure"; docs/approvals.md): `POST
 * /api/v1/privacy/erasures` (operator or admin) proposes erasing a merchant's user or a customer,
 * with a reason, 201; a second, different admin approves it on the Proposals page
 * (`POST /api/v1/proposals/:id/approve`), which runs the erasure. The subject is sealed under its
 * own key before the proposal is recorded in the ledger or stored.
 */
@ApiTags('privacy')
@ApiCookieAuth(SECURITY.session)
@ApiProblems([401, 'CONSOLE.UNAUTHENTICATED'])
@Controller('api/v1/privacy')
@UseGuards(SessionGuard)
export class PrivacyController {
  constructor(@Inject(APPROVALS) private readonly approvals: ApprovalService) {}

  @Post('erasures')
  @MinRole('operator')
  @HttpCode(201)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({
    summary: 'Propose erasing a data subject (operator or admin)',
    description:
      "A merchant's user (`user_id`) or a customer (email or phone), and why (a ticket, the request's date; never the subject's identifier: a reason that contains it is refused, 400 `PRIVACY.REASON_NAMES_SUBJECT`). A second admin must approve; the subject's keys are then destroyed, the plaintext copies cleared and `SubjectErased` recorded naming both people. The proposal names the subject sealed: the answers show it opened (`target.id` `user:<id>` or `customer:<id>`), `erased` once done.",
  })
  @ApiBodyOf(erasureRequest)
  @ApiAnswer(201, proposal, 'Proposed; waits for a second admin')
  @ApiProblems(
    ...JSON_BODY_PROBLEMS,
    [400, 'REQUEST.VALIDATION_FAILED'],
    [400, 'PRIVACY.REASON_NAMES_SUBJECT'],
    [403, 'CONSOLE.CSRF_REJECTED'],
    [403, 'CONSOLE.FORBIDDEN'],
    [409, 'CONSOLE.PROPOSAL_PENDING'],
    [503, 'CONSOLE.PRIVACY_VAULT_MISSING'],
    [503, 'CONSOLE.AUDIT_UNAVAILABLE'],
  )
  proposeErasure(@Body() body: unknown, @CurrentSession() session: RequestSession): Promise<ProposalView> {
    const { subject, reason } = parseBody(erasureRequest, body);
    // The action refuses a reason that names the subject before anything is recorded (its `protect`).
    return this.approvals.propose(session.user, PRIVACY_ERASE, subjectTargetId(subject), { reason });
  }
}

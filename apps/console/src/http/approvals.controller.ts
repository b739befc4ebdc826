import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { isWellFormedReference } from '@settle/domain';
import { ApiAnswer, ApiBodyOf, ApiProblems, isoTime, JSON_BODY_PROBLEMS, parseBody } from '@settle/http';
import { z } from 'zod';
import type { ApprovalService, ProposalView } from '../approvals/approval.service.js';
import { matchTerms } from '../unmatched/unmatched-payment-match.js';
import { acceptAsPaidTerms } from '../mismatch/mismatch-resolution.js';
import { ConsoleError } from '../errors.js';
import { SECURITY } from './openapi/document.js';
import { CurrentSession, MinRole, SessionGuard, type RequestSession } from './session.guard.js';
import { APPROVALS } from './tokens.js';

const actor = z.strictObject({ email: z.string(), role: z.string() });

/** A proposal of a sensitive admin action (docs/approvals.md). */
export const proposal = z.strictObject({
  id: z.uuid(),
  action: z.string().describe('What is to be done (`unmatched_payment.match`, `state_mismatch.accept_as_paid`, `privacy.erase`)'),
  target: z
    .strictObject({ kind: z.string(), id: z.string() })
    .describe(
      'What it acts on; a `subject` (`privacy.erase`) reads `user:<id>` or `customer:<id>`, opened from its sealed form (for a viewer, a customer masked: `customer:c•••@example.com`), or `erased`',
    ),
  parameters: z
    .record(z.string(), z.unknown())
    .describe(
      'As the proposer gave them; approved as they are. A customer’s email and phone are stored sealed and shown opened to operators and admins, masked to viewers (`erased` once the customer was erased)',
    ),
  proposer: actor,
  proposedAt: isoTime,
  expiresAt: isoTime.describe('An approval at or after it is refused'),
  status: z.enum(['pending', 'approved', 'rejected', 'expired']),
  decidedBy: actor.nullable(),
  decidedAt: isoTime.nullable(),
  reason: z.string().nullable().describe("A rejection's reason"),
});

/** `GET /api/v1/proposals`. */
const proposalsAnswer = z.strictObject({ items: z.array(proposal) });

/** `POST /api/v1/proposals/:id/approve`. */
const approvalAnswer = z.strictObject({
  proposal,
  result: z
    .record(z.string(), z.unknown())
    .describe(
      "What the action did (for a match: the checkout's reference and state; for an erasure: its id, the `SubjectErased` fact's ledger position and counts)",
    ),
});

/** `POST /api/v1/proposals/:id/reject` body. */
const rejectBody = z.object({ reason: z.string().trim().min(1).max(500) }).strict();

const APPROVAL_PROBLEMS: Array<[number, string]> = [
  [403, 'CONSOLE.CSRF_REJECTED'],
  [403, 'CONSOLE.FORBIDDEN'],
  [404, 'APPROVAL.UNKNOWN'],
  [409, 'APPROVAL.CLOSED'],
  [409, 'APPROVAL.CONFLICT'],
  [503, 'CONSOLE.AUDIT_UNAVAILABLE'],
];

/** The proposal id of a path: a UUID, else 404 as an unknown proposal. */
function pathProposalId(id: string): string {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) ? id.toLowerCase() : '00000000-0000-0000-0000-000000000000';
}

/**
 * Two people for money decisions (maker-checker, docs/approvals.md):
 * - `POST /api/v1/unmatched-payments/:reference/match-proposals` (operator or admin): proposes
 *   matching an open unmatched payment to a checkout with the terms given (the operator's own
 *   source; never pre-filled from the provider's answer), 201;
 * - `POST /api/v1/transactions/:reference/accept-as-paid-proposals` (operator or admin): proposes
 *   accepting a State Mismatch as paid, with a note, 201;
 * - (`POST /api/v1/privacy/erasures`, PrivacyController: proposes erasing a data subject);
 * - `GET /api/v1/proposals` (any role): the proposals waiting for approval, oldest first;
 *   `GET /api/v1/proposals/:id`: one, as it stands;
 * - `POST /api/v1/proposals/:id/approve` (admin, never the proposer): runs the action with the
 *   proposed terms; `POST /api/v1/proposals/:id/reject` (an admin, or the proposer withdrawing it).
 * Every command is recorded in the ledger with its actor before it runs.
 */
@ApiTags('approvals')
@ApiCookieAuth(SECURITY.session)
@ApiProblems([401, 'CONSOLE.UNAUTHENTICATED'])
@Controller('api/v1')
@UseGuards(SessionGuard)
export class ApprovalsController {
  constructor(@Inject(APPROVALS) private readonly approvals: ApprovalService) {}

  @Post('unmatched-payments/:reference/match-proposals')
  @MinRole('operator')
  @HttpCode(201)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({
    summary: 'Propose matching an unmatched payment (operator or admin)',
    description:
      "The checkout's terms from your own source (amount in minor units, currency, user, customer, entitlement, access period). A second admin must approve before the checkout is registered and verified against the provider's answer.",
  })
  @ApiParam({ name: 'reference', description: "The unmatched payment's reference" })
  @ApiBodyOf(matchTerms)
  @ApiAnswer(201, proposal, 'Proposed; waits for a second admin')
  @ApiProblems(
    ...JSON_BODY_PROBLEMS,
    [400, 'REQUEST.VALIDATION_FAILED'],
    [403, 'CONSOLE.CSRF_REJECTED'],
    [403, 'CONSOLE.FORBIDDEN'],
    [404, 'CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND'],
    [409, 'CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN'],
    [409, 'CONSOLE.PROPOSAL_PENDING'],
    [503, 'READ_MODEL.NOT_READY'],
    [503, 'CONSOLE.PRIVACY_VAULT_MISSING'],
    [503, 'CONSOLE.AUDIT_UNAVAILABLE'],
  )
  proposeMatch(@Param('reference') reference: string, @Body() body: unknown, @CurrentSession() session: RequestSession): Promise<ProposalView> {
    if (!isWellFormedReference(reference)) throw new ConsoleError('CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND', 'Unmatched payment not found');
    return this.approvals.propose(session.user, 'unmatched_payment.match', reference, body);
  }

  @Post('transactions/:reference/accept-as-paid-proposals')
  @MinRole('operator')
  @HttpCode(201)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({
    summary: 'Propose accepting a State Mismatch as paid (operator or admin)',
    description:
      'Why, in a note the approver reads. A second admin must approve; the ledger then records `SettledByOverride` naming both people and the difference accepted, and grants the entitlement (docs/state-machine.md, "Resolving a State Mismatch").',
  })
  @ApiParam({ name: 'reference', description: "The transaction's reference" })
  @ApiBodyOf(acceptAsPaidTerms)
  @ApiAnswer(201, proposal, 'Proposed; waits for a second admin')
  @ApiProblems(
    ...JSON_BODY_PROBLEMS,
    [400, 'REQUEST.VALIDATION_FAILED'],
    [403, 'CONSOLE.CSRF_REJECTED'],
    [403, 'CONSOLE.FORBIDDEN'],
    [404, 'CONSOLE.TRANSACTION_NOT_FOUND'],
    [409, 'CONSOLE.NOT_STATE_MISMATCH'],
    [409, 'CONSOLE.MISMATCH_RESOLVED'],
    [409, 'CONSOLE.MISMATCH_MONEY_RETURNED'],
    [409, 'CONSOLE.MISMATCH_DISPUTE_OPEN'],
    [409, 'CONSOLE.PROPOSAL_PENDING'],
    [503, 'READ_MODEL.NOT_READY'],
    [503, 'CONSOLE.AUDIT_UNAVAILABLE'],
  )
  proposeAcceptAsPaid(@Param('reference') reference: string, @Body() body: unknown, @CurrentSession() session: RequestSession): Promise<ProposalView> {
    if (!isWellFormedReference(reference)) throw new ConsoleError('CONSOLE.TRANSACTION_NOT_FOUND', 'Transaction not found');
    return this.approvals.propose(session.user, 'state_mismatch.accept_as_paid', reference, body);
  }

  @Get('proposals')
  @ApiOperation({
    summary: 'Proposals waiting for approval',
    description: 'Oldest first; expired ones are left out. A customer’s email and phone are shown opened to operators and admins, masked to viewers.',
  })
  @ApiAnswer(200, proposalsAnswer, 'The pending proposals')
  async pending(@CurrentSession() session: RequestSession): Promise<{ items: ProposalView[] }> {
    return { items: await this.approvals.pending(session.user, 100) };
  }

  @Get('proposals/:id')
  @ApiOperation({
    summary: 'One proposal',
    description:
      'As it stands now: a pending one past its expiry reads `expired`. A customer’s email and phone are shown opened to operators and admins, masked to viewers.',
  })
  @ApiParam({ name: 'id', description: "The proposal's id" })
  @ApiAnswer(200, proposal, 'The proposal')
  @ApiProblems([404, 'APPROVAL.UNKNOWN'])
  one(@Param('id') id: string, @CurrentSession() session: RequestSession): Promise<ProposalView> {
    return this.approvals.get(session.user, pathProposalId(id));
  }

  @Post('proposals/:id/approve')
  @MinRole('admin')
  @HttpCode(200)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({
    summary: 'Approve a proposal (admin, not its proposer)',
    description: 'Runs the action with the terms as proposed; if it fails, the proposal stays pending. Recorded in the ledger with the approver first.',
  })
  @ApiParam({ name: 'id', description: "The proposal's id" })
  @ApiAnswer(200, approvalAnswer, 'Approved, and the action ran')
  @ApiProblems(
    ...APPROVAL_PROBLEMS,
    [403, 'APPROVAL.SELF_APPROVAL'],
    [409, 'APPROVAL.EXPIRED'],
    [404, 'CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND'],
    [409, 'CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN'],
    [409, 'CONSOLE.MATCH_REFUSED'],
    [409, 'CONSOLE.SUBJECT_ERASED'],
    [503, 'CONSOLE.INGESTION_UNAVAILABLE'],
    [503, 'CONSOLE.PRIVACY_VAULT_MISSING'],
    [500, 'CONSOLE.INGESTION_REJECTED'],
    [500, 'CONSOLE.SUBJECT_KEY_UNAVAILABLE'],
  )
  approve(@Param('id') id: string, @CurrentSession() session: RequestSession): Promise<{ proposal: ProposalView; result: Record<string, unknown> }> {
    return this.approvals.approve(session.user, pathProposalId(id));
  }

  @Post('proposals/:id/reject')
  @MinRole('operator')
  @HttpCode(200)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({ summary: 'Reject or withdraw a proposal', description: 'An admin rejects, or the proposer withdraws, with a reason. The action never runs.' })
  @ApiParam({ name: 'id', description: "The proposal's id" })
  @ApiBodyOf(rejectBody)
  @ApiAnswer(200, proposal, 'Rejected')
  @ApiProblems(...JSON_BODY_PROBLEMS, ...APPROVAL_PROBLEMS, [400, 'REQUEST.VALIDATION_FAILED'], [403, 'APPROVAL.FORBIDDEN'])
  reject(@Param('id') id: string, @Body() body: unknown, @CurrentSession() session: RequestSession): Promise<ProposalView> {
    const { reason } = parseBody(rejectBody, body);
    return this.approvals.reject(session.user, pathProposalId(id), reason);
  }
}

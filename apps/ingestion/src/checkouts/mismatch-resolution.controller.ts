import { Body, Controller, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { MismatchResolution } from '@settle/domain';
import { ApiAnswer, ApiBodyOf, ApiProblems, JSON_BODY_PROBLEMS, parseBody } from '@settle/http';
import { findTransactionStatus } from '@settle/ledger';
import type { Outbox, OutboxMessage, OutboxRelay } from '@settle/messaging';
import { deterministicId, inTransaction, ProblemError, type Pool } from '@settle/platform';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AdminKeyGuard } from '../http/api-key.guard.js';
import { resolveMismatchAnswer } from '../http/openapi/answers.js';
import { SECURITY } from '../http/openapi/security.js';
import { OUTBOX, OUTBOX_RELAY, PG_POOL } from '../tokens.js';
import { CheckoutRepository } from './checkout.repository.js';
import { pathReference } from './checkout.request.js';

const person = z.string().trim().min(1).max(320);

/**
 * `POST /v1/admin/checkouts/{reference}/resolve-mismatch` body (docs/state-machine.md, "Resolving a
 * State Mismatch"): `accept_as_paid` names the console proposal and the two people (proposer and a
 * different approving admin) and why; `refund_due` names the admin who closed it.
 */
export const resolveMismatchBody = z
  .discriminatedUnion('resolution', [
    z
      .object({
        resolution: z.literal('accept_as_paid'),
        proposal_id: z.string().trim().min(1).max(100).describe('The console proposal approved (docs/approvals.md)'),
        proposed_by: person.describe('Who proposed accepting it (e-mail)'),
        approved_by: person.describe('The different admin who approved it (e-mail)'),
        note: z.string().trim().min(1).max(500).describe('Why it is accepted, at most 500 characters'),
      })
      .strict(),
    z
      .object({
        resolution: z.literal('refund_due'),
        closed_by: person.describe('The admin who closes it (e-mail)'),
        note: z.string().trim().max(500).optional().describe('Free text, at most 500 characters'),
      })
      .strict(),
  ])
  .refine((b) => b.resolution !== 'accept_as_paid' || b.proposed_by.toLowerCase() !== b.approved_by.toLowerCase(), {
    message: 'approved_by must be a different person from proposed_by',
    path: ['approved_by'],
  });

/**
 * Resolving a State Mismatch (admin key; docs/state-machine.md, "Resolving a State Mismatch"): the
 * console calls it once two people accepted a payment as paid, or an admin closed it as to be
 * refunded. The request is checked against the read model (a State Mismatch, not resolved yet;
 * not accepted once money went back) and published as `MismatchResolutionRequested`; the ledger
 * projector checks it again on the transaction's stream and records it. `refund_due` also asks the
 * verifier to read the payment's refunds now (trigger `admin_reconciliation`), so a refund made
 * before closes it at once.
 */
@ApiTags('admin')
@ApiBearerAuth(SECURITY.adminApiKey)
@ApiProblems([401, 'AUTH.MISSING_API_KEY'], [401, 'AUTH.INVALID_API_KEY'], [503, 'SERVICE.UNAVAILABLE'])
@Controller('v1/admin/checkouts')
@UseGuards(AdminKeyGuard)
export class MismatchResolutionController {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly checkouts: CheckoutRepository,
    @Inject(OUTBOX) private readonly outbox: Outbox,
    @Inject(OUTBOX_RELAY) private readonly relay: Pick<OutboxRelay, 'wake'>,
  ) {}

  @Post(':reference/resolve-mismatch')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Resolve a State Mismatch (admin)',
    description:
      "`accept_as_paid` (after two people agreed: the ledger records `SettledByOverride` naming both and the difference accepted, and grants the entitlement) or `refund_due` (the exception stays open until the provider shows the money returned, then closes by itself). The payment's state stays `STATE_MISMATCH`; `resolution` in its status answer follows.",
  })
  @ApiParam({ name: 'reference', description: "The checkout's transaction reference" })
  @ApiBodyOf(resolveMismatchBody)
  @ApiAnswer(202, resolveMismatchAnswer, 'Requested: the ledger records it next')
  @ApiProblems(
    ...JSON_BODY_PROBLEMS,
    [400, 'REQUEST.VALIDATION_FAILED'],
    [404, 'CHECKOUT.NOT_FOUND'],
    [409, 'MISMATCH.NOT_STATE_MISMATCH'],
    [409, 'MISMATCH.ALREADY_RESOLVED'],
    [409, 'MISMATCH.MONEY_RETURNED'],
    [409, 'MISMATCH.DISPUTE_OPEN'],
    [503, 'READ_MODEL.NOT_READY'],
  )
  async resolve(@Param('reference') path: string, @Body() body: unknown): Promise<{ reference: string; resolution: MismatchResolution; status: 'resolving' }> {
    const reference = pathReference(path);
    const request = parseBody(resolveMismatchBody, body);
    const checkout = await this.checkouts.find(this.pool, reference);
    if (!checkout) throw new ProblemError(404, 'CHECKOUT.NOT_FOUND', 'No checkout has this reference');
    const status = await findTransactionStatus(this.pool, reference);
    if (status?.state !== 'STATE_MISMATCH')
      throw new ProblemError(409, 'MISMATCH.NOT_STATE_MISMATCH', `The payment is ${status?.state ?? 'PENDING'}, not in State Mismatch`);
    if (status.resolution !== null) {
      // The same resolution asked again (a retry after a time-out) is answered as the first was: nothing more is published.
      const same = request.resolution === 'accept_as_paid' ? status.resolution === 'accepted_as_paid' : status.resolution !== 'accepted_as_paid';
      if (same) return { reference, resolution: request.resolution, status: 'resolving' };
      throw new ProblemError(409, 'MISMATCH.ALREADY_RESOLVED', `The State Mismatch is resolved already (${status.resolution})`);
    }
    if (request.resolution === 'accept_as_paid' && status.returnedMinor > 0) {
      throw new ProblemError(409, 'MISMATCH.MONEY_RETURNED', 'Money of this payment went back to the payer: it cannot be accepted as paid');
    }
    if (request.resolution === 'accept_as_paid' && status.moneyState === 'disputed') {
      throw new ProblemError(409, 'MISMATCH.DISPUTE_OPEN', 'A dispute of this payment is open: it cannot be accepted as paid until it is decided');
    }
    const now = Date.now();
    // An acceptance's id is its proposal's: the same approval sent twice before the ledger recorded it is one request.
    const eventId = request.resolution === 'accept_as_paid' ? deterministicId('MismatchResolutionRequested', request.proposal_id) : randomUUID();
    const messages: OutboxMessage[] = [
      {
        type: 'MismatchResolutionRequested',
        payload: {
          event_id: eventId,
          occurred_at: now,
          correlation_id: checkout.correlationId,
          reference,
          resolution: request.resolution,
          access_period: checkout.accessPeriod,
          proposal_id: request.resolution === 'accept_as_paid' ? request.proposal_id : null,
          proposed_by: request.resolution === 'accept_as_paid' ? request.proposed_by : null,
          approved_by: request.resolution === 'accept_as_paid' ? request.approved_by : null,
          closed_by: request.resolution === 'refund_due' ? request.closed_by : null,
          note: request.note ?? null,
        },
      },
    ];
    if (request.resolution === 'refund_due') {
      messages.push({
        type: 'VerificationRequested',
        causationId: eventId,
        payload: {
          event_id: randomUUID(),
          occurred_at: now,
          correlation_id: checkout.correlationId,
          reference,
          trigger: 'admin_reconciliation',
          requested_by: `refund_due:${request.closed_by}`,
        },
      });
    }
    await inTransaction(this.pool, (client) => this.outbox.enqueue(client, messages));
    this.relay.wake();
    return { reference, resolution: request.resolution, status: 'resolving' };
  }
}

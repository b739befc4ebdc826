import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { isWellFormedReference, literalOf, PROVIDERS, UNMATCHED_CLOSE_REASONS } from '@settle/domain';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiBodyOf, ApiKeyId, ApiProblems, ApiQueryOf, encodeKeysetCursor, JSON_BODY_PROBLEMS, parseBody, parseKeysetCursor } from '@settle/http';
import { findUnmatchedPayment, listUnmatchedPayments } from '@settle/ledger';
import type { Outbox, OutboxRelay } from '@settle/messaging';
import { inTransaction, ProblemError, type Pool } from '@settle/platform';
import { randomUUID } from 'node:crypto';
import { RegisterCheckoutCommand } from '../checkouts/checkout.commands.js';
import { registerCheckoutBody } from '../checkouts/checkout.request.js';
import { z } from 'zod';
import { AdminKeyGuard } from '../http/api-key.guard.js';
import { closeAnswer, intakeAnswer, unmatchedPaymentsAnswer } from '../http/openapi/answers.js';
import { SECURITY } from '../http/openapi/security.js';
import { OUTBOX, OUTBOX_RELAY, PG_POOL } from '../tokens.js';

/** An empty query value is no value. */
const optional = <S extends z.ZodType>(schema: S) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** `GET /v1/admin/unmatched-payments` query: which ones, and a keyset page. */
export const unmatchedPaymentsQuery = z.object({
  status: optional(
    z
      .enum(['open', 'matched', 'closed'])
      .describe('`open` (default): waiting for a checkout or an operator; `matched`: a checkout was registered since; `closed`: an operator closed it'),
  ).transform((v) => v ?? 'open'),
  cursor: optional(z.string().max(1000).describe("The previous page's `next_cursor`")),
  limit: optional(z.coerce.number().int().min(1).max(100).describe('Rows per page, 1 to 100 (default 50)')).transform((v) => v ?? 50),
});

/**
 * `POST /v1/admin/unmatched-payments/{reference}/match` body: the checkout's terms as the
 * operator's own source states them (the order system, the price list), never copied from the
 * provider's answer; provider and reference are the payment's.
 */
export const matchUnmatchedPaymentBody = registerCheckoutBody.omit({ provider: true, reference: true });

/** `POST /v1/admin/unmatched-payments/{reference}/close` body: why, a note, and who (the console passes its operator's e-mail). */
export const closeUnmatchedPaymentBody = z
  .object({
    reason: z.enum(UNMATCHED_CLOSE_REASONS).describe('`refunded_outside_settle`, `test_payment` or `not_ours`'),
    note: z.string().trim().max(500).optional().describe('Free text, at most 500 characters'),
    closed_by: z.string().trim().min(1).max(320).optional().describe('Who closes it (default `admin-api`)'),
  })
  .strict();

/** One unmatched payment as the admin API lists it (amounts in minor units). */
export type UnmatchedPaymentView = z.infer<typeof unmatchedPaymentsAnswer>['unmatched_payments'][number];

/**
 * Payments Settle was never told about (docs/unmatched-payments.md), for upstream services that
 * want to self-heal: `GET /v1/admin/unmatched-payments` lists them from
 * `read_model.unmatched_payments` (a projection of the ledger's `unmatched-` streams), oldest
 * first, by keyset pages. Admin key only: the answers carry customers' e-mails and phones, masked
 * (docs/privacy.md, "Masked forms"; never the values, which leave the verifier sealed). A
 * service that finds its own checkout here registers it under the payment's reference
 * (`POST /v1/checkouts`): the payment is then matched and verified at once.
 * `POST /v1/admin/unmatched-payments/{reference}/match` does the same for an operator (the
 * console runs it once a second admin approved the match, docs/approvals.md): the checkout
 * registered through the same path, with the same validation.
 */
@ApiTags('admin')
@ApiBearerAuth(SECURITY.adminApiKey)
@ApiProblems([401, 'AUTH.MISSING_API_KEY'], [401, 'AUTH.INVALID_API_KEY'], [503, 'SERVICE.UNAVAILABLE'])
@Controller('v1/admin/unmatched-payments')
@UseGuards(AdminKeyGuard)
export class UnmatchedPaymentsController {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly commands: CommandBus,
    @Inject(OUTBOX) private readonly outbox: Outbox,
    @Inject(OUTBOX_RELAY) private readonly relay: Pick<OutboxRelay, 'wake'>,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Unmatched payments (admin)',
    description:
      'Payments a provider confirmed, server to server, for a reference that has no checkout, oldest first. Register the checkout under the reference to match one: the four checks then run against the provider answer.',
  })
  @ApiQueryOf(unmatchedPaymentsQuery)
  @ApiAnswer(200, unmatchedPaymentsAnswer, 'One page')
  @ApiProblems([400, 'REQUEST.VALIDATION_FAILED'], [503, 'READ_MODEL.NOT_READY'])
  async list(@Query() query: Record<string, string>): Promise<z.infer<typeof unmatchedPaymentsAnswer>> {
    const q = parseBody(unmatchedPaymentsQuery, query);
    const rows = await listUnmatchedPayments(this.pool, { status: q.status, after: parseKeysetCursor(q.cursor), limit: q.limit });
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    return {
      unmatched_payments: page.map((r) => ({
        reference: r.reference,
        provider: literalOf(PROVIDERS, r.provider, 'provider'),
        status: r.status,
        amount: r.amountMinor,
        currency: r.currency,
        customer: r.customer,
        terms_verified: r.termsVerified,
        provider_status: r.providerStatus,
        provider_transaction_id: r.providerTransactionId,
        verified_at: r.verifiedAt.toISOString(),
        matched_at: r.matchedAt?.toISOString() ?? null,
        closed:
          r.closedAt && r.closeReason && r.closedBy
            ? { at: r.closedAt.toISOString(), reason: literalOf(UNMATCHED_CLOSE_REASONS, r.closeReason, 'close reason'), by: r.closedBy }
            : null,
      })),
      next_cursor: rows.length > q.limit && last ? encodeKeysetCursor({ at: last.verifiedAtText, reference: last.reference }) : null,
    };
  }

  @Post(':reference/match')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Match an unmatched payment to a checkout (admin)',
    description:
      "Registers the checkout under the open payment's reference and provider with the terms given (the operator's own source, never the provider answer): the same validation as `POST /v1/checkouts`, `CheckoutRegistered` on the topic, then the four checks against the provider answer; a mismatch ends in State Mismatch as usual.",
  })
  @ApiParam({ name: 'reference', description: "The unmatched payment's reference" })
  @ApiBodyOf(matchUnmatchedPaymentBody)
  @ApiAnswer(202, intakeAnswer, 'Registered: the payment is verified as a checkout now')
  @ApiProblems(
    ...JSON_BODY_PROBLEMS,
    [400, 'REQUEST.VALIDATION_FAILED'],
    [404, 'UNMATCHED_PAYMENT.NOT_FOUND'],
    [409, 'UNMATCHED_PAYMENT.NOT_OPEN'],
    [409, 'CHECKOUT.CONFLICT'],
    [503, 'READ_MODEL.NOT_READY'],
  )
  async match(@Param('reference') reference: string, @Body() body: unknown, @ApiKeyId() keyId: string): Promise<{ reference: string; state: string }> {
    if (!isWellFormedReference(reference)) throw new ProblemError(404, 'UNMATCHED_PAYMENT.NOT_FOUND', 'Unmatched payment not found');
    const terms = parseBody(matchUnmatchedPaymentBody, body);
    const payment = await findUnmatchedPayment(this.pool, reference);
    if (!payment) throw new ProblemError(404, 'UNMATCHED_PAYMENT.NOT_FOUND', 'Unmatched payment not found');
    if (payment.status !== 'open') throw new ProblemError(409, 'UNMATCHED_PAYMENT.NOT_OPEN', `The payment is ${payment.status}, not open`);
    const provider = literalOf(PROVIDERS, payment.provider, 'provider');
    const { state } = await this.commands.execute(new RegisterCheckoutCommand({ ...terms, provider, reference }, new Date(), `admin_key:${keyId}`));
    return { reference, state };
  }

  @Post(':reference/close')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Close an unmatched payment with a reason (admin)',
    description:
      'Refunded outside Settle, a test payment, or not ours: publishes the request; the verifier closes the record and the ledger records `UnmatchedPaymentClosed` with the reason and who closed it. Nothing is granted or refunded by Settle.',
  })
  @ApiParam({ name: 'reference', description: "The unmatched payment's reference" })
  @ApiBodyOf(closeUnmatchedPaymentBody)
  @ApiAnswer(202, closeAnswer, 'Requested: the payment reads closed once the ledger recorded it')
  @ApiProblems(
    ...JSON_BODY_PROBLEMS,
    [400, 'REQUEST.VALIDATION_FAILED'],
    [404, 'UNMATCHED_PAYMENT.NOT_FOUND'],
    [409, 'UNMATCHED_PAYMENT.NOT_OPEN'],
    [503, 'READ_MODEL.NOT_READY'],
  )
  async close(@Param('reference') reference: string, @Body() body: unknown): Promise<{ reference: string; status: 'closing' }> {
    if (!isWellFormedReference(reference)) throw new ProblemError(404, 'UNMATCHED_PAYMENT.NOT_FOUND', 'Unmatched payment not found');
    const request = parseBody(closeUnmatchedPaymentBody, body);
    const payment = await findUnmatchedPayment(this.pool, reference);
    if (!payment) throw new ProblemError(404, 'UNMATCHED_PAYMENT.NOT_FOUND', 'Unmatched payment not found');
    if (payment.status !== 'open') throw new ProblemError(409, 'UNMATCHED_PAYMENT.NOT_OPEN', `The payment is ${payment.status}, not open`);
    const eventId = randomUUID();
    await inTransaction(this.pool, (client) =>
      this.outbox.enqueue(client, [
        {
          type: 'UnmatchedPaymentCloseRequested',
          payload: {
            event_id: eventId,
            occurred_at: Date.now(),
            correlation_id: eventId,
            reference,
            reason: request.reason,
            note: request.note ?? null,
            closed_by: request.closed_by ?? 'admin-api',
          },
        },
      ]),
    );
    this.relay.wake();
    return { reference, status: 'closing' };
  }
}

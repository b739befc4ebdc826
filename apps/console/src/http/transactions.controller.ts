import { Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiProblems, ApiQueryOf, isoTime, parseBody, parseKeysetCursor } from '@settle/http';
import { DISPUTE_STATUSES, MONEY_MOVEMENT_KINDS, MISMATCH_RESOLUTION_STATES, MONEY_STATES } from '@settle/domain';
import { ADMIN_ACTIONS } from '@settle/ledger';
import type { Logger } from '@settle/platform';
import { z } from 'zod';
import type { AuditTrail } from '../audit/audit-trail.port.js';
import type { ReconcileAnswer, Reconciler } from '../reconcile/reconciler.port.js';
import type { EntitlementEventView, TimelineEntry, TransactionDetail, TransactionSummary, WatchView } from '../transactions/views.js';
import type { TransactionRepository } from '../transactions/transaction.repository.js';
import { cursor, summaryFields } from './openapi/answers.js';
import { SECURITY } from './openapi/document.js';
import { listQuery, pathReference } from './requests.js';
import { CurrentSession, MinRole, SessionGuard, type RequestSession } from './session.guard.js';
import { AUDIT_TRAIL, CONSOLE_LOGGER, RECONCILER, TRANSACTIONS } from './tokens.js';

/** A row of the transaction list. */
const transactionSummary = z.strictObject(summaryFields);

/** `GET /api/v1/transactions`. */
const transactionListAnswer = z.strictObject({ items: z.array(transactionSummary), nextCursor: cursor });

const check = z.strictObject({
  check: z.string(),
  passed: z.boolean(),
  code: z.string().nullable(),
  expected: z.string(),
  observed: z.string(),
  providerField: z.string().nullable().describe("The provider answer's field the observed value was read from"),
});

/** `GET /api/v1/transactions/{reference}`. */
const transactionDetailAnswer = z.strictObject({
  transaction: z.strictObject({
    ...summaryFields,
    entitlement: z.string().nullable(),
    accessPeriod: z.string().nullable(),
    checks: z.array(check).nullable().describe('The four consensus checks of the last decision (docs/spec.md, section 3)'),
    lastVerdict: z.string().nullable(),
    lastTrigger: z.string().nullable(),
    moneyState: z
      .enum(MONEY_STATES)
      .describe('What happened to the money after the payment settled (docs/state-machine.md, "The money after settlement"); the state never changes'),
    returnedMinor: z.number().int().describe('Money returned to the payer so far (refunds, a reversal, lost disputes), integer minor units of `currency`'),
    resolution: z
      .enum(MISMATCH_RESOLUTION_STATES)
      .nullable()
      .describe('A State Mismatch\'s resolution (docs/state-machine.md, "Resolving a State Mismatch"); `null` for none. The state stays `STATE_MISMATCH`'),
  }),
  timeline: z.array(
    z.strictObject({
      position: z.number().int(),
      revision: z.number().int(),
      type: z.string(),
      recordedAt: isoTime,
      trigger: z.string().nullable(),
      verdict: z.string().nullable(),
      state: z.string().nullable(),
      detail: z.string().nullable(),
      actor: z.strictObject({ email: z.string(), role: z.string() }).optional().describe('Who asked for it: on admin actions only'),
      adminAction: z
        .strictObject({
          action: z.enum(ADMIN_ACTIONS),
          outcome: z.enum(['succeeded', 'failed']).nullable(),
          errorCode: z.string().nullable(),
          completedAt: isoTime.nullable(),
        })
        .optional()
        .describe("An admin action's name and outcome (`null` while unknown)"),
      movement: z
        .strictObject({
          kind: z.enum(MONEY_MOVEMENT_KINDS),
          providerId: z.string().describe("The provider's own id of the refund, dispute or reversed transaction"),
          providerStatus: z.string().describe("The provider's raw status"),
          amountMinor: z.number().int().describe('Integer, minor units'),
          currency: z.string(),
          createdAt: isoTime.describe('When the provider created the object'),
          moneyState: z.enum(MONEY_STATES).nullable().describe('The money state after this fact; `null` for an object the checks refused'),
          returnedMinor: z.number().int().nullable(),
          reason: z.string().nullable().describe("A dispute's reason, as the provider names it"),
          outcome: z.enum(DISPUTE_STATUSES).nullable().describe('A decided dispute: `won` or `lost`'),
          failedChecks: z.array(z.string()).describe('A refused object: the codes of the checks it failed (`MOVEMENT.*`)'),
        })
        .optional()
        .describe("A money fact after settlement: what the provider's own object said (docs/state-machine.md)"),
      resolution: z
        .strictObject({
          proposalId: z.string().nullable(),
          proposedBy: z.string().nullable().describe('`SettledByOverride`: who proposed it'),
          approvedBy: z.string().nullable().describe('`SettledByOverride`: the different admin who approved it'),
          closedBy: z.string().nullable().describe('`MismatchRefundDue`: the admin who closed it'),
          note: z.string().nullable(),
          differenceMinor: z.number().int().nullable().describe('Registered minus paid, minor units: the difference accepted'),
          returnedMinor: z.number().int().nullable().describe('`MismatchRefundDueClosed`: money returned by then, minor units'),
        })
        .optional()
        .describe('A State Mismatch\'s resolution fact (docs/state-machine.md, "Resolving a State Mismatch")'),
    }),
  ),
  watch: z.strictObject({ nextCheckAt: isoTime.nullable(), checksSoFar: z.number().int(), active: z.boolean() }).nullable(),
  entitlementEvents: z.array(
    z.strictObject({
      eventId: z.string(),
      event: z.string(),
      expiresAt: isoTime.nullable(),
      deliveries: z.array(
        z.strictObject({
          endpointId: z.string(),
          endpointUrl: z.string(),
          status: z.string(),
          attempts: z.array(
            z.strictObject({ at: isoTime, outcome: z.string(), httpStatus: z.number().int().nullable(), durationMs: z.number().describe('Milliseconds') }),
          ),
        }),
      ),
    }),
  ),
});

/** `POST /api/v1/transactions/{reference}/reconcile`. */
const reconcileAnswer = z.strictObject({ reference: z.string(), state: z.string().describe("The transaction's state when ingestion took the request") });

/**
 * The book of transactions (any role unless said), docs/console.md, "API" (the overview is
 * OverviewController's):
 * - `GET /api/v1/transactions?q=&provider=&state=&entitlement=&from=&to=&cursor=&limit=`: newest first, keyset pages;
 * - `GET /api/v1/transactions/:reference`: one transaction with its ledger timeline, the sweeper's
 *   watch and its entitlement events with their deliveries;
 * - `POST /api/v1/transactions/:reference/reconcile` (operator or admin): manual reconciliation,
 *   the spec's fourth trigger (docs/spec.md, section 1), 202; recorded in the ledger with its
 *   actor first (docs/console.md, "Audit").
 */
@ApiTags('transactions')
@ApiCookieAuth(SECURITY.session)
@ApiProblems([401, 'CONSOLE.UNAUTHENTICATED'])
@Controller('api/v1')
@UseGuards(SessionGuard)
export class TransactionsController {
  constructor(
    @Inject(TRANSACTIONS) private readonly transactions: TransactionRepository,
    @Inject(RECONCILER) private readonly reconciler: Reconciler,
    @Inject(AUDIT_TRAIL) private readonly audit: AuditTrail,
    @Inject(CONSOLE_LOGGER) private readonly logger: Logger,
  ) {}

  @Get('transactions')
  @ApiOperation({
    summary: 'List and search transactions',
    description: '`q` matches a reference by prefix, or exactly a user id, an email (case-insensitive) or a phone. Newest first, keyset pages.',
  })
  @ApiQueryOf(listQuery)
  @ApiAnswer(200, transactionListAnswer, 'One page')
  @ApiProblems([400, 'REQUEST.VALIDATION_FAILED'], [503, 'READ_MODEL.NOT_READY'])
  list(@Query() query: Record<string, string>): Promise<{ items: TransactionSummary[]; nextCursor: string | null }> {
    const q = parseBody(listQuery, query);
    return this.transactions.list({
      q: q.q,
      provider: q.provider,
      state: q.state,
      entitlement: q.entitlement,
      from: q.from,
      to: q.to,
      after: parseKeysetCursor(q.cursor),
      limit: q.limit,
    });
  }

  @Get('transactions/:reference')
  @ApiOperation({
    summary: 'One transaction',
    description: "Its checks, ledger timeline, the sweeper's watch, its entitlement events and their delivery attempts.",
  })
  @ApiParam({ name: 'reference', description: 'The checkout reference' })
  @ApiAnswer(200, transactionDetailAnswer, 'The transaction')
  @ApiProblems([404, 'CONSOLE.TRANSACTION_NOT_FOUND'], [503, 'READ_MODEL.NOT_READY'])
  detail(
    @Param('reference') reference: string,
  ): Promise<{ transaction: TransactionDetail; timeline: TimelineEntry[]; watch: WatchView | null; entitlementEvents: EntitlementEventView[] }> {
    return this.transactions.detail(pathReference(reference));
  }

  @Post('transactions/:reference/reconcile')
  @MinRole('operator')
  @HttpCode(202)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({
    summary: 'Reconcile now (operator or admin)',
    description: "The spec's fourth trigger: a fresh verification through ingestion. Recorded in the ledger with the actor before it runs.",
  })
  @ApiParam({ name: 'reference', description: 'The checkout reference' })
  @ApiAnswer(202, reconcileAnswer, 'Requested; follow the outcome on the transaction')
  @ApiProblems(
    [403, 'CONSOLE.CSRF_REJECTED'],
    [403, 'CONSOLE.FORBIDDEN'],
    [404, 'CONSOLE.TRANSACTION_NOT_FOUND'],
    [503, 'CONSOLE.INGESTION_UNAVAILABLE'],
    [503, 'CONSOLE.AUDIT_UNAVAILABLE'],
    [500, 'CONSOLE.INGESTION_REJECTED'],
  )
  async reconcile(@Param('reference') reference: string, @CurrentSession() session: RequestSession): Promise<ReconcileAnswer> {
    const checked = pathReference(reference);
    this.logger.info({ reference: checked, user: session.user.email, role: session.user.role }, 'manual reconciliation requested');
    return this.audit.run(
      { actor: session.user, action: 'transaction.reconcile', target: { kind: 'transaction', id: checked } },
      () => this.reconciler.reconcile(checked),
      (answer) => ({ state: answer.state }),
    );
  }
}

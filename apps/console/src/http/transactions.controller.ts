import { Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiProblems, ApiQueryOf, parseBody } from '@settle/http';
import type { Logger } from '@settle/platform';
import type { AuditTrail } from '../audit/audit-trail.port.js';
import type { ReconcileAnswer, Reconciler } from '../reconcile/reconciler.port.js';
import type { EntitlementEventView, TimelineEntry, TransactionDetail, TransactionSummary, WatchView } from '../transactions/views.js';
import type { TransactionRepository } from '../transactions/transaction.repository.js';
import { reconcileAnswer, transactionDetailAnswer, transactionListAnswer } from './openapi/answers.js';
import { SECURITY } from './openapi/document.js';
import { listQuery, parseCursor, pathReference } from './requests.js';
import { CurrentSession, MinRole, SessionGuard, type RequestSession } from './session.guard.js';
import { AUDIT_TRAIL, CONSOLE_LOGGER, RECONCILER, TRANSACTIONS } from './tokens.js';

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
      after: parseCursor(q.cursor),
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

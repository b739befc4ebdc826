import { Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { parseBody } from '@settle/http';
import type { Logger } from '@settle/platform';
import type { AuditTrail } from '../audit/audit-trail.port.js';
import type { ReconcileAnswer, Reconciler } from '../reconcile/reconciler.port.js';
import type {
  EntitlementEventView,
  TimelineEntry,
  TransactionDetail,
  TransactionRepository,
  TransactionSummary,
  WatchView,
} from '../transactions/transaction.repository.js';
import { listQuery, parseCursor, pathReference } from './requests.js';
import { CurrentSession, MinRole, SessionGuard, type RequestSession } from './session.guard.js';
import { AUDIT_TRAIL, CONSOLE_LOGGER, RECONCILER, TRANSACTIONS } from './tokens.js';

/**
 * The book of transactions (any role unless said), docs/console.md, "API" (the overview is
 * OverviewController's):
 * - `GET /api/v1/transactions?q=&provider=&state=&entitlement=&cursor=&limit=`: newest first, keyset pages;
 * - `GET /api/v1/transactions/:reference`: one transaction with its ledger timeline, the sweeper's
 *   watch and its entitlement events with their deliveries;
 * - `POST /api/v1/transactions/:reference/reconcile` (operator or admin): manual reconciliation,
 *   the spec's fourth trigger (docs/spec.md, section 1), 202; recorded in the ledger with its
 *   actor first (docs/console.md, "Audit").
 */
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
  list(@Query() query: Record<string, string>): Promise<{ items: TransactionSummary[]; nextCursor: string | null }> {
    const q = parseBody(listQuery, query);
    return this.transactions.list({ q: q.q, provider: q.provider, state: q.state, entitlement: q.entitlement, after: parseCursor(q.cursor), limit: q.limit });
  }

  @Get('transactions/:reference')
  detail(
    @Param('reference') reference: string,
  ): Promise<{ transaction: TransactionDetail; timeline: TimelineEntry[]; watch: WatchView | null; entitlementEvents: EntitlementEventView[] }> {
    return this.transactions.detail(pathReference(reference));
  }

  @Post('transactions/:reference/reconcile')
  @MinRole('operator')
  @HttpCode(202)
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

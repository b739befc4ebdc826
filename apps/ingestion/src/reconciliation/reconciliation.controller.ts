import type { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { Body, Controller, Get, Header, HttpCode, Inject, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import { literalOf, PROVIDERS, RECONCILIATION_EXCEPTION_CLASSES, RECONCILIATION_RUN_KINDS, type ProviderName } from '@settle/domain';
import { ApiAnswer, ApiBodyOf, ApiProblems, ApiQueryOf, encodeKeysetCursor, JSON_BODY_PROBLEMS, parseBody, parseKeysetCursor } from '@settle/http';
import {
  findReconciliationRun,
  listReconciliationExceptions,
  listReconciliationRuns,
  reconciliationExceptionsCsv,
  type ReconciliationExceptionListRow,
  type ReconciliationRunListRow,
} from '@settle/ledger';
import type { Outbox, OutboxRelay } from '@settle/messaging';
import { inTransaction, ProblemError, type Pool } from '@settle/platform';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { AdminKeyGuard } from '../http/api-key.guard.js';
import {
  reconciliationExceptionsAnswer,
  reconciliationRunAnswer,
  reconciliationRunsAnswer,
  resolveAnswer,
  runRequestedAnswer,
} from '../http/openapi/answers.js';
import { SECURITY } from '../http/openapi/security.js';
import { OUTBOX, OUTBOX_RELAY, PG_POOL } from '../tokens.js';

/**
 * Providers whose list a run cannot page through: M-Pesa's Daraja API has no listing Settle can
 * use (docs/provider-facts.md), so it is reconciled only through its callbacks and the
 * per-reference query the sweeper runs.
 */
export const PROVIDERS_WITHOUT_LIST: ReadonlySet<ProviderName> = new Set<ProviderName>(['mpesa']);

/** The longest window one run may cover (31 days, milliseconds): a longer one is several runs. */
export const MAX_RUN_WINDOW_MS = 31 * 86_400_000;

/** An empty query value is no value. */
const optional = <S extends z.ZodType>(schema: S) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** `POST /v1/admin/reconciliation-runs` body (docs/reconciliation.md, "Runs"). */
export const startRunBody = z
  .object({
    provider: z.enum(PROVIDERS).describe('paystack, stripe or flutterwave (mpesa has no list: `RECONCILIATION.PROVIDER_CANNOT_LIST`)'),
    since: z.iso.datetime({ offset: true }).describe("Start of the window, by the provider's creation time (inclusive), ISO 8601"),
    until: z.iso.datetime({ offset: true }).optional().describe('End of the window (exclusive), ISO 8601; default now'),
    dry_run: z.boolean().default(false).describe('Compare and count only: no exception recorded, nothing asked of the verifier'),
    requested_by: z
      .string()
      .trim()
      .min(1)
      .max(320)
      .optional()
      .describe('Who starts it (default `admin-api`; the console passes its operator, the command line `cli`)'),
  })
  .strict();

/** `GET /v1/admin/reconciliation-runs` query. */
export const runsQuery = z.object({
  provider: optional(z.enum(PROVIDERS).describe('Only this provider')),
  cursor: optional(z.string().max(1000).describe("The previous page's `next_cursor`")),
  limit: optional(z.coerce.number().int().min(1).max(100).describe('Rows per page, 1 to 100 (default 50)')).transform((v) => v ?? 50),
});

/** `GET /v1/admin/reconciliation-exceptions` query: filters, a keyset page, or every match as CSV. */
export const exceptionsQuery = z.object({
  status: optional(z.enum(['open', 'resolved']).describe('`open` or `resolved` (default: both)')),
  class: optional(z.enum(RECONCILIATION_EXCEPTION_CLASSES).describe('Only this class')),
  provider: optional(z.enum(PROVIDERS).describe('Only this provider')),
  run_id: optional(z.string().max(200).describe('Raised or resolved by this run')),
  reference: optional(z.string().max(200).describe("Only this payment's")),
  format: optional(z.enum(['json', 'csv']).describe('`csv`: every matching exception as one CSV document (no paging)')),
  cursor: optional(z.string().max(1000).describe("The previous page's `next_cursor`")),
  limit: optional(z.coerce.number().int().min(1).max(100).describe('Rows per page, 1 to 100 (default 50)')).transform((v) => v ?? 50),
});

/** `POST /v1/admin/reconciliation-exceptions/{exception_id}/resolve` body. */
export const resolveExceptionBody = z
  .object({
    reason: z.string().trim().min(1).max(500).describe('Why it is resolved, in words an auditor reads (at most 500 characters)'),
    resolved_by: z.string().trim().min(1).max(320).optional().describe('Who resolves it (default `admin-api`)'),
  })
  .strict();

/**
 * Reconciliation against the providers' books on ingestion's admin API (docs/reconciliation.md):
 * start a run (the verifier pages through the provider's list; `./settle reconcile` and the
 * console's "Start a reconciliation run" come through here), follow it, list its exceptions or
 * export them as CSV, and resolve one with a reason. Admin key only: exceptions carry payment
 * details. Reads come from the ledger's read models; writes are requests on the
 * transaction-events topic, durable in ingestion's outbox before the answer.
 */
@ApiTags('admin')
@ApiBearerAuth(SECURITY.adminApiKey)
@ApiProblems([401, 'AUTH.MISSING_API_KEY'], [401, 'AUTH.INVALID_API_KEY'], [503, 'SERVICE.UNAVAILABLE'])
@Controller('v1/admin')
@UseGuards(AdminKeyGuard)
export class ReconciliationController {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(OUTBOX) private readonly outbox: Outbox,
    @Inject(OUTBOX_RELAY) private readonly relay: Pick<OutboxRelay, 'wake'>,
  ) {}

  @Post('reconciliation-runs')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Start a reconciliation run (admin)',
    description:
      "Asks the verifier to page through the provider's own list of transactions for the window and compare each with Settle's records. The run is recorded in the ledger as it goes; follow it with `GET /v1/admin/reconciliation-runs/{run_id}`.",
  })
  @ApiBodyOf(startRunBody)
  @ApiAnswer(202, runRequestedAnswer, 'Requested: the verifier starts it within its tick')
  @ApiProblems(...JSON_BODY_PROBLEMS, [400, 'REQUEST.VALIDATION_FAILED'], [422, 'RECONCILIATION.PROVIDER_CANNOT_LIST'], [422, 'RECONCILIATION.INVALID_WINDOW'])
  async start(@Body() body: unknown): Promise<z.infer<typeof runRequestedAnswer>> {
    const request = parseBody(startRunBody, body);
    if (PROVIDERS_WITHOUT_LIST.has(request.provider)) {
      throw new ProblemError(
        422,
        'RECONCILIATION.PROVIDER_CANNOT_LIST',
        `${request.provider} has no transaction list to reconcile against; see docs/reconciliation.md`,
      );
    }
    const now = Date.now();
    const from = Date.parse(request.since);
    const until = request.until ? Date.parse(request.until) : now;
    if (!(from < until) || until - from > MAX_RUN_WINDOW_MS) {
      throw new ProblemError(422, 'RECONCILIATION.INVALID_WINDOW', '`since` must be before `until`, and the window at most 31 days');
    }
    const runId = `rcr_${randomUUID()}`;
    const eventId = randomUUID();
    await inTransaction(this.pool, (client) =>
      this.outbox.enqueue(client, [
        {
          type: 'ReconciliationRunRequested',
          payload: {
            event_id: eventId,
            occurred_at: now,
            correlation_id: eventId,
            reference: runId,
            provider: request.provider,
            window_from: from,
            window_until: until,
            dry_run: request.dry_run,
            requested_by: request.requested_by ?? 'admin-api',
          },
        },
      ]),
    );
    this.relay.wake();
    return { run_id: runId, status: 'requested', window: { since: new Date(from).toISOString(), until: new Date(until).toISOString() } };
  }

  @Get('reconciliation-runs')
  @ApiOperation({ summary: 'Reconciliation runs (admin)', description: 'Runs newest first, scheduled and on demand, with their counts per class.' })
  @ApiQueryOf(runsQuery)
  @ApiAnswer(200, reconciliationRunsAnswer, 'One page')
  @ApiProblems([400, 'REQUEST.VALIDATION_FAILED'], [503, 'READ_MODEL.NOT_READY'])
  async runs(@Query() query: Record<string, string>): Promise<z.infer<typeof reconciliationRunsAnswer>> {
    const q = parseBody(runsQuery, query);
    const after = parseKeysetCursor(q.cursor);
    const rows = await listReconciliationRuns(this.pool, {
      provider: q.provider,
      after: after ? { at: after.at, id: after.reference } : undefined,
      limit: q.limit,
    });
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    return {
      runs: page.map(runView),
      next_cursor: rows.length > q.limit && last ? encodeKeysetCursor({ at: last.startedAtText, reference: last.runId }) : null,
    };
  }

  @Get('reconciliation-runs/:run_id')
  @ApiOperation({ summary: 'One reconciliation run (admin)', description: 'Where the run stands: pages read, counts per class, exceptions raised.' })
  @ApiParam({ name: 'run_id', description: "The run's id (`rcr_...`)" })
  @ApiAnswer(200, reconciliationRunAnswer, 'The run')
  @ApiProblems([404, 'RECONCILIATION.RUN_NOT_FOUND'], [503, 'READ_MODEL.NOT_READY'])
  async run(@Param('run_id') runId: string): Promise<z.infer<typeof reconciliationRunAnswer>> {
    const row = /^rcr_[0-9a-f-]{36}$/.test(runId) ? await findReconciliationRun(this.pool, runId) : null;
    if (!row) throw new ProblemError(404, 'RECONCILIATION.RUN_NOT_FOUND', 'Reconciliation run not found (a run just requested appears once it started)');
    return runView(row);
  }

  @Get('reconciliation-exceptions')
  @ApiOperation({
    summary: 'Reconciliation exceptions (admin)',
    description: 'Exceptions newest first, filtered, each with its evidence (the provider’s value beside Settle’s); `format=csv` exports every match as CSV.',
  })
  @ApiQueryOf(exceptionsQuery)
  @ApiProduces('application/json', 'text/csv')
  @ApiAnswer(200, reconciliationExceptionsAnswer, 'One page (or, with `format=csv`, every match as text/csv)')
  @ApiProblems([400, 'REQUEST.VALIDATION_FAILED'], [503, 'READ_MODEL.NOT_READY'])
  async exceptions(
    @Query() query: Record<string, string>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<z.infer<typeof reconciliationExceptionsAnswer> | Readable> {
    const q = parseBody(exceptionsQuery, query);
    const filter = { status: q.status, class: q.class, provider: q.provider, runId: q.run_id, reference: q.reference };
    if (q.format === 'csv') {
      reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="reconciliation-exceptions.csv"');
      return reconciliationExceptionsCsv(this.pool, filter);
    }
    const after = parseKeysetCursor(q.cursor);
    const rows = await listReconciliationExceptions(this.pool, { ...filter, after: after ? { at: after.at, id: after.reference } : undefined, limit: q.limit });
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    return {
      exceptions: page.map(exceptionView),
      next_cursor: rows.length > q.limit && last ? encodeKeysetCursor({ at: last.raisedAtText, reference: last.exceptionId }) : null,
    };
  }

  @Post('reconciliation-exceptions/:exception_id/resolve')
  @HttpCode(202)
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary: 'Resolve a reconciliation exception (admin)',
    description:
      'Publishes the request; the verifier closes the exception and the ledger records `ReconciliationExceptionResolved` with the reason and who resolved it.',
  })
  @ApiParam({ name: 'exception_id', description: "The exception's id (`rex_...`)" })
  @ApiBodyOf(resolveExceptionBody)
  @ApiAnswer(202, resolveAnswer, 'Requested: it reads resolved once the ledger recorded it')
  @ApiProblems(
    ...JSON_BODY_PROBLEMS,
    [400, 'REQUEST.VALIDATION_FAILED'],
    [404, 'RECONCILIATION.EXCEPTION_NOT_FOUND'],
    [409, 'RECONCILIATION.EXCEPTION_NOT_OPEN'],
    [503, 'READ_MODEL.NOT_READY'],
  )
  async resolve(@Param('exception_id') exceptionId: string, @Body() body: unknown): Promise<z.infer<typeof resolveAnswer>> {
    const request = parseBody(resolveExceptionBody, body);
    const [found] = /^rex_[0-9a-f-]{36}$/.test(exceptionId) ? await this.findException(exceptionId) : [];
    if (!found) throw new ProblemError(404, 'RECONCILIATION.EXCEPTION_NOT_FOUND', 'Reconciliation exception not found');
    if (found.status !== 'open') throw new ProblemError(409, 'RECONCILIATION.EXCEPTION_NOT_OPEN', 'The exception is resolved already');
    const eventId = randomUUID();
    await inTransaction(this.pool, (client) =>
      this.outbox.enqueue(client, [
        {
          type: 'ReconciliationExceptionResolveRequested',
          payload: {
            event_id: eventId,
            occurred_at: Date.now(),
            correlation_id: eventId,
            reference: found.reference,
            exception_id: exceptionId,
            reason: request.reason,
            resolved_by: request.resolved_by ?? 'admin-api',
          },
        },
      ]),
    );
    this.relay.wake();
    return { exception_id: exceptionId, status: 'resolving' };
  }

  private async findException(exceptionId: string): Promise<Array<{ reference: string; status: string }>> {
    const { rows } = await this.pool.query<{ reference: string; status: string }>(
      'SELECT reference, status FROM read_model.reconciliation_exceptions WHERE exception_id = $1',
      [exceptionId],
    );
    return rows;
  }
}

function runView(r: ReconciliationRunListRow): z.infer<typeof reconciliationRunAnswer> {
  return {
    run_id: r.runId,
    provider: literalOf(PROVIDERS, r.provider, 'provider'),
    kind: literalOf(RECONCILIATION_RUN_KINDS, r.kind, 'run kind'),
    status: r.status,
    window: { since: r.windowFrom.toISOString(), until: r.windowUntil.toISOString() },
    dry_run: r.dryRun,
    started_by: r.startedBy,
    pages: r.pages,
    total_pages: r.totalPages,
    listed: r.listed,
    out_of_scope: r.outOfScope,
    too_recent: r.tooRecent,
    classes: r.classes,
    exceptions_raised: r.exceptionsRaised,
    exceptions_resolved: r.exceptionsResolved,
    started_at: r.startedAt.toISOString(),
    finished_at: r.finishedAt?.toISOString() ?? null,
    error: r.error,
  };
}

function exceptionView(r: ReconciliationExceptionListRow): z.infer<typeof reconciliationExceptionsAnswer>['exceptions'][number] {
  return {
    exception_id: r.exceptionId,
    reference: r.reference,
    provider: literalOf(PROVIDERS, r.provider, 'provider'),
    class: literalOf(RECONCILIATION_EXCEPTION_CLASSES, r.class, 'exception class'),
    status: r.status,
    evidence: r.evidence,
    run_id: r.runId,
    provider_transaction_id: r.providerTransactionId,
    provider_status: r.providerStatus,
    amount: r.amountMinor,
    currency: r.currency,
    raised_at: r.raisedAt.toISOString(),
    resolved: r.resolvedAt && r.resolution ? { at: r.resolvedAt.toISOString(), resolution: r.resolution, note: r.resolutionNote, by: r.resolvedBy } : null,
  };
}

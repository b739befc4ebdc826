import type { Readable } from 'node:stream';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiParam, ApiProduces, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { PROVIDERS, RECONCILIATION_EXCEPTION_CLASSES, RECONCILIATION_RUN_KINDS, RECONCILIATION_RUN_STATUSES } from '@settle/domain';
import { ApiAnswer, ApiBodyOf, ApiProblems, ApiQueryOf, isoTime, JSON_BODY_PROBLEMS, parseBody, parseKeysetCursor } from '@settle/http';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { AuditTrail } from '../audit/audit-trail.port.js';
import { ConsoleError } from '../errors.js';
import { ReconciliationAdmin, type RunStarted } from '../reconciliation/reconciliation-admin.js';
import {
  ReconciliationReader,
  type ReconciliationExceptionView,
  type ReconciliationPage,
  type ReconciliationRunView,
} from '../reconciliation/reconciliation-reader.js';
import { cursor } from './openapi/answers.js';
import { SECURITY } from './openapi/document.js';
import { CurrentSession, MinRole, SessionGuard, type RequestSession } from './session.guard.js';
import { AUDIT_TRAIL } from './tokens.js';

/** A run's id as the verifier and ingestion make them. */
const RUN_ID = /^rcr_[0-9a-f-]{36}$/;
/** An exception's id as the verifier makes them. */
const EXCEPTION_ID = /^rex_[0-9a-f-]{36}$/;

/** An empty query value is no filter. */
const optional = <S extends z.ZodType>(schema: S) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());
/** `limit`: 1..100, default 50. */
const limit = optional(z.coerce.number().int().min(1).max(100).describe('Rows per page, 1 to 100 (default 50)')).transform((v) => v ?? 50);

/** `GET /api/v1/reconciliation/runs` query. */
export const runsQuery = z.object({
  provider: optional(z.enum(PROVIDERS).describe('Only this provider')),
  cursor: optional(z.string().max(1000).describe("The previous page's `nextCursor`")),
  limit,
});

/** `GET /api/v1/reconciliation/exceptions` query: filters, then a keyset page or, with `format=csv`, every match as CSV. */
export const exceptionsQuery = z.object({
  status: optional(z.enum(['open', 'resolved']).describe('`open` or `resolved` (default: both)')),
  class: optional(z.enum(RECONCILIATION_EXCEPTION_CLASSES).describe('Only this class')),
  provider: optional(z.enum(PROVIDERS).describe('Only this provider')),
  runId: optional(z.string().regex(RUN_ID, 'not a run id').describe('Raised or resolved by this run (`rcr_...`)')),
  format: optional(z.enum(['json', 'csv']).describe('`csv`: every matching exception as one CSV document (no paging), as a download')),
  cursor: optional(z.string().max(1000).describe("The previous page's `nextCursor`")),
  limit,
});

/** `POST /api/v1/reconciliation/runs` body. */
export const startRunBody = z
  .object({
    provider: z.enum(PROVIDERS).describe('paystack, stripe or flutterwave (M-Pesa has no list: `CONSOLE.RECONCILIATION_PROVIDER_CANNOT_LIST`)'),
    since: z.iso
      .datetime({ offset: true, error: 'since must be an ISO 8601 time with its offset' })
      .describe("Start of the window by the provider's creation time (inclusive)"),
    until: z.iso
      .datetime({ offset: true, error: 'until must be an ISO 8601 time with its offset' })
      .optional()
      .describe('End of the window (exclusive); default now. At most 31 days after `since`'),
    dryRun: z.boolean().default(false).describe('Compare and count only: no exception recorded, nothing asked of the verifier'),
  })
  .strict()
  .refine((b) => b.until === undefined || Date.parse(b.since) < Date.parse(b.until), { path: ['until'], message: 'until must be after since' });

/** `POST /api/v1/reconciliation/exceptions/:exceptionId/resolve` body. */
export const resolveBody = z
  .object({ reason: z.string().trim().min(1, 'give a reason').max(500).describe('Why it is resolved, in words an auditor reads (at most 500 characters)') })
  .strict();

/** A run, in the list and alone. */
const runAnswer = z.strictObject({
  runId: z.string(),
  provider: z.enum(PROVIDERS),
  kind: z.enum(RECONCILIATION_RUN_KINDS).describe('`incremental` and `daily` are scheduled; `on_demand` was started by someone'),
  status: z.enum(RECONCILIATION_RUN_STATUSES),
  window: z.strictObject({ since: isoTime, until: isoTime }).describe("The provider's creation times compared: `since` inclusive, `until` exclusive"),
  dryRun: z.boolean(),
  startedBy: z.string().describe("Who started it: an operator's e-mail, `schedule`, `cli`, `admin-api`, `demo`"),
  pages: z.number().int().describe("Pages of the provider's list read so far"),
  totalPages: z.number().int().nullable().describe("The provider's page count when its list tells it"),
  listed: z.number().int().describe('Provider transactions read'),
  outOfScope: z.number().int().describe("Without Settle's marker: counted, never classified"),
  tooRecent: z.number().int().describe('Inside the grace period: left for the next run'),
  classes: z.record(z.string(), z.number().int()).describe('Provider transactions per class of the decision table (docs/reconciliation.md)'),
  exceptionsRaised: z.number().int(),
  exceptionsResolved: z.number().int(),
  startedAt: isoTime,
  finishedAt: isoTime.nullable(),
  error: z.string().nullable().describe('Why a failed run failed'),
});

/** `GET /api/v1/reconciliation/runs`. */
const runsAnswer = z.strictObject({ items: z.array(runAnswer), nextCursor: cursor });

/** An exception, with its evidence and resolution. */
const exceptionAnswer = z.strictObject({
  exceptionId: z.string(),
  reference: z.string(),
  provider: z.enum(PROVIDERS),
  class: z.enum(RECONCILIATION_EXCEPTION_CLASSES),
  status: z.enum(['open', 'resolved']),
  evidence: z
    .array(z.strictObject({ field: z.string(), provider: z.string(), settle: z.string() }))
    .describe("Each field compared that differs, the provider's value beside Settle's (amounts in minor units, as text)"),
  runId: z.string().nullable().describe('The run that raised it; `null` for the live duplicate-charge check'),
  providerTransactionId: z.string().nullable(),
  providerStatus: z.string().nullable().describe("The provider's own status of the payment"),
  amountMinor: z.number().int().nullable().describe('Integer, minor units of `currency`, as the provider listed it'),
  currency: z.string().nullable(),
  raisedAt: isoTime,
  resolved: z
    .strictObject({
      at: isoTime,
      resolution: z.string().describe('`matches` (a later run found it in order), `reclassified`, or `operator` (with the reason as `note`)'),
      note: z.string().nullable(),
      by: z.string().nullable(),
    })
    .nullable(),
});

/** `GET /api/v1/reconciliation/exceptions`. */
const exceptionsAnswer = z.strictObject({ items: z.array(exceptionAnswer), nextCursor: cursor });

/** `POST /api/v1/reconciliation/runs`. */
const runStartedAnswer = z.strictObject({
  runId: z.string(),
  status: z.literal('requested'),
  window: z.strictObject({ since: isoTime, until: isoTime }),
});

/** `POST /api/v1/reconciliation/exceptions/:exceptionId/resolve`. */
const resolveAnswer = z.strictObject({ exceptionId: z.string(), status: z.literal('resolving') });

/**
 * The Reconciliation page (docs/console.md, "Reconciliation"; docs/reconciliation.md): runs
 * against the providers' own lists and the exceptions they raised, read from the ledger's read
 * models (any role), the exceptions also as a CSV download; starting a run and resolving an
 * exception with a reason (operators and admins) go through ingestion's admin API with the
 * operator named, each recorded in the ledger with its actor first (`reconciliation.run_start`,
 * target the provider; `reconciliation_exception.resolve`, target the exception).
 */
@ApiTags('reconciliation')
@ApiCookieAuth(SECURITY.session)
@ApiProblems([401, 'CONSOLE.UNAUTHENTICATED'])
@Controller('api/v1/reconciliation')
@UseGuards(SessionGuard)
export class ReconciliationController {
  constructor(
    @Inject(ReconciliationReader) private readonly reader: ReconciliationReader,
    @Inject(ReconciliationAdmin) private readonly admin: ReconciliationAdmin,
    @Inject(AUDIT_TRAIL) private readonly audit: AuditTrail,
  ) {}

  @Get('runs')
  @ApiOperation({ summary: 'Reconciliation runs', description: 'Runs newest first, scheduled and on demand, with their pages and counts per class.' })
  @ApiQueryOf(runsQuery)
  @ApiAnswer(200, runsAnswer, 'One page')
  @ApiProblems([400, 'REQUEST.VALIDATION_FAILED'], [503, 'READ_MODEL.NOT_READY'])
  runs(@Query() query: Record<string, string>): Promise<ReconciliationPage<ReconciliationRunView>> {
    const q = parseBody(runsQuery, query);
    return this.reader.runs({ provider: q.provider, after: parseKeysetCursor(q.cursor), limit: q.limit });
  }

  @Get('runs/:runId')
  @ApiOperation({
    summary: 'One reconciliation run',
    description: 'Where the run stands: pages read, counts per class, exceptions raised and resolved, why it failed.',
  })
  @ApiParam({ name: 'runId', description: "The run's id (`rcr_...`)" })
  @ApiAnswer(200, runAnswer, 'The run')
  @ApiProblems([404, 'CONSOLE.RECONCILIATION_RUN_NOT_FOUND'], [503, 'READ_MODEL.NOT_READY'])
  async run(@Param('runId') runId: string): Promise<ReconciliationRunView> {
    const run = RUN_ID.test(runId) ? await this.reader.run(runId) : null;
    if (!run)
      throw new ConsoleError(
        'CONSOLE.RECONCILIATION_RUN_NOT_FOUND',
        'Reconciliation run not found (a run just requested appears once the verifier started it)',
      );
    return run;
  }

  @Post('runs')
  @MinRole('operator')
  @HttpCode(202)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({
    summary: 'Start a reconciliation run (operator or admin)',
    description:
      "Asks ingestion to have the verifier page through the provider's own list for the window and compare each payment with Settle's records; the operator is recorded as the run's `startedBy`, and the request in the ledger with its actor first.",
  })
  @ApiBodyOf(startRunBody)
  @ApiAnswer(202, runStartedAnswer, 'Requested: the run appears in the list once the verifier started it')
  @ApiProblems(
    ...JSON_BODY_PROBLEMS,
    [400, 'REQUEST.VALIDATION_FAILED'],
    [400, 'CONSOLE.RECONCILIATION_PROVIDER_CANNOT_LIST'],
    [400, 'CONSOLE.RECONCILIATION_INVALID_WINDOW'],
    [403, 'CONSOLE.CSRF_REJECTED'],
    [403, 'CONSOLE.FORBIDDEN'],
    [503, 'CONSOLE.INGESTION_UNAVAILABLE'],
    [503, 'CONSOLE.AUDIT_UNAVAILABLE'],
    [500, 'CONSOLE.INGESTION_REJECTED'],
  )
  startRun(@Body() body: unknown, @CurrentSession() session: RequestSession): Promise<RunStarted> {
    const { provider, since, until, dryRun } = parseBody(startRunBody, body);
    return this.audit.run(
      {
        actor: session.user,
        action: 'reconciliation.run_start',
        target: { kind: 'provider', id: provider },
        parameters: { since, until: until ?? null, dryRun },
      },
      () => this.admin.startRun({ provider, since, until, dryRun, requestedBy: session.user.email }),
      (started) => ({ runId: started.runId, since: started.window.since, until: started.window.until }),
    );
  }

  @Get('exceptions')
  @ApiOperation({
    summary: 'Reconciliation exceptions',
    description:
      "Exceptions newest first, filtered, each with its evidence (the provider's value beside Settle's) and its resolution; `format=csv` downloads every match as CSV (the columns of ingestion's export).",
  })
  @ApiQueryOf(exceptionsQuery)
  @ApiProduces('application/json', 'text/csv')
  @ApiAnswer(200, exceptionsAnswer, 'One page (or, with `format=csv`, every match as a text/csv attachment)')
  @ApiProblems([400, 'REQUEST.VALIDATION_FAILED'], [503, 'READ_MODEL.NOT_READY'])
  exceptions(
    @Query() query: Record<string, string>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ReconciliationPage<ReconciliationExceptionView> | Readable> {
    const q = parseBody(exceptionsQuery, query);
    const filter = { status: q.status, class: q.class, provider: q.provider, runId: q.runId };
    if (q.format === 'csv') {
      return this.reader.exceptionsCsv(filter).then((csv) => {
        reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="reconciliation-exceptions.csv"');
        return csv;
      });
    }
    return this.reader.exceptions({ ...filter, after: parseKeysetCursor(q.cursor), limit: q.limit });
  }

  @Post('exceptions/:exceptionId/resolve')
  @MinRole('operator')
  @HttpCode(202)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({
    summary: 'Resolve a reconciliation exception with a reason (operator or admin)',
    description:
      'Through ingestion: the verifier closes it and the ledger records `ReconciliationExceptionResolved` with the reason and the operator as `resolved_by`. Recorded in the ledger with the actor first.',
  })
  @ApiParam({ name: 'exceptionId', description: "The exception's id (`rex_...`)" })
  @ApiBodyOf(resolveBody)
  @ApiAnswer(202, resolveAnswer, 'Requested: it reads resolved once the ledger recorded it')
  @ApiProblems(
    ...JSON_BODY_PROBLEMS,
    [400, 'REQUEST.VALIDATION_FAILED'],
    [403, 'CONSOLE.CSRF_REJECTED'],
    [403, 'CONSOLE.FORBIDDEN'],
    [404, 'CONSOLE.RECONCILIATION_EXCEPTION_NOT_FOUND'],
    [409, 'CONSOLE.RECONCILIATION_EXCEPTION_NOT_OPEN'],
    [503, 'CONSOLE.INGESTION_UNAVAILABLE'],
    [503, 'CONSOLE.AUDIT_UNAVAILABLE'],
    [500, 'CONSOLE.INGESTION_REJECTED'],
  )
  resolve(
    @Param('exceptionId') exceptionId: string,
    @Body() body: unknown,
    @CurrentSession() session: RequestSession,
  ): Promise<{ exceptionId: string; status: 'resolving' }> {
    if (!EXCEPTION_ID.test(exceptionId)) throw new ConsoleError('CONSOLE.RECONCILIATION_EXCEPTION_NOT_FOUND', 'Reconciliation exception not found');
    const { reason } = parseBody(resolveBody, body);
    return this.audit.run(
      {
        actor: session.user,
        action: 'reconciliation_exception.resolve',
        target: { kind: 'reconciliation_exception', id: exceptionId },
        parameters: { reason },
      },
      () => this.admin.resolveException(exceptionId, { reason, resolvedBy: session.user.email }),
      () => ({ status: 'resolving' }),
    );
  }
}

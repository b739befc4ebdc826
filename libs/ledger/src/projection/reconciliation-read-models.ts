import type { Pool, PoolClient } from '@settle/platform';
import {
  parseReconciliationExceptionStream,
  parseReconciliationRunStream,
  RECONCILIATION_EVENT_TYPES,
  reconciliationExceptionRaisedData,
  reconciliationExceptionResolvedData,
  reconciliationRunData,
  type ReconciliationExceptionRaisedData,
  type ReconciliationExceptionResolvedData,
  type ReconciliationRunData,
} from '../events/reconciliation.js';
import { LedgerEventShapeError } from '../events/transaction-outcome.js';
import type { RecordedLedgerEvent } from '../ports/ledger.port.js';
import { readReadModel } from './read-model-access.js';

/**
 * `read_model.reconciliation_runs` and `read_model.reconciliation_exceptions` (migration
 * read_model/0007, docs/reconciliation.md): what the run and exception streams' events say, written
 * through the same single writer as the other read models (`writeReadModelRows`), and read by
 * ingestion's admin API and the console.
 */

/** What one event of a run stream does: the run's row as of that record. */
export interface ReconciliationRunRow {
  readonly status: 'started' | 'progressed' | 'completed' | 'failed';
  readonly ledgerRevision: number;
  readonly data: ReconciliationRunData;
}

/** What one event of an exception stream does: inserts the exception, or marks it resolved. */
export type ReconciliationExceptionRow =
  | { readonly kind: 'raised'; readonly ledgerRevision: number; readonly data: ReconciliationExceptionRaisedData }
  | { readonly kind: 'resolved'; readonly ledgerRevision: number; readonly data: ReconciliationExceptionResolvedData };

type Projected = Pick<RecordedLedgerEvent, 'streamId' | 'eventId' | 'type' | 'data' | 'revision' | 'position'>;

const RUN_STATUS_OF: Record<string, ReconciliationRunRow['status']> = {
  [RECONCILIATION_EVENT_TYPES.started]: 'started',
  [RECONCILIATION_EVENT_TYPES.progressed]: 'progressed',
  [RECONCILIATION_EVENT_TYPES.completed]: 'completed',
  [RECONCILIATION_EVENT_TYPES.failed]: 'failed',
};

/**
 * The reconciliation row an event stands for; `null` for an event of another stream.
 *
 * @throws LedgerEventShapeError when an event of a reconciliation stream is malformed.
 */
export function reconciliationRowOf(event: Projected): { run: ReconciliationRunRow } | { exception: ReconciliationExceptionRow } | null {
  if (parseReconciliationRunStream(event.streamId) !== null) {
    const status = RUN_STATUS_OF[event.type];
    const parsed = reconciliationRunData.safeParse(event.data);
    if (!status || !parsed.success) throw new LedgerEventShapeError(event.eventId, event.position, 'a reconciliation run record');
    return { run: { status, ledgerRevision: event.revision, data: parsed.data } };
  }
  if (parseReconciliationExceptionStream(event.streamId) !== null) {
    if (event.type === RECONCILIATION_EVENT_TYPES.raised) {
      const parsed = reconciliationExceptionRaisedData.safeParse(event.data);
      if (parsed.success) return { exception: { kind: 'raised', ledgerRevision: event.revision, data: parsed.data } };
    } else if (event.type === RECONCILIATION_EVENT_TYPES.resolved) {
      const parsed = reconciliationExceptionResolvedData.safeParse(event.data);
      if (parsed.success) return { exception: { kind: 'resolved', ledgerRevision: event.revision, data: parsed.data } };
    }
    throw new LedgerEventShapeError(event.eventId, event.position, 'a reconciliation exception');
  }
  return null;
}

/**
 * Writes run rows (the latest record of each run wins: a replay never moves a run back) and
 * exception rows (raised inserted once; resolved marks it resolved), in the caller's transaction;
 * at most three statements whatever the number of rows.
 */
export async function upsertReconciliation(
  client: PoolClient | Pool,
  runs: readonly ReconciliationRunRow[],
  exceptions: readonly ReconciliationExceptionRow[],
): Promise<void> {
  const latest = new Map<string, ReconciliationRunRow>();
  for (const run of runs) {
    const seen = latest.get(run.data.run_id);
    if (!seen || seen.ledgerRevision < run.ledgerRevision) latest.set(run.data.run_id, run);
  }
  if (latest.size > 0) {
    const rows = [...latest.values()];
    const col = <T>(f: (r: ReconciliationRunRow) => T) => rows.map(f);
    await client.query(
      `INSERT INTO read_model.reconciliation_runs AS r
         (run_id, provider, kind, status, window_from, window_until, dry_run, started_by, pages, total_pages, listed, out_of_scope,
          too_recent, classes, exceptions_raised, exceptions_resolved, started_at, finished_at, error, ledger_revision)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[], $7::bool[], $8::text[],
                            $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::jsonb[], $15::bigint[], $16::bigint[],
                            $17::timestamptz[], $18::timestamptz[], $19::text[], $20::bigint[])
       ON CONFLICT (run_id) DO UPDATE SET
         status = EXCLUDED.status, pages = EXCLUDED.pages, total_pages = EXCLUDED.total_pages, listed = EXCLUDED.listed,
         out_of_scope = EXCLUDED.out_of_scope, too_recent = EXCLUDED.too_recent, classes = EXCLUDED.classes,
         exceptions_raised = EXCLUDED.exceptions_raised, exceptions_resolved = EXCLUDED.exceptions_resolved,
         finished_at = EXCLUDED.finished_at, error = EXCLUDED.error, ledger_revision = EXCLUDED.ledger_revision
       WHERE r.ledger_revision < EXCLUDED.ledger_revision`,
      [
        col((r) => r.data.run_id),
        col((r) => r.data.provider),
        col((r) => r.data.kind),
        col((r) => r.status),
        col((r) => r.data.window_from),
        col((r) => r.data.window_until),
        col((r) => r.data.dry_run),
        col((r) => r.data.started_by),
        col((r) => r.data.pages),
        col((r) => r.data.total_pages),
        col((r) => r.data.listed),
        col((r) => r.data.out_of_scope),
        col((r) => r.data.too_recent),
        col((r) => JSON.stringify(r.data.classes)),
        col((r) => r.data.exceptions_raised),
        col((r) => r.data.exceptions_resolved),
        col((r) => r.data.started_at),
        col((r) => r.data.finished_at),
        col((r) => r.data.error),
        col((r) => r.ledgerRevision),
      ],
    );
  }
  const raised = exceptions.flatMap((e) => (e.kind === 'raised' ? [e] : []));
  if (raised.length > 0) {
    const col = <T>(f: (r: (typeof raised)[number]) => T) => raised.map(f);
    await client.query(
      `INSERT INTO read_model.reconciliation_exceptions
         (exception_id, reference, provider, class, status, evidence, run_id, provider_transaction_id, provider_status, amount_minor, currency,
          raised_at, ledger_revision)
       SELECT e.id, e.reference, e.provider, e.class, 'open', e.evidence, e.run_id, e.ptid, e.pstatus, e.amount, e.currency, e.at, e.rev
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[],
                     $11::timestamptz[], $12::bigint[])
           AS e(id, reference, provider, class, evidence, run_id, ptid, pstatus, amount, currency, at, rev)
       ON CONFLICT (exception_id) DO NOTHING`,
      [
        col((r) => r.data.exception_id),
        col((r) => r.data.reference),
        col((r) => r.data.provider),
        col((r) => r.data.class),
        col((r) => JSON.stringify(r.data.evidence)),
        col((r) => r.data.run_id),
        col((r) => r.data.provider_transaction_id),
        col((r) => r.data.provider_status),
        col((r) => r.data.amount_minor),
        col((r) => r.data.currency),
        col((r) => r.data.raised_at),
        col((r) => r.ledgerRevision),
      ],
    );
  }
  const resolved = exceptions.flatMap((e) => (e.kind === 'resolved' ? [e] : []));
  if (resolved.length > 0) {
    const col = <T>(f: (r: (typeof resolved)[number]) => T) => resolved.map(f);
    await client.query(
      `UPDATE read_model.reconciliation_exceptions x
          SET status = 'resolved', resolved_at = u.at, resolution = u.resolution, resolution_note = u.note, resolved_by = u.by,
              resolved_run_id = u.run_id, ledger_revision = u.rev
         FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[]) AS u(id, at, resolution, note, by, run_id, rev)
        WHERE x.exception_id = u.id AND x.ledger_revision < u.rev`,
      [
        col((r) => r.data.exception_id),
        col((r) => r.data.resolved_at),
        col((r) => r.data.resolution),
        col((r) => r.data.note),
        col((r) => r.data.resolved_by),
        col((r) => r.data.run_id),
        col((r) => r.ledgerRevision),
      ],
    );
  }
}

/** A run as its readers list it. Times are `Date`s; counts per class of the decision table. */
export interface ReconciliationRunListRow {
  runId: string;
  provider: string;
  kind: string;
  status: 'started' | 'progressed' | 'completed' | 'failed';
  windowFrom: Date;
  windowUntil: Date;
  dryRun: boolean;
  startedBy: string;
  pages: number;
  totalPages: number | null;
  listed: number;
  outOfScope: number;
  tooRecent: number;
  classes: Record<string, number>;
  exceptionsRaised: number;
  exceptionsResolved: number;
  startedAt: Date;
  /** `started_at` as PostgreSQL's text with microseconds, for a keyset cursor. */
  startedAtText: string;
  finishedAt: Date | null;
  error: string | null;
}

interface RunDbRow {
  run_id: string;
  provider: string;
  kind: string;
  status: ReconciliationRunListRow['status'];
  window_from: Date;
  window_until: Date;
  dry_run: boolean;
  started_by: string;
  pages: string | number;
  total_pages: string | number | null;
  listed: string | number;
  out_of_scope: string | number;
  too_recent: string | number;
  classes: Record<string, number>;
  exceptions_raised: string | number;
  exceptions_resolved: string | number;
  started_at: Date;
  started_at_text: string;
  finished_at: Date | null;
  error: string | null;
}

const RUN_COLUMNS = `run_id, provider, kind, status, window_from, window_until, dry_run, started_by, pages, total_pages, listed, out_of_scope,
  too_recent, classes, exceptions_raised, exceptions_resolved, started_at, finished_at, error,
  to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS started_at_text`;

/**
 * A keyset page of runs, newest first (`started_at`, then run id), optionally of one provider;
 * `limit + 1` rows are read so the caller knows whether a next page exists.
 *
 * @throws ReadModelNotReadyError before the ledger projector first created the read models.
 */
export async function listReconciliationRuns(
  pool: Pool,
  query: { provider?: string | undefined; after?: { at: string; id: string } | undefined; limit: number },
): Promise<ReconciliationRunListRow[]> {
  const params: unknown[] = [query.limit + 1];
  const where: string[] = [];
  if (query.provider) where.push(`provider = $${params.push(query.provider)}`);
  if (query.after) where.push(`(started_at, run_id) < ($${params.push(query.after.at)}::timestamptz, $${params.push(query.after.id)})`);
  const { rows } = await readReadModel(() =>
    pool.query<RunDbRow>(
      `SELECT ${RUN_COLUMNS} FROM read_model.reconciliation_runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY started_at DESC, run_id DESC LIMIT $1`,
      params,
    ),
  );
  return rows.map(runListRowOf);
}

/** One run, or `null` before its first record is projected. */
export async function findReconciliationRun(pool: Pool, runId: string): Promise<ReconciliationRunListRow | null> {
  const { rows } = await readReadModel(() => pool.query<RunDbRow>(`SELECT ${RUN_COLUMNS} FROM read_model.reconciliation_runs WHERE run_id = $1`, [runId]));
  return rows[0] ? runListRowOf(rows[0]) : null;
}

function runListRowOf(r: RunDbRow): ReconciliationRunListRow {
  const n = (v: string | number) => Number(v);
  return {
    runId: r.run_id,
    provider: r.provider,
    kind: r.kind,
    status: r.status,
    windowFrom: r.window_from,
    windowUntil: r.window_until,
    dryRun: r.dry_run,
    startedBy: r.started_by,
    pages: n(r.pages),
    totalPages: r.total_pages === null ? null : n(r.total_pages),
    listed: n(r.listed),
    outOfScope: n(r.out_of_scope),
    tooRecent: n(r.too_recent),
    classes: r.classes,
    exceptionsRaised: n(r.exceptions_raised),
    exceptionsResolved: n(r.exceptions_resolved),
    startedAt: r.started_at,
    startedAtText: r.started_at_text,
    finishedAt: r.finished_at,
    error: r.error,
  };
}

/** An exception as its readers list it: the provider's fields and the evidence side by side. */
export interface ReconciliationExceptionListRow {
  exceptionId: string;
  reference: string;
  provider: string;
  class: string;
  status: 'open' | 'resolved';
  evidence: Array<{ field: string; provider: string; settle: string }>;
  runId: string | null;
  providerTransactionId: string | null;
  providerStatus: string | null;
  /** Minor units, as the provider listed it. */
  amountMinor: number | null;
  currency: string | null;
  raisedAt: Date;
  /** `raised_at` as PostgreSQL's text with microseconds, for a keyset cursor. */
  raisedAtText: string;
  resolvedAt: Date | null;
  resolution: string | null;
  resolutionNote: string | null;
  resolvedBy: string | null;
}

/** Filters of {@link listReconciliationExceptions}; absent: any. */
export interface ExceptionFilter {
  status?: 'open' | 'resolved' | undefined;
  class?: string | undefined;
  provider?: string | undefined;
  runId?: string | undefined;
  reference?: string | undefined;
}

/**
 * A keyset page of exceptions, newest first (`raised_at`, then id), filtered; `limit + 1` rows are
 * read so the caller knows whether a next page exists. The export (CSV) pages through it too.
 */
export async function listReconciliationExceptions(
  pool: Pool,
  query: ExceptionFilter & { after?: { at: string; id: string } | undefined; limit: number },
): Promise<ReconciliationExceptionListRow[]> {
  const params: unknown[] = [query.limit + 1];
  const where: string[] = [];
  if (query.status) where.push(`status = $${params.push(query.status)}`);
  if (query.class) where.push(`class = $${params.push(query.class)}`);
  if (query.provider) where.push(`provider = $${params.push(query.provider)}`);
  if (query.runId) where.push(`(run_id = $${params.push(query.runId)} OR resolved_run_id = $${params.length})`);
  if (query.reference) where.push(`reference = $${params.push(query.reference)}`);
  if (query.after) where.push(`(raised_at, exception_id) < ($${params.push(query.after.at)}::timestamptz, $${params.push(query.after.id)})`);
  const { rows } = await readReadModel(() =>
    pool.query<{
      exception_id: string;
      reference: string;
      provider: string;
      class: string;
      status: 'open' | 'resolved';
      evidence: ReconciliationExceptionListRow['evidence'];
      run_id: string | null;
      provider_transaction_id: string | null;
      provider_status: string | null;
      amount_minor: string | number | null;
      currency: string | null;
      raised_at: Date;
      raised_at_text: string;
      resolved_at: Date | null;
      resolution: string | null;
      resolution_note: string | null;
      resolved_by: string | null;
    }>(
      `SELECT exception_id, reference, provider, class, status, evidence, run_id, provider_transaction_id, provider_status, amount_minor, currency,
            raised_at, resolved_at, resolution, resolution_note, resolved_by,
            to_char(raised_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS raised_at_text
       FROM read_model.reconciliation_exceptions ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY raised_at DESC, exception_id DESC LIMIT $1`,
      params,
    ),
  );
  return rows.map((r) => ({
    exceptionId: r.exception_id,
    reference: r.reference,
    provider: r.provider,
    class: r.class,
    status: r.status,
    evidence: r.evidence,
    runId: r.run_id,
    providerTransactionId: r.provider_transaction_id,
    providerStatus: r.provider_status,
    amountMinor: r.amount_minor === null ? null : Number(r.amount_minor),
    currency: r.currency,
    raisedAt: r.raised_at,
    raisedAtText: r.raised_at_text,
    resolvedAt: r.resolved_at,
    resolution: r.resolution,
    resolutionNote: r.resolution_note,
    resolvedBy: r.resolved_by,
  }));
}

import {
  literalOf,
  PROVIDERS,
  RECONCILIATION_EXCEPTION_CLASSES,
  RECONCILIATION_RUN_KINDS,
  TRANSACTION_STATUSES,
  type OpenException,
  type ProviderName,
  type ReconciliationRunKind,
  type ReconciliationSchedule,
  type RunCounts,
  type SettleRecord,
} from '@settle/domain';
import type { Pool, PoolClient } from '@settle/platform';

/** A run as the verifier keeps it (`verifier.reconciliation_runs`, migration verifier/0005). Times are epoch ms. */
export interface StoredRun {
  readonly runId: string;
  readonly provider: ProviderName;
  readonly kind: ReconciliationRunKind;
  readonly windowFrom: number;
  readonly windowUntil: number;
  readonly dryRun: boolean;
  readonly startedBy: string;
  readonly correlationId: string;
  readonly causationId: string;
  readonly status: 'pending' | 'running' | 'completed' | 'failed';
  /** The provider's cursor of the next page to read; `null` before the first page. */
  readonly cursor: string | null;
  readonly pages: number;
  readonly totalPages: number | null;
  readonly listed: number;
  /** Counts so far, per class and out of scope / too recent (missing keys: 0). */
  readonly counts: Partial<RunCounts>;
  readonly exceptionsRaised: number;
  readonly exceptionsResolved: number;
  readonly requestedAt: number;
  readonly startedAt: number | null;
}

/** A run to create: scheduled, or asked for on demand. */
export interface NewRun {
  readonly runId: string;
  readonly provider: ProviderName;
  readonly kind: ReconciliationRunKind;
  readonly windowFrom: number;
  readonly windowUntil: number;
  readonly dryRun: boolean;
  readonly startedBy: string;
  readonly correlationId: string;
  readonly causationId: string;
  readonly requestedAt: number;
}

/** Settle's record of a reference, with what the reconciler needs besides the decision table's fields. */
export interface ReconciledTransaction extends SettleRecord {
  readonly provider: ProviderName;
  readonly correlationId: string;
}

interface RunRow {
  run_id: string;
  provider: string;
  kind: string;
  window_from: string;
  window_until: string;
  dry_run: boolean;
  started_by: string;
  correlation_id: string;
  causation_id: string;
  status: StoredRun['status'];
  cursor: string | null;
  pages: string;
  total_pages: string | null;
  listed: string;
  counts: Partial<RunCounts>;
  exceptions_raised: string;
  exceptions_resolved: string;
  requested_at: string;
  started_at: string | null;
}

/**
 * The reconciler's tables in the verifier's schema (migration verifier/0005): runs with their
 * durable cursors and leases, the schedule, the exceptions, and the reads of `verifier.transactions`
 * a page is compared against. Every write takes the caller's transaction.
 */
export class ReconciliationRepository {
  constructor(private readonly pool: Pool) {}

  /** The stored schedule of a provider, locked until the caller's transaction ends (created empty if missing). */
  async lockSchedule(client: PoolClient, provider: ProviderName): Promise<ReconciliationSchedule> {
    await client.query('INSERT INTO verifier.reconciliation_schedule (provider) VALUES ($1) ON CONFLICT DO NOTHING', [provider]);
    const { rows } = await client.query<{ incremental_until: string | null; daily_through: string | null }>(
      'SELECT incremental_until, daily_through FROM verifier.reconciliation_schedule WHERE provider = $1 FOR UPDATE',
      [provider],
    );
    const row = rows[0]!;
    return { incrementalUntilMs: row.incremental_until === null ? null : Number(row.incremental_until), dailyThrough: row.daily_through };
  }

  /** Stores a provider's schedule after the runs it created. */
  async saveSchedule(client: PoolClient, provider: ProviderName, schedule: ReconciliationSchedule): Promise<void> {
    await client.query('UPDATE verifier.reconciliation_schedule SET incremental_until = $2, daily_through = $3 WHERE provider = $1', [
      provider,
      schedule.incrementalUntilMs,
      schedule.dailyThrough,
    ]);
  }

  /**
   * Creates runs (pending); a run id already stored is left as it is (a request delivered twice).
   *
   * @returns the runs created.
   */
  async createRuns(client: Pool | PoolClient, runs: readonly NewRun[]): Promise<string[]> {
    if (runs.length === 0) return [];
    const col = <T>(f: (r: NewRun) => T) => runs.map(f);
    const { rows } = await client.query<{ run_id: string }>(
      `INSERT INTO verifier.reconciliation_runs
         (run_id, provider, kind, window_from, window_until, dry_run, started_by, correlation_id, causation_id, status, requested_at)
       SELECT r.run_id, r.provider, r.kind, r.window_from, r.window_until, r.dry_run, r.started_by, r.correlation_id, r.causation_id, 'pending', r.requested_at
         FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bool[], $7::text[], $8::text[], $9::text[], $10::bigint[])
              AS r(run_id, provider, kind, window_from, window_until, dry_run, started_by, correlation_id, causation_id, requested_at)
       ON CONFLICT (run_id) DO NOTHING
       RETURNING run_id`,
      [
        col((r) => r.runId),
        col((r) => r.provider),
        col((r) => r.kind),
        col((r) => r.windowFrom),
        col((r) => r.windowUntil),
        col((r) => r.dryRun),
        col((r) => r.startedBy),
        col((r) => r.correlationId),
        col((r) => r.causationId),
        col((r) => r.requestedAt),
      ],
    );
    return rows.map((r) => r.run_id);
  }

  /**
   * Claims the oldest runnable run (pending, or running with an expired lease: its verifier
   * stopped mid-run) for `leaseMs`, skipping those another verifier holds.
   *
   * @returns the run claimed, with its stored cursor to resume from; `null` when none is runnable.
   */
  async claim(nowMs: number, leaseMs: number): Promise<StoredRun | null> {
    const { rows } = await this.pool.query<RunRow>(
      `UPDATE verifier.reconciliation_runs r
          SET status = 'running', lease_until = $1 + $2, started_at = COALESCE(r.started_at, $1)
        WHERE r.run_id = (SELECT run_id FROM verifier.reconciliation_runs
                           WHERE status = 'pending' OR (status = 'running' AND lease_until < $1)
                           ORDER BY requested_at, run_id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING r.*`,
      [nowMs, leaseMs],
    );
    return rows[0] ? runOf(rows[0]) : null;
  }

  /**
   * Records a page read: the run's cursor, pages, counts and lease, only if the run is still at
   * `previousCursor` and running (another verifier that took it over after a lost lease wins).
   *
   * @returns whether the run was updated.
   */
  async advance(
    client: PoolClient,
    run: StoredRun,
    previousCursor: string | null,
    next: {
      cursor: string | null;
      pages: number;
      totalPages: number | null;
      listed: number;
      counts: RunCounts;
      raised: number;
      resolved: number;
      leaseUntil: number;
    },
  ): Promise<boolean> {
    const result = await client.query(
      `UPDATE verifier.reconciliation_runs
          SET cursor = $3, pages = $4, total_pages = $5, listed = $6, counts = $7::jsonb,
              exceptions_raised = $8, exceptions_resolved = $9, lease_until = $10
        WHERE run_id = $1 AND status = 'running' AND cursor IS NOT DISTINCT FROM $2`,
      [
        run.runId,
        previousCursor,
        next.cursor,
        next.pages,
        next.totalPages,
        next.listed,
        JSON.stringify(next.counts),
        next.raised,
        next.resolved,
        next.leaseUntil,
      ],
    );
    return (result.rowCount ?? 0) === 1;
  }

  /** Ends a run: completed, or failed with a stable code and a message that holds no secret. */
  async finish(client: Pool | PoolClient, runId: string, status: 'completed' | 'failed', atMs: number, error: string | null): Promise<void> {
    await client.query(`UPDATE verifier.reconciliation_runs SET status = $2, finished_at = $3, error = $4, lease_until = NULL WHERE run_id = $1`, [
      runId,
      status,
      atMs,
      error,
    ]);
  }

  /** Gives a run's lease back early (a transient failure: the next tick resumes it from its cursor). */
  async release(runId: string, untilMs: number, error: string): Promise<void> {
    await this.pool.query(`UPDATE verifier.reconciliation_runs SET lease_until = $2, error = $3 WHERE run_id = $1 AND status = 'running'`, [
      runId,
      untilMs,
      error,
    ]);
  }

  /** Settle's records of the references registered here, in one query. */
  async settleRecords(client: Pool | PoolClient, references: readonly string[]): Promise<Map<string, ReconciledTransaction>> {
    if (references.length === 0) return new Map();
    const { rows } = await client.query<{
      reference: string;
      provider: string;
      status: string;
      amount_minor: string;
      currency: string;
      customer_email: string | null;
      customer_phone: string | null;
      user_id: string;
      entitlement: string;
      correlation_id: string;
    }>(
      `SELECT reference, provider, status, amount_minor, currency, customer_email, customer_phone, user_id, entitlement, correlation_id
         FROM verifier.transactions WHERE reference = ANY($1::text[])`,
      [references],
    );
    return new Map(
      rows.map((r) => [
        r.reference,
        {
          reference: r.reference,
          provider: literalOf(PROVIDERS, r.provider, 'provider'),
          status: literalOf(TRANSACTION_STATUSES, r.status, 'transaction status'),
          amountMinor: Number(r.amount_minor),
          currency: r.currency,
          customer: { email: r.customer_email ?? undefined, phone: r.customer_phone ?? undefined },
          userId: r.user_id,
          entitlement: r.entitlement,
          correlationId: r.correlation_id,
        },
      ]),
    );
  }

  /**
   * Possible duplicate charges among these references (docs/reconciliation.md, "Possible duplicate
   * charges"): for each one settled here, the previous payment settled for the same user and
   * entitlement within `windowMs` (inclusive; same instant ordered by reference), as
   * `findPossibleDuplicates` decides it, read from the index on (user, entitlement, settled_at).
   *
   * @returns reference → the earlier reference it repeats.
   */
  async duplicates(client: Pool | PoolClient, references: readonly string[], windowMs: number): Promise<Map<string, string>> {
    if (references.length === 0) return new Map();
    const { rows } = await client.query<{ reference: string; earlier: string | null }>(
      `SELECT t.reference,
              (SELECT o.reference FROM verifier.transactions o
                WHERE o.user_id = t.user_id AND o.entitlement = t.entitlement AND o.settled_at IS NOT NULL
                  AND o.settled_at >= t.settled_at - $2 AND o.reference <> t.reference
                  AND (o.settled_at < t.settled_at OR (o.settled_at = t.settled_at AND o.reference < t.reference))
                ORDER BY o.settled_at DESC, o.reference DESC LIMIT 1) AS earlier
         FROM verifier.transactions t
        WHERE t.reference = ANY($1::text[]) AND t.settled_at IS NOT NULL`,
      [references, windowMs],
    );
    return new Map(rows.flatMap((r) => (r.earlier === null ? [] : [[r.reference, r.earlier] as const])));
  }

  /** The open exceptions of these references, by reference, in one query. */
  async openExceptions(client: Pool | PoolClient, references: readonly string[]): Promise<Map<string, OpenException[]>> {
    if (references.length === 0) return new Map();
    const { rows } = await client.query<{ exception_id: string; reference: string; class: string }>(
      `SELECT exception_id, reference, class FROM verifier.reconciliation_exceptions WHERE reference = ANY($1::text[]) AND status = 'open'`,
      [references],
    );
    const open = new Map<string, OpenException[]>();
    for (const r of rows) {
      const exception: OpenException = {
        exceptionId: r.exception_id,
        reference: r.reference,
        class: literalOf(RECONCILIATION_EXCEPTION_CLASSES, r.class, 'exception class'),
      };
      open.set(r.reference, [...(open.get(r.reference) ?? []), exception]);
    }
    return open;
  }

  /**
   * The references among these that are unmatched payments with an answer already (recorded,
   * declined, not found, matched, closed): not asked about again. A candidate still waiting for
   * its answer (the provider was unreachable) is asked again by the next run.
   */
  async knownUnmatched(client: Pool | PoolClient, references: readonly string[]): Promise<Set<string>> {
    if (references.length === 0) return new Set();
    const { rows } = await client.query<{ reference: string }>(
      "SELECT reference FROM verifier.unmatched_payments WHERE reference = ANY($1::text[]) AND status <> 'candidate'",
      [references],
    );
    return new Set(rows.map((r) => r.reference));
  }

  /**
   * Opens exceptions; one already open for the same reference and class (raised meanwhile by the
   * live check, or by another run) is not opened twice.
   *
   * @returns the ids of those opened.
   */
  async raise(
    client: PoolClient,
    exceptions: ReadonlyArray<{ exceptionId: string; provider: ProviderName; reference: string; class: string; runId: string | null; atMs: number }>,
  ): Promise<Set<string>> {
    if (exceptions.length === 0) return new Set();
    const col = <T>(f: (e: (typeof exceptions)[number]) => T) => exceptions.map(f);
    const { rows } = await client.query<{ exception_id: string }>(
      `INSERT INTO verifier.reconciliation_exceptions (exception_id, provider, reference, class, status, raised_at, first_run_id, last_run_id)
       SELECT e.id, e.provider, e.reference, e.class, 'open', e.at, e.run_id, e.run_id
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[]) AS e(id, provider, reference, class, at, run_id)
       ON CONFLICT (reference, class) WHERE status = 'open' DO NOTHING
       RETURNING exception_id`,
      [col((e) => e.exceptionId), col((e) => e.provider), col((e) => e.reference), col((e) => e.class), col((e) => e.atMs), col((e) => e.runId)],
    );
    return new Set(rows.map((r) => r.exception_id));
  }

  /**
   * Resolves open exceptions.
   *
   * @returns those resolved now, with what the fact needs (an exception resolved meanwhile is left out).
   */
  async resolve(
    client: PoolClient,
    exceptionIds: readonly string[],
    atMs: number,
  ): Promise<Array<{ exceptionId: string; provider: ProviderName; reference: string; class: OpenException['class'] }>> {
    if (exceptionIds.length === 0) return [];
    const { rows } = await client.query<{ exception_id: string; provider: string; reference: string; class: string }>(
      `UPDATE verifier.reconciliation_exceptions SET status = 'resolved', resolved_at = $2
        WHERE exception_id = ANY($1::text[]) AND status = 'open'
        RETURNING exception_id, provider, reference, class`,
      [exceptionIds, atMs],
    );
    return rows.map((r) => ({
      exceptionId: r.exception_id,
      provider: literalOf(PROVIDERS, r.provider, 'provider'),
      reference: r.reference,
      class: literalOf(RECONCILIATION_EXCEPTION_CLASSES, r.class, 'exception class'),
    }));
  }

  /** Notes the run that reported open exceptions again (their `last_run_id`). */
  async reportedAgain(client: PoolClient, exceptionIds: readonly string[], runId: string): Promise<void> {
    if (exceptionIds.length === 0) return;
    await client.query(`UPDATE verifier.reconciliation_exceptions SET last_run_id = $2 WHERE exception_id = ANY($1::text[])`, [exceptionIds, runId]);
  }

  /** Open exceptions by class, for the gauge. */
  async openByClass(): Promise<Map<string, number>> {
    const { rows } = await this.pool.query<{ class: string; n: string }>(
      `SELECT class, count(*) AS n FROM verifier.reconciliation_exceptions WHERE status = 'open' GROUP BY class`,
    );
    return new Map(rows.map((r) => [r.class, Number(r.n)]));
  }
}

function runOf(row: RunRow): StoredRun {
  const num = (v: string | null) => (v === null ? null : Number(v));
  return {
    runId: row.run_id,
    provider: literalOf(PROVIDERS, row.provider, 'provider'),
    kind: literalOf(RECONCILIATION_RUN_KINDS, row.kind, 'run kind'),
    windowFrom: Number(row.window_from),
    windowUntil: Number(row.window_until),
    dryRun: row.dry_run,
    startedBy: row.started_by,
    correlationId: row.correlation_id,
    causationId: row.causation_id,
    status: row.status,
    cursor: row.cursor,
    pages: Number(row.pages),
    totalPages: num(row.total_pages),
    listed: Number(row.listed),
    counts: row.counts,
    exceptionsRaised: Number(row.exceptions_raised),
    exceptionsResolved: Number(row.exceptions_resolved),
    requestedAt: Number(row.requested_at),
    startedAt: num(row.started_at),
  };
}

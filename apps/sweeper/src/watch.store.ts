import { fileURLToPath } from 'node:url';
import type { TransactionStatus, Watch } from '@settle/domain';
import { traceCarrierOfColumns, type Pool, type PoolClient, type SchemaMigrations, type TraceCarrier } from '@settle/platform';

/**
 * Migrations of the schema the sweeper owns (`sweeper`, `apps/sweeper/migrations/sweeper/`),
 * applied at its boot (its outbox lives there too):
 * - `partition_owners`: which sweeper instance owns each Kafka partition, with a fencing
 *   epoch bumped on every claim; every write checks it, so two instances never both act for
 *   a partition's timers, whatever their view of the group.
 * - `watch_state`: one row per transaction (its timer), keyed by reference, with the
 *   partition it belongs to, indexed by (partition, due_at) so a tick reads only due rows.
 */
export const SWEEPER_MIGRATIONS: SchemaMigrations = {
  schema: 'sweeper',
  dir: fileURLToPath(new URL('../migrations/sweeper', import.meta.url)),
};

interface Row {
  reference: string;
  partition: number;
  correlation_id: string | null;
  status: TransactionStatus;
  registered: boolean;
  completed: boolean;
  webhook_seen: boolean;
  unmatched_resolved: boolean;
  last_activity_at: string;
  progress_at: string | null;
  checks: number;
  last_check_at: string | null;
  due_at: string | null;
  traceparent: string | null;
  tracestate: string | null;
}

/** A watch as stored, with what the sweeper needs to publish a request for it. */
export interface StoredWatch {
  watch: Watch;
  partition: number;
  correlationId: string | null;
  /**
   * The trace context of the last message that touched the transaction (docs/observability.md,
   * "Traces"): a request the sweeper fires starts a new trace linked to it. Absent: none kept.
   */
  trace?: TraceCarrier | undefined;
}

const num = (v: string | null): number | null => (v === null ? null : Number(v));

function toStored(r: Row): StoredWatch {
  return {
    partition: r.partition,
    correlationId: r.correlation_id,
    trace: traceCarrierOfColumns(r.traceparent, r.tracestate),
    watch: {
      reference: r.reference,
      status: r.status,
      registered: r.registered,
      completed: r.completed,
      webhookSeen: r.webhook_seen,
      unmatchedResolved: r.unmatched_resolved,
      lastActivityAt: Number(r.last_activity_at),
      progressAt: num(r.progress_at),
      checks: r.checks,
      lastCheckAt: num(r.last_check_at),
      dueAt: num(r.due_at),
    },
  };
}

/** A partition this instance claimed, with the epoch that fences its writes. */
export interface Claim {
  partition: number;
  epoch: number;
}

/**
 * The sweeper's durable state store, written in step with the consumed offsets: a batch's
 * watches are committed before its offsets, so after a crash, a restart or a rebalance the
 * partition's next owner finds every timer (re-applying a redelivered batch is harmless:
 * folding activity is idempotent). Every statement is fenced by the partition's epoch.
 */
export class WatchStore {
  constructor(
    private readonly pool: Pool,
    /** This instance's identity in `partition_owners`. */
    readonly owner: string,
  ) {}

  /**
   * Claims partitions for this instance: bumps each one's epoch, which fences out any
   * earlier owner (its next write fails the epoch check). Waits for a write in flight under
   * the earlier epoch to commit first (it holds the row `FOR SHARE`).
   *
   * @returns the new epoch of each partition.
   */
  async claim(partitions: readonly number[]): Promise<Claim[]> {
    if (partitions.length === 0) return [];
    const { rows } = await this.pool.query<{ partition: number; epoch: string }>(
      `INSERT INTO sweeper.partition_owners (partition, owner, epoch)
       SELECT p, $2, 1 FROM unnest($1::int[]) AS p
       ON CONFLICT (partition) DO UPDATE SET owner = EXCLUDED.owner, epoch = sweeper.partition_owners.epoch + 1, claimed_at = now()
       RETURNING partition, epoch`,
      [partitions, this.owner],
    );
    return rows.map((r) => ({ partition: r.partition, epoch: Number(r.epoch) })).sort((a, b) => a.partition - b.partition);
  }

  /**
   * Locks (`FOR SHARE`) the partitions this instance still owns at the epochs it claimed, in
   * the caller's transaction, so no claim can overtake the transaction.
   *
   * @returns the partitions whose claim still holds.
   */
  async fence(client: PoolClient, claims: readonly Claim[]): Promise<number[]> {
    if (claims.length === 0) return [];
    const { rows } = await client.query<{ partition: number }>(
      `SELECT o.partition FROM sweeper.partition_owners o
         JOIN unnest($1::int[], $2::bigint[]) AS c(partition, epoch) ON c.partition = o.partition AND c.epoch = o.epoch
        WHERE o.owner = $3
        ORDER BY o.partition
        FOR SHARE OF o`,
      [claims.map((c) => c.partition), claims.map((c) => c.epoch), this.owner],
    );
    return rows.map((r) => r.partition);
  }

  /** Loads watches with row locks, in the caller's transaction. */
  async lock(client: PoolClient, references: readonly string[]): Promise<Map<string, StoredWatch>> {
    const { rows } = await client.query<Row>('SELECT * FROM sweeper.watch_state WHERE reference = ANY($1::text[]) ORDER BY reference FOR UPDATE', [references]);
    return new Map(rows.map((r) => [r.reference, toStored(r)]));
  }

  /**
   * Writes watches (insert or replace), in the caller's transaction. The first correlation id
   * seen is kept; the trace context is replaced by a watch's own, when it has one.
   */
  async save(client: PoolClient, watches: readonly StoredWatch[]): Promise<void> {
    if (watches.length === 0) return;
    const col = <T>(f: (s: StoredWatch) => T) => watches.map(f);
    await client.query(
      `INSERT INTO sweeper.watch_state
         (reference, partition, correlation_id, status, registered, completed, webhook_seen,
          last_activity_at, progress_at, checks, last_check_at, due_at, traceparent, tracestate, unmatched_resolved)
       SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::bool[], $6::bool[], $7::bool[],
                            $8::bigint[], $9::bigint[], $10::int[], $11::bigint[], $12::bigint[], $13::text[], $14::text[], $15::bool[])
       ON CONFLICT (reference) DO UPDATE SET
         partition = EXCLUDED.partition,
         correlation_id = COALESCE(sweeper.watch_state.correlation_id, EXCLUDED.correlation_id),
         status = EXCLUDED.status, registered = EXCLUDED.registered, completed = EXCLUDED.completed,
         webhook_seen = EXCLUDED.webhook_seen, unmatched_resolved = EXCLUDED.unmatched_resolved, last_activity_at = EXCLUDED.last_activity_at,
         progress_at = EXCLUDED.progress_at, checks = EXCLUDED.checks, last_check_at = EXCLUDED.last_check_at,
         due_at = EXCLUDED.due_at,
         traceparent = COALESCE(EXCLUDED.traceparent, sweeper.watch_state.traceparent),
         tracestate = CASE WHEN EXCLUDED.traceparent IS NULL THEN sweeper.watch_state.tracestate ELSE EXCLUDED.tracestate END,
         updated_at = now()`,
      [
        col((s) => s.watch.reference),
        col((s) => s.partition),
        col((s) => s.correlationId),
        col((s) => s.watch.status),
        col((s) => s.watch.registered),
        col((s) => s.watch.completed),
        col((s) => s.watch.webhookSeen),
        col((s) => s.watch.lastActivityAt),
        col((s) => s.watch.progressAt),
        col((s) => s.watch.checks),
        col((s) => s.watch.lastCheckAt),
        col((s) => s.watch.dueAt),
        col((s) => s.trace?.traceparent ?? null),
        col((s) => s.trace?.tracestate ?? null),
        col((s) => s.watch.unmatchedResolved),
      ],
    );
  }

  /**
   * Locks up to `limit` watches of the given partitions due strictly before `now` (epoch
   * ms), oldest first, skipping rows a batch write holds. Reads the (partition, due_at)
   * index only: the cost grows with the due set, not with the open set.
   */
  async lockDue(client: PoolClient, partitions: readonly number[], now: number, limit: number): Promise<StoredWatch[]> {
    if (partitions.length === 0) return [];
    const { rows } = await client.query<Row>(
      `SELECT * FROM sweeper.watch_state
        WHERE partition = ANY($1::int[]) AND due_at IS NOT NULL AND due_at < $2
        ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED`,
      [partitions, now, limit],
    );
    return rows.map(toStored);
  }

  /**
   * Counts the given partitions' watches due strictly before `now` (as {@link lockDue} would
   * find them), and among them those due strictly before `overdueBefore`; both epoch ms. Reads
   * the (partition, due_at) index over the due range only.
   */
  async countDue(partitions: readonly number[], now: number, overdueBefore: number): Promise<{ due: number; overdue: number }> {
    if (partitions.length === 0) return { due: 0, overdue: 0 };
    const { rows } = await this.pool.query<{ due: number; overdue: number }>(
      `SELECT count(*)::int AS due, count(*) FILTER (WHERE due_at < $3)::int AS overdue
         FROM sweeper.watch_state
        WHERE partition = ANY($1::int[]) AND due_at IS NOT NULL AND due_at < $2`,
      [partitions, now, overdueBefore],
    );
    return { due: rows[0]?.due ?? 0, overdue: rows[0]?.overdue ?? 0 };
  }

  /** The earliest due time among the given partitions' watches (epoch ms), or `null`. */
  async nextDueAt(partitions: readonly number[]): Promise<number | null> {
    if (partitions.length === 0) return null;
    // One index probe per partition (the first entry of its (partition, due_at) range).
    const { rows } = await this.pool.query<{ due: string | null }>(
      `SELECT min(first.due_at) AS due FROM unnest($1::int[]) AS p(partition)
         CROSS JOIN LATERAL (SELECT w.due_at FROM sweeper.watch_state w
                              WHERE w.partition = p.partition AND w.due_at IS NOT NULL
                              ORDER BY w.due_at LIMIT 1) AS first`,
      [partitions],
    );
    return num(rows[0]?.due ?? null);
  }
}

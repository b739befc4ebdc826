import { ENTITLEMENT_STATUSES, TRANSACTION_STATUSES } from '@settle/domain';
import { ReadModelNotReadyError, transactionOutcomeData, transactionStream, type LedgerStore } from '@settle/ledger';
import type { Pool } from '@settle/platform';
import { ConsoleError } from '../errors.js';
import { encodeCursor, type ListCursor } from './cursor.js';

/** Counts of the whole book of transactions (`GET /api/v1/overview`). */
export interface Overview {
  /** Transactions per state; every known state is present, 0 when none. */
  states: Record<string, number>;
  /** Transactions per entitlement status; every known status is present. */
  entitlements: Record<string, number>;
  /** Entitlement `HELD_IN_REVIEW`. */
  heldInReview: number;
  /** State `MANUAL_REVIEW`. */
  manualReview: number;
  /** State `STATE_MISMATCH`. */
  stateMismatch: number;
  total: number;
}

/** One row of the transaction list. Amounts in minor units; `updatedAt` ISO 8601 (milliseconds, UTC). */
export interface TransactionSummary {
  reference: string;
  provider: string;
  state: string;
  entitlementStatus: string;
  amountMinor: number;
  currency: string;
  userId: string | null;
  email: string | null;
  updatedAt: string;
}

/** One of the four consensus checks of the last decision (docs/spec.md, section 3). */
export interface CheckView {
  check: string;
  passed: boolean;
  code: string | null;
  expected: string;
  observed: string;
}

/** A transaction in full (`GET /api/v1/transactions/:reference`). */
export interface TransactionDetail extends TransactionSummary {
  entitlement: string | null;
  accessPeriod: string | null;
  checks: CheckView[] | null;
  lastVerdict: string | null;
  lastTrigger: string | null;
}

/** One event of the transaction's ledger stream; outcome fields are `null` for an event that is not an outcome. */
export interface TimelineEntry {
  position: number;
  revision: number;
  type: string;
  recordedAt: string;
  trigger: string | null;
  verdict: string | null;
  state: string | null;
  detail: string | null;
}

/** Filters and page of the transaction list. */
export interface ListQuery {
  /** A reference prefix, or exactly a user id, an email (case-insensitive) or a phone. */
  q?: string | undefined;
  provider?: string | undefined;
  state?: string | undefined;
  entitlement?: string | undefined;
  /** The last row of the previous page. */
  after?: ListCursor | undefined;
  /** 1..100. */
  limit: number;
}

interface SummaryRow {
  reference: string;
  provider: string;
  state: string;
  entitlement_status: string;
  amount_minor: number;
  currency: string;
  user_id: string | null;
  customer_email: string | null;
  updated_at: Date;
  updated_at_text: string;
}

interface DetailRow extends SummaryRow {
  entitlement: string | null;
  access_period: string | null;
  checks: CheckView[] | null;
  last_verdict: string | null;
  last_trigger: string | null;
}

const SUMMARY_COLUMNS = `t.reference, t.provider, t.state, t.entitlement_status, t.amount_minor, t.currency,
  c.user_id, c.customer_email, t.updated_at,
  to_char(t.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS updated_at_text`;

function summaryOf(row: SummaryRow): TransactionSummary {
  return {
    reference: row.reference,
    provider: row.provider,
    state: row.state,
    entitlementStatus: row.entitlement_status,
    amountMinor: row.amount_minor,
    currency: row.currency,
    userId: row.user_id,
    email: row.customer_email,
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * Most references a search prefix may match to be answered from its candidates (index probes,
 * then a sort of those alone); a broader prefix is matched while walking the newest-first index.
 */
const NARROW_SEARCH = 1_000;

/**
 * The smallest string above every string that starts with `prefix`, in byte order (`COLLATE
 * "C"`): `prefix` followed by the highest code point, so `[prefix, bound)` is exactly the
 * strings starting with `prefix`.
 */
export function prefixUpperBound(prefix: string): string {
  return `${prefix}\u{10FFFF}`;
}

/** Whether PostgreSQL said a table or schema does not exist (42P01, 3F000). */
function isMissingRelation(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === '42P01' || code === '3F000';
}

/**
 * The console's reads of other apps' tables, read-only (docs/console.md, "Data"):
 * `read_model.transaction_status` and `read_model.latest_verification` (the ledger projector's),
 * `ingestion.checkouts` (ingestion's), and the transaction's ledger stream through the
 * {@link LedgerStore} port (PostgreSQL's `ledger.events`).
 *
 * Every read throws `READ_MODEL.NOT_READY` (503) while those schemas do not exist yet.
 */
export class TransactionRepository {
  constructor(
    private readonly pool: Pool,
    private readonly ledger: LedgerStore,
  ) {}

  /** Counts per state and entitlement status. @throws ReadModelNotReadyError */
  async overview(): Promise<Overview> {
    const { rows } = await this.read(() =>
      this.pool.query<{ state: string; entitlement_status: string; n: number }>(
        'SELECT state, entitlement_status, count(*)::bigint AS n FROM read_model.transaction_status GROUP BY state, entitlement_status',
      ),
    );
    const states: Record<string, number> = Object.fromEntries(TRANSACTION_STATUSES.map((s) => [s, 0]));
    const entitlements: Record<string, number> = Object.fromEntries(ENTITLEMENT_STATUSES.map((s) => [s, 0]));
    let total = 0;
    for (const row of rows) {
      states[row.state] = (states[row.state] ?? 0) + row.n;
      entitlements[row.entitlement_status] = (entitlements[row.entitlement_status] ?? 0) + row.n;
      total += row.n;
    }
    return {
      states,
      entitlements,
      heldInReview: entitlements['HELD_IN_REVIEW'] ?? 0,
      manualReview: states['MANUAL_REVIEW'] ?? 0,
      stateMismatch: states['STATE_MISMATCH'] ?? 0,
      total,
    };
  }

  /**
   * A page of transactions, newest first (`updated_at` descending, then reference descending),
   * after `query.after`. Keyset pages: an index serves the order and the cursor
   * (`transaction_status_updated_at_reference`, or the state's or entitlement status's own when
   * filtered by one: libs/ledger/migrations/read_model/). A search `q` is answered in one of two
   * ways, so that it stays fast at a million transactions (docs/benchmarks.md, console): when at
   * most {@link NARROW_SEARCH} references start with it, the candidates are found by index
   * probes (that prefix range, and the checkouts whose user id, lower-cased email or phone is
   * `q`) and only they are ordered; a broader prefix is matched while walking the newest-first
   * index, which then meets a page's worth of matches at once.
   *
   * @returns the rows and the cursor of the next page, `null` on the last page.
   * @throws ReadModelNotReadyError
   */
  async list(query: ListQuery): Promise<{ items: TransactionSummary[]; nextCursor: string | null }> {
    const where: string[] = [];
    const values: unknown[] = [];
    const param = (value: unknown) => {
      values.push(value);
      return `$${values.length}`;
    };
    let from = 'read_model.transaction_status t';
    if (query.q) {
      const q = query.q;
      if (await this.isNarrowSearch(q)) {
        const [p, hi] = [param(q), param(prefixUpperBound(q))];
        from = `(SELECT reference FROM read_model.transaction_status
                  WHERE reference COLLATE "C" >= ${p} AND reference COLLATE "C" < ${hi}
                 UNION
                 SELECT reference FROM ingestion.checkouts
                  WHERE user_id = ${p} OR lower(customer_email) = lower(${p}) OR customer_phone = ${p}) AS m
               JOIN read_model.transaction_status t ON t.reference = m.reference`;
      } else {
        where.push(`starts_with(t.reference, ${param(q)})`);
      }
    }
    if (query.provider) where.push(`t.provider = ${param(query.provider)}`);
    if (query.state) where.push(`t.state = ${param(query.state)}`);
    if (query.entitlement) where.push(`t.entitlement_status = ${param(query.entitlement)}`);
    if (query.after) where.push(`(t.updated_at, t.reference) < (${param(query.after.updatedAt)}::timestamptz, ${param(query.after.reference)})`);
    const limit = param(query.limit + 1);
    const { rows } = await this.read(() =>
      this.pool.query<SummaryRow>(
        `SELECT ${SUMMARY_COLUMNS}
           FROM ${from}
           LEFT JOIN ingestion.checkouts c ON c.reference = t.reference
          ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
          ORDER BY t.updated_at DESC, t.reference DESC
          LIMIT ${limit}`,
        values,
      ),
    );
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const nextCursor = rows.length > query.limit && last ? encodeCursor({ updatedAt: last.updated_at_text, reference: last.reference }) : null;
    return { items: page.map(summaryOf), nextCursor };
  }

  /** Whether at most {@link NARROW_SEARCH} references start with `q` (one index range count, bounded). */
  private async isNarrowSearch(q: string): Promise<boolean> {
    const { rows } = await this.read(() =>
      this.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (
           SELECT 1 FROM read_model.transaction_status
            WHERE reference COLLATE "C" >= $1 AND reference COLLATE "C" < $2
            LIMIT ${NARROW_SEARCH + 1}) AS prefix`,
        [q, prefixUpperBound(q)],
      ),
    );
    return (rows[0]?.n ?? 0) <= NARROW_SEARCH;
  }

  /**
   * A transaction in full, with its ledger timeline (oldest first).
   *
   * @throws ConsoleError `CONSOLE.TRANSACTION_NOT_FOUND` when the read model has no such reference.
   * @throws ReadModelNotReadyError
   */
  async detail(reference: string): Promise<{ transaction: TransactionDetail; timeline: TimelineEntry[] }> {
    const { rows } = await this.read(() =>
      this.pool.query<DetailRow>(
        `SELECT ${SUMMARY_COLUMNS}, c.entitlement, c.access_period, t.checks,
                COALESCE(v.verdict, t.last_verdict) AS last_verdict, COALESCE(v.trigger, t.last_trigger) AS last_trigger
           FROM read_model.transaction_status t
           LEFT JOIN ingestion.checkouts c ON c.reference = t.reference
           LEFT JOIN read_model.latest_verification v ON v.reference = t.reference
          WHERE t.reference = $1`,
        [reference],
      ),
    );
    const row = rows[0];
    if (!row) throw new ConsoleError('CONSOLE.TRANSACTION_NOT_FOUND', `No transaction is known under reference ${reference}`);
    const transaction: TransactionDetail = {
      ...summaryOf(row),
      entitlement: row.entitlement,
      accessPeriod: row.access_period,
      checks: row.checks,
      lastVerdict: row.last_verdict,
      lastTrigger: row.last_trigger,
    };
    const events = await this.read(() => this.ledger.readStream(transactionStream(reference)));
    const timeline = events.map((event): TimelineEntry => {
      const outcome = transactionOutcomeData.safeParse(event.data);
      return {
        position: event.position,
        revision: event.revision,
        type: event.type,
        recordedAt: event.recordedAt.toISOString(),
        trigger: outcome.success ? outcome.data.trigger : null,
        verdict: outcome.success ? outcome.data.verdict : null,
        state: outcome.success ? outcome.data.state : null,
        detail: outcome.success ? outcome.data.detail : null,
      };
    });
    return { transaction, timeline };
  }

  private async read<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isMissingRelation(error)) throw new ReadModelNotReadyError();
      throw error;
    }
  }
}

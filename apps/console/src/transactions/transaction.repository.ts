import { ENTITLEMENT_STATUSES, TRANSACTION_STATUSES } from '@settle/domain';
import {
  adminActionOf,
  adminActionStream,
  readReadModel,
  transactionOutcomeData,
  transactionStream,
  type AdminActionCompletedData,
  type AdminActionRequestedData,
  type LedgerStore,
  type RecordedLedgerEvent,
} from '@settle/ledger';
import type { Pool } from '@settle/platform';
import { ConsoleError } from '../errors.js';
import { providerDefinition } from '@settle/providers';
import { encodeCursor, type ListCursor } from './cursor.js';

/** Counts of the whole book of transactions (`GET /api/v1/overview`). */
export interface Overview {
  /** Transactions per state; every known state is present, 0 when none. */
  states: Record<string, number>;
  /** Transactions per entitlement status; every known status is present. */
  entitlements: Record<string, number>;
  /**
   * The held-in-review queue's size: state `RECOVERING` with entitlement `HELD_IN_REVIEW` (a
   * `MANUAL_REVIEW` transaction is held too, but it is counted in `manualReview`).
   */
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
  /** The provider answer's field the observed value was read from (the provider's `observedFields`); absent in the read model, added by the console. */
  providerField?: string | null;
}

/** A transaction in full (`GET /api/v1/transactions/:reference`). */
export interface TransactionDetail extends TransactionSummary {
  entitlement: string | null;
  accessPeriod: string | null;
  checks: CheckView[] | null;
  lastVerdict: string | null;
  lastTrigger: string | null;
}

/**
 * One event of the transaction's ledger stream, or one admin action on it (docs/console.md,
 * "API"); outcome fields are `null` for an event that is not an outcome.
 */
export interface TimelineEntry {
  /** Global ledger position: the timeline's order. */
  position: number;
  /** Revision within its stream (`transaction-<reference>`, or `admin-transaction-<reference>` for an admin action). */
  revision: number;
  type: string;
  /** ISO 8601 UTC. */
  recordedAt: string;
  trigger: string | null;
  verdict: string | null;
  state: string | null;
  detail: string | null;
  /** Who asked for it: only on admin actions (`type` `AdminActionRequested`), the console user as signed in. */
  actor?: { email: string; role: string };
  /** An admin action's name and outcome (`null` while unknown: running, or its outcome could not be recorded). */
  adminAction?: { action: string; outcome: 'succeeded' | 'failed' | null; errorCode: string | null; completedAt: string | null };
}

const ADMIN_ACTION_LABELS: Record<string, string> = {
  'transaction.reconcile': 'Manual reconciliation',
  'delivery.resend': 'Resend of an entitlement event',
  'endpoint.recover': 'Recovery of an endpoint',
  'endpoint.enable': 'Re-enabling of an endpoint',
  'endpoint.disable': 'Disabling of an endpoint',
  'user.create': 'Creation of a console user',
  'user.update': 'Change of a console user',
};

/**
 * The timeline entries of the admin actions in one admin stream (`admin-transaction-<reference>`):
 * one per request, at its position, with its outcome when recorded, e.g. detail
 * "Manual reconciliation requested by ops@example.com (operator)". Events that are not
 * well-formed admin actions are left out.
 */
export function adminTimelineEntries(events: readonly RecordedLedgerEvent[]): TimelineEntry[] {
  const outcomes = new Map<string, AdminActionCompletedData>();
  const requests: Array<{ event: RecordedLedgerEvent; data: AdminActionRequestedData }> = [];
  for (const event of events) {
    let parsed: ReturnType<typeof adminActionOf>;
    try {
      parsed = adminActionOf(event);
    } catch {
      continue;
    }
    if (parsed.type === 'AdminActionCompleted') outcomes.set(parsed.data.action_id, parsed.data);
    else requests.push({ event, data: parsed.data });
  }
  return requests.map(({ event, data }): TimelineEntry => {
    const completed = outcomes.get(data.action_id);
    return {
      position: event.position,
      revision: event.revision,
      type: event.type,
      recordedAt: event.recordedAt.toISOString(),
      trigger: null,
      verdict: null,
      state: null,
      detail: `${ADMIN_ACTION_LABELS[data.action] ?? data.action} requested by ${data.actor.email} (${data.actor.role})`,
      actor: { email: data.actor.email, role: data.actor.role },
      adminAction: {
        action: data.action,
        outcome: completed?.outcome ?? null,
        errorCode: completed?.error_code ?? null,
        completedAt: completed?.completed_at ?? null,
      },
    };
  });
}

/**
 * The sweeper's watch of a transaction (`sweeper.watch_state`): when it next asks the provider
 * and how many times it already did in the current episode.
 */
export interface WatchView {
  /** When the next re-check is due, ISO 8601 UTC; `null` when none is scheduled. */
  nextCheckAt: string | null;
  /** Re-checks the sweeper requested since the latest progress (`checks`). */
  checksSoFar: number;
  /** Whether the sweeper still has a re-check scheduled (`due_at` is set). */
  active: boolean;
}

/** One attempt to deliver an entitlement event to an endpoint (`dispatcher.attempts`). */
export interface DeliveryAttemptView {
  /** When the attempt started, ISO 8601 UTC. */
  at: string;
  /** `delivered`, `gone`, `throttled` or `failed`. */
  outcome: string;
  /** The endpoint's HTTP status, `null` when none came (time-out, refused connection). */
  httpStatus: number | null;
  /** Milliseconds from the request to the answer or the failure. */
  durationMs: number;
}

/** One delivery of an entitlement event to one endpoint (`dispatcher.deliveries`). */
export interface DeliveryView {
  endpointId: string;
  endpointUrl: string;
  /** `pending`, `delivered`, `failed` or `cancelled`. */
  status: string;
  /** Oldest first. */
  attempts: DeliveryAttemptView[];
}

/** An entitlement event of the transaction as the dispatcher received it (`dispatcher.events`). */
export interface EntitlementEventView {
  eventId: string;
  /** The event kind (`entitlement.granted`). */
  event: string;
  /** The grant's end, ISO 8601 UTC as delivered (the body's `expires_at`); `null` when the body has none. */
  expiresAt: string | null;
  /** One per subscribed endpoint, by endpoint URL. */
  deliveries: DeliveryView[];
}

/** A row of `GET /api/v1/queues/held-in-review`. */
export interface HeldInReviewItem extends TransactionSummary {
  /** When the sweeper next re-checks, ISO 8601 UTC; `null` when no re-check is scheduled (or no watch). */
  nextCheckAt: string | null;
  /** Re-checks done so far in the current episode; 0 without a watch. */
  checksSoFar: number;
}

/** A row of `GET /api/v1/queues/manual-review`: why the transaction waits for a person. */
export interface ManualReviewItem extends TransactionSummary {
  lastVerdict: string | null;
  lastTrigger: string | null;
  /** Re-checks the sweeper made before giving up; 0 without a watch. */
  checksSoFar: number;
  /** The last event of the transaction's ledger stream; `null` when the stream is empty. */
  lastEvent: { type: string; recordedAt: string; detail: string | null } | null;
}

/** A failed consensus check of a State Mismatch, with where the observed value came from. */
export interface MismatchCheckView {
  check: string;
  /** The check's stable code (`CONSENSUS.AMOUNT_MISMATCH`, ...). */
  code: string | null;
  /** What Settle registered (the checkout). */
  expected: string;
  /** What the provider reported. */
  observed: string;
  /** The provider answer's field the observed value was read from (the provider's `observedFields`); `null` for an unknown provider or check. */
  providerField: string | null;
}

/** A row of `GET /api/v1/queues/state-mismatch`: the failed checks side by side. */
export interface StateMismatchItem extends TransactionSummary {
  /** The checks of the last decision that failed, in the spec's order. */
  failedChecks: MismatchCheckView[];
}

/** A keyset page of a queue. */
export interface QueueQuery {
  /** The last row of the previous page. */
  after?: ListCursor | undefined;
  /** 1..100. */
  limit: number;
}

/** Filters and page of the transaction list. */
export interface ListQuery {
  /** A reference prefix, or exactly a user id, an email (case-insensitive) or a phone. */
  q?: string | undefined;
  provider?: string | undefined;
  state?: string | undefined;
  entitlement?: string | undefined;
  /** Last changed at or after this time (`updated_at`), ISO 8601. */
  from?: string | undefined;
  /** Last changed before this time, ISO 8601. */
  to?: string | undefined;
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

/** Epoch milliseconds as `pg` answers a `bigint` (text) or a number, as ISO 8601; `null` stays `null`. */
function isoOfEpochMs(value: string | number | null): string | null {
  return value === null ? null : new Date(Number(value)).toISOString();
}

interface QueueRow extends SummaryRow {
  due_at: string | number | null;
  watch_checks: number | null;
}

interface ManualRow extends QueueRow {
  last_verdict: string | null;
  last_trigger: string | null;
  event_type: string | null;
  event_recorded_at: Date | null;
  event_detail: string | null;
}

/** Keyset condition and order of the queues: oldest first, `(updated_at, reference)` ascending. */
function queuePage(query: QueueQuery, values: unknown[]): { after: string; limit: string } {
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const after = query.after ? `AND (t.updated_at, t.reference) > (${param(query.after.updatedAt)}::timestamptz, ${param(query.after.reference)})` : '';
  return { after, limit: param(query.limit + 1) };
}

/** The page and the cursor after its last row (`null` when `rows` holds no more than `limit`). */
function pageOf<R extends SummaryRow>(rows: R[], limit: number): { page: R[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, nextCursor: rows.length > limit && last ? encodeCursor({ updatedAt: last.updated_at_text, reference: last.reference }) : null };
}

/**
 * The console's reads of other apps' tables, read-only (docs/console.md, "Data"):
 * `read_model.transaction_status` and `read_model.console_latest_verifications` (the ledger projector's),
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

  /** Counts per state and entitlement status, and the review queues' sizes. @throws ReadModelNotReadyError */
  async overview(): Promise<Overview> {
    const { rows } = await this.read(() =>
      this.pool.query<{ state: string; entitlement_status: string; n: number }>(
        'SELECT state, entitlement_status, count(*)::bigint AS n FROM read_model.console_transactions GROUP BY state, entitlement_status',
      ),
    );
    const states: Record<string, number> = Object.fromEntries(TRANSACTION_STATUSES.map((s) => [s, 0]));
    const entitlements: Record<string, number> = Object.fromEntries(ENTITLEMENT_STATUSES.map((s) => [s, 0]));
    let total = 0;
    let heldInReview = 0;
    for (const row of rows) {
      states[row.state] = (states[row.state] ?? 0) + row.n;
      entitlements[row.entitlement_status] = (entitlements[row.entitlement_status] ?? 0) + row.n;
      if (row.state === 'RECOVERING' && row.entitlement_status === 'HELD_IN_REVIEW') heldInReview += row.n;
      total += row.n;
    }
    return {
      states,
      entitlements,
      heldInReview,
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
    let from = 'read_model.console_transactions t';
    if (query.q) {
      const q = query.q;
      if (await this.isNarrowSearch(q)) {
        const [p, hi] = [param(q), param(prefixUpperBound(q))];
        from = `(SELECT reference FROM read_model.console_transactions
                  WHERE reference COLLATE "C" >= ${p} AND reference COLLATE "C" < ${hi}
                 UNION
                 SELECT reference FROM ingestion.console_checkouts
                  WHERE user_id = ${p} OR lower(customer_email) = lower(${p}) OR customer_phone = ${p}) AS m
               JOIN read_model.console_transactions t ON t.reference = m.reference`;
      } else {
        where.push(`starts_with(t.reference, ${param(q)})`);
      }
    }
    if (query.provider) where.push(`t.provider = ${param(query.provider)}`);
    if (query.state) where.push(`t.state = ${param(query.state)}`);
    if (query.entitlement) where.push(`t.entitlement_status = ${param(query.entitlement)}`);
    // A time window bounds the newest-first walk: `to` is where it starts, `from` where it stops.
    if (query.from) where.push(`t.updated_at >= ${param(query.from)}::timestamptz`);
    if (query.to) where.push(`t.updated_at < ${param(query.to)}::timestamptz`);
    if (query.after) where.push(`(t.updated_at, t.reference) < (${param(query.after.updatedAt)}::timestamptz, ${param(query.after.reference)})`);
    const limit = param(query.limit + 1);
    const { rows } = await this.read(() =>
      this.pool.query<SummaryRow>(
        `SELECT ${SUMMARY_COLUMNS}
           FROM ${from}
           LEFT JOIN ingestion.console_checkouts c ON c.reference = t.reference
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
           SELECT 1 FROM read_model.console_transactions
            WHERE reference COLLATE "C" >= $1 AND reference COLLATE "C" < $2
            LIMIT ${NARROW_SEARCH + 1}) AS prefix`,
        [q, prefixUpperBound(q)],
      ),
    );
    return (rows[0]?.n ?? 0) <= NARROW_SEARCH;
  }

  /**
   * A transaction in full, with its ledger timeline (oldest first by ledger position): the
   * events of `transaction-<reference>` and the admin actions on it (`admin-transaction-<reference>`,
   * each with its actor and outcome).
   *
   * @throws ConsoleError `CONSOLE.TRANSACTION_NOT_FOUND` when the read model has no such reference.
   * @throws ReadModelNotReadyError
   */
  async detail(
    reference: string,
  ): Promise<{ transaction: TransactionDetail; timeline: TimelineEntry[]; watch: WatchView | null; entitlementEvents: EntitlementEventView[] }> {
    const { rows } = await this.read(() =>
      this.pool.query<DetailRow>(
        `SELECT ${SUMMARY_COLUMNS}, c.entitlement, c.access_period, t.checks,
                COALESCE(v.verdict, t.last_verdict) AS last_verdict, COALESCE(v.trigger, t.last_trigger) AS last_trigger
           FROM read_model.console_transactions t
           LEFT JOIN ingestion.console_checkouts c ON c.reference = t.reference
           LEFT JOIN read_model.console_latest_verifications v ON v.reference = t.reference
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
      checks: row.checks?.map((c) => ({ ...c, providerField: observedField(row.provider, c.check) })) ?? null,
      lastVerdict: row.last_verdict,
      lastTrigger: row.last_trigger,
    };
    const events = await this.read(() => this.ledger.readStream(transactionStream(reference)));
    const adminEvents = await this.read(() => this.ledger.readStream(adminActionStream('transaction', reference)));
    const outcomes = events.map((event): TimelineEntry => {
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
    // Who or what caused each step: the admin actions on the transaction, merged in by ledger position.
    const timeline = [...outcomes, ...adminTimelineEntries(adminEvents)].sort((a, b) => a.position - b.position);
    const watch = await this.watch(reference);
    const entitlementEvents = await this.entitlementEvents(reference);
    return { transaction, timeline, watch, entitlementEvents };
  }

  /**
   * Transactions in State Mismatch (docs/spec.md, section 3: a checklist point failed), newest
   * first as the transaction list pages them (`updated_at`, reference, descending: a mismatch is
   * terminal, so the newest are the ones to look at), each with its failed checks, expected
   * against observed, and the provider field the observed value came from.
   *
   * @throws ReadModelNotReadyError while `read_model` or `ingestion` does not exist.
   */
  async stateMismatch(query: QueueQuery): Promise<{ items: StateMismatchItem[]; nextCursor: string | null }> {
    const page = await this.list({ state: 'STATE_MISMATCH', after: query.after, limit: query.limit });
    if (page.items.length === 0) return { items: [], nextCursor: page.nextCursor };
    const { rows } = await this.read(() =>
      this.pool.query<{ reference: string; checks: CheckView[] | null }>(
        'SELECT reference, checks FROM read_model.console_transactions WHERE reference = ANY($1::text[])',
        [page.items.map((i) => i.reference)],
      ),
    );
    const checks = new Map(rows.map((r) => [r.reference, r.checks ?? []]));
    return {
      items: page.items.map((item) => ({
        ...item,
        failedChecks: (checks.get(item.reference) ?? [])
          .filter((c) => !c.passed)
          .map((c) => ({ check: c.check, code: c.code, expected: c.expected, observed: c.observed, providerField: observedField(item.provider, c.check) })),
      })),
      nextCursor: page.nextCursor,
    };
  }

  /**
   * The two review queues' sizes alone, cheaply (`settle_transactions_held_in_review` and
   * `settle_transactions_in_manual_review`): the range of states `RECOVERING` and
   * `MANUAL_REVIEW` of the state index, not the whole book as {@link overview} reads it.
   *
   * @throws ReadModelNotReadyError while `read_model` does not exist yet.
   */
  async reviewCounts(): Promise<{ heldInReview: number; manualReview: number }> {
    const { rows } = await this.read(() =>
      this.pool.query<{ held: number; manual: number }>(
        `SELECT count(*) FILTER (WHERE state = 'RECOVERING' AND entitlement_status = 'HELD_IN_REVIEW')::int AS held,
                count(*) FILTER (WHERE state = 'MANUAL_REVIEW')::int AS manual
           FROM read_model.console_transactions
          WHERE state IN ('RECOVERING', 'MANUAL_REVIEW')`,
      ),
    );
    return { heldInReview: rows[0]?.held ?? 0, manualReview: rows[0]?.manual ?? 0 };
  }

  /**
   * Transactions held in review (state `RECOVERING`, entitlement `HELD_IN_REVIEW`) with the
   * sweeper's next re-check, oldest first (`updated_at`, then reference, ascending): the ones
   * waiting longest come first. Keyset pages over `(updated_at, reference)`.
   *
   * @returns the rows and the cursor of the next page, `null` on the last page.
   * @throws ReadModelNotReadyError while `read_model`, `ingestion` or `sweeper` does not exist.
   */
  async heldInReview(query: QueueQuery): Promise<{ items: HeldInReviewItem[]; nextCursor: string | null }> {
    const values: unknown[] = [];
    const { after, limit } = queuePage(query, values);
    const { rows } = await this.read(() =>
      this.pool.query<QueueRow>(
        `SELECT ${SUMMARY_COLUMNS}, w.due_at, w.checks AS watch_checks
           FROM read_model.console_transactions t
           LEFT JOIN ingestion.console_checkouts c ON c.reference = t.reference
           LEFT JOIN sweeper.console_watches w ON w.reference = t.reference
          WHERE t.state = 'RECOVERING' AND t.entitlement_status = 'HELD_IN_REVIEW' ${after}
          ORDER BY t.updated_at ASC, t.reference ASC
          LIMIT ${limit}`,
        values,
      ),
    );
    const { page, nextCursor } = pageOf(rows, query.limit);
    return {
      items: page.map((row) => ({ ...summaryOf(row), nextCheckAt: isoOfEpochMs(row.due_at), checksSoFar: row.watch_checks ?? 0 })),
      nextCursor,
    };
  }

  /**
   * Transactions in manual review (state `MANUAL_REVIEW`) with why: the verifier's last verdict
   * and trigger, the sweeper's re-checks and the last event of the ledger stream. Oldest first,
   * keyset pages as {@link heldInReview}.
   *
   * @returns the rows and the cursor of the next page, `null` on the last page.
   * @throws ReadModelNotReadyError while `read_model`, `ingestion`, `sweeper` or `ledger` does not exist.
   */
  async manualReview(query: QueueQuery): Promise<{ items: ManualReviewItem[]; nextCursor: string | null }> {
    const values: unknown[] = [transactionStream('')];
    const { after, limit } = queuePage(query, values);
    const { rows } = await this.read(() =>
      this.pool.query<ManualRow>(
        `SELECT ${SUMMARY_COLUMNS}, w.due_at, w.checks AS watch_checks,
                COALESCE(v.verdict, t.last_verdict) AS last_verdict, COALESCE(v.trigger, t.last_trigger) AS last_trigger,
                e.event_type, e.recorded_at AS event_recorded_at, e.data->>'detail' AS event_detail
           FROM read_model.console_transactions t
           LEFT JOIN ingestion.console_checkouts c ON c.reference = t.reference
           LEFT JOIN read_model.console_latest_verifications v ON v.reference = t.reference
           LEFT JOIN sweeper.console_watches w ON w.reference = t.reference
           LEFT JOIN LATERAL (
             SELECT event_type, recorded_at, data FROM ledger.console_events
              WHERE stream_id = $1 || t.reference
              ORDER BY revision DESC LIMIT 1
           ) e ON true
          WHERE t.state = 'MANUAL_REVIEW' ${after}
          ORDER BY t.updated_at ASC, t.reference ASC
          LIMIT ${limit}`,
        values,
      ),
    );
    const { page, nextCursor } = pageOf(rows, query.limit);
    return {
      items: page.map((row) => ({
        ...summaryOf(row),
        lastVerdict: row.last_verdict,
        lastTrigger: row.last_trigger,
        checksSoFar: row.watch_checks ?? 0,
        lastEvent:
          row.event_type !== null && row.event_recorded_at !== null
            ? { type: row.event_type, recordedAt: row.event_recorded_at.toISOString(), detail: row.event_detail }
            : null,
      })),
      nextCursor,
    };
  }

  /** The sweeper's watch of a reference, `null` when it has none. @throws ReadModelNotReadyError */
  private async watch(reference: string): Promise<WatchView | null> {
    const { rows } = await this.read(() =>
      this.pool.query<{ due_at: string | number | null; checks: number }>('SELECT due_at, checks FROM sweeper.console_watches WHERE reference = $1', [
        reference,
      ]),
    );
    const row = rows[0];
    if (!row) return null;
    return { nextCheckAt: isoOfEpochMs(row.due_at), checksSoFar: row.checks, active: row.due_at !== null };
  }

  /**
   * The entitlement events of a reference as the dispatcher recorded them, oldest first, each
   * with its deliveries (by endpoint URL) and their attempts (oldest first).
   *
   * @throws ReadModelNotReadyError
   */
  private async entitlementEvents(reference: string): Promise<EntitlementEventView[]> {
    const { rows } = await this.read(() =>
      this.pool.query<{ event_id: string; event: string; expires_at: string | null; deliveries: DeliveryView[] }>(
        `SELECT ev.event_id::text, ev.event,
                ev.body::jsonb->>'expires_at' AS expires_at,
                COALESCE((
                  SELECT json_agg(json_build_object(
                           'endpointId', d.endpoint_id::text,
                           'endpointUrl', ep.url,
                           'status', d.state,
                           'attempts', COALESCE((
                             SELECT json_agg(json_build_object(
                                      'at', to_char(a.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                      'outcome', a.outcome,
                                      'httpStatus', a.status,
                                      'durationMs', a.latency_ms) ORDER BY a.attempt)
                               FROM dispatcher.console_attempts a WHERE a.delivery_id = d.id), '[]'::json))
                         ORDER BY ep.url, d.id)
                    FROM dispatcher.console_deliveries d
                    JOIN dispatcher.console_endpoints ep ON ep.id = d.endpoint_id
                   WHERE d.event_id = ev.event_id), '[]'::json) AS deliveries
           FROM dispatcher.console_events ev
          WHERE ev.reference = $1
          ORDER BY ev.published_at ASC, ev.event_id ASC`,
        [reference],
      ),
    );
    return rows.map((row) => ({
      eventId: row.event_id,
      event: row.event,
      expiresAt: row.expires_at,
      deliveries: row.deliveries,
    }));
  }

  private read<T>(work: () => Promise<T>): Promise<T> {
    return readReadModel(work);
  }
}

/** Where a provider's answer holds the value a check observed (its definition's `observedFields`), `null` when unknown. */
export function observedField(provider: string, check: string): string | null {
  const fields = providerDefinition(provider)?.observedFields as Readonly<Record<string, string>> | undefined;
  return fields?.[check] ?? null;
}

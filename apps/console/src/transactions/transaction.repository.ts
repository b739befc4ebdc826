import { ENTITLEMENT_STATUSES, TRANSACTION_STATUSES } from '@settle/domain';
import {
  adminActionStream,
  isMoneyMovementType,
  moneyMovementDataOf,
  isMismatchResolutionType,
  mismatchResolutionDataOf,
  readReadModel,
  transactionOutcomeData,
  transactionStream,
  type LedgerStore,
  type RecordedLedgerEvent,
} from '@settle/ledger';
import type { Pool } from '@settle/platform';
import { ConsoleError } from '../errors.js';
import { adminTimelineEntries } from './timeline.js';
import { encodeKeysetCursor } from '@settle/http';
import {
  observedField,
  type DetailRow,
  type DeliveryView,
  isoOfEpochMs,
  NARROW_SEARCH,
  prefixUpperBound,
  SUMMARY_COLUMNS,
  summaryOf,
  type EntitlementEventView,
  type ListQuery,
  type Overview,
  type SummaryRow,
  type TimelineEntry,
  type ResolutionView,
  type TransactionDetail,
  type MovementView,
  type OpenDisputeView,
  type TransactionSummary,
  type WatchView,
} from './views.js';

/**
 * The transactions pages' reader (the Overview's counts, the list and search, a transaction in
 * full), read-only, from the views the owners publish (docs/console.md, "Data"):
 * `read_model.console_transactions` and `console_latest_verifications` (the ledger projector's),
 * `ingestion.console_checkouts`, `sweeper.console_watches`, `dispatcher.console_*`, and the
 * transaction's ledger stream through the {@link LedgerStore} port. The review queues have their
 * own reader (`ReviewQueues`, ../queues/review-queues.ts).
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
      this.pool.query<{ state: string; entitlement_status: string; n: number; open: number }>(
        `SELECT state, entitlement_status, count(*)::bigint AS n,
                count(*) FILTER (WHERE resolution IS NULL OR resolution = 'refund_due')::bigint AS open
           FROM read_model.console_transactions GROUP BY state, entitlement_status`,
      ),
    );
    const states: Record<string, number> = Object.fromEntries(TRANSACTION_STATUSES.map((s) => [s, 0]));
    const entitlements: Record<string, number> = Object.fromEntries(ENTITLEMENT_STATUSES.map((s) => [s, 0]));
    let total = 0;
    let heldInReview = 0;
    let openMismatches = 0;
    for (const row of rows) {
      if (row.state === 'STATE_MISMATCH') openMismatches += row.open;
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
      // The queue's size: the State Mismatches still open (not accepted as paid, not refunded).
      stateMismatch: openMismatches,
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
    if (query.moneyState) where.push(`t.money_state = ${param(query.moneyState)}`);
    if (query.unresolved) where.push(`(t.resolution IS NULL OR t.resolution = 'refund_due')`);
    // A time window bounds the newest-first walk: `to` is where it starts, `from` where it stops.
    if (query.from) where.push(`t.updated_at >= ${param(query.from)}::timestamptz`);
    if (query.to) where.push(`t.updated_at < ${param(query.to)}::timestamptz`);
    if (query.after) where.push(`(t.updated_at, t.reference) < (${param(query.after.at)}::timestamptz, ${param(query.after.reference)})`);
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
    const nextCursor = rows.length > query.limit && last ? encodeKeysetCursor({ at: last.updated_at_text, reference: last.reference }) : null;
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
        `SELECT ${SUMMARY_COLUMNS}, c.entitlement, c.access_period, t.checks, t.money_state, t.returned_minor, t.resolution,
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
      moneyState: row.money_state,
      returnedMinor: Number(row.returned_minor),
      resolution: row.resolution,
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
        ...(isMoneyMovementType(event.type) ? { movement: movementOf(event) } : {}),
        ...(isMismatchResolutionType(event.type) ? { resolution: resolutionOf(event) } : {}),
      };
    });
    // Who or what caused each step: the admin actions on the transaction, merged in by ledger position.
    const timeline = [...outcomes, ...adminTimelineEntries(adminEvents)].sort((a, b) => a.position - b.position);
    const watch = await this.watch(reference);
    const entitlementEvents = await this.entitlementEvents(reference);
    return { transaction, timeline, watch, entitlementEvents };
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

  /**
   * The disputes still open of each reference (read from its ledger stream: a `DisputeOpened`
   * not followed by a `DisputeResolved` of the same dispute), oldest first.
   *
   * @throws ReadModelNotReadyError
   */
  async openDisputes(references: readonly string[]): Promise<Map<string, OpenDisputeView[]>> {
    const open = new Map<string, OpenDisputeView[]>();
    for (const reference of references) {
      const events = await this.read(() => this.ledger.readStream(transactionStream(reference)));
      const disputes = new Map<string, OpenDisputeView>();
      for (const event of events) {
        if (event.type !== 'DisputeOpened' && event.type !== 'DisputeResolved') continue;
        const { data: d } = moneyMovementDataOf(event);
        if (event.type === 'DisputeResolved') disputes.delete(d.provider_id);
        else
          disputes.set(d.provider_id, {
            providerId: d.provider_id,
            amountMinor: d.amount_minor,
            reason: d.reason,
            openedAt: new Date(d.created_at).toISOString(),
          });
      }
      open.set(reference, [...disputes.values()]);
    }
    return open;
  }

  private read<T>(work: () => Promise<T>): Promise<T> {
    return readReadModel(work);
  }
}

/** What a money fact's provider object said, for the timeline. @throws LedgerEventShapeError when malformed. */
/** What a resolution fact of a State Mismatch recorded, for the timeline. */
function resolutionOf(event: Pick<RecordedLedgerEvent, 'type' | 'data' | 'eventId' | 'position'>): ResolutionView {
  const { data: d } = mismatchResolutionDataOf(event);
  return {
    proposalId: d.proposal_id,
    proposedBy: d.proposed_by,
    approvedBy: d.approved_by,
    closedBy: d.closed_by,
    note: d.note,
    differenceMinor: d.difference_minor,
    returnedMinor: d.returned_minor,
  };
}

function movementOf(event: Pick<RecordedLedgerEvent, 'type' | 'data' | 'eventId' | 'position'>): MovementView {
  const { data: d } = moneyMovementDataOf(event);
  return {
    kind: d.kind,
    providerId: d.provider_id,
    providerStatus: d.provider_status,
    amountMinor: d.amount_minor,
    currency: d.currency,
    createdAt: new Date(d.created_at).toISOString(),
    moneyState: d.money_state,
    returnedMinor: d.returned_minor,
    reason: d.reason,
    outcome: d.outcome,
    failedChecks: (d.checks ?? []).filter((c) => !c.passed).flatMap((c) => (c.code ? [c.code] : [])),
  };
}

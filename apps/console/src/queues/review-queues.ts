import { readReadModel, transactionStream, unmatchedCustomerMasked } from '@settle/ledger';
import { encodeKeysetCursor } from '@settle/http';
import type { Pool } from '@settle/platform';
import type { TransactionRepository } from '../transactions/transaction.repository.js';
import {
  isoOfEpochMs,
  observedField,
  pageOf,
  queuePage,
  SUMMARY_COLUMNS,
  summaryOf,
  type CheckView,
  type HeldInReviewItem,
  type ManualReviewItem,
  type ManualRow,
  type QueueQuery,
  type QueueRow,
  type StateMismatchItem,
  type UnmatchedPaymentItem,
  type DisputeItem,
} from '../transactions/views.js';

/**
 * The review queues' reader (docs/console.md, "Queues"): State Mismatch, held in review, manual
 * review and the unmatched payments, by keyset pages, and the two review queues' sizes for the
 * metrics.
 * It reads only the views the owners publish (docs/console.md, "Data"). Every read throws
 * `READ_MODEL.NOT_READY` (503) while those schemas do not exist yet.
 */
export class ReviewQueues {
  /**
   * @param transactions - the transactions' reader: the State Mismatch queue is its list filtered by state.
   */
  constructor(
    private readonly pool: Pool,
    private readonly transactions: Pick<TransactionRepository, 'list' | 'openDisputes'>,
  ) {}

  /**
   * Settled payments with a dispute still open (money state `disputed`: docs/state-machine.md,
   * "The money after settlement"), newest first as the transaction list pages them, each with its
   * open disputes (the provider's id, amount in minor units, reason, when opened) read from its
   * ledger stream. The grant stays in force while a dispute is open unless the entitlement's
   * policy suspends it (docs/delivery.md, "Access follows the money").
   *
   * @throws ReadModelNotReadyError while `read_model` or `ingestion` does not exist.
   */
  async disputes(query: QueueQuery): Promise<{ items: DisputeItem[]; nextCursor: string | null }> {
    const page = await this.transactions.list({ moneyState: 'disputed', after: query.after, limit: query.limit });
    if (page.items.length === 0) return { items: [], nextCursor: page.nextCursor };
    const [{ rows }, open] = await Promise.all([
      this.read(() =>
        this.pool.query<{ reference: string; money_state: string; returned_minor: string | number }>(
          'SELECT reference, money_state, returned_minor FROM read_model.console_transactions WHERE reference = ANY($1::text[])',
          [page.items.map((i) => i.reference)],
        ),
      ),
      this.transactions.openDisputes(page.items.map((i) => i.reference)),
    ]);
    const money = new Map(rows.map((r) => [r.reference, r]));
    return {
      items: page.items.map((item) => ({
        ...item,
        moneyState: money.get(item.reference)?.money_state ?? 'disputed',
        returnedMinor: Number(money.get(item.reference)?.returned_minor ?? 0),
        disputes: open.get(item.reference) ?? [],
      })),
      nextCursor: page.nextCursor,
    };
  }

  /**
   * Transactions in State Mismatch (docs/spec.md, section 3: a checklist point failed) still open
   * (not accepted as paid, not refunded; one closed as refund due stays until its refund shows:
   * docs/state-machine.md, "Resolving a State Mismatch"), newest
   * first as the transaction list pages them (`updated_at`, reference, descending: a mismatch is
   * terminal, so the newest are the ones to look at), each with its failed checks, expected
   * against observed, and the provider field the observed value came from.
   *
   * @throws ReadModelNotReadyError while `read_model` or `ingestion` does not exist.
   */
  async stateMismatch(query: QueueQuery): Promise<{ items: StateMismatchItem[]; nextCursor: string | null }> {
    const page = await this.transactions.list({ state: 'STATE_MISMATCH', unresolved: true, after: query.after, limit: query.limit });
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
   * The queues' sizes alone, cheaply (`settle_transactions_held_in_review`,
   * `settle_transactions_in_manual_review`, `settle_unmatched_payments_open`): the range of states
   * `RECOVERING` and `MANUAL_REVIEW` of the state index, not the whole book as {@link overview}
   * reads it; and the open unmatched payments with when the oldest was confirmed (epoch ms,
   * `null` when none), for the age alert (docs/unmatched-payments.md).
   *
   * @throws ReadModelNotReadyError while `read_model` does not exist yet.
   */
  async reviewCounts(): Promise<{ heldInReview: number; manualReview: number; unmatchedOpen: number; oldestUnmatchedAt: number | null }> {
    const { rows } = await this.read(() =>
      this.pool.query<{ held: number; manual: number; unmatched: number; oldest: Date | null }>(
        `SELECT (SELECT count(*) FILTER (WHERE state = 'RECOVERING' AND entitlement_status = 'HELD_IN_REVIEW')::int
                   FROM read_model.console_transactions WHERE state IN ('RECOVERING', 'MANUAL_REVIEW')) AS held,
                (SELECT count(*) FILTER (WHERE state = 'MANUAL_REVIEW')::int
                   FROM read_model.console_transactions WHERE state IN ('RECOVERING', 'MANUAL_REVIEW')) AS manual,
                (SELECT count(*)::int FROM read_model.console_unmatched_payments WHERE status = 'open') AS unmatched,
                (SELECT min(verified_at) FROM read_model.console_unmatched_payments WHERE status = 'open') AS oldest`,
      ),
    );
    const row = rows[0];
    return {
      heldInReview: row?.held ?? 0,
      manualReview: row?.manual ?? 0,
      unmatchedOpen: row?.unmatched ?? 0,
      oldestUnmatchedAt: row?.oldest?.getTime() ?? null,
    };
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

  /**
   * Open unmatched payments (docs/unmatched-payments.md): payments a provider confirmed for a
   * reference with no checkout, nothing granted. Oldest first (`verified_at`, then reference,
   * ascending), keyset pages over `(verified_at, reference)` with the cursor's `at` as
   * `verified_at` with microseconds. Reads `read_model.console_unmatched_payments` alone. Amounts
   * are minor units, `null` when the provider's answer carries none (M-Pesa, `termsVerified` false).
   * The customer is shown masked only (docs/privacy.md, "Masked forms"): the verifier's masked
   * forms, or a plaintext written before them masked here; a sealed value is never shown.
   *
   * @returns the rows and the cursor of the next page, `null` on the last page.
   * @throws ReadModelNotReadyError while `read_model` does not exist yet.
   */
  async unmatchedPayments(query: QueueQuery): Promise<{ items: UnmatchedPaymentItem[]; nextCursor: string | null }> {
    const values: unknown[] = [query.limit + 1];
    let after = '';
    if (query.after) {
      values.push(query.after.at, query.after.reference);
      after = 'AND (verified_at, reference) > ($2::timestamptz, $3)';
    }
    const { rows } = await this.read(() =>
      this.pool.query<UnmatchedRow>(
        `SELECT reference, provider, amount_minor, currency, customer_email, customer_phone, customer_email_masked, customer_phone_masked, terms_verified,
                provider_status, provider_transaction_id, verified_at,
                to_char(verified_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS verified_at_text
           FROM read_model.console_unmatched_payments
          WHERE status = 'open' ${after}
          ORDER BY verified_at ASC, reference ASC
          LIMIT $1`,
        values,
      ),
    );
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: page.map((row) => ({
        reference: row.reference,
        provider: row.provider,
        amountMinor: row.amount_minor === null ? null : Number(row.amount_minor),
        currency: row.currency,
        customer: unmatchedCustomerMasked(row),
        termsVerified: row.terms_verified,
        providerStatus: row.provider_status,
        providerTransactionId: row.provider_transaction_id,
        verifiedAt: row.verified_at.toISOString(),
      })),
      nextCursor: rows.length > query.limit && last ? encodeKeysetCursor({ at: last.verified_at_text, reference: last.reference }) : null,
    };
  }

  private read<T>(work: () => Promise<T>): Promise<T> {
    return readReadModel(work);
  }
}

/** A row of `read_model.console_unmatched_payments` as the queue reads it (`bigint` amounts come as text). */
interface UnmatchedRow {
  reference: string;
  provider: string;
  amount_minor: string | number | null;
  currency: string | null;
  /** Sealed (docs/privacy.md, "Crypto-shredding"), or plaintext in rows of events written before sealing: read only to mask the latter. */
  customer_email: string | null;
  customer_phone: string | null;
  customer_email_masked: string | null;
  customer_phone_masked: string | null;
  terms_verified: boolean;
  provider_status: string | null;
  provider_transaction_id: string | null;
  verified_at: Date;
  verified_at_text: string;
}

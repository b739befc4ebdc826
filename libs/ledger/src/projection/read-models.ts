import { fileURLToPath } from 'node:url';
import { maskEmail, maskPhone } from '@settle/domain';
import { inTransaction, type Pool, type PoolClient, type SchemaMigrations } from '@settle/platform';
import type { LedgerStore } from '../ports/ledger.port.js';
import {
  readModelRowsOf,
  type EntitlementRow,
  type LatestVerificationRow,
  type LedgerStatusRow,
  type MoneyStateRow,
  type ResolutionRow,
  type ReadModelRows,
  type UnmatchedPaymentRow,
} from './ledger-projection.js';
import { applyErasures } from './erasure-read-models.js';
import { readReadModel } from './read-model-access.js';
import { upsertReconciliation } from './reconciliation-read-models.js';

export { ReadModelNotReadyError, readReadModel } from './read-model-access.js';

/**
 * Read models kept by the ledger projector:
 * - `read_model.transaction_status`: the state of each transaction that has a ledger
 *   entry (state, entitlement, the four checks, and the money state after settlement), a pure projection of the ledger: it can be
 *   dropped and rebuilt from the ledger alone ({@link rebuildReadModels}).
 * - `read_model.latest_verification`: the verifier's latest answer per transaction, including
 *   answers that changed nothing and so are not in the ledger (docs/architecture.md, decision
 *   2). It tells a caller waiting for its own verification request that the answer came; it
 *   holds no money state, and is rebuilt from the consensus-results stream, not the ledger.
 * - `read_model.entitlements`: each user's entitlements and current access expiry, a pure
 *   projection of the entitlement streams (grants, revocations, reinstatements), rebuildable from the ledger
 *   alone like `transaction_status`.
 * - `read_model.unmatched_payments`: the payments Settle was never told about, open or matched,
 *   a pure projection of the `unmatched-` streams (docs/unmatched-payments.md), rebuildable too.
 *
 * These are the migrations of schema `read_model` (`libs/ledger/migrations/read_model/`), owned
 * by the ledger projector, which applies them at boot; ingestion only reads the tables.
 */
export const READ_MODEL_MIGRATIONS: SchemaMigrations = {
  schema: 'read_model',
  dir: fileURLToPath(new URL('../../migrations/read_model', import.meta.url)),
};

/**
 * Upserts ledger-status rows in one statement (a consumer batch, a rebuild page), each unless a
 * newer ledger revision is already reflected (redeliveries and replays never move the view
 * backwards); per reference only the row of the highest revision is written.
 */
export async function upsertLedgerStatuses(client: PoolClient | Pool, rows: readonly LedgerStatusRow[]): Promise<void> {
  const latest = [
    ...latestBy(
      rows,
      (r) => r.reference,
      (a, b) => a.ledgerRevision - b.ledgerRevision,
    ).values(),
  ];
  if (latest.length === 0) return;
  const col = <T>(f: (r: LedgerStatusRow) => T) => latest.map(f);
  await client.query(
    `INSERT INTO read_model.transaction_status
       (reference, provider, state, entitlement_status, amount_minor, currency, checks, last_verdict, last_trigger, ledger_revision, updated_at)
     SELECT reference, provider, state, entitlement_status, amount_minor, currency, checks::jsonb, last_verdict, last_trigger, ledger_revision, updated_at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::timestamptz[])
         AS u(reference, provider, state, entitlement_status, amount_minor, currency, checks, last_verdict, last_trigger, ledger_revision, updated_at)
     ON CONFLICT (reference) DO UPDATE SET
       state = EXCLUDED.state, entitlement_status = EXCLUDED.entitlement_status,
       -- A customer erased meanwhile stays erased (docs/privacy.md, "Erasure"): an outcome decided
       -- before the erasure but projected after it brings the masked values back otherwise.
       checks = CASE
         WHEN read_model.transaction_status.checks @> '[{"check": "customer", "expected": "erased"}]'::jsonb AND jsonb_typeof(EXCLUDED.checks) = 'array'
         THEN (SELECT jsonb_agg(CASE WHEN c->>'check' = 'customer' THEN c || '{"expected": "erased", "observed": "erased"}'::jsonb ELSE c END ORDER BY ord)
                 FROM jsonb_array_elements(EXCLUDED.checks) WITH ORDINALITY AS x(c, ord))
         ELSE EXCLUDED.checks END,
       last_verdict = EXCLUDED.last_verdict, last_trigger = EXCLUDED.last_trigger,
       ledger_revision = EXCLUDED.ledger_revision, updated_at = EXCLUDED.updated_at
     WHERE read_model.transaction_status.ledger_revision < EXCLUDED.ledger_revision`,
    [
      col((r) => r.reference),
      col((r) => r.provider),
      col((r) => r.state),
      col((r) => r.entitlementStatus),
      col((r) => r.amountMinor),
      col((r) => r.currency),
      col((r) => (r.checks === null ? null : JSON.stringify(r.checks))),
      col((r) => r.lastVerdict),
      col((r) => r.lastTrigger),
      col((r) => r.ledgerRevision),
      col((r) => r.updatedAt),
    ],
  );
}

/** Per key, the greatest row by `order` (the later one of equals). */
function latestBy<T>(rows: readonly T[], key: (row: T) => string, order: (a: T, b: T) => number): Map<string, T> {
  const latest = new Map<string, T>();
  for (const row of rows) {
    const k = key(row);
    const seen = latest.get(k);
    if (!seen || order(row, seen) >= 0) latest.set(k, row);
  }
  return latest;
}

/** Records the verifier's latest answers in one statement, each unless a later one is already recorded; per reference only the latest. */
export async function upsertLatestVerifications(client: PoolClient | Pool, rows: readonly LatestVerificationRow[]): Promise<void> {
  const latest = [
    ...latestBy(
      rows,
      (r) => r.reference,
      (a, b) => a.decidedAt.getTime() - b.decidedAt.getTime(),
    ).values(),
  ];
  if (latest.length === 0) return;
  const col = <T>(f: (r: LatestVerificationRow) => T) => latest.map(f);
  await client.query(
    `INSERT INTO read_model.latest_verification (reference, verdict, trigger, causation_id, state, entitlement_status, decided_at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
     ON CONFLICT (reference) DO UPDATE SET
       verdict = EXCLUDED.verdict, trigger = EXCLUDED.trigger, causation_id = EXCLUDED.causation_id,
       state = EXCLUDED.state, entitlement_status = EXCLUDED.entitlement_status, decided_at = EXCLUDED.decided_at
     WHERE read_model.latest_verification.decided_at <= EXCLUDED.decided_at`,
    [
      col((r) => r.reference),
      col((r) => r.verdict),
      col((r) => r.trigger),
      col((r) => r.causationId),
      col((r) => r.state),
      col((r) => r.entitlementStatus),
      col((r) => r.decidedAt),
    ],
  );
}

/**
 * Writes the money state of settled payments in one statement (docs/state-machine.md, "The money
 * after settlement"), each unless a later money fact is already reflected; per reference only the
 * row of the highest revision. The outcome's row exists already: a money fact follows its
 * settlement in the same stream.
 */
export async function updateMoneyStates(client: PoolClient | Pool, rows: readonly MoneyStateRow[]): Promise<void> {
  const latest = [
    ...latestBy(
      rows,
      (r) => r.reference,
      (a, b) => a.ledgerRevision - b.ledgerRevision,
    ).values(),
  ];
  if (latest.length === 0) return;
  await client.query(
    `UPDATE read_model.transaction_status t
        SET money_state = u.money_state, returned_minor = u.returned_minor, money_revision = u.money_revision
       FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) AS u(reference, money_state, returned_minor, money_revision)
      WHERE t.reference = u.reference AND t.money_revision < u.money_revision`,
    [latest.map((r) => r.reference), latest.map((r) => r.moneyState), latest.map((r) => r.returnedMinor), latest.map((r) => r.ledgerRevision)],
  );
}

/**
 * Writes where State Mismatches' resolutions stand in one statement (docs/state-machine.md,
 * "Resolving a State Mismatch"), each unless a later resolution fact is already reflected; per
 * reference only the row of the highest revision. Accepted as paid also unlocks the entitlement
 * status (its grant follows on the entitlement stream).
 */
export async function updateResolutions(client: PoolClient | Pool, rows: readonly ResolutionRow[]): Promise<void> {
  const latest = [
    ...latestBy(
      rows,
      (r) => r.reference,
      (a, b) => a.ledgerRevision - b.ledgerRevision,
    ).values(),
  ];
  if (latest.length === 0) return;
  await client.query(
    `UPDATE read_model.transaction_status t
        SET resolution = u.resolution, resolution_revision = u.revision,
            entitlement_status = COALESCE(u.entitlement_status, t.entitlement_status)
       FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS u(reference, resolution, entitlement_status, revision)
      WHERE t.reference = u.reference AND t.resolution_revision < u.revision`,
    [latest.map((r) => r.reference), latest.map((r) => r.resolution), latest.map((r) => r.entitlementStatus), latest.map((r) => r.ledgerRevision)],
  );
}

/**
 * Upserts entitlement rows in one statement, each unless a later event of its stream is already
 * reflected (replays and redeliveries never move it backwards; the row is the stream's state
 * after its highest revision, so a revocation may move the expiry earlier); per stream only the
 * row of the highest revision is written.
 */
export async function upsertEntitlements(client: PoolClient | Pool, rows: readonly EntitlementRow[]): Promise<void> {
  const latest = [
    ...latestBy(
      rows,
      (r) => JSON.stringify([r.userId, r.entitlement]),
      (a, b) => a.ledgerRevision - b.ledgerRevision,
    ).values(),
  ];
  if (latest.length === 0) return;
  const col = <T>(f: (r: EntitlementRow) => T) => latest.map(f);
  await client.query(
    `INSERT INTO read_model.entitlements
       (user_id, entitlement, expires_at, grants, last_event_id, last_event, last_reference, ledger_revision, updated_at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::int[], $5::uuid[], $6::text[], $7::text[], $8::bigint[], $9::timestamptz[])
     ON CONFLICT (user_id, entitlement) DO UPDATE SET
       expires_at = EXCLUDED.expires_at, grants = EXCLUDED.grants, last_event_id = EXCLUDED.last_event_id,
       last_event = EXCLUDED.last_event, last_reference = EXCLUDED.last_reference,
       ledger_revision = EXCLUDED.ledger_revision, updated_at = EXCLUDED.updated_at
     WHERE read_model.entitlements.ledger_revision < EXCLUDED.ledger_revision`,
    [
      col((r) => r.userId),
      col((r) => r.entitlement),
      col((r) => r.expiresAt),
      col((r) => r.grants),
      col((r) => r.lastEventId),
      col((r) => r.lastEvent),
      col((r) => r.lastReference),
      col((r) => r.ledgerRevision),
      col((r) => r.updatedAt),
    ],
  );
}

/**
 * A user's entitlements with their current expiry, by entitlement name.
 *
 * @throws ReadModelNotReadyError before the ledger projector first created the read models.
 */
export async function findEntitlements(pool: Pool | PoolClient, userId: string): Promise<EntitlementRow[]> {
  const { rows } = await readReadModel(() =>
    pool.query<{
      user_id: string;
      entitlement: string;
      expires_at: Date;
      grants: number;
      last_event_id: string;
      last_event: string;
      last_reference: string;
      ledger_revision: number;
      updated_at: Date;
    }>('SELECT * FROM read_model.entitlements WHERE user_id = $1 ORDER BY entitlement', [userId]),
  );
  return rows.map((r) => ({
    userId: r.user_id,
    entitlement: r.entitlement,
    expiresAt: r.expires_at,
    grants: r.grants,
    lastEventId: r.last_event_id,
    lastEvent: r.last_event,
    lastReference: r.last_reference,
    ledgerRevision: r.ledger_revision,
    updatedAt: r.updated_at,
  }));
}

/**
 * Writes what the unmatched payment streams' events say, in the caller's transaction: a recorded
 * payment is inserted as open (a replay finds it and writes nothing), a match or a closing marks
 * it matched or closed unless a later revision is already reflected. At most three statements
 * whatever the number of rows. The payer's email and phone are stored as the event holds them
 * (sealed under the customer's subject key from the version that seals them, docs/privacy.md,
 * "Crypto-shredding"), their masked forms beside (`null` for events written before).
 */
export async function upsertUnmatchedPayments(client: PoolClient | Pool, rows: readonly UnmatchedPaymentRow[]): Promise<void> {
  const recorded = rows.flatMap((r) => (r.kind === 'recorded' ? [r] : []));
  const matched = [
    ...latestBy(
      rows.flatMap((r) => (r.kind === 'matched' ? [r] : [])),
      (r) => r.reference,
      (a, b) => a.ledgerRevision - b.ledgerRevision,
    ).values(),
  ];
  if (recorded.length > 0) {
    const col = <T>(f: (r: (typeof recorded)[number]) => T) => recorded.map(f);
    await client.query(
      `INSERT INTO read_model.unmatched_payments
         (reference, provider, status, amount_minor, currency, customer_email, customer_phone, terms_verified,
          provider_status, provider_transaction_id, verified_at, ledger_revision, customer_email_masked, customer_phone_masked)
       SELECT reference, provider, 'open', amount_minor, currency, customer_email, customer_phone, terms_verified,
              provider_status, provider_transaction_id, verified_at, ledger_revision, customer_email_masked, customer_phone_masked
         FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::bool[], $8::text[], $9::text[],
                     $10::timestamptz[], $11::bigint[], $12::text[], $13::text[])
           AS u(reference, provider, amount_minor, currency, customer_email, customer_phone, terms_verified, provider_status,
                provider_transaction_id, verified_at, ledger_revision, customer_email_masked, customer_phone_masked)
       ON CONFLICT (reference) DO NOTHING`,
      [
        col((r) => r.reference),
        col((r) => r.data.provider),
        col((r) => r.data.amount_minor),
        col((r) => r.data.currency),
        col((r) => r.data.customer_email),
        col((r) => r.data.customer_phone),
        col((r) => r.data.terms_verified),
        col((r) => r.data.provider_status),
        col((r) => r.data.provider_transaction_id),
        col((r) => r.data.verified_at),
        col((r) => r.ledgerRevision),
        col((r) => r.data.customer_email_masked ?? null),
        col((r) => r.data.customer_phone_masked ?? null),
      ],
    );
  }
  if (matched.length > 0) {
    await client.query(
      `UPDATE read_model.unmatched_payments p
          SET status = 'matched', matched_at = u.matched_at, ledger_revision = u.ledger_revision
         FROM unnest($1::text[], $2::timestamptz[], $3::bigint[]) AS u(reference, matched_at, ledger_revision)
        WHERE p.reference = u.reference AND p.ledger_revision < u.ledger_revision`,
      [matched.map((r) => r.reference), matched.map((r) => r.matchedAt), matched.map((r) => r.ledgerRevision)],
    );
  }
  const closed = [
    ...latestBy(
      rows.flatMap((r) => (r.kind === 'closed' ? [r] : [])),
      (r) => r.reference,
      (a, b) => a.ledgerRevision - b.ledgerRevision,
    ).values(),
  ];
  if (closed.length > 0) {
    await client.query(
      `UPDATE read_model.unmatched_payments p
          SET status = 'closed', closed_at = u.closed_at, close_reason = u.close_reason, closed_by = u.closed_by, ledger_revision = u.ledger_revision
         FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::bigint[]) AS u(reference, closed_at, close_reason, closed_by, ledger_revision)
        WHERE p.reference = u.reference AND p.ledger_revision < u.ledger_revision`,
      [
        closed.map((r) => r.reference),
        closed.map((r) => r.closedAt),
        closed.map((r) => r.reason),
        closed.map((r) => r.closedBy),
        closed.map((r) => r.ledgerRevision),
      ],
    );
  }
}

/**
 * Writes every read-model row of a run of ledger events (see `readModelRowsOf`), in the caller's
 * transaction: the one place each store's projection (the PostgreSQL writer's append, the event
 * store's checkpointed projection, a rebuild) writes them through.
 */
export async function writeReadModelRows(client: PoolClient | Pool, rows: ReadModelRows): Promise<void> {
  await upsertLedgerStatuses(client, rows.statuses);
  await updateMoneyStates(client, rows.money);
  await updateResolutions(client, rows.resolutions);
  await upsertEntitlements(client, rows.entitlements);
  await upsertUnmatchedPayments(client, rows.unmatched);
  await upsertReconciliation(client, rows.runs, rows.exceptions);
  await applyErasures(client, rows.erasures);
}

/** What {@link rebuildReadModels} wrote. */
export interface RebuildResult {
  /** Ledger events replayed. */
  events: number;
  /** Rows of `read_model.transaction_status`. */
  rows: number;
  /** Rows of `read_model.entitlements`. */
  entitlements: number;
  /** Rows of `read_model.unmatched_payments`. */
  unmatched: number;
  /** Rows of `read_model.reconciliation_runs` and `read_model.reconciliation_exceptions`. */
  reconciliation: number;
}

/**
 * Drops and rebuilds the ledger's read models, `read_model.transaction_status`,
 * `read_model.entitlements` and `read_model.unmatched_payments`, from the ledger alone, in one
 * transaction (readers see the old tables until the commit), replaying every event in global
 * order: transaction streams feed the first, entitlement streams the second, unmatched payment
 * streams the third. `onProgress` is called after each page with the
 * number of events replayed.
 *
 * @throws LedgerEventShapeError when an event of a transaction or entitlement stream is malformed.
 */
export async function rebuildReadModels(
  pool: Pool,
  ledger: Pick<LedgerStore, 'readAll'>,
  onProgress: (replayed: number) => void = () => undefined,
): Promise<RebuildResult> {
  return inTransaction(pool, async (client) => {
    await client.query(
      'LOCK TABLE read_model.transaction_status, read_model.entitlements, read_model.unmatched_payments, read_model.reconciliation_runs, read_model.reconciliation_exceptions IN EXCLUSIVE MODE',
    );
    await client.query('DELETE FROM read_model.transaction_status');
    await client.query('DELETE FROM read_model.entitlements');
    await client.query('DELETE FROM read_model.unmatched_payments');
    await client.query('DELETE FROM read_model.reconciliation_runs');
    await client.query('DELETE FROM read_model.reconciliation_exceptions');
    let events = 0;
    for (let after = 0; ;) {
      const page = await ledger.readAll(after, 2_000);
      if (page.length === 0) break;
      // The bulk upserts keep the last row of each reference and stream (rows only ever move forward).
      await writeReadModelRows(client, readModelRowsOf(page));
      events += page.length;
      after = page.at(-1)!.position;
      onProgress(events);
    }
    const { rows } = await client.query<{ n: number; e: number; u: number; r: number }>(
      `SELECT (SELECT count(*)::int FROM read_model.transaction_status) AS n, (SELECT count(*)::int FROM read_model.entitlements) AS e,
              (SELECT count(*)::int FROM read_model.unmatched_payments) AS u,
              (SELECT count(*)::int FROM read_model.reconciliation_runs) + (SELECT count(*)::int FROM read_model.reconciliation_exceptions) AS r`,
    );
    return { events, rows: rows[0]!.n, entitlements: rows[0]!.e, unmatched: rows[0]!.u, reconciliation: rows[0]!.r };
  });
}

/** What the API reads: the ledger status joined with the latest verification answer. */
export interface TransactionStatusRow {
  reference: string;
  /** PENDING and LOCKED until the ledger has an entry for the transaction. */
  state: string;
  entitlementStatus: string;
  checks: unknown[] | null;
  lastVerdict: string | null;
  lastTrigger: string | null;
  /** event_id of the message that triggered the latest verification. */
  lastCausationId: string | null;
  /** Revision of the last ledger event reflected; -1 for none. */
  ledgerRevision: number;
  updatedAt: Date;
  /** What happened to the money after the payment settled (docs/state-machine.md, "The money after settlement"): `none` until a money fact. */
  moneyState: string;
  /** Money returned to the payer so far (refunds, a reversal, lost disputes), minor units. */
  returnedMinor: number;
  /** Where a State Mismatch's resolution stands (docs/state-machine.md, "Resolving a State Mismatch"): `accepted_as_paid`, `refund_due`, `refunded`; `null` for none. */
  resolution: string | null;
}

/**
 * Reads one reference's status, or `null` before any verification result.
 *
 * @throws ReadModelNotReadyError before the ledger projector first created the read models.
 */
export async function findTransactionStatus(pool: Pick<Pool, 'query'>, reference: string): Promise<TransactionStatusRow | null> {
  const { rows } = await readReadModel(() =>
    pool.query<{
      state: string | null;
      entitlement_status: string | null;
      checks: unknown[] | null;
      ledger_revision: number | null;
      updated_at: Date | null;
      verdict: string | null;
      trigger: string | null;
      causation_id: string | null;
      decided_at: Date | null;
      last_verdict: string | null;
      last_trigger: string | null;
      money_state: string | null;
      returned_minor: string | null;
      resolution: string | null;
    }>(
      `SELECT t.state, t.entitlement_status, t.checks, t.ledger_revision, t.updated_at, t.last_verdict, t.last_trigger,
            t.money_state, t.returned_minor, t.resolution, v.verdict, v.trigger, v.causation_id, v.decided_at
       FROM (SELECT $1::text AS reference) r
       LEFT JOIN read_model.transaction_status t ON t.reference = r.reference
       LEFT JOIN read_model.latest_verification v ON v.reference = r.reference
      WHERE t.reference IS NOT NULL OR v.reference IS NOT NULL`,
      [reference],
    ),
  );
  const r = rows[0];
  if (!r) return null;
  const updated = [r.updated_at, r.decided_at].filter((d): d is Date => d !== null).sort((a, b) => b.getTime() - a.getTime())[0]!;
  return {
    reference,
    state: r.state ?? 'PENDING',
    entitlementStatus: r.entitlement_status ?? 'LOCKED',
    checks: r.checks,
    lastVerdict: r.verdict ?? r.last_verdict,
    lastTrigger: r.trigger ?? r.last_trigger,
    lastCausationId: r.causation_id,
    ledgerRevision: r.ledger_revision ?? -1,
    updatedAt: updated,
    moneyState: r.money_state ?? 'none',
    returnedMinor: Number(r.returned_minor ?? 0),
    resolution: r.resolution,
  };
}

/** One row of `read_model.unmatched_payments` as its readers list it. */
export interface UnmatchedPaymentListRow {
  reference: string;
  provider: string;
  status: 'open' | 'matched' | 'closed';
  /** Minor units; `null` when the provider's answer carries none (M-Pesa). */
  amountMinor: number | null;
  currency: string | null;
  /** The payer's email and phone as people may see them: masked ({@link unmatchedCustomerMasked}), never sealed nor plaintext. */
  customer: { email: string | null; phone: string | null };
  termsVerified: boolean;
  providerStatus: string | null;
  providerTransactionId: string | null;
  verifiedAt: Date;
  /** `verified_at` as PostgreSQL's text with microseconds, for a keyset cursor. */
  verifiedAtText: string;
  matchedAt: Date | null;
  /** When, why (`refunded_outside_settle`, `test_payment`, `not_ours`) and by whom an operator closed it. */
  closedAt: Date | null;
  closeReason: string | null;
  closedBy: string | null;
}

/**
 * A keyset page of unmatched payments of one status, oldest first (`verified_at`, then
 * reference), after the given row; `limit + 1` rows are read so the caller knows whether a next
 * page exists.
 *
 * @param after - the last row of the previous page: `verified_at` text with microseconds and reference.
 * @throws ReadModelNotReadyError before the ledger projector first created the read models.
 */
export async function listUnmatchedPayments(
  pool: Pool,
  query: { status: 'open' | 'matched' | 'closed'; after?: { at: string; reference: string } | undefined; limit: number },
): Promise<UnmatchedPaymentListRow[]> {
  const params: unknown[] = [query.status, query.limit + 1];
  const after = query.after ? `AND (verified_at, reference) > ($3::timestamptz, $4)` : '';
  if (query.after) params.push(query.after.at, query.after.reference);
  const { rows } = await readReadModel(() =>
    pool.query<{
      reference: string;
      provider: string;
      status: 'open' | 'matched' | 'closed';
      amount_minor: string | number | null;
      currency: string | null;
      customer_email: string | null;
      customer_phone: string | null;
      customer_email_masked: string | null;
      customer_phone_masked: string | null;
      terms_verified: boolean;
      provider_status: string | null;
      provider_transaction_id: string | null;
      verified_at: Date;
      verified_at_text: string;
      matched_at: Date | null;
      closed_at: Date | null;
      close_reason: string | null;
      closed_by: string | null;
    }>(
      `SELECT reference, provider, status, amount_minor, currency, customer_email, customer_phone, customer_email_masked, customer_phone_masked,
              terms_verified, provider_status, provider_transaction_id, verified_at, matched_at, closed_at, close_reason, closed_by,
              to_char(verified_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS verified_at_text
         FROM read_model.unmatched_payments
        WHERE status = $1 ${after}
        ORDER BY verified_at, reference
        LIMIT $2`,
      params,
    ),
  );
  return rows.map((r) => ({
    reference: r.reference,
    provider: r.provider,
    status: r.status,
    amountMinor: r.amount_minor === null ? null : Number(r.amount_minor),
    currency: r.currency,
    customer: unmatchedCustomerMasked(r),
    termsVerified: r.terms_verified,
    providerStatus: r.provider_status,
    providerTransactionId: r.provider_transaction_id,
    verifiedAt: r.verified_at,
    verifiedAtText: r.verified_at_text,
    matchedAt: r.matched_at,
    closedAt: r.closed_at,
    closeReason: r.close_reason,
    closedBy: r.closed_by,
  }));
}

/**
 * An unmatched payment's payer as people may see it (docs/privacy.md, "Masked forms"), from its
 * `read_model.unmatched_payments` columns: the masked forms the verifier published; for a row of
 * an event written before masking (no masked form), its plaintext masked here. A sealed value
 * (`sealed:...`, docs/privacy.md, "Crypto-shredding") is never shown, nor masked: with no masked
 * form beside it, the field reads `null`.
 */
export function unmatchedCustomerMasked(row: {
  customer_email: string | null;
  customer_phone: string | null;
  customer_email_masked?: string | null | undefined;
  customer_phone_masked?: string | null | undefined;
}): { email: string | null; phone: string | null } {
  const plaintext = (value: string | null) => (value && !value.startsWith('sealed:') ? value : null);
  const email = plaintext(row.customer_email);
  const phone = plaintext(row.customer_phone);
  return {
    email: row.customer_email_masked ?? (email ? maskEmail(email) : null),
    phone: row.customer_phone_masked ?? (phone ? maskPhone(phone) : null),
  };
}

/**
 * The unmatched payment of a reference, or `null` when there is none.
 *
 * @throws ReadModelNotReadyError before the ledger projector first created the read models.
 */
export async function findUnmatchedPayment(pool: Pool, reference: string): Promise<{ reference: string; provider: string; status: string } | null> {
  const { rows } = await readReadModel(() =>
    pool.query<{ reference: string; provider: string; status: string }>(
      'SELECT reference, provider, status FROM read_model.unmatched_payments WHERE reference = $1',
      [reference],
    ),
  );
  return rows[0] ?? null;
}

import type { Pool, PoolClient } from '@settle/platform';
import type { LedgerStore, RecordedLedgerEvent } from './ledger.port.js';

/**
 * Read models kept by the ledger projector:
 * - `read_model.transaction_status`: the money state of each transaction that has a ledger
 *   entry (state, entitlement, the four checks), a pure projection of the ledger: it can be
 *   dropped and rebuilt from the ledger alone ({@link rebuildTransactionStatus}).
 * - `read_model.latest_verification`: the verifier's latest answer per transaction, including
 *   answers that changed nothing and so are not in the ledger (docs/architecture.md, decision
 *   2). It tells a caller waiting for its own verification request that the answer came; it
 *   holds no money state, and is rebuilt from the consensus-results stream, not the ledger.
 */
export const READ_MODEL_DDL: readonly string[] = [
  'CREATE SCHEMA IF NOT EXISTS read_model',
  `CREATE TABLE IF NOT EXISTS read_model.transaction_status (
     reference text PRIMARY KEY,
     provider text NOT NULL,
     state text NOT NULL,
     entitlement_status text NOT NULL,
     amount_minor bigint NOT NULL,
     currency text NOT NULL,
     checks jsonb,
     last_verdict text,
     last_trigger text,
     ledger_revision bigint NOT NULL DEFAULT -1,
     updated_at timestamptz NOT NULL
   )`,
  'ALTER TABLE read_model.transaction_status DROP COLUMN IF EXISTS last_causation_id',
  `CREATE TABLE IF NOT EXISTS read_model.latest_verification (
     reference text PRIMARY KEY,
     verdict text NOT NULL,
     trigger text NOT NULL,
     causation_id text NOT NULL,
     state text NOT NULL,
     entitlement_status text NOT NULL,
     decided_at timestamptz NOT NULL
   )`,
];

/** One row of `read_model.transaction_status` (a ledger projection). */
export interface LedgerStatusRow {
  reference: string;
  provider: string;
  state: string;
  entitlementStatus: string;
  amountMinor: number;
  currency: string;
  checks: unknown[] | null;
  /** Verdict and trigger of the verification behind the latest ledger entry. */
  lastVerdict: string | null;
  lastTrigger: string | null;
  /** Revision of the last ledger event reflected here. */
  ledgerRevision: number;
  /** When the latest ledger entry's outcome was decided. */
  updatedAt: Date;
}

/**
 * Upserts a ledger-status row unless a newer ledger revision is already reflected
 * (redeliveries and replays never move the view backwards).
 */
export async function upsertLedgerStatus(client: PoolClient | Pool, row: LedgerStatusRow): Promise<void> {
  await client.query(
    `INSERT INTO read_model.transaction_status
       (reference, provider, state, entitlement_status, amount_minor, currency, checks, last_verdict, last_trigger, ledger_revision, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (reference) DO UPDATE SET
       state = EXCLUDED.state, entitlement_status = EXCLUDED.entitlement_status, checks = EXCLUDED.checks,
       last_verdict = EXCLUDED.last_verdict, last_trigger = EXCLUDED.last_trigger,
       ledger_revision = EXCLUDED.ledger_revision, updated_at = EXCLUDED.updated_at
     WHERE read_model.transaction_status.ledger_revision < EXCLUDED.ledger_revision`,
    [
      row.reference,
      row.provider,
      row.state,
      row.entitlementStatus,
      row.amountMinor,
      row.currency,
      row.checks === null ? null : JSON.stringify(row.checks),
      row.lastVerdict,
      row.lastTrigger,
      row.ledgerRevision,
      row.updatedAt,
    ],
  );
}

/** The verifier's latest answer for a reference (see {@link READ_MODEL_DDL}). */
export interface LatestVerificationRow {
  reference: string;
  verdict: string;
  trigger: string;
  /** event_id of the message that triggered the verification. */
  causationId: string;
  state: string;
  entitlementStatus: string;
  decidedAt: Date;
}

/** Records the verifier's latest answer unless a later one is already recorded. */
export async function upsertLatestVerification(client: PoolClient | Pool, row: LatestVerificationRow): Promise<void> {
  await client.query(
    `INSERT INTO read_model.latest_verification (reference, verdict, trigger, causation_id, state, entitlement_status, decided_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (reference) DO UPDATE SET
       verdict = EXCLUDED.verdict, trigger = EXCLUDED.trigger, causation_id = EXCLUDED.causation_id,
       state = EXCLUDED.state, entitlement_status = EXCLUDED.entitlement_status, decided_at = EXCLUDED.decided_at
     WHERE read_model.latest_verification.decided_at <= EXCLUDED.decided_at`,
    [row.reference, row.verdict, row.trigger, row.causationId, row.state, row.entitlementStatus, row.decidedAt],
  );
}

/**
 * The ledger-status row a ledger event stands for. Ledger events written by the projector
 * carry everything the row needs (see apps/ledger-projector, `ledgerEventFor`).
 *
 * @throws Error when the event lacks a field the row needs (not a projector-written event).
 */
export function ledgerStatusOf(event: RecordedLedgerEvent): LedgerStatusRow {
  const d = event.data as {
    reference?: string;
    provider?: string;
    state?: string;
    entitlement_status?: string;
    checks?: unknown[];
    verdict?: string;
    trigger?: string;
    expected?: { amount_minor?: number; currency?: string };
    decided_at?: number;
  };
  if (!d.reference || !d.provider || !d.state || !d.entitlement_status || d.expected?.amount_minor === undefined || !d.expected.currency || d.decided_at === undefined) {
    throw new Error(`ledger event ${event.eventId} at position ${event.position} is not a transaction outcome`);
  }
  return {
    reference: d.reference,
    provider: d.provider,
    state: d.state,
    entitlementStatus: d.entitlement_status,
    amountMinor: d.expected.amount_minor,
    currency: d.expected.currency,
    checks: d.checks && d.checks.length > 0 ? d.checks : null,
    lastVerdict: d.verdict ?? null,
    lastTrigger: d.trigger ?? null,
    ledgerRevision: event.revision,
    updatedAt: new Date(d.decided_at),
  };
}

/**
 * Drops and rebuilds `read_model.transaction_status` from the ledger alone, in one
 * transaction (readers see the old table until the commit), replaying every event in global
 * order. `onProgress` is called after each page with the number of events replayed.
 *
 * @returns the number of events replayed and of rows written.
 */
export async function rebuildTransactionStatus(
  pool: Pool,
  ledger: Pick<LedgerStore, 'readAll'>,
  onProgress: (replayed: number) => void = () => undefined,
): Promise<{ events: number; rows: number }> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('LOCK TABLE read_model.transaction_status IN EXCLUSIVE MODE');
    await client.query('DELETE FROM read_model.transaction_status');
    let events = 0;
    for (let after = 0; ; ) {
      const page = await ledger.readAll(after, 2_000);
      if (page.length === 0) break;
      // The last event of each stream in the page wins (rows only ever move forward).
      const latest = new Map<string, LedgerStatusRow>();
      for (const event of page) {
        const row = ledgerStatusOf(event);
        latest.set(row.reference, row);
      }
      for (const row of latest.values()) await upsertLedgerStatus(client, row);
      events += page.length;
      after = page.at(-1)!.position;
      onProgress(events);
    }
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM read_model.transaction_status');
    await client.query('COMMIT');
    return { events, rows: rows[0]!.n };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
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
}

/** Reads one reference's status, or `null` before any verification result. */
export async function findTransactionStatus(pool: Pool, reference: string): Promise<TransactionStatusRow | null> {
  const { rows } = await pool.query<{
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
  }>(
    `SELECT t.state, t.entitlement_status, t.checks, t.ledger_revision, t.updated_at, t.last_verdict, t.last_trigger,
            v.verdict, v.trigger, v.causation_id, v.decided_at
       FROM (SELECT $1::text AS reference) r
       LEFT JOIN read_model.transaction_status t ON t.reference = r.reference
       LEFT JOIN read_model.latest_verification v ON v.reference = r.reference
      WHERE t.reference IS NOT NULL OR v.reference IS NOT NULL`,
    [reference],
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
  };
}

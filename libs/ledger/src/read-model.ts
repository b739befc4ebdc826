import type { Pool, PoolClient } from '@settle/platform';

/**
 * The transaction-status read model behind `GET /v1/checkouts/{reference}`: a projection of
 * the ledger and the verifier's results, kept by the ledger projector. It is mutable and can
 * be rebuilt; the ledger is the record.
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
  // The id of the trigger behind the latest result, so a caller can wait for its own request.
  'ALTER TABLE read_model.transaction_status ADD COLUMN IF NOT EXISTS last_causation_id text',
];

/** One row of the read model. */
export interface TransactionStatusRow {
  reference: string;
  provider: string;
  state: string;
  entitlementStatus: string;
  amountMinor: number;
  currency: string;
  checks: unknown[] | null;
  lastVerdict: string | null;
  lastTrigger: string | null;
  /** event_id of the message that triggered the latest verification. */
  lastCausationId: string | null;
  /** Revision of the last ledger event reflected here; -1 for none. */
  ledgerRevision: number;
  updatedAt: Date;
}

/**
 * Upserts a row unless a newer ledger revision is already reflected (redeliveries and
 * out-of-order results never move the view backwards).
 */
export async function upsertTransactionStatus(client: PoolClient | Pool, row: TransactionStatusRow): Promise<void> {
  await client.query(
    `INSERT INTO read_model.transaction_status
       (reference, provider, state, entitlement_status, amount_minor, currency, checks, last_verdict, last_trigger, ledger_revision, updated_at, last_causation_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (reference) DO UPDATE SET
       state = EXCLUDED.state, entitlement_status = EXCLUDED.entitlement_status, checks = EXCLUDED.checks,
       last_verdict = EXCLUDED.last_verdict, last_trigger = EXCLUDED.last_trigger, last_causation_id = EXCLUDED.last_causation_id,
       ledger_revision = EXCLUDED.ledger_revision, updated_at = EXCLUDED.updated_at
     WHERE read_model.transaction_status.ledger_revision <= EXCLUDED.ledger_revision`,
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
      row.lastCausationId,
    ],
  );
}

/** Reads one row, or `null`. */
export async function findTransactionStatus(pool: Pool, reference: string): Promise<TransactionStatusRow | null> {
  const { rows } = await pool.query<{
    reference: string;
    provider: string;
    state: string;
    entitlement_status: string;
    amount_minor: number;
    currency: string;
    checks: unknown[] | null;
    last_verdict: string | null;
    last_trigger: string | null;
    last_causation_id: string | null;
    ledger_revision: number;
    updated_at: Date;
  }>('SELECT * FROM read_model.transaction_status WHERE reference = $1', [reference]);
  const r = rows[0];
  if (!r) return null;
  return {
    reference: r.reference,
    provider: r.provider,
    state: r.state,
    entitlementStatus: r.entitlement_status,
    amountMinor: r.amount_minor,
    currency: r.currency,
    checks: r.checks,
    lastVerdict: r.last_verdict,
    lastTrigger: r.last_trigger,
    lastCausationId: r.last_causation_id,
    ledgerRevision: r.ledger_revision,
    updatedAt: r.updated_at,
  };
}

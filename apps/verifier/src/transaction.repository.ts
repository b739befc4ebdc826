import type { AccessPeriod, EntitlementStatus, ProviderName, TransactionState, TransactionStatus } from '@settle/domain';
import type { Pool, PoolClient } from '@settle/platform';

/** A transaction's decider state plus what the verifier needs around it. */
export interface StoredTransaction {
  state: TransactionState;
  correlationId: string;
}

interface Row {
  reference: string;
  provider: string;
  amount_minor: number;
  currency: string;
  user_id: string;
  customer_email: string | null;
  customer_phone: string | null;
  entitlement: string;
  access_period: string | null;
  correlation_id: string;
  status: string;
  entitlement_status: string;
  completed_at: number | null;
  outcomes: number;
}

/**
 * The verifier's state store: one row per transaction holding the folded decider state.
 * Saves are optimistic on `outcomes`, so two writers never both apply a decision.
 */
export class TransactionRepository {
  constructor(private readonly pool: Pool) {}

  /** Loads a transaction, or `null` when no checkout was registered under the reference. */
  async load(reference: string, client: Pool | PoolClient = this.pool, forUpdate = false): Promise<StoredTransaction | null> {
    const { rows } = await client.query<Row>(
      `SELECT * FROM verifier.transactions WHERE reference = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [reference],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      correlationId: row.correlation_id,
      state: {
        registered: true,
        expectation: {
          reference: row.reference,
          provider: row.provider as ProviderName,
          amountMinor: row.amount_minor,
          currency: row.currency,
          userId: row.user_id,
          customer: { email: row.customer_email ?? undefined, phone: row.customer_phone ?? undefined },
          entitlement: row.entitlement,
          accessPeriod: row.access_period as AccessPeriod | null,
        },
        status: row.status as TransactionStatus,
        entitlement: row.entitlement_status as EntitlementStatus,
        completedAt: row.completed_at,
        outcomes: row.outcomes,
      },
    };
  }

  /** Inserts a newly registered transaction (no-op when present). */
  async insert(client: PoolClient, state: TransactionState, correlationId: string): Promise<void> {
    const e = state.expectation!;
    await client.query(
      `INSERT INTO verifier.transactions
         (reference, provider, amount_minor, currency, user_id, customer_email, customer_phone, entitlement,
          correlation_id, status, entitlement_status, completed_at, outcomes, access_period)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
       ON CONFLICT (reference) DO NOTHING`,
      [
        e.reference,
        e.provider,
        e.amountMinor,
        e.currency,
        e.userId,
        e.customer.email ?? null,
        e.customer.phone ?? null,
        e.entitlement,
        correlationId,
        state.status,
        state.entitlement,
        state.completedAt,
        state.outcomes,
        e.accessPeriod,
      ],
    );
  }

  /**
   * Saves a new state if the stored one still has `previousOutcomes` outcomes.
   *
   * @returns false when another writer got there first (the caller retries).
   */
  async save(client: PoolClient, state: TransactionState, previousOutcomes: number): Promise<boolean> {
    const result = await client.query(
      `UPDATE verifier.transactions
          SET status = $2, entitlement_status = $3, completed_at = $4, outcomes = $5, updated_at = now()
        WHERE reference = $1 AND outcomes = $6`,
      [state.expectation!.reference, state.status, state.entitlement, state.completedAt, state.outcomes, previousOutcomes],
    );
    return result.rowCount === 1;
  }

  /** Records a processed message id. @returns false when it was processed before. */
  async markProcessed(client: PoolClient, eventId: string): Promise<boolean> {
    const result = await client.query('INSERT INTO verifier.inbox (event_id) VALUES ($1) ON CONFLICT DO NOTHING', [eventId]);
    return result.rowCount === 1;
  }

  /** Whether a message id was processed already. */
  async isProcessed(eventId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM verifier.inbox WHERE event_id = $1', [eventId]);
    return (rowCount ?? 0) > 0;
  }
}

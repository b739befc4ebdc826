import { ENTITLEMENT_STATUSES, literalOf, parseAccessPeriod, PROVIDERS, TRANSACTION_STATUSES, type RegisteredTransaction } from '@settle/domain';
import type { Pool, PoolClient } from '@settle/platform';
import type { StoredTransaction } from './verification-store.port.js';

export type { StoredTransaction } from './verification-store.port.js';

interface Row {
  reference: string;
  provider: string;
  amount_minor: number;
  currency: string;
  user_id: string;
  customer_email: string | null;
  customer_phone: string | null;
  customer_erased_at: Date | null;
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

  /** Loads many transactions in one query: reference to stored transaction (absent: never registered). */
  async loadMany(references: readonly string[], client: Pool | PoolClient = this.pool): Promise<Map<string, StoredTransaction>> {
    if (references.length === 0) return new Map();
    const { rows } = await client.query<Row>('SELECT * FROM verifier.transactions WHERE reference = ANY($1::text[])', [references]);
    return new Map(rows.map((row) => [row.reference, storedOf(row)]));
  }

  /**
   * Inserts newly registered transactions in one statement.
   *
   * @returns how many were inserted (fewer than given when another writer inserted some first).
   */
  async insertMany(client: PoolClient, items: ReadonlyArray<{ state: RegisteredTransaction; correlationId: string }>): Promise<number> {
    if (items.length === 0) return 0;
    const col = <T>(f: (e: RegisteredTransaction['expectation'], i: (typeof items)[number]) => T) => items.map((i) => f(i.state.expectation, i));
    const result = await client.query(
      `INSERT INTO verifier.transactions
         (reference, provider, amount_minor, currency, user_id, customer_email, customer_phone, entitlement,
          correlation_id, status, entitlement_status, completed_at, outcomes, access_period, settled_at)
       SELECT u.*, CASE WHEN u.status = 'SETTLED_CONSENSUS' THEN (extract(epoch FROM clock_timestamp()) * 1000)::bigint END
         FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                     $9::text[], $10::text[], $11::text[], $12::bigint[], $13::int[], $14::text[])
           AS u(reference, provider, amount_minor, currency, user_id, customer_email, customer_phone, entitlement,
                correlation_id, status, entitlement_status, completed_at, outcomes, access_period)
       ON CONFLICT (reference) DO NOTHING`,
      [
        col((e) => e.reference),
        col((e) => e.provider),
        col((e) => e.amountMinor),
        col((e) => e.currency),
        col((e) => e.userId),
        col((e) => e.customer.email ?? null),
        col((e) => e.customer.phone ?? null),
        col((e) => e.entitlement),
        col((_e, i) => i.correlationId),
        col((_e, i) => i.state.status),
        col((_e, i) => i.state.entitlement),
        col((_e, i) => i.state.completedAt),
        col((_e, i) => i.state.outcomes),
        col((e) => e.accessPeriod),
      ],
    );
    return result.rowCount ?? 0;
  }

  /**
   * Saves new states in one statement, each only if its stored row still has the outcome
   * count the caller read (optimistic: the first writer wins, the caller retries).
   *
   * @returns how many were saved (fewer than given when another writer got there first).
   */
  async saveMany(client: PoolClient, items: ReadonlyArray<{ state: RegisteredTransaction; previousOutcomes: number }>): Promise<number> {
    if (items.length === 0) return 0;
    const result = await client.query(
      `UPDATE verifier.transactions t
          SET status = u.status, entitlement_status = u.entitlement_status, completed_at = u.completed_at,
              outcomes = u.outcomes, updated_at = now(),
              -- When the payment settled here, epoch ms: duplicate charges are found by it (docs/reconciliation.md).
              settled_at = COALESCE(t.settled_at,
                CASE WHEN u.status = 'SETTLED_CONSENSUS' THEN (extract(epoch FROM clock_timestamp()) * 1000)::bigint END)
         FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::int[], $6::int[])
              AS u(reference, status, entitlement_status, completed_at, outcomes, previous)
        WHERE t.reference = u.reference AND t.outcomes = u.previous`,
      [
        items.map((i) => i.state.expectation.reference),
        items.map((i) => i.state.status),
        items.map((i) => i.state.entitlement),
        items.map((i) => i.state.completedAt),
        items.map((i) => i.state.outcomes),
        items.map((i) => i.previousOutcomes),
      ],
    );
    return result.rowCount ?? 0;
  }

  /**
   * Records processed message ids in one statement.
   *
   * @returns how many were new (fewer than given when some were processed before).
   */
  async markProcessedMany(client: PoolClient, eventIds: readonly string[]): Promise<number> {
    if (eventIds.length === 0) return 0;
    const result = await client.query('INSERT INTO verifier.inbox (event_id) SELECT unnest($1::uuid[]) ON CONFLICT DO NOTHING', [eventIds]);
    return result.rowCount ?? 0;
  }

  /** Which of these message ids were processed already, in one query. */
  async processedAmong(eventIds: readonly string[], client: Pool | PoolClient = this.pool): Promise<Set<string>> {
    if (eventIds.length === 0) return new Set();
    const { rows } = await client.query<{ event_id: string }>('SELECT event_id FROM verifier.inbox WHERE event_id = ANY($1::uuid[])', [eventIds]);
    return new Set(rows.map((r) => r.event_id));
  }
}

/** The states a consensus (the four checks, customer included) was reached in. */
const CONSENSUS_REACHED: ReadonlySet<string> = new Set(['SETTLED_CONSENSUS', 'STATE_MISMATCH']);

function storedOf(row: Row): StoredTransaction {
  return {
    correlationId: row.correlation_id,
    state: {
      expectation: {
        reference: row.reference,
        provider: literalOf(PROVIDERS, row.provider, 'provider'),
        amountMinor: Number(row.amount_minor),
        currency: row.currency,
        userId: row.user_id,
        customer: { email: row.customer_email ?? undefined, phone: row.customer_phone ?? undefined },
        entitlement: row.entitlement,
        accessPeriod: row.access_period === null ? null : parseAccessPeriod(row.access_period),
        // Erased after a consensus was reached on it (settled, or a State Mismatch): its customer
        // check was made with the values, and later answers are not compared again (docs/privacy.md,
        // "Erasure"). Erased before that (pending, held in review, in manual review, declined), its
        // customer was never compared: no mark, so with its identifiers cleared the check fails, as
        // for a registration with none (the conservative answer for money).
        ...(row.customer_erased_at && CONSENSUS_REACHED.has(row.status) ? { customerErased: true } : {}),
      },
      status: literalOf(TRANSACTION_STATUSES, row.status, 'transaction status'),
      entitlement: literalOf(ENTITLEMENT_STATUSES, row.entitlement_status, 'entitlement status'),
      completedAt: row.completed_at === null ? null : Number(row.completed_at),
      outcomes: row.outcomes,
    },
  };
}

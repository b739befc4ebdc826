import type { Watch } from '@settle/domain';
import type { Pool, PoolClient } from '@settle/platform';

/** Tables the sweeper owns (schema `sweeper`). */
export const SWEEPER_DDL: readonly string[] = [
  'CREATE SCHEMA IF NOT EXISTS sweeper',
  `CREATE TABLE IF NOT EXISTS sweeper.watches (
     reference text PRIMARY KEY,
     correlation_id text,
     last_activity_at bigint NOT NULL,
     due_at bigint,
     registered boolean NOT NULL,
     completed boolean NOT NULL,
     webhook_seen boolean NOT NULL,
     terminal boolean NOT NULL,
     requests integer NOT NULL DEFAULT 0,
     updated_at timestamptz NOT NULL DEFAULT now()
   )`,
  'CREATE INDEX IF NOT EXISTS watches_due ON sweeper.watches (due_at) WHERE due_at IS NOT NULL',
];

interface Row {
  reference: string;
  correlation_id: string | null;
  last_activity_at: number;
  due_at: number | null;
  registered: boolean;
  completed: boolean;
  webhook_seen: boolean;
  terminal: boolean;
  requests: number;
}

/** A watch with what the sweeper needs to publish a request. */
export interface StoredWatch {
  watch: Watch;
  correlationId: string | null;
  requests: number;
}

function toStored(r: Row): StoredWatch {
  return {
    correlationId: r.correlation_id,
    requests: r.requests,
    watch: {
      reference: r.reference,
      lastActivityAt: r.last_activity_at,
      dueAt: r.due_at,
      registered: r.registered,
      completed: r.completed,
      webhookSeen: r.webhook_seen,
      terminal: r.terminal,
    },
  };
}

/**
 * The sweeper's durable timer store: one row per transaction, updated in step with the
 * consumed offsets (a row is written before its message's offset is committed), so after a
 * crash or restart the due set is intact.
 */
export class WatchRepository {
  constructor(private readonly pool: Pool) {}

  /** Loads a watch with a row lock (inside the caller's transaction). */
  async lock(client: PoolClient, reference: string): Promise<StoredWatch | null> {
    const { rows } = await client.query<Row>('SELECT * FROM sweeper.watches WHERE reference = $1 FOR UPDATE', [reference]);
    return rows[0] ? toStored(rows[0]) : null;
  }

  async save(client: PoolClient, watch: Watch, correlationId: string | null): Promise<void> {
    await client.query(
      `INSERT INTO sweeper.watches (reference, correlation_id, last_activity_at, due_at, registered, completed, webhook_seen, terminal)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (reference) DO UPDATE SET
         correlation_id = COALESCE(sweeper.watches.correlation_id, EXCLUDED.correlation_id),
         last_activity_at = EXCLUDED.last_activity_at, due_at = EXCLUDED.due_at, registered = EXCLUDED.registered,
         completed = EXCLUDED.completed, webhook_seen = EXCLUDED.webhook_seen, terminal = EXCLUDED.terminal,
         updated_at = now()`,
      [watch.reference, correlationId, watch.lastActivityAt, watch.dueAt, watch.registered, watch.completed, watch.webhookSeen, watch.terminal],
    );
  }

  /**
   * Locks up to `limit` watches due strictly before `now` (epoch ms), oldest first. Rows
   * another instance holds are skipped.
   */
  async lockDue(client: PoolClient, now: number, limit: number): Promise<StoredWatch[]> {
    const { rows } = await client.query<Row>(
      `SELECT * FROM sweeper.watches WHERE due_at IS NOT NULL AND due_at < $1
        ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
    return rows.map(toStored);
  }

  /** Re-arms watches after their requests were published. */
  async rearm(client: PoolClient, references: string[], dueAt: number): Promise<void> {
    await client.query(
      'UPDATE sweeper.watches SET due_at = $2, requests = requests + 1, updated_at = now() WHERE reference = ANY($1::text[])',
      [references, dueAt],
    );
  }

}

import { inTransaction, isUniqueViolation, type Pool, type PoolClient } from '@settle/platform';
import {
  DuplicateEventIdError,
  WrongExpectedRevisionError,
  type AppendResult,
  type ExpectedRevision,
  type LedgerEventInput,
  type LedgerStore,
  type RecordedLedgerEvent,
} from './ledger.port.js';

/**
 * DDL of the PostgreSQL ledger (idempotent). Immutability is enforced by the database:
 * triggers refuse UPDATE, DELETE and TRUNCATE of `ledger.events`.
 */
export const LEDGER_DDL: readonly string[] = [
  'CREATE SCHEMA IF NOT EXISTS ledger',
  `CREATE TABLE IF NOT EXISTS ledger.events (
     position bigserial PRIMARY KEY,
     stream_id text NOT NULL,
     revision bigint NOT NULL,
     event_id uuid NOT NULL UNIQUE,
     event_type text NOT NULL,
     data jsonb NOT NULL,
     metadata jsonb NOT NULL,
     recorded_at timestamptz NOT NULL DEFAULT now(),
     UNIQUE (stream_id, revision)
   )`,
  `CREATE TABLE IF NOT EXISTS ledger.streams (
     stream_id text PRIMARY KEY,
     revision bigint NOT NULL
   )`,
  `CREATE OR REPLACE FUNCTION ledger.refuse_mutation() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     RAISE EXCEPTION 'ledger.events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
   END $$`,
  `CREATE OR REPLACE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON ledger.events
     FOR EACH ROW EXECUTE FUNCTION ledger.refuse_mutation()`,
  `CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON ledger.events
     FOR EACH STATEMENT EXECUTE FUNCTION ledger.refuse_mutation()`,
];

interface EventRow {
  position: number;
  stream_id: string;
  revision: number;
  event_id: string;
  event_type: string;
  data: Record<string, unknown>;
  metadata: LedgerEventInput['metadata'];
  recorded_at: Date;
}

function toRecorded(row: EventRow): RecordedLedgerEvent {
  return {
    eventId: row.event_id,
    type: row.event_type,
    data: row.data,
    metadata: row.metadata,
    streamId: row.stream_id,
    revision: row.revision,
    position: row.position,
    recordedAt: row.recorded_at,
  };
}

/**
 * The ledger on PostgreSQL: one row per event, a stream per transaction, optimistic
 * concurrency on the stream revision (a row lock on `ledger.streams`), idempotent appends
 * by event id. {@link PostgresLedger.appendWith} joins the caller's transaction so a ledger
 * entry, its read-model update and its outbox message commit together.
 */
export class PostgresLedger implements LedgerStore {
  constructor(private readonly pool: Pool) {}

  async append(streamId: string, events: readonly LedgerEventInput[], expected: ExpectedRevision): Promise<AppendResult> {
    return inTransaction(this.pool, (client) => this.appendWith(client, streamId, events, expected));
  }

  /**
   * Appends inside the caller's open transaction.
   *
   * @throws WrongExpectedRevisionError, DuplicateEventIdError (see {@link LedgerStore.append}).
   */
  async appendWith(
    client: PoolClient,
    streamId: string,
    events: readonly LedgerEventInput[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    const head = await client.query<{ revision: number }>('SELECT revision FROM ledger.streams WHERE stream_id = $1 FOR UPDATE', [streamId]);
    const current = head.rows[0]?.revision ?? -1;
    const ids = events.map((e) => e.eventId);
    const stored = await client.query<{ event_id: string; stream_id: string; position: number }>(
      'SELECT event_id, stream_id, position FROM ledger.events WHERE event_id = ANY($1::uuid[]) ORDER BY position',
      [ids],
    );
    if (events.length > 0 && stored.rows.length === events.length && stored.rows.every((r) => r.stream_id === streamId)) {
      return { nextExpectedRevision: current, positions: stored.rows.map((r) => r.position), duplicate: true };
    }
    if (stored.rows[0]) throw new DuplicateEventIdError(stored.rows[0].event_id);
    if (expected !== 'any' && (expected === 'no_stream' ? current !== -1 : expected !== current)) {
      throw new WrongExpectedRevisionError(streamId, expected, current === -1 ? 'no_stream' : current);
    }
    const positions: number[] = [];
    let revision = current;
    try {
      for (const event of events) {
        revision += 1;
        const inserted = await client.query<{ position: number }>(
          `INSERT INTO ledger.events (stream_id, revision, event_id, event_type, data, metadata)
           VALUES ($1, $2, $3, $4, $5, $6) RETURNING position`,
          [streamId, revision, event.eventId, event.type, JSON.stringify(event.data), JSON.stringify(event.metadata)],
        );
        positions.push(inserted.rows[0]!.position);
      }
      await client.query(
        `INSERT INTO ledger.streams (stream_id, revision) VALUES ($1, $2)
         ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision`,
        [streamId, revision],
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw new WrongExpectedRevisionError(streamId, expected, 'no_stream');
      throw error;
    }
    return { nextExpectedRevision: revision, positions, duplicate: false };
  }

  async readStream(streamId: string): Promise<RecordedLedgerEvent[]> {
    const { rows } = await this.pool.query<EventRow>('SELECT * FROM ledger.events WHERE stream_id = $1 ORDER BY revision', [streamId]);
    return rows.map(toRecorded);
  }

  async readAll(afterPosition: number, limit: number): Promise<RecordedLedgerEvent[]> {
    const { rows } = await this.pool.query<EventRow>('SELECT * FROM ledger.events WHERE position > $1 ORDER BY position LIMIT $2', [
      afterPosition,
      limit,
    ]);
    return rows.map(toRecorded);
  }
}

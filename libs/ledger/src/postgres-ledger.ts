import { inTransaction, isUniqueViolation, type Pool, type PoolClient } from '@settle/platform';
import { GENESIS_HASH, globalHash, streamHash } from './hash-chain.js';
import {
  DuplicateEventIdError,
  pollingSubscription,
  WrongExpectedRevisionError,
  type AppendResult,
  type ExpectedRevision,
  type LedgerEventInput,
  type LedgerStore,
  type LedgerSubscription,
  type RecordedLedgerEvent,
  type SubscribeOptions,
} from './ledger.port.js';

/** Role that may append to the ledger and read it, and nothing else (see {@link LEDGER_DDL}). */
export const LEDGER_WRITER_ROLE = 'settle_ledger_writer';

/**
 * DDL of the PostgreSQL ledger (idempotent). Immutability is enforced by the database twice:
 * - permissions: the `settle_ledger_writer` role (grant it to the projector's login role) may
 *   only SELECT and INSERT `ledger.events`; UPDATE, DELETE and TRUNCATE are revoked from it and
 *   from PUBLIC;
 * - triggers refuse UPDATE, DELETE and TRUNCATE of `ledger.events` for everyone, the table's
 *   owner and superusers included.
 * `ledger.head` holds the last global position and global hash; appends lock it, so positions
 * are gapless and in commit order (a subscription polling by position misses nothing).
 */
export const LEDGER_DDL: readonly string[] = [
  'CREATE SCHEMA IF NOT EXISTS ledger',
  `CREATE TABLE IF NOT EXISTS ledger.events (
     position bigint PRIMARY KEY,
     stream_id text NOT NULL,
     revision bigint NOT NULL,
     event_id uuid NOT NULL UNIQUE,
     event_type text NOT NULL,
     data jsonb NOT NULL,
     metadata jsonb NOT NULL,
     recorded_at timestamptz NOT NULL,
     stream_hash text NOT NULL,
     global_hash text NOT NULL,
     UNIQUE (stream_id, revision)
   )`,
  // Ledgers created before the hash chains: their old rows verify as a break (docs/ledger.md).
  'ALTER TABLE ledger.events ADD COLUMN IF NOT EXISTS stream_hash text',
  'ALTER TABLE ledger.events ADD COLUMN IF NOT EXISTS global_hash text',
  'CREATE INDEX IF NOT EXISTS events_recorded_at ON ledger.events (recorded_at)',
  `CREATE TABLE IF NOT EXISTS ledger.streams (
     stream_id text PRIMARY KEY,
     revision bigint NOT NULL,
     stream_hash text
   )`,
  'ALTER TABLE ledger.streams ADD COLUMN IF NOT EXISTS stream_hash text',
  `CREATE TABLE IF NOT EXISTS ledger.head (
     singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
     position bigint NOT NULL,
     global_hash text NOT NULL
   )`,
  `INSERT INTO ledger.head (singleton, position, global_hash)
   VALUES (true, COALESCE((SELECT max(position) FROM ledger.events), 0), '${GENESIS_HASH}')
   ON CONFLICT (singleton) DO NOTHING`,
  `CREATE OR REPLACE FUNCTION ledger.refuse_mutation() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     RAISE EXCEPTION 'ledger.events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
   END $$`,
  `CREATE OR REPLACE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON ledger.events
     FOR EACH ROW EXECUTE FUNCTION ledger.refuse_mutation()`,
  `CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON ledger.events
     FOR EACH STATEMENT EXECUTE FUNCTION ledger.refuse_mutation()`,
  `DO $$ BEGIN
     CREATE ROLE ${LEDGER_WRITER_ROLE} NOLOGIN;
   EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
   END $$`,
  'REVOKE ALL ON ledger.events FROM PUBLIC',
  `GRANT USAGE ON SCHEMA ledger TO ${LEDGER_WRITER_ROLE}`,
  `REVOKE UPDATE, DELETE, TRUNCATE ON ledger.events FROM ${LEDGER_WRITER_ROLE}`,
  `GRANT SELECT, INSERT ON ledger.events TO ${LEDGER_WRITER_ROLE}`,
  `GRANT SELECT, INSERT, UPDATE ON ledger.streams, ledger.head TO ${LEDGER_WRITER_ROLE}`,
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
  stream_hash: string | null;
  global_hash: string | null;
}

function toRecorded(row: EventRow): RecordedLedgerEvent {
  return {
    eventId: row.event_id,
    type: row.event_type,
    data: row.data,
    metadata: row.metadata,
    streamId: row.stream_id,
    revision: row.revision,
    position: Number(row.position),
    recordedAt: row.recorded_at,
    streamHash: row.stream_hash ?? '',
    globalHash: row.global_hash,
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
    const head = await client.query<{ revision: number; stream_hash: string | null }>(
      'SELECT revision, stream_hash FROM ledger.streams WHERE stream_id = $1 FOR UPDATE',
      [streamId],
    );
    const current = head.rows[0] ? Number(head.rows[0].revision) : -1;
    const ids = events.map((e) => e.eventId);
    const stored = await client.query<{ event_id: string; stream_id: string; position: number }>(
      'SELECT event_id, stream_id, position FROM ledger.events WHERE event_id = ANY($1::uuid[]) ORDER BY position',
      [ids],
    );
    if (events.length > 0 && stored.rows.length === events.length && stored.rows.every((r) => r.stream_id === streamId)) {
      return { nextExpectedRevision: current, positions: stored.rows.map((r) => Number(r.position)), duplicate: true };
    }
    if (stored.rows[0]) throw new DuplicateEventIdError(stored.rows[0].event_id);
    if (expected !== 'any' && (expected === 'no_stream' ? current !== -1 : expected !== current)) {
      throw new WrongExpectedRevisionError(streamId, expected, current === -1 ? 'no_stream' : current);
    }
    if (events.length === 0) return { nextExpectedRevision: current, positions: [], duplicate: false };
    // The global head is locked last (after the stream), always in that order: appends to
    // different streams serialise here only for the few statements that follow.
    const global = await client.query<{ position: number; global_hash: string }>('SELECT position, global_hash FROM ledger.head FOR UPDATE');
    let position = Number(global.rows[0]!.position);
    let chain = global.rows[0]!.global_hash;
    let previous = head.rows[0]?.stream_hash ?? GENESIS_HASH;
    let revision = current;
    const recordedAt = new Date();
    const rows = events.map((event) => {
      revision += 1;
      position += 1;
      const hash = streamHash(previous, { streamId, revision, eventId: event.eventId, type: event.type, data: event.data, metadata: event.metadata, recordedAt });
      chain = globalHash(chain, position, hash);
      previous = hash;
      return { event, revision, position, hash, chain };
    });
    try {
      await client.query(
        `INSERT INTO ledger.events (position, stream_id, revision, event_id, event_type, data, metadata, recorded_at, stream_hash, global_hash)
         SELECT p, $1, r, e, t, d, m, $2, sh, gh
           FROM unnest($3::bigint[], $4::bigint[], $5::uuid[], $6::text[], $7::jsonb[], $8::jsonb[], $9::text[], $10::text[]) AS x(p, r, e, t, d, m, sh, gh)`,
        [
          streamId,
          recordedAt,
          rows.map((r) => r.position),
          rows.map((r) => r.revision),
          rows.map((r) => r.event.eventId),
          rows.map((r) => r.event.type),
          rows.map((r) => JSON.stringify(r.event.data)),
          rows.map((r) => JSON.stringify(r.event.metadata)),
          rows.map((r) => r.hash),
          rows.map((r) => r.chain),
        ],
      );
      await client.query(
        `INSERT INTO ledger.streams (stream_id, revision, stream_hash) VALUES ($1, $2, $3)
         ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision, stream_hash = EXCLUDED.stream_hash`,
        [streamId, revision, previous],
      );
      await client.query('UPDATE ledger.head SET position = $1, global_hash = $2', [position, chain]);
    } catch (error) {
      if (isUniqueViolation(error)) throw new WrongExpectedRevisionError(streamId, expected, 'no_stream');
      throw error;
    }
    return { nextExpectedRevision: revision, positions: rows.map((r) => r.position), duplicate: false };
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

  subscribeToAll(afterPosition: number, handler: (event: RecordedLedgerEvent) => Promise<void>, options?: SubscribeOptions): LedgerSubscription {
    return pollingSubscription(this, afterPosition, handler, options);
  }

  /** The last global position and global hash (what the newest event must chain to). */
  async head(): Promise<{ position: number; globalHash: string }> {
    const { rows } = await this.pool.query<{ position: number; global_hash: string }>('SELECT position, global_hash FROM ledger.head');
    return { position: Number(rows[0]?.position ?? 0), globalHash: rows[0]?.global_hash ?? GENESIS_HASH };
  }
}

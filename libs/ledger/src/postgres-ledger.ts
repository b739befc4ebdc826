import { inTransaction, isUniqueViolation, type Pool, type PoolClient } from '@settle/platform';
import { GENESIS_HASH, streamHash } from './hash-chain.js';
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
  // revision -1: a stream whose first append is in flight (see appendWith).
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
  // Appends a stream's new events with their stream hashes (computed by the caller), chaining
  // each into the global chain under the head's lock, in one round trip: the lock is held
  // only for this call and the commit. The global hash is the one of hash-chain.ts:
  // SHA-256 hex of "<previous global hash>\n<position>\n<stream hash>".
  `CREATE OR REPLACE FUNCTION ledger.append_events(
     p_stream text, p_revisions bigint[], p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[],
     p_recorded_at timestamptz, p_stream_hashes text[]
   ) RETURNS SETOF bigint LANGUAGE plpgsql AS $$
   DECLARE
     v_position bigint;
     v_global text;
     i int;
   BEGIN
     SELECT position, global_hash INTO v_position, v_global FROM ledger.head FOR UPDATE;
     FOR i IN 1 .. array_length(p_ids, 1) LOOP
       v_position := v_position + 1;
       v_global := encode(sha256(convert_to(v_global || E'\n' || v_position::text || E'\n' || p_stream_hashes[i], 'UTF8')), 'hex');
       INSERT INTO ledger.events (position, stream_id, revision, event_id, event_type, data, metadata, recorded_at, stream_hash, global_hash)
       VALUES (v_position, p_stream, p_revisions[i], p_ids[i], p_types[i], p_data[i], p_metadata[i], p_recorded_at, p_stream_hashes[i], v_global);
       RETURN NEXT v_position;
     END LOOP;
     INSERT INTO ledger.streams (stream_id, revision, stream_hash)
     VALUES (p_stream, p_revisions[array_length(p_ids, 1)], p_stream_hashes[array_length(p_ids, 1)])
     ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision, stream_hash = EXCLUDED.stream_hash;
     UPDATE ledger.head SET position = v_position, global_hash = v_global;
   END $$`,
  `CREATE OR REPLACE FUNCTION ledger.refuse_mutation() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     RAISE EXCEPTION 'ledger.events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
   END $$`,
  `CREATE OR REPLACE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON ledger.events
     FOR EACH ROW EXECUTE FUNCTION ledger.refuse_mutation()`,
  `CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON ledger.events
     FOR EACH STATEMENT EXECUTE FUNCTION ledger.refuse_mutation()`,
  // The head only moves forward, one append at a time, and is never removed.
  `CREATE OR REPLACE FUNCTION ledger.refuse_head_rewind() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP <> 'UPDATE' OR NEW.position <= OLD.position THEN
       RAISE EXCEPTION 'ledger.head only moves forward: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE OR REPLACE TRIGGER head_forward_only BEFORE UPDATE OR DELETE ON ledger.head
     FOR EACH ROW EXECUTE FUNCTION ledger.refuse_head_rewind()`,
  `CREATE OR REPLACE TRIGGER head_no_truncate BEFORE TRUNCATE ON ledger.head
     FOR EACH STATEMENT EXECUTE FUNCTION ledger.refuse_head_rewind()`,
  `DO $$ BEGIN
     CREATE ROLE ${LEDGER_WRITER_ROLE} NOLOGIN;
   EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
   END $$`,
  'REVOKE ALL ON ledger.events FROM PUBLIC',
  `GRANT USAGE ON SCHEMA ledger TO ${LEDGER_WRITER_ROLE}`,
  `REVOKE UPDATE, DELETE, TRUNCATE ON ledger.events FROM ${LEDGER_WRITER_ROLE}`,
  `GRANT SELECT, INSERT ON ledger.events TO ${LEDGER_WRITER_ROLE}`,
  `GRANT SELECT, INSERT, UPDATE ON ledger.streams TO ${LEDGER_WRITER_ROLE}`,
  `GRANT SELECT, UPDATE ON ledger.head TO ${LEDGER_WRITER_ROLE}`,
];

/** An append checked and hashed under its stream's lock, ready to be written (see {@link PostgresLedger.prepareAppendWith}). */
export interface PreparedAppend {
  streamId: string;
  expected: ExpectedRevision;
  /** The stream's revision before the append (-1: a new stream). */
  current: number;
  recordedAt: Date;
  rows: ReadonlyArray<{ event: LedgerEventInput; revision: number; hash: string }>;
}

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
   * Appends inside the caller's open transaction: {@link PostgresLedger.prepareAppendWith} then
   * {@link PostgresLedger.writePrepared}.
   *
   * @throws WrongExpectedRevisionError, DuplicateEventIdError (see {@link LedgerStore.append}).
   */
  async appendWith(
    client: PoolClient,
    streamId: string,
    events: readonly LedgerEventInput[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    const prepared = await this.prepareAppendWith(client, streamId, events, expected);
    return 'done' in prepared ? prepared.done : this.writePrepared(client, prepared);
  }

  /**
   * The first half of an append, inside the caller's transaction: locks the stream (so no
   * other append to it can interleave until the commit), finds a redelivered duplicate, checks
   * the expected revision and computes the stream hashes. It does not touch the global head:
   * a caller appending to several streams prepares each, does its other work, and only then
   * writes them, holding the head's lock (which serialises every append until the commit) as
   * briefly as possible.
   *
   * @returns the append to write, or `done` when there is nothing to write (a duplicate, no events).
   * @throws WrongExpectedRevisionError, DuplicateEventIdError (see {@link LedgerStore.append}).
   */
  async prepareAppendWith(
    client: PoolClient,
    streamId: string,
    events: readonly LedgerEventInput[],
    expected: ExpectedRevision,
  ): Promise<PreparedAppend | { done: AppendResult }> {
    // Lock the stream's row first, in a statement of its own: an upsert that always takes the
    // row lock (creating a placeholder at revision -1 for a new stream), so a concurrent append
    // to the same stream waits here and the look-up below, a new statement with a new snapshot,
    // sees what that append committed (a redelivered duplicate is then reported as one).
    const { rows: locked } = await client.query<{ revision: number; stream_hash: string | null }>(
      `INSERT INTO ledger.streams (stream_id, revision) VALUES ($1, -1)
       ON CONFLICT (stream_id) DO UPDATE SET revision = ledger.streams.revision
       RETURNING revision, stream_hash`,
      [streamId],
    );
    const { rows: found } = await client.query<{ stored: Array<{ event_id: string; stream_id: string; position: number }> | null }>(
      `SELECT json_agg(json_build_object('event_id', event_id, 'stream_id', stream_id, 'position', position) ORDER BY position) AS stored
         FROM ledger.events WHERE event_id = ANY($1::uuid[])`,
      [events.map((e) => e.eventId)],
    );
    const current = Number(locked[0]!.revision);
    const stored = found[0]!.stored ?? [];
    if (events.length > 0 && stored.length === events.length && stored.every((r) => r.stream_id === streamId)) {
      return { done: { nextExpectedRevision: current, positions: stored.map((r) => Number(r.position)), duplicate: true } };
    }
    if (stored[0]) throw new DuplicateEventIdError(stored[0].event_id);
    if (expected !== 'any' && (expected === 'no_stream' ? current !== -1 : expected !== current)) {
      throw new WrongExpectedRevisionError(streamId, expected, current === -1 ? 'no_stream' : current);
    }
    if (events.length === 0) return { done: { nextExpectedRevision: current, positions: [], duplicate: false } };
    // Stream hashes need only the stream's lock; the global chain is extended under the
    // head's lock inside ledger.append_events, as late and as briefly as possible.
    let previous = locked[0]!.stream_hash ?? GENESIS_HASH;
    let revision = current;
    const recordedAt = new Date();
    const rows = events.map((event) => {
      revision += 1;
      previous = streamHash(previous, { streamId, revision, eventId: event.eventId, type: event.type, data: event.data, metadata: event.metadata, recordedAt });
      return { event, revision, hash: previous };
    });
    return { streamId, expected, current, recordedAt, rows };
  }

  /**
   * The second half of an append: writes a prepared append's events into the global chain,
   * taking the head's lock (held until the caller's commit).
   *
   * @throws DuplicateEventIdError when an event id was stored in another stream meanwhile;
   *   WrongExpectedRevisionError when the stream moved on (it cannot while its lock is held).
   */
  async writePrepared(client: PoolClient, prepared: PreparedAppend): Promise<AppendResult> {
    const { streamId, expected, current, recordedAt, rows } = prepared;
    try {
      const { rows: positions } = await client.query<{ position: number }>(
        'SELECT ledger.append_events($1, $2, $3, $4, $5, $6, $7, $8) AS position',
        [
          streamId,
          rows.map((r) => r.revision),
          rows.map((r) => r.event.eventId),
          rows.map((r) => r.event.type),
          rows.map((r) => JSON.stringify(r.event.data)),
          rows.map((r) => JSON.stringify(r.event.metadata)),
          recordedAt,
          rows.map((r) => r.hash),
        ],
      );
      return { nextExpectedRevision: rows.at(-1)!.revision, positions: positions.map((p) => Number(p.position)), duplicate: false };
    } catch (error) {
      // The stream is locked, so only an event id stored in another stream meanwhile remains.
      if (isUniqueViolation(error) && (error as { constraint?: string }).constraint === 'events_event_id_key') {
        const id = /\(event_id\)=\(([^)]+)\)/.exec((error as { detail?: string }).detail ?? '')?.[1];
        throw new DuplicateEventIdError(id ?? 'unknown');
      }
      if (isUniqueViolation(error)) throw new WrongExpectedRevisionError(streamId, expected, current === -1 ? 'no_stream' : current);
      throw error;
    }
  }

  async readStream(streamId: string): Promise<RecordedLedgerEvent[]> {
    return this.readStreamWith(this.pool, streamId);
  }

  /** {@link PostgresLedger.readStream} on the caller's connection (inside its transaction). */
  async readStreamWith(client: Pool | PoolClient, streamId: string): Promise<RecordedLedgerEvent[]> {
    const { rows } = await client.query<EventRow>('SELECT * FROM ledger.events WHERE stream_id = $1 ORDER BY revision', [streamId]);
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

  /**
   * The stored stream hashes of the given (stream, revision) pairs, for starting a
   * verification from a checkpoint: stream id to `{ revision, hash }`.
   */
  async streamHashesAt(pairs: ReadonlyArray<{ streamId: string; revision: number }>): Promise<Map<string, { revision: number; hash: string | null }>> {
    if (pairs.length === 0) return new Map();
    const { rows } = await this.pool.query<{ stream_id: string; revision: number; stream_hash: string | null }>(
      `SELECT e.stream_id, e.revision, e.stream_hash FROM ledger.events e
         JOIN unnest($1::text[], $2::bigint[]) AS p(stream_id, revision) ON p.stream_id = e.stream_id AND p.revision = e.revision`,
      [pairs.map((p) => p.streamId), pairs.map((p) => p.revision)],
    );
    return new Map(rows.map((r) => [r.stream_id, { revision: Number(r.revision), hash: r.stream_hash }]));
  }

  /** The last global position and global hash (what the newest event must chain to). */
  async head(): Promise<{ position: number; globalHash: string }> {
    const { rows } = await this.pool.query<{ position: number; global_hash: string }>('SELECT position, global_hash FROM ledger.head');
    return { position: Number(rows[0]?.position ?? 0), globalHash: rows[0]?.global_hash ?? GENESIS_HASH };
  }
}

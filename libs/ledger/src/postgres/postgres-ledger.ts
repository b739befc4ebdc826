import { fileURLToPath } from 'node:url';
import { inTransaction, isUniqueViolation, type Pool, type PoolClient, type SchemaMigrations } from '@settle/platform';
import { GENESIS_HASH, streamHash } from '../chain/hash-chain.js';
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
} from '../ports/ledger.port.js';
import type { StreamAppend } from '../ports/ledger-writer.port.js';

/** Role that may append to the ledger and read it, and nothing else (see {@link LEDGER_MIGRATIONS}). */
export const LEDGER_WRITER_ROLE = 'settle_ledger_writer';

/**
 * Migrations of schema `ledger` (`libs/ledger/migrations/ledger/`, owned by the ledger projector,
 * which applies them at boot; docs/postgres.md). Immutability is enforced by the database twice:
 * - permissions: the `settle_ledger_writer` role (grant it to the projector's login role) may
 *   only SELECT and INSERT `ledger.events`; UPDATE, DELETE and TRUNCATE are revoked from it and
 *   from PUBLIC;
 * - triggers refuse UPDATE, DELETE and TRUNCATE of `ledger.events` for everyone, the table's
 *   owner and superusers included.
 * `ledger.head` holds the last global position and global hash; appends lock it, so positions
 * are gapless and in commit order (a subscription polling by position misses nothing). The
 * schema also holds the projector's outbox (`ledger.outbox`).
 */
export const LEDGER_MIGRATIONS: SchemaMigrations = {
  schema: 'ledger',
  dir: fileURLToPath(new URL('../../migrations/ledger', import.meta.url)),
};

/** What preparing one append of a batch gave: the append to write, nothing to write, or why it cannot be. */
export type PreparedOutcome = PreparedAppend | { done: AppendResult } | { error: WrongExpectedRevisionError | DuplicateEventIdError };

/** A stream's revision and last stream hash, as locked (revision -1: no event yet). */
export interface LockedStream {
  revision: number;
  hash: string | null;
}

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
  async appendWith(client: PoolClient, streamId: string, events: readonly LedgerEventInput[], expected: ExpectedRevision): Promise<AppendResult> {
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
    const [outcome] = await this.prepareAppendsWith(client, [{ streamId, events, expected }]);
    if ('error' in outcome!) throw outcome.error;
    return outcome!;
  }

  /**
   * The first half of a batch of appends (a consumer batch, many streams), inside the caller's
   * transaction: locks every stream in one statement, looks every event id up in one query,
   * then prepares each append in order as {@link PostgresLedger.prepareOn} does. A failed check
   * fails only its own append (its outcome is the error); later appends to the same stream see
   * the stream as the earlier ones of the batch leave it.
   *
   * @returns one outcome per append, in order.
   */
  async prepareAppendsWith(client: PoolClient, appends: readonly StreamAppend[]): Promise<PreparedOutcome[]> {
    const streams = await this.lockStreams(
      client,
      appends.map((a) => a.streamId),
    );
    const stored = await this.findStoredEvents(
      client,
      appends.flatMap((a) => a.events.map((e) => e.eventId)),
    );
    return appends.map((append) => this.prepareOn(streams, stored, append));
  }

  /**
   * Locks streams' rows for the rest of the caller's transaction, in one statement and in a
   * fixed order (stream id), creating a placeholder at revision -1 for a new stream, so a
   * concurrent append to any of them waits and statements after this one see what it
   * committed. Two callers locking overlapping sets cannot deadlock.
   *
   * @returns each stream's revision and last hash, by stream id.
   */
  async lockStreams(client: PoolClient, streamIds: readonly string[]): Promise<Map<string, LockedStream>> {
    const ids = [...new Set(streamIds)].sort();
    if (ids.length === 0) return new Map();
    const { rows } = await client.query<{ stream_id: string; revision: number; stream_hash: string | null }>(
      `INSERT INTO ledger.streams (stream_id, revision)
       SELECT s, -1 FROM unnest($1::text[]) AS s ORDER BY s
       ON CONFLICT (stream_id) DO UPDATE SET revision = ledger.streams.revision
       RETURNING stream_id, revision, stream_hash`,
      [ids],
    );
    return new Map(rows.map((r) => [r.stream_id, { revision: Number(r.revision), hash: r.stream_hash }]));
  }

  /** Where these event ids are stored already, by event id (one query). */
  async findStoredEvents(client: PoolClient, eventIds: readonly string[]): Promise<Map<string, { streamId: string; position: number }>> {
    if (eventIds.length === 0) return new Map();
    const { rows } = await client.query<{ event_id: string; stream_id: string; position: number }>(
      'SELECT event_id, stream_id, position FROM ledger.events WHERE event_id = ANY($1::uuid[])',
      [eventIds],
    );
    return new Map(rows.map((r) => [r.event_id, { streamId: r.stream_id, position: Number(r.position) }]));
  }

  /**
   * Prepares one append on streams locked by {@link PostgresLedger.lockStreams}, in memory:
   * a redelivered duplicate (every event id stored in this stream) is `done`; an event id
   * stored elsewhere, or a stream not at the expected revision, is an error; otherwise the
   * rows are numbered and hashed, and `streams` advanced past them (for a later append of the
   * same batch).
   *
   * @throws Error when the stream was not locked first (a programming error).
   */
  prepareOn(
    streams: Map<string, LockedStream>,
    stored: ReadonlyMap<string, { streamId: string; position: number }>,
    { streamId, events, expected }: StreamAppend,
  ): PreparedOutcome {
    const stream = streams.get(streamId);
    if (!stream) throw new Error(`stream ${streamId} was not locked before preparing its append`);
    const found = events.map((e) => stored.get(e.eventId));
    if (events.length > 0 && found.every((f) => f?.streamId === streamId)) {
      return { done: { nextExpectedRevision: stream.revision, positions: found.map((f) => f!.position), duplicate: true } };
    }
    const clash = events.find((e) => stored.has(e.eventId));
    if (clash) return { error: new DuplicateEventIdError(clash.eventId) };
    const current = stream.revision;
    if (expected !== 'any' && (expected === 'no_stream' ? current !== -1 : expected !== current)) {
      return { error: new WrongExpectedRevisionError(streamId, expected, current === -1 ? 'no_stream' : current) };
    }
    if (events.length === 0) return { done: { nextExpectedRevision: current, positions: [], duplicate: false } };
    // Stream hashes need only the stream's lock; the global chain is extended under the
    // head's lock inside ledger.append_batch, as late and as briefly as possible.
    let previous = stream.hash ?? GENESIS_HASH;
    let revision = current;
    const recordedAt = new Date();
    const rows = events.map((event) => {
      revision += 1;
      previous = streamHash(previous, { streamId, revision, eventId: event.eventId, type: event.type, data: event.data, metadata: event.metadata, recordedAt });
      return { event, revision, hash: previous };
    });
    streams.set(streamId, { revision, hash: previous });
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
    const { streamId, rows } = prepared;
    // One stream: ledger.append_events, the lighter call (no per-batch stream bookkeeping).
    const positions = await this.chainWrite(client, prepared, 'SELECT ledger.append_events($1, $2, $3, $4, $5, $6, $7, $8) AS position', [
      streamId,
      rows.map((r) => r.revision),
      rows.map((r) => r.event.eventId),
      rows.map((r) => r.event.type),
      rows.map((r) => JSON.stringify(r.event.data)),
      rows.map((r) => JSON.stringify(r.event.metadata)),
      prepared.recordedAt,
      rows.map((r) => r.hash),
    ]);
    return { nextExpectedRevision: rows.at(-1)!.revision, positions, duplicate: false };
  }

  /**
   * Writes prepared appends of many streams into the global chain in one server-side call,
   * in the given order, under one lock of the head (held until the caller's commit): the
   * chain stays gapless and in commit order.
   *
   * @returns one result per append, in order.
   * @throws DuplicateEventIdError when an event id was stored in another stream meanwhile;
   *   WrongExpectedRevisionError when a stream moved on (it cannot while its lock is held).
   */
  async writePreparedMany(client: PoolClient, prepared: readonly PreparedAppend[]): Promise<AppendResult[]> {
    const rows = prepared.flatMap((p) => p.rows.map((r) => ({ ...r, streamId: p.streamId, recordedAt: p.recordedAt })));
    if (rows.length === 0) return prepared.map((p) => ({ nextExpectedRevision: p.current, positions: [], duplicate: false }));
    const positions = await this.chainWrite(client, prepared[0]!, 'SELECT ledger.append_batch($1, $2, $3, $4, $5, $6, $7, $8) AS position', [
      rows.map((r) => r.streamId),
      rows.map((r) => r.revision),
      rows.map((r) => r.event.eventId),
      rows.map((r) => r.event.type),
      rows.map((r) => JSON.stringify(r.event.data)),
      rows.map((r) => JSON.stringify(r.event.metadata)),
      rows.map((r) => r.recordedAt),
      rows.map((r) => r.hash),
    ]);
    let next = 0;
    return prepared.map((p) => {
      const mine = positions.slice(next, next + p.rows.length);
      next += p.rows.length;
      return { nextExpectedRevision: p.rows.at(-1)?.revision ?? p.current, positions: mine, duplicate: false };
    });
  }

  /**
   * Runs one of the chain-extending functions and returns the positions it wrote.
   *
   * @throws DuplicateEventIdError when an event id was stored in another stream meanwhile;
   *   WrongExpectedRevisionError (for `first`) when a stream moved on (it cannot while locked).
   */
  private async chainWrite(client: PoolClient, first: PreparedAppend, sql: string, values: unknown[]): Promise<number[]> {
    try {
      const result = await client.query<{ position: number }>(sql, values);
      return result.rows.map((p) => Number(p.position));
    } catch (error) {
      // The streams are locked, so only an event id stored in another stream meanwhile remains.
      if (isUniqueViolation(error) && (error as { constraint?: string }).constraint === 'events_event_id_key') {
        const id = /\(event_id\)=\(([^)]+)\)/.exec((error as { detail?: string }).detail ?? '')?.[1];
        throw new DuplicateEventIdError(id ?? 'unknown');
      }
      if (isUniqueViolation(error)) throw new WrongExpectedRevisionError(first.streamId, first.expected, first.current === -1 ? 'no_stream' : first.current);
      throw error;
    }
  }

  /** Every event of these streams, oldest first, by stream id (one query, on the caller's connection). */
  async readStreamsWith(client: Pool | PoolClient, streamIds: readonly string[]): Promise<Map<string, RecordedLedgerEvent[]>> {
    const streams = new Map<string, RecordedLedgerEvent[]>(streamIds.map((id) => [id, []]));
    if (streamIds.length === 0) return streams;
    const { rows } = await client.query<EventRow>('SELECT * FROM ledger.events WHERE stream_id = ANY($1::text[]) ORDER BY stream_id, revision', [
      [...new Set(streamIds)],
    ]);
    for (const row of rows) streams.get(row.stream_id)!.push(toRecorded(row));
    return streams;
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
    const { rows } = await this.pool.query<EventRow>('SELECT * FROM ledger.events WHERE position > $1 ORDER BY position LIMIT $2', [afterPosition, limit]);
    return rows.map(toRecorded);
  }

  /**
   * Events of the streams whose id starts with `prefix`, in global order, from a position
   * (exclusive), at most `limit`: {@link PostgresLedger.readAll} with the filter in the query.
   * It walks the position index from `afterPosition` and skips the other streams' rows in the
   * database: when matching events are rare, a polling subscriber re-reads the tail written since
   * the last one at each poll. (The prefix's one user, the console's audit projection, runs on
   * KurrentDB in production, which filters on the server.)
   */
  async readAllWithPrefix(prefix: string, afterPosition: number, limit: number): Promise<RecordedLedgerEvent[]> {
    const { rows } = await this.pool.query<EventRow>(
      'SELECT * FROM ledger.events WHERE position > $1 AND starts_with(stream_id, $2) ORDER BY position LIMIT $3',
      [afterPosition, prefix, limit],
    );
    return rows.map(toRecorded);
  }

  subscribeToAll(afterPosition: number, handler: (event: RecordedLedgerEvent) => Promise<void>, options?: SubscribeOptions): LedgerSubscription {
    const prefix = options?.streamPrefix;
    // With a prefix, the pages hold matching events only: no row of another stream leaves the database.
    const source = prefix === undefined ? this : { readAll: (after: number, limit: number) => this.readAllWithPrefix(prefix, after, limit) };
    return pollingSubscription(source, afterPosition, handler, options);
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

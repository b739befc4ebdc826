import type { Outbox, OutboxRelay } from '@settle/messaging';
import { inTransaction, type Pool, type PoolClient, type TraceCarrier } from '@settle/platform';
import type { RecordedLedgerEvent } from '../ports/ledger.port.js';
import { outboxMessagesOf, readModelRowsOf, type LatestVerificationRow } from '../projection/ledger-projection.js';
import type { AppendOutcome, LedgerSession, LedgerWriter, StreamAppend } from '../ports/ledger-writer.port.js';
import type { LockedStream, PostgresLedger, PreparedAppend } from './postgres-ledger.js';
import { upsertLatestVerifications, writeReadModelRows } from '../projection/read-models.js';

/**
 * The ledger writer on PostgreSQL: a session is one database transaction, in which the
 * appends, the read models they stand for and their outbox messages commit together, so a
 * settlement is published if and only if it is in the ledger (docs/spec.md, section 1; docs/ledger.md).
 *
 * The session costs a fixed number of statements whatever the batch size: appends are checked
 * and hashed under their streams' locks as they come (one lock statement and one event-id
 * look-up per `append`); at the end the read models are upserted (one statement each), every
 * prepared event is written into the global chain in one call (`ledger.append_batch`, under one
 * lock of the head, taken last and held only until the commit), and the outbox messages are
 * inserted in one statement, each with the trace context of the append it follows from
 * (`StreamAppend.trace`). The relay is woken after the commit.
 */
export class PostgresLedgerWriter implements LedgerWriter {
  constructor(
    private readonly pool: Pool,
    private readonly ledger: PostgresLedger,
    private readonly outbox: Pick<Outbox, 'enqueue'>,
    private readonly relay: Pick<OutboxRelay, 'wake'>,
  ) {}

  async session<T>(work: (session: LedgerSession) => Promise<T>): Promise<T> {
    let published = false;
    const result = await inTransaction(this.pool, async (client) => {
      const session = new PostgresLedgerSession(client, this.ledger);
      const value = await work(session);
      published = await session.finish(this.outbox);
      return value;
    });
    if (published) this.relay.wake();
    return result;
  }
}

/** One transaction's appends, prepared under their streams' locks and written at {@link PostgresLedgerSession.finish}. */
class PostgresLedgerSession implements LedgerSession {
  /** Streams locked in this transaction, advanced past the appends prepared so far. */
  private readonly locked = new Map<string, LockedStream>();
  private readonly prepared: PreparedAppend[] = [];
  /** The trace context of each prepared append, by its index in `prepared`. */
  private readonly traces: Array<TraceCarrier | undefined> = [];
  /** Event ids of the prepared appends (not written yet), with their stream. */
  private readonly pendingIds = new Map<string, { streamId: string; position: number }>();

  constructor(
    private readonly client: PoolClient,
    private readonly ledger: PostgresLedger,
  ) {}

  async recordLatestVerifications(rows: readonly LatestVerificationRow[]): Promise<void> {
    await upsertLatestVerifications(this.client, rows);
  }

  async readStreams(streamIds: readonly string[]): Promise<Map<string, RecordedLedgerEvent[]>> {
    await this.lock(streamIds);
    return this.ledger.readStreamsWith(this.client, streamIds);
  }

  async append(appends: readonly StreamAppend[]): Promise<AppendOutcome[]> {
    await this.lock(appends.map((a) => a.streamId));
    const stored = await this.ledger.findStoredEvents(
      this.client,
      appends.flatMap((a) => a.events.map((e) => e.eventId)),
    );
    return appends.map((append) => {
      // An id appended earlier in this session is not stored yet: the pending appends count too.
      const outcome = this.ledger.prepareOn(this.locked, this.withPending(stored, append), append);
      if ('error' in outcome) return { status: 'rejected', error: outcome.error };
      if ('done' in outcome) return { status: outcome.done.duplicate ? 'duplicate' : 'appended' };
      this.prepared.push(outcome);
      this.traces.push(append.trace);
      for (const r of outcome.rows) this.pendingIds.set(r.event.eventId, { streamId: outcome.streamId, position: -1 });
      return { status: 'appended' };
    });
  }

  /**
   * Writes what the session prepared: the read models (before the head's lock, needing only the
   * revisions), the events into the global chain, then their outbox messages (needing positions).
   *
   * @returns whether any message was enqueued.
   */
  async finish(outbox: Pick<Outbox, 'enqueue'>): Promise<boolean> {
    if (this.prepared.length === 0) return false;
    const pending = this.prepared.flatMap((p, i) =>
      p.rows.map((r) => ({
        trace: this.traces[i],
        streamId: p.streamId,
        eventId: r.event.eventId,
        type: r.event.type,
        data: r.event.data,
        metadata: r.event.metadata,
        revision: r.revision,
        streamHash: r.hash,
      })),
    );
    await writeReadModelRows(this.client, readModelRowsOf(pending.map((e) => ({ ...e, position: 0 }))));
    // From here to the commit the global head is locked (every append waits for it).
    const written = await this.ledger.writePreparedMany(this.client, this.prepared);
    const positions = written.flatMap((w) => w.positions);
    // Each event's messages continue the trace of the append it came with.
    const messages = pending.flatMap((e, i) => outboxMessagesOf([{ ...e, position: positions[i]! }]).map((m) => ({ ...m, trace: e.trace })));
    await outbox.enqueue(this.client, messages);
    return messages.length > 0;
  }

  /** Locks the streams not yet locked in this transaction (a locked stream keeps its advanced state). */
  private async lock(streamIds: readonly string[]): Promise<void> {
    const fresh = streamIds.filter((id) => !this.locked.has(id));
    if (fresh.length === 0) return;
    for (const [id, stream] of await this.ledger.lockStreams(this.client, fresh)) this.locked.set(id, stream);
  }

  /** `stored` plus the event ids of `append` that this session prepared already (not yet written). */
  private withPending(
    stored: ReadonlyMap<string, { streamId: string; position: number }>,
    append: StreamAppend,
  ): ReadonlyMap<string, { streamId: string; position: number }> {
    const pending = append.events.flatMap((e) => {
      const found = this.pendingIds.get(e.eventId);
      return found ? [[e.eventId, found] as const] : [];
    });
    return pending.length === 0 ? stored : new Map([...stored, ...pending]);
  }
}

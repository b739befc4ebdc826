import type { Outbox, OutboxRelay } from '@settle/messaging';
import { inTransaction, type Logger, type Pool } from '@settle/platform';
import pMap from 'p-map';
import { DuplicateEventIdError, WrongExpectedRevisionError, type LedgerStore, type RecordedLedgerEvent } from '../ports/ledger.port.js';
import { outboxMessagesOf, readModelRowsOf, type LatestVerificationRow } from '../projection/ledger-projection.js';
import type { AppendOutcome, LedgerSession, LedgerWriter, StreamAppend } from '../ports/ledger-writer.port.js';
import { writeReadModelRows } from '../projection/read-models.js';

/** Streams appended to at once within a session (appends to one stream stay in order). */
const STREAM_CONCURRENCY = 16;

/**
 * The ledger writer on an event store whose append is its own commit (KurrentDB in
 * production, {@link InMemoryLedger} in unit tests). A session's appends are written as they
 * come: appends to one stream in order, different streams concurrently. The read models and the
 * outbox do not commit with them: a {@link CheckpointedLedgerProjection} follows `$all` and
 * projects each committed event exactly once in effect (docs/ledger.md, "One port, two stores").
 * A session that fails half-way leaves what it appended; the retry finds it `duplicate`.
 */
export class EventStoreLedgerWriter implements LedgerWriter {
  /**
   * @param store - the event store.
   * @param recordLatest - records the verifier's latest answers (on PostgreSQL: `upsertLatestVerifications`).
   * @param onAppended - called after a session appended something (to wake the projection).
   */
  constructor(
    private readonly store: LedgerStore,
    private readonly recordLatest: (rows: readonly LatestVerificationRow[]) => Promise<void>,
    private readonly onAppended: () => void = () => undefined,
  ) {}

  async session<T>(work: (session: LedgerSession) => Promise<T>): Promise<T> {
    let appended = false;
    const session: LedgerSession = {
      recordLatestVerifications: (rows) => (rows.length === 0 ? Promise.resolve() : this.recordLatest(rows)),
      readStreams: async (streamIds) => new Map(await Promise.all([...new Set(streamIds)].map(async (id) => [id, await this.store.readStream(id)] as const))),
      append: async (appends) => {
        const outcomes = await this.appendAll(appends);
        appended ||= outcomes.some((o) => o.status === 'appended');
        return outcomes;
      },
    };
    try {
      return await work(session);
    } finally {
      if (appended) this.onAppended();
    }
  }

  /** Appends in order per stream, streams concurrently; one outcome per append, in the given order. */
  private async appendAll(appends: readonly StreamAppend[]): Promise<AppendOutcome[]> {
    const outcomes: AppendOutcome[] = new Array<AppendOutcome>(appends.length);
    const byStream = new Map<string, number[]>();
    for (const [i, a] of appends.entries()) {
      const indexes = byStream.get(a.streamId);
      if (indexes) indexes.push(i);
      else byStream.set(a.streamId, [i]);
    }
    await pMap(
      byStream.values(),
      async (indexes) => {
        for (const i of indexes) outcomes[i] = await this.appendOne(appends[i]!);
      },
      { concurrency: STREAM_CONCURRENCY },
    );
    return outcomes;
  }

  private async appendOne({ streamId, events, expected }: StreamAppend): Promise<AppendOutcome> {
    try {
      const result = await this.store.append(streamId, events, expected);
      return { status: result.duplicate ? 'duplicate' : 'appended' };
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError || error instanceof DuplicateEventIdError) return { status: 'rejected', error };
      throw error;
    }
  }
}

/** Options of {@link CheckpointedLedgerProjection}. */
export interface CheckpointedProjectionOptions {
  /** Name of the checkpoint row. Default `ledger-read-models`. */
  name?: string;
  /** Events per page (per PostgreSQL transaction). Default 500. */
  pageSize?: number;
  /** How often to look for new events once caught up, milliseconds (a wake-up comes sooner). Default 200. */
  pollIntervalMs?: number;
  /** Wait after a failed page before trying again, milliseconds. Default 1 000. */
  retryDelayMs?: number;
}

/**
 * Projects an event store's `$all` into PostgreSQL: pages of committed events, in global
 * order, from a checkpoint; for each page one transaction upserts the read models
 * (`readModelRowsOf`), enqueues the settlement and entitlement messages (`outboxMessagesOf`) and
 * moves the checkpoint (`ledger.projection_checkpoints`, migration 0002 of schema `ledger`), so each event is projected exactly once in effect: a crash before the
 * commit projects the page again, after it never. The checkpoint row is locked for the page, so
 * two projector instances running the projection take turns and never project a page twice.
 */
export class CheckpointedLedgerProjection {
  private readonly name: string;
  private readonly pageSize: number;
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private woken = false;

  constructor(
    private readonly pool: Pool,
    private readonly store: Pick<LedgerStore, 'readAll'>,
    private readonly outbox: Pick<Outbox, 'enqueue'>,
    private readonly relay: Pick<OutboxRelay, 'wake'>,
    private readonly logger: Logger,
    private readonly options: CheckpointedProjectionOptions = {},
  ) {
    this.name = options.name ?? 'ledger-read-models';
    this.pageSize = options.pageSize ?? 500;
  }

  /**
   * Projects the next page after the checkpoint, in one transaction.
   *
   * @returns the number of events projected (0 when caught up).
   * @throws store and database errors (nothing of the page is committed).
   */
  async projectPage(): Promise<number> {
    const page = await inTransaction(this.pool, async (client) => {
      await client.query('INSERT INTO ledger.projection_checkpoints (name, position, updated_at) VALUES ($1, 0, now()) ON CONFLICT (name) DO NOTHING', [
        this.name,
      ]);
      const { rows } = await client.query<{ position: string }>('SELECT position FROM ledger.projection_checkpoints WHERE name = $1 FOR UPDATE', [this.name]);
      const events: RecordedLedgerEvent[] = await this.store.readAll(Number(rows[0]!.position), this.pageSize);
      if (events.length === 0) return events;
      await writeReadModelRows(client, readModelRowsOf(events));
      // No receipts from this store: its positions are not a Merkle tree's, so no proof could follow (docs/ledger.md, "Receipts").
      await this.outbox.enqueue(client, outboxMessagesOf(events.map(({ streamHash: _unproven, ...event }) => event)));
      await client.query('UPDATE ledger.projection_checkpoints SET position = $2, updated_at = now() WHERE name = $1', [this.name, events.at(-1)!.position]);
      return events;
    });
    if (page.length > 0) this.relay.wake();
    return page.length;
  }

  /** The last position projected (0: none). */
  async checkpoint(): Promise<number> {
    const { rows } = await this.pool.query<{ position: string }>('SELECT position FROM ledger.projection_checkpoints WHERE name = $1', [this.name]);
    return Number(rows[0]?.position ?? 0);
  }

  /** Starts projecting in the background until {@link CheckpointedLedgerProjection.stop}; failures are logged and retried. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        let projected = 0;
        let failed = false;
        this.woken = false;
        try {
          projected = await this.projectPage();
        } catch (error) {
          failed = true;
          // Nothing after the checkpoint is projected or published until this page is: a page that
          // keeps failing (a malformed stored event, a database down) is an alert, never skipped.
          this.logger.error({ alert: 'SETTLE_LEDGER_PROJECTION_STALLED', err: error, projection: this.name }, 'ledger projection page failed; retrying');
        }
        if (failed) {
          // The back-off holds even when appends keep waking the projection.
          this.woken = false;
          await this.sleep(this.options.retryDelayMs ?? 1_000, { ignoreWake: true });
        } else if (projected < this.pageSize && this.running) {
          await this.sleep(this.options.pollIntervalMs ?? 200);
        }
      }
    })();
  }

  /** Asks for a page now (after an append). */
  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  /** Stops after the page in hand. */
  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await this.loop;
  }

  /** Sleeps `ms`, or less when woken; a wake-up that came while a page was projected ends it at once. */
  private sleep(ms: number, options: { ignoreWake?: boolean } = {}): Promise<void> {
    if (options.ignoreWake) return new Promise((resolve) => setTimeout(resolve, ms));
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}

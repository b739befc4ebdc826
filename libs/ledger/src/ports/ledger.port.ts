/**
 * The ledger port: an append-only event store of transaction streams (docs/spec.md, section 1,
 * "Immutable Ledger"). Semantics follow EventStoreDB/KurrentDB so either store can sit
 * behind it: revisions count from 0 within a stream, positions order all events globally,
 * and appending event ids that are already in the stream at the expected revision is a
 * no-op (idempotent append).
 */
import { SettleError, type ErrorKind } from '@settle/domain';

/** An event to append. */
export interface LedgerEventInput {
  /** Deterministic UUID; appending the same id again is stored once. */
  eventId: string;
  type: string;
  data: Record<string, unknown>;
  metadata: { correlationId: string; causationId: string } & Record<string, unknown>;
}

/** An event as stored. */
export interface RecordedLedgerEvent extends LedgerEventInput {
  streamId: string;
  /** 0-based revision within the stream. */
  revision: number;
  /** Global position, increasing across all streams. */
  position: number;
  /** When the store recorded it. */
  recordedAt: Date;
  /** SHA-256 (hex) chaining this event to the previous one of its stream (see hash-chain.ts). */
  streamHash: string;
  /**
   * SHA-256 (hex) chaining this event to the previous one in global order; `null` on a store
   * that keeps no global chain (KurrentDB: see docs/ledger.md).
   */
  globalHash: string | null;
}

/** A running subscription. */
export interface LedgerSubscription {
  /** Stops delivering; resolves once the event in hand (if any) was handled. */
  stop(): Promise<void>;
  /** Resolves when the subscription fails (the handler threw, or the store is gone). */
  readonly failed: Promise<Error>;
}

/** Options of {@link LedgerStore.subscribeToAll}. */
export interface SubscribeOptions {
  /** How often a polling store looks for new events once caught up, milliseconds. Default 200. */
  pollIntervalMs?: number;
  /** Events read per page. Default 1 000. */
  batchSize?: number;
  /**
   * Only events of the streams whose id starts with this prefix (for example `admin-`, the
   * console's audit projection); unset, every event. The handler's last position stays the
   * checkpoint to resume from: resuming after it skips no matching event. KurrentDB filters on
   * the server (a stream-name prefix filter), PostgreSQL in its query, the in-memory store while
   * paging (docs/ledger.md, "One port, two stores").
   */
  streamPrefix?: string;
}

/**
 * Expected revision of the stream's last event: `'no_stream'` for a stream that must not
 * exist yet, a number for an exact revision, `'any'` to skip the check.
 */
export type ExpectedRevision = 'no_stream' | 'any' | number;

/** Result of an append. */
export interface AppendResult {
  /** Revision of the stream's last event after the append. */
  nextExpectedRevision: number;
  /** Global positions of the appended events (of the stored ones, for a duplicate). */
  positions: number[];
  /** True when every event id was already stored: nothing new was written. */
  duplicate: boolean;
}

/** The stream's revision is not the one expected (optimistic concurrency). */
export class WrongExpectedRevisionError extends SettleError {
  readonly code = 'LEDGER.WRONG_EXPECTED_REVISION';
  readonly kind: ErrorKind = 'conflict';
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`Stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/** An event id is already stored elsewhere (another stream or another revision). */
export class DuplicateEventIdError extends SettleError {
  readonly code = 'LEDGER.DUPLICATE_EVENT_ID';
  readonly kind: ErrorKind = 'conflict';
  constructor(readonly eventId: string) {
    super(`Event ${eventId} is already stored at another place`);
    this.name = 'DuplicateEventIdError';
  }
}

/** The append-only store behind the ledger. */
export interface LedgerStore {
  /**
   * Appends events to a stream if its last revision is the one expected.
   *
   * @throws WrongExpectedRevisionError when the stream moved on.
   * @throws DuplicateEventIdError when an event id is stored elsewhere.
   */
  append(streamId: string, events: readonly LedgerEventInput[], expected: ExpectedRevision): Promise<AppendResult>;
  /** Every event of a stream, oldest first; empty when the stream does not exist. */
  readStream(streamId: string): Promise<RecordedLedgerEvent[]>;
  /** Events of all streams in global order, from a position (exclusive), at most `limit`. */
  readAll(afterPosition: number, limit: number): Promise<RecordedLedgerEvent[]>;
  /**
   * Delivers every event after a checkpoint position, in global order, then each new one as
   * it is appended, one at a time: the next event is delivered only after `handler` resolved,
   * so a caller that stores `event.position` as its checkpoint after handling resumes exactly
   * where it stopped. A handler that throws ends the subscription (see `failed`).
   *
   * @param afterPosition - checkpoint: the position of the last event handled, 0 for all.
   */
  subscribeToAll(afterPosition: number, handler: (event: RecordedLedgerEvent) => Promise<void>, options?: SubscribeOptions): LedgerSubscription;
}

/**
 * A subscription for stores read by position (PostgreSQL, in memory): pages through
 * `readAll` from the checkpoint, then polls. Positions are gapless and commit-ordered in
 * these stores, so polling from the last position seen misses nothing. With
 * `options.streamPrefix` only the events of matching streams reach `handler`; the pages are
 * still walked to their end, so a store whose `readAll` returns every stream moves past the
 * others without handing them over, and one that filters in its query (PostgreSQL) pages
 * through matching events only.
 */
export function pollingSubscription(
  store: Pick<LedgerStore, 'readAll'>,
  afterPosition: number,
  handler: (event: RecordedLedgerEvent) => Promise<void>,
  options: SubscribeOptions = {},
): LedgerSubscription {
  const pollIntervalMs = options.pollIntervalMs ?? 200;
  const batchSize = options.batchSize ?? 1_000;
  const prefix = options.streamPrefix;
  let running = true;
  let wake: (() => void) | null = null;
  let reportFailure: (error: Error) => void = () => undefined;
  const failed = new Promise<Error>((resolve) => {
    reportFailure = resolve;
  });
  const loop = (async () => {
    let checkpoint = afterPosition;
    try {
      while (running) {
        const page = await store.readAll(checkpoint, batchSize);
        for (const event of page) {
          if (!running) return;
          if (prefix === undefined || event.streamId.startsWith(prefix)) await handler(event);
          checkpoint = event.position;
        }
        if (page.length < batchSize && running) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, pollIntervalMs);
          });
          wake = null;
        }
      }
    } catch (error) {
      running = false;
      reportFailure(error instanceof Error ? error : new Error(String(error)));
    }
  })();
  return {
    failed,
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
  };
}

/** Converts "number of events already in the stream" to an {@link ExpectedRevision}. */
export function expectedAfter(count: number): ExpectedRevision {
  return count === 0 ? 'no_stream' : count - 1;
}

/**
 * The ledger port: an append-only event store of transaction streams (spec section 1,
 * "Immutable Ledger"). Semantics follow EventStoreDB/KurrentDB so either store can sit
 * behind it: revisions count from 0 within a stream, positions order all events globally,
 * and appending event ids that are already in the stream at the expected revision is a
 * no-op (idempotent append).
 */

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
export class WrongExpectedRevisionError extends Error {
  readonly code = 'LEDGER.WRONG_EXPECTED_REVISION';
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
export class DuplicateEventIdError extends Error {
  readonly code = 'LEDGER.DUPLICATE_EVENT_ID';
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
}

/** Ledger stream of a transaction. */
export function transactionStream(reference: string): string {
  return `transaction-${reference}`;
}

/** Converts "number of events already in the stream" to an {@link ExpectedRevision}. */
export function expectedAfter(count: number): ExpectedRevision {
  return count === 0 ? 'no_stream' : count - 1;
}

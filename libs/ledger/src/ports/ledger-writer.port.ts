/**
 * The ledger writer port: what the ledger projector needs from a store, whatever the store
 * (docs/spec.md, section 1, "Immutable Ledger"; docs/ledger.md, "One port, two stores"). The projector
 * appends outcomes and grants; each store makes the read models and the settlement and
 * entitlement outboxes follow from what it committed:
 * - PostgreSQL ({@link PostgresLedgerWriter}): a session is one database transaction; the
 *   appends, the read models and the outbox commit together.
 * - An event store (KurrentDB; in memory for tests: {@link EventStoreLedgerWriter}): each append
 *   is its own commit; a checkpointed projection of `$all` ({@link CheckpointedLedgerProjection})
 *   updates the read models and enqueues the outbox in one PostgreSQL transaction per page,
 *   with its checkpoint, so each committed event is projected and published exactly once in effect.
 */
import type { DuplicateEventIdError, ExpectedRevision, LedgerEventInput, RecordedLedgerEvent, WrongExpectedRevisionError } from './ledger.port.js';
import type { LatestVerificationRow } from '../projection/ledger-projection.js';
import type { TraceCarrier } from '@settle/platform';

/** One stream's append within a session: the events, at the revision expected. */
export interface StreamAppend {
  streamId: string;
  events: readonly LedgerEventInput[];
  expected: ExpectedRevision;
  /**
   * The trace context of the work that appends (the consensus result's `process` span): never
   * stored in the ledger (a fact's record holds no observability data, and its hash must not
   * depend on it), but given to the outbox messages the appended events stand for, so the
   * settlement and entitlement records continue the checkout's trace. The PostgreSQL writer
   * honours it; on an event store the outbox is written later by the `$all` projection, which
   * has no trace context (docs/observability.md, "Traces").
   */
  trace?: TraceCarrier | undefined;
}

/**
 * What became of one append of a session:
 * - `appended`: the events are written (on PostgreSQL: when the session commits);
 * - `duplicate`: every event id was already in this stream (a redelivery): nothing written;
 * - `rejected`: the stream is not at the expected revision, or an event id is stored in
 *   another stream; nothing of this append is written, the others of the session are.
 */
export type AppendOutcome =
  { status: 'appended' } | { status: 'duplicate' } | { status: 'rejected'; error: WrongExpectedRevisionError | DuplicateEventIdError };

/** The projector's work on one batch, against one store (see {@link LedgerWriter.session}). */
export interface LedgerSession {
  /**
   * Records the verifier's latest answers (`read_model.latest_verification`), each unless a
   * later one is recorded: these are not ledger facts (answers that changed nothing are not
   * in the ledger) and commit with the session where the store can.
   */
  recordLatestVerifications(rows: readonly LatestVerificationRow[]): Promise<void>;
  /**
   * Every committed event of these streams, oldest first, by stream id: an entry for every id
   * asked (empty for a stream that does not exist). On PostgreSQL the streams are locked until
   * the session ends, so call this before appending to them: what is decided on the history
   * read stays true until the append. For a stream already appended to in the same session the
   * answer depends on the store (PostgreSQL: without those appends; an event store: with them),
   * so read a stream before appending to it, not after.
   */
  readStreams(streamIds: readonly string[]): Promise<Map<string, RecordedLedgerEvent[]>>;
  /**
   * Appends to streams in order; a later append to the same stream sees the earlier ones.
   * One append that cannot be is `rejected` without failing the others.
   *
   * @returns one outcome per append, in order.
   * @throws store errors (unreachable, time-out): transient, the whole session is abandoned
   *   (on PostgreSQL nothing of it is written).
   */
  append(appends: readonly StreamAppend[]): Promise<AppendOutcome[]>;
}

/** A ledger store as the projector writes to it. */
export interface LedgerWriter {
  /**
   * Runs `work` as one unit: on PostgreSQL one transaction, committed when `work` resolves
   * and rolled back when it throws; on an event store every append commits on its own, so a
   * `work` that throws after appending leaves those appends (a retry finds them `duplicate`).
   *
   * @returns what `work` returned, once the session's effects are durable.
   * @throws what `work` threw, and store errors (transient).
   */
  session<T>(work: (session: LedgerSession) => Promise<T>): Promise<T>;
}

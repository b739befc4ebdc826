import { createHash } from 'node:crypto';

/** Hash before the first event of a stream, and before the first event of the ledger. */
export const GENESIS_HASH = '0'.repeat(64);

/** What a ledger event's hash covers: everything an auditor reads, nothing the store derives. */
export interface HashedFields {
  streamId: string;
  revision: number;
  eventId: string;
  type: string;
  data: unknown;
  metadata: unknown;
  /** When the store recorded it; hashed as epoch milliseconds. */
  recordedAt: Date;
}

/**
 * Canonical JSON: object keys sorted at every depth, no whitespace, so the same value always
 * hashes the same whatever order a store (PostgreSQL `jsonb`, a JSON parser) gives the keys in.
 *
 * @throws TypeError for values JSON cannot represent exactly (non-finite numbers, bigints).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('a ledger value must be a finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  throw new TypeError(`a ledger value cannot be of type ${typeof value}`);
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The stream hash of an event: SHA-256 (hex) of the previous event's stream hash (or
 * {@link GENESIS_HASH} at revision 0), a newline, and the canonical JSON of the event's
 * fields. Any edit of the event, or of an earlier event of its stream, changes it.
 */
export function streamHash(previous: string, event: HashedFields): string {
  return sha256(
    `${previous}\n${canonicalJson({
      stream_id: event.streamId,
      revision: event.revision,
      event_id: event.eventId,
      type: event.type,
      data: event.data,
      metadata: event.metadata,
      recorded_at: event.recordedAt.getTime(),
    })}`,
  );
}

/**
 * The global hash at a position: SHA-256 (hex) of the previous position's global hash (or
 * {@link GENESIS_HASH} at the first position), a newline, the position and the event's stream
 * hash. It chains every event of every stream in global order, so a deletion, an insertion or
 * a reordering anywhere changes every later global hash.
 */
export function globalHash(previous: string, position: number, streamHashOfEvent: string): string {
  return sha256(`${previous}\n${position}\n${streamHashOfEvent}`);
}

/** The first place where a ledger's chains do not hold. */
export interface ChainBreak {
  position: number;
  streamId: string;
  revision: number;
  reason: 'STREAM_HASH_MISMATCH' | 'GLOBAL_HASH_MISMATCH' | 'POSITION_GAP' | 'REVISION_GAP' | 'HEAD_MISMATCH';
  expected: string;
  found: string;
}

/** An event as read back for verification. */
export interface ChainedEvent extends HashedFields {
  position: number;
  streamHash: string | null;
  globalHash: string | null;
}

/**
 * Verifies hash chains incrementally, event by event in global order: feed every event with
 * {@link ChainVerifier.check}; it returns the first break, or `null` while the chains hold.
 * Holds one hash per stream seen (memory grows with the number of streams, not events).
 */
export class ChainVerifier {
  private readonly streams = new Map<string, { revision: number; hash: string }>();
  private global = GENESIS_HASH;
  private lastPosition: number | null;
  /** Events checked so far. */
  checked = 0;

  /**
   * @param options.checkGlobal - verify the global chain (stores that keep one).
   * @param options.afterPosition - position of the event before the first one fed, when
   *   verifying from a checkpoint: with `globalAfter`, its global hash.
   */
  constructor(private readonly options: { checkGlobal: boolean; afterPosition?: number; globalAfter?: string } = { checkGlobal: true }) {
    this.lastPosition = options.afterPosition ?? null;
    if (options.globalAfter) this.global = options.globalAfter;
  }

  /** The global hash after the last event checked. */
  get head(): string {
    return this.global;
  }

  /** Whether an event of this stream was checked or seeded already. */
  knows(streamId: string): boolean {
    return this.streams.has(streamId);
  }

  /**
   * Starts a stream's chain mid-way, when verifying from a checkpoint: the stream hash of
   * its event at `revision` (before the checkpoint), read from the store. An edit of a later
   * event of the stream is still found; an edit at or before `revision` is left to a full
   * verification.
   */
  seed(streamId: string, revision: number, hash: string): void {
    this.streams.set(streamId, { revision, hash });
  }

  check(event: ChainedEvent): ChainBreak | null {
    const at = { position: event.position, streamId: event.streamId, revision: event.revision };
    this.checked += 1;
    if (this.options.checkGlobal && this.lastPosition !== null && event.position !== this.lastPosition + 1) {
      return { ...at, reason: 'POSITION_GAP', expected: String(this.lastPosition + 1), found: String(event.position) };
    }
    this.lastPosition = event.position;
    const previous = this.streams.get(event.streamId);
    const expectedRevision = previous ? previous.revision + 1 : 0;
    if (event.revision !== expectedRevision) {
      return { ...at, reason: 'REVISION_GAP', expected: String(expectedRevision), found: String(event.revision) };
    }
    const expectedStream = streamHash(previous?.hash ?? GENESIS_HASH, event);
    if (event.streamHash !== expectedStream) {
      return { ...at, reason: 'STREAM_HASH_MISMATCH', expected: expectedStream, found: String(event.streamHash) };
    }
    this.streams.set(event.streamId, { revision: event.revision, hash: expectedStream });
    if (this.options.checkGlobal) {
      const expectedGlobal = globalHash(this.global, event.position, expectedStream);
      if (event.globalHash !== expectedGlobal) {
        return { ...at, reason: 'GLOBAL_HASH_MISMATCH', expected: expectedGlobal, found: String(event.globalHash) };
      }
      this.global = expectedGlobal;
    }
    return null;
  }
}

import { GENESIS_HASH, globalHash, streamHash } from '../chain/hash-chain.js';
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

/** In-memory ledger for unit tests. Passes the same contract suite as the real stores. */
export class InMemoryLedger implements LedgerStore {
  private readonly all: RecordedLedgerEvent[] = [];
  private readonly streams = new Map<string, RecordedLedgerEvent[]>();
  private readonly ids = new Map<string, RecordedLedgerEvent>();

  async append(streamId: string, events: readonly LedgerEventInput[], expected: ExpectedRevision): Promise<AppendResult> {
    const stream = this.streams.get(streamId) ?? [];
    const current = stream.length - 1;
    const known = events.map((e) => this.ids.get(e.eventId));
    if (events.length > 0 && known.every((k) => k !== undefined && k.streamId === streamId)) {
      return { nextExpectedRevision: current, positions: known.map((k) => k!.position), duplicate: true };
    }
    const clash = known.find((k) => k !== undefined);
    if (clash) throw new DuplicateEventIdError(clash.eventId);
    if (expected !== 'any' && (expected === 'no_stream' ? stream.length !== 0 : expected !== current)) {
      throw new WrongExpectedRevisionError(streamId, expected, stream.length === 0 ? 'no_stream' : current);
    }
    const positions: number[] = [];
    const recordedAt = new Date();
    for (const event of events) {
      const copy = structuredClone(event);
      const revision = stream.length;
      const position = this.all.length + 1;
      const hash = streamHash(stream.at(-1)?.streamHash ?? GENESIS_HASH, { ...copy, streamId, revision, recordedAt });
      const recorded: RecordedLedgerEvent = {
        ...copy,
        streamId,
        revision,
        position,
        recordedAt,
        streamHash: hash,
        globalHash: globalHash(this.all.at(-1)?.globalHash ?? GENESIS_HASH, position, hash),
      };
      stream.push(recorded);
      this.all.push(recorded);
      this.ids.set(event.eventId, recorded);
      positions.push(recorded.position);
    }
    this.streams.set(streamId, stream);
    return { nextExpectedRevision: stream.length - 1, positions, duplicate: false };
  }

  async readStream(streamId: string): Promise<RecordedLedgerEvent[]> {
    return structuredClone(this.streams.get(streamId) ?? []);
  }

  async readAll(afterPosition: number, limit: number): Promise<RecordedLedgerEvent[]> {
    return structuredClone(this.all.slice(Math.max(0, afterPosition), Math.max(0, afterPosition) + limit));
  }

  subscribeToAll(afterPosition: number, handler: (event: RecordedLedgerEvent) => Promise<void>, options?: SubscribeOptions): LedgerSubscription {
    return pollingSubscription(this, afterPosition, handler, { pollIntervalMs: 10, ...options });
  }
}

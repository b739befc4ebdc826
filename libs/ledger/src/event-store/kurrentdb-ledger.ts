import {
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  KurrentDBClient,
  NO_STREAM,
  START,
  streamNameFilter,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AppendStreamState,
  type ReadPosition,
  type RecordedEvent,
} from '@kurrent/kurrentdb-client';
import { GENESIS_HASH, streamHash } from '../chain/hash-chain.js';
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type ExpectedRevision,
  type LedgerEventInput,
  type LedgerStore,
  type LedgerSubscription,
  type RecordedLedgerEvent,
  type SubscribeOptions,
} from '../ports/ledger.port.js';

/** Metadata keys the adapter adds to each event (and strips when reading). */
const RECORDED_AT = 'settle_recorded_at';
const STREAM_HASH = 'settle_stream_hash';

type StoredMetadata = LedgerEventInput['metadata'] & { [RECORDED_AT]?: number; [STREAM_HASH]?: string };

/** A port position from a KurrentDB log position: the event's prepare position (unique per event). */
function portPosition(position: { prepare: bigint } | undefined): number {
  return position ? Number(position.prepare) : -1;
}

/** Where to resume reading `$all` after a port position (KurrentDB's `fromPosition` is inclusive). */
function readPositionAfter(afterPosition: number): ReadPosition {
  return afterPosition <= 0 ? START : { commit: BigInt(afterPosition), prepare: BigInt(afterPosition) };
}

function toRecorded(event: RecordedEvent): RecordedLedgerEvent {
  const { [RECORDED_AT]: recordedAt, [STREAM_HASH]: hash, ...metadata } = (event.metadata ?? {}) as StoredMetadata;
  return {
    eventId: event.id,
    type: event.type,
    data: event.data as Record<string, unknown>,
    metadata: metadata,
    streamId: event.streamId,
    revision: Number(event.revision),
    position: portPosition(event.position),
    recordedAt: new Date(recordedAt ?? event.created.getTime()),
    streamHash: hash ?? '',
    globalHash: null,
  };
}

/**
 * The ledger on EventStoreDB/KurrentDB (`@kurrent/kurrentdb-client`, gRPC; EventStoreDB 20+
 * and KurrentDB). Streams, revisions, optimistic concurrency and idempotent appends by event
 * id are the server's own; the adapter adds the per-stream SHA-256 chain in each event's
 * metadata (`settle_stream_hash`, over `settle_recorded_at`, the adapter's clock). Differences
 * from the PostgreSQL store, documented in docs/ledger.md:
 * - no global chain (`globalHash` is `null`): the server's `$all` log orders events, and
 *   appends to different streams are not serialised through a head;
 * - positions are the events' prepare positions in the log (increasing, not gapless); reading
 *   them needs EventStoreDB/KurrentDB 22.6 or later (older servers return none: -1);
 * - an event id reused in another stream is not refused (the server only de-duplicates within
 *   a stream).
 */
export class KurrentDbLedger implements LedgerStore {
  private readonly client: KurrentDBClient;

  /** @param connectionString - for example `kurrentdb://localhost:2113?tls=false`. */
  constructor(connectionString: string) {
    this.client = KurrentDBClient.connectionString`${connectionString}`;
  }

  async append(streamId: string, events: readonly LedgerEventInput[], expected: ExpectedRevision): Promise<AppendResult> {
    const existing = await this.readStream(streamId);
    const current = existing.length - 1;
    const known = new Map(existing.map((e) => [e.eventId, e]));
    if (events.length > 0 && events.every((e) => known.has(e.eventId))) {
      return { nextExpectedRevision: current, positions: events.map((e) => known.get(e.eventId)!.position), duplicate: true };
    }
    if (expected !== 'any' && (expected === 'no_stream' ? current !== -1 : expected !== current)) {
      throw new WrongExpectedRevisionError(streamId, expected, current === -1 ? 'no_stream' : current);
    }
    const recordedAt = new Date();
    let previous = existing.at(-1)?.streamHash ?? GENESIS_HASH;
    let revision = current;
    const data = events.map((event) => {
      revision += 1;
      previous = streamHash(previous, { streamId, revision, eventId: event.eventId, type: event.type, data: event.data, metadata: event.metadata, recordedAt });
      return jsonEvent({
        id: event.eventId,
        type: event.type,
        data: event.data,
        metadata: { ...event.metadata, [RECORDED_AT]: recordedAt.getTime(), [STREAM_HASH]: previous },
      });
    });
    // The state read above, exactly: a concurrent writer makes the server refuse, so the
    // chain never forks even for an `any` append.
    const streamState: AppendStreamState = current === -1 ? NO_STREAM : BigInt(current);
    try {
      const result = await this.client.appendToStream(streamId, data, { streamState });
      const written = await this.readStream(streamId);
      return {
        nextExpectedRevision: Number(result.nextExpectedRevision),
        positions: written.slice(current + 1, current + 1 + events.length).map((e) => e.position),
        duplicate: false,
      };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) throw new WrongExpectedRevisionError(streamId, expected, current === -1 ? 'no_stream' : current);
      throw error;
    }
  }

  async readStream(streamId: string): Promise<RecordedLedgerEvent[]> {
    const out: RecordedLedgerEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, { fromRevision: START, direction: FORWARDS })) {
        if (resolved.event) out.push(toRecorded(resolved.event));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return out;
  }

  async readAll(afterPosition: number, limit: number): Promise<RecordedLedgerEvent[]> {
    const out: RecordedLedgerEvent[] = [];
    const events = this.client.readAll({
      fromPosition: readPositionAfter(afterPosition),
      direction: FORWARDS,
      maxCount: limit + 1,
      filter: excludeSystemEvents(),
    });
    for await (const resolved of events) {
      if (!resolved.event || portPosition(resolved.event.position) <= afterPosition) continue;
      out.push(toRecorded(resolved.event));
      if (out.length === limit) break;
    }
    return out;
  }

  /**
   * A catch-up subscription to `$all` (system events excluded). `options.streamPrefix` becomes
   * the server's stream-name prefix filter, so only matching events cross the network;
   * `pollIntervalMs` and `batchSize` do not apply (the server pushes).
   */
  subscribeToAll(afterPosition: number, handler: (event: RecordedLedgerEvent) => Promise<void>, options?: SubscribeOptions): LedgerSubscription {
    const prefix = options?.streamPrefix;
    const subscription = this.client.subscribeToAll({
      fromPosition: readPositionAfter(afterPosition),
      filter: prefix === undefined ? excludeSystemEvents() : streamNameFilter({ prefixes: [prefix] }),
    });
    let reportFailure: (error: Error) => void = () => undefined;
    const failed = new Promise<Error>((resolve) => {
      reportFailure = resolve;
    });
    let running = true;
    const loop = (async () => {
      try {
        for await (const resolved of subscription) {
          if (!running) break;
          if (!resolved.event || portPosition(resolved.event.position) <= afterPosition) continue;
          await handler(toRecorded(resolved.event));
        }
        // A catch-up subscription never ends by itself: an end we did not ask for is a failure.
        if (running) reportFailure(new Error('the KurrentDB subscription ended'));
      } catch (error) {
        if (running) reportFailure(error instanceof Error ? error : new Error(String(error)));
      } finally {
        running = false;
        await subscription.unsubscribe().catch(() => undefined);
      }
    })();
    return {
      failed,
      async stop() {
        running = false;
        await subscription.unsubscribe().catch(() => undefined);
        await loop;
      },
    };
  }

  /** Closes the gRPC channel. */
  async close(): Promise<void> {
    await this.client.dispose();
  }
}

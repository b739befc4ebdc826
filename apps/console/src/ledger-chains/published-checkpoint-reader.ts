import {
  CheckpointSinkError,
  FolderCheckpointSink,
  NoteError,
  openPublishedCheckpoints,
  readCheckedEvents,
  type CheckedEvent,
  type CheckpointSink,
  type VerifiableLedger,
} from '@settle/ledger';
import type { Pool } from '@settle/platform';
import { checkedEventsOf, type CheckedEventReader, type CheckpointReading } from './ledger-verification.js';

/** Where the console reads the signed checkpoints from (docs/console.md, "Ledger verification"). */
export interface CheckpointSinkSettings {
  /** The sink's folder (`LEDGER_CHECKPOINT_DIR`); `null`: none configured. */
  dir: string | null;
  /** The ledger's origin the checkpoints must name (`LEDGER_ORIGIN`). */
  origin: string;
  /** The verifier keys to trust (`LEDGER_CHECKPOINT_KEYS`); empty: the sink's own `keys/`. */
  trustedKeys: readonly string[];
}

/**
 * Reads the signed checkpoints of the checkpoint sink for the console's verification, read only
 * (`openPublishedCheckpoints`): each note signed by a trusted key, well formed, of this ledger
 * and filed under its size, or the first that is not. It never throws for the sink: no sink
 * configured, a sink that cannot be read (`CHECKPOINT_SINK.UNAVAILABLE`), a trusted key that is
 * malformed and a sink with no checkpoint yet answer `not_checked` with the reason, so that the
 * chains are still verified.
 */
export class PublishedCheckpointReader {
  private readonly sink: CheckpointSink | null;

  /** @param sink - the sink itself instead of `settings.dir`'s folder (tests). */
  constructor(
    private readonly settings: CheckpointSinkSettings,
    sink?: CheckpointSink,
  ) {
    this.sink = sink ?? (settings.dir ? new FolderCheckpointSink(settings.dir) : null);
  }

  /**
   * The checkpoints in the sink of a size above `after` (every one by default), opened: an
   * incremental run reads only those above the tree edge it continues from.
   *
   * @throws only what is not the sink's nor a key's fault (a bug).
   */
  async read(after = 0): Promise<CheckpointReading> {
    if (!this.sink) return { status: 'not_checked', why: 'LEDGER_CHECKPOINT_DIR is not set' };
    try {
      const published = await openPublishedCheckpoints(this.sink, this.settings.origin, this.settings.trustedKeys, { after });
      if (published.status === 'broken') return published;
      if (published.checkpoints.length === 0 && after === 0) return { status: 'not_checked', why: `no signed checkpoint in ${this.sink.describe} yet` };
      return published;
    } catch (error) {
      if (error instanceof CheckpointSinkError) return { status: 'not_checked', why: error.message };
      if (error instanceof NoteError) {
        const from = this.settings.trustedKeys.length > 0 ? 'LEDGER_CHECKPOINT_KEYS' : `${this.sink.describe}/keys`;
        return { status: 'not_checked', why: `a verifier key in ${from} is malformed: ${error.message}` };
      }
      throw error;
    }
  }
}

/**
 * A {@link CheckedEventReader} for a PostgreSQL ledger: from the first event (a full run) through
 * `readCheckedEvents`, which reads only position, stream hash and global hash; after a position
 * (an incremental run, a minute's events) through the ledger's own `readAll`.
 *
 * @throws RangeError (when iterated) for an event without hashes (a row written before the chains existed).
 */
export function postgresCheckedEvents(pool: Pool, ledger: Pick<VerifiableLedger, 'readAll'>): CheckedEventReader {
  const afterPosition = checkedEventsOf(ledger);
  return (after, upTo) => (after === 0 ? upToPosition(readCheckedEvents(pool), upTo) : afterPosition(after, upTo));
}

async function* upToPosition(events: AsyncIterable<CheckedEvent>, upTo: number): AsyncGenerator<CheckedEvent> {
  for await (const event of events) {
    if (event.position > upTo) return;
    yield event;
  }
}

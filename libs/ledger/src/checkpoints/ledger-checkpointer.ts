import type { Pool } from '@settle/platform';
import { signLedgerCheckpoint, type LedgerCheckpoint } from '../chain/ledger-checkpoints.js';
import { CHECKPOINT_STREAM, ledgerCheckpointedEvent, ledgerCheckpointedOf, type LedgerCheckpointedData } from '../events/ledger-checkpointed.js';
import type { LedgerWriter } from '../ports/ledger-writer.port.js';
import type { PostgresMerkleLog } from '../postgres/postgres-merkle-log.js';
import type { CheckpointKeySource } from './checkpoint-key.js';
import { CheckpointSinkError, type CheckpointSink } from './checkpoint-sink.js';

/** The global hash before the first event. */
const ZERO_HASH = '0'.repeat(64);

/** Checkpoint facts read per page, newest first, when the sink catches up. */
const SINK_PAGE = 100;

/** The advisory lock that lets one checkpointer run at a time across the projector's replicas and the command line. */
const CHECKPOINTER_LOCK = "hashtext('settle.ledger.checkpointer')";

/** What {@link LedgerCheckpointer.checkpoint} did. */
export type CheckpointOutcome =
  | { status: 'made'; checkpoint: LedgerCheckpointedData }
  /** Nothing but checkpoints was appended since the last one (or the ledger is empty): none made. */
  | { status: 'nothing_new'; last: LedgerCheckpointedData | null }
  /** Another checkpointer (a replica, the command line) holds the lock: it checkpoints now. */
  | { status: 'busy' };

/** What {@link LedgerCheckpointer.publish} did: checkpoints written to the sink now. */
export interface SinkCatchUp {
  written: number;
}

/**
 * Makes the ledger's signed checkpoints on PostgreSQL (docs/ledger.md, "Checkpoints"; issue
 * "signed checkpoints outside the database"): extends the Merkle tree over the global log off the
 * append path ({@link PostgresMerkleLog.extend}, never under the head's lock), signs the tree's
 * size and root with the global hash at that size and the time, appends the signed note as a
 * `LedgerCheckpointed` fact (its outbox record goes to the compacted checkpoints topic in the same
 * transaction), then writes it to the checkpoint sink. A sink that fails leaves the ledger working:
 * the fact is committed, and {@link LedgerCheckpointer.publish} writes what the sink misses the next
 * time it is called.
 */
export class LedgerCheckpointer {
  /**
   * @param origin - the ledger's name, `settle.dev/ledger/<deployment>` (docs/ledger.md).
   * @param now - the clock, epoch milliseconds.
   */
  constructor(
    private readonly pool: Pool,
    private readonly writer: LedgerWriter,
    private readonly merkle: PostgresMerkleLog,
    private readonly key: CheckpointKeySource,
    private readonly sink: CheckpointSink | null,
    private readonly origin: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Makes a checkpoint when anything but checkpoints was appended since the last one (the
   * timer's tick and an operator's `./settle ledger checkpoint` alike). Does not touch the sink:
   * call {@link LedgerCheckpointer.publish} after.
   *
   * @throws the vault's errors (no key can be read), `NoteError` for a key that is not a
   *   signer key, database errors; an append the ledger rejects (a checkpoint fact with the same
   *   id and other content).
   */
  async checkpoint(): Promise<CheckpointOutcome> {
    // One checkpointer at a time (a session lock on a connection of its own, released at the end).
    const lock = await this.pool.connect();
    try {
      const { rows } = await lock.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${CHECKPOINTER_LOCK}) AS locked`);
      if (!rows[0]?.locked) return { status: 'busy' };
      try {
        return await this.checkpointLocked();
      } finally {
        await lock.query(`SELECT pg_advisory_unlock(${CHECKPOINTER_LOCK})`);
      }
    } finally {
      lock.release();
    }
  }

  private async checkpointLocked(): Promise<CheckpointOutcome> {
    const last = await this.lastCheckpoint();
    const { rows } = await this.pool.query<{ position: string }>('SELECT position FROM ledger.head');
    const head = Number(rows[0]?.position ?? 0);
    if (head === 0 || (last !== null && head <= last.position)) return { status: 'nothing_new', last: last?.data ?? null };
    const tree = await this.merkle.extend();
    if (last !== null && tree.size <= last.data.size) return { status: 'nothing_new', last: last.data };
    const globalHash = tree.size === 0 ? ZERO_HASH : await this.globalHashAt(tree.size);
    const { signer, verifierKey } = await this.key.current();
    const content: LedgerCheckpoint = { origin: this.origin, size: tree.size, root: tree.root, globalHash, at: this.now() };
    const data: LedgerCheckpointedData = {
      origin: content.origin,
      size: content.size,
      root: content.root.toString('hex'),
      global_hash: globalHash,
      at: new Date(content.at).toISOString(),
      key: verifierKey,
      note: signLedgerCheckpoint(content, [signer]),
    };
    const [outcome] = await this.writer.session((session) =>
      session.append([{ streamId: CHECKPOINT_STREAM, events: [ledgerCheckpointedEvent(data)], expected: 'any' }]),
    );
    if (outcome?.status === 'rejected') throw outcome.error;
    // Stored already (a retry after a commit whose answer was lost): the note stored stands, not this one.
    if (outcome?.status === 'duplicate') return { status: 'nothing_new', last: (await this.lastCheckpoint())?.data ?? null };
    return { status: 'made', checkpoint: data };
  }

  /**
   * Writes to the sink the checkpoints of the ledger it does not hold yet, oldest first, after the
   * public keys that signed them: it pages back from the newest fact until one the sink holds, and
   * checks that one holds the same note (a different one is `CHECKPOINT_SINK.CONFLICT`: after a
   * database restored to an earlier time, for example, the ledger signed a size twice).
   *
   * @returns how many were written.
   * @throws CheckpointSinkError when no sink is configured, it is missing, refuses a write or
   *   holds another note under a size; database errors.
   */
  async publish(): Promise<SinkCatchUp> {
    const sink = this.sink;
    if (!sink) throw new CheckpointSinkError('CHECKPOINT_SINK.UNAVAILABLE', 'no checkpoint sink is configured (LEDGER_CHECKPOINT_DIR)');
    const missing: LedgerCheckpointedData[] = [];
    let before = Number.MAX_SAFE_INTEGER;
    paging: for (;;) {
      const { rows } = await this.pool.query<{ data: unknown; event_id: string; position: string; event_type: string; revision: string }>(
        'SELECT event_id, position, event_type, data, revision FROM ledger.events WHERE stream_id = $1 AND revision < $2 ORDER BY revision DESC LIMIT $3',
        [CHECKPOINT_STREAM, before, SINK_PAGE],
      );
      for (const row of rows) {
        const data = ledgerCheckpointedOf({
          eventId: row.event_id,
          position: Number(row.position),
          type: row.event_type,
          data: row.data as Record<string, unknown>,
        });
        if (await sink.has(data.size)) {
          // The same bytes written again is a no-op; another note there is refused.
          await sink.write(data.size, data.note);
          break paging;
        }
        missing.push(data);
        before = Number(row.revision);
      }
      if (rows.length < SINK_PAGE) break;
    }
    if (missing.length === 0) return { written: 0 };
    // Each note's public key first (a key rotated since signed the older ones), once each.
    for (const verifierKey of new Set(missing.map((m) => m.key))) await sink.publishKey(verifierKey);
    let written = 0;
    for (const data of missing.reverse()) {
      await sink.write(data.size, data.note);
      written++;
    }
    return { written };
  }

  /** The newest checkpoint fact and its position, or `null` before the first. */
  private async lastCheckpoint(): Promise<{ data: LedgerCheckpointedData; position: number } | null> {
    const { rows } = await this.pool.query<{ data: unknown; event_id: string; position: string; event_type: string }>(
      'SELECT event_id, position, event_type, data FROM ledger.events WHERE stream_id = $1 ORDER BY revision DESC LIMIT 1',
      [CHECKPOINT_STREAM],
    );
    const row = rows[0];
    if (!row) return null;
    const position = Number(row.position);
    return { position, data: ledgerCheckpointedOf({ eventId: row.event_id, position, type: row.event_type, data: row.data as Record<string, unknown> }) };
  }

  private async globalHashAt(position: number): Promise<string> {
    const { rows } = await this.pool.query<{ global_hash: string }>('SELECT global_hash FROM ledger.events WHERE position = $1', [position]);
    const hash = rows[0]?.global_hash;
    if (!hash) throw new RangeError(`the ledger has no event at position ${position}`);
    return hash;
  }
}

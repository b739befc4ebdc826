import { ledgerLeafHash, MerkleFrontier, type MerkleHash } from './merkle-tree.js';
import { formatCheckpoint, NoteError, openNote, parseCheckpoint, signNote, type CheckpointBody, type NoteSigner, type NoteVerifier } from './signed-note.js';

/**
 * The ledger's checkpoints (docs/ledger.md, "Checkpoints"): a signed statement, in the
 * transparency logs' checkpoint format, that the ledger's first `size` events have the Merkle root
 * `root`, with the global chain's hash at that position and the time it was made. What one
 * reads from outside the database to tell a history rewritten (and recomputed, so consistent in
 * itself) from the one that was signed.
 */

/** A ledger checkpoint's content. */
export interface LedgerCheckpoint {
  /** The ledger's name: `settle.dev/ledger/<deployment>`. */
  origin: string;
  /** Events covered: positions 1 to `size`. */
  size: number;
  /** The Merkle root over them (RFC 9162). */
  root: MerkleHash;
  /** The global chain's hash at position `size` (`ledger.head` then), 64 hex digits. */
  globalHash: string;
  /** When it was made, epoch milliseconds. */
  at: number;
}

/** The checkpoint's text (`tlog-checkpoint`): origin, size, root, then `global <hash>` and `time <epoch ms>`. */
/**
 * @throws RangeError for a global hash that is not 64 hex digits or a time that is not epoch
 *   milliseconds; NoteError `NOTE.INVALID` for a malformed origin, size or root.
 */
export function ledgerCheckpointText(checkpoint: LedgerCheckpoint): string {
  if (!/^[0-9a-f]{64}$/.test(checkpoint.globalHash)) throw new RangeError('a global hash is 64 lower-case hex digits');
  if (!Number.isSafeInteger(checkpoint.at) || checkpoint.at < 0) throw new RangeError('a checkpoint’s time is epoch milliseconds');
  const body: CheckpointBody = {
    origin: checkpoint.origin,
    size: checkpoint.size,
    root: checkpoint.root,
    extensions: [`global ${checkpoint.globalHash}`, `time ${checkpoint.at}`],
  };
  return formatCheckpoint(body);
}

/** Signs a checkpoint with the ledger's key (and any other signer given): the note to publish. */
export function signLedgerCheckpoint(checkpoint: LedgerCheckpoint, signers: readonly NoteSigner[]): string {
  return signNote(ledgerCheckpointText(checkpoint), signers);
}

/**
 * Opens a published checkpoint with the keys the verifier accepts (the ledger's current key and
 * those retired, kept for verification).
 *
 * @throws NoteError `NOTE.INVALID` (malformed, or without its `global` and `time` lines) or
 *   `NOTE.UNVERIFIED` (no signature by a key given verifies, one is forged, or none is by a key
 *   named after the checkpoint's origin).
 */
export function openLedgerCheckpoint(note: string, verifiers: readonly NoteVerifier[]): LedgerCheckpoint {
  const { text, signatures } = openNote(note, verifiers);
  const body = parseCheckpoint(text);
  // A ledger's key is named after its origin: another ledger's key (kept by a verifier of both) never vouches for this one.
  if (!signatures.some((s) => s.name === body.origin)) throw new NoteError('NOTE.UNVERIFIED', `no signature by a key of ${body.origin}`);
  const global = body.extensions.find((line) => /^global [0-9a-f]{64}$/.test(line));
  const time = body.extensions.find((line) => /^time (0|[1-9][0-9]*)$/.test(line));
  if (!global || !time) throw new NoteError('NOTE.INVALID', 'a ledger checkpoint names its global hash and its time');
  return { origin: body.origin, size: body.size, root: body.root, globalHash: global.slice('global '.length), at: Number(time.slice('time '.length)) };
}

/** One event as the check reads it: its global position, stream hash and global hash. */
export interface CheckedEvent {
  position: number;
  streamHash: string;
  globalHash: string;
}

/** Where the ledger disagrees with a checkpoint it was checked against. */
export interface CheckpointDisagreement {
  /** The checkpoint's size. */
  size: number;
  reason: 'ROOT_MISMATCH' | 'GLOBAL_HASH_MISMATCH' | 'LEDGER_SHORTER';
  /** What the checkpoint says (hex), and what the ledger gives (hex; empty when it is shorter). */
  expected: string;
  found: string;
}

/**
 * Checks a ledger's events against signed checkpoints (already opened): recomputes the Merkle
 * tree from the events themselves, in position order (never from stored nodes, which whoever
 * rewrote the events could have rebuilt too), and compares its root, and the global hash, at each
 * checkpoint's size. A history rewritten after a checkpoint was published disagrees with it,
 * however consistent its chains are in themselves.
 *
 * An incremental check starts from `start`, the tree's edge at a size checked before (a reader
 * that kept it): `events` then begin after that size, and checkpoints at or below it are not
 * checked again. A `start` that was itself forged (recomputed over a rewritten history) leads to
 * a root that disagrees with the next checkpoint, so keeping it where the database's
 * administrators can write it weakens nothing but the time to detection.
 *
 * @param events - every event after `start`'s size (from position 1 by default), in order (the ledger's own reader).
 * @param checkpoints - in any order; checked from the smallest size.
 * @param start - the tree's edge to continue from; empty by default.
 * @returns how many events were read (`events`, after `start`), checkpoints checked, the first
 *   disagreement, and the tree's edge after the last event read (to continue from next time).
 * @throws RangeError when the events skip a position.
 */
export async function verifyAgainstCheckpoints(
  events: AsyncIterable<CheckedEvent>,
  checkpoints: readonly LedgerCheckpoint[],
  start: MerkleFrontier = MerkleFrontier.empty(),
): Promise<{ events: number; checkpoints: number; disagreement: CheckpointDisagreement | null; frontier: MerkleFrontier }> {
  const frontier = start.clone();
  const from = frontier.size;
  const pending = checkpoints.filter((c) => c.size > from || (from === 0 && c.size === 0)).sort((a, b) => a.size - b.size);
  let checked = 0;
  const compare = (checkpoint: LedgerCheckpoint, globalHash: string): CheckpointDisagreement | null => {
    const root = frontier.root();
    if (!root.equals(checkpoint.root))
      return { size: checkpoint.size, reason: 'ROOT_MISMATCH', expected: checkpoint.root.toString('hex'), found: root.toString('hex') };
    if (checkpoint.size > 0 && globalHash !== checkpoint.globalHash) {
      return { size: checkpoint.size, reason: 'GLOBAL_HASH_MISMATCH', expected: checkpoint.globalHash, found: globalHash };
    }
    checked++;
    return null;
  };
  const result = (disagreement: CheckpointDisagreement | null) => ({ events: frontier.size - from, checkpoints: checked, disagreement, frontier });
  while (pending[0]?.size === 0) {
    const found = compare(pending.shift()!, '0'.repeat(64));
    if (found) return result(found);
  }
  for await (const event of events) {
    if (event.position !== frontier.size + 1) throw new RangeError(`the events skip from position ${frontier.size} to ${event.position}`);
    frontier.append(ledgerLeafHash(event.position, event.streamHash));
    while (pending[0]?.size === frontier.size) {
      const found = compare(pending.shift()!, event.globalHash);
      if (found) return result(found);
    }
  }
  const beyond = pending[0];
  if (beyond) return result({ size: beyond.size, reason: 'LEDGER_SHORTER', expected: beyond.root.toString('hex'), found: '' });
  return result(null);
}

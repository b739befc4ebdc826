/**
 * Checking a ledger against its signed checkpoints (docs/ledger.md, "Checkpoints"): the
 * tampering table's rows a superuser can reach, each against checkpoints published before it.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  openLedgerCheckpoint,
  signLedgerCheckpoint,
  verifyAgainstCheckpoints,
  type CheckedEvent,
  type LedgerCheckpoint,
} from '../src/chain/ledger-checkpoints.js';
import { inclusionProof, ledgerLeafHash, merkleRoot } from '../src/chain/merkle-tree.js';
import { generateNoteKey, parseSignerKey, parseVerifierKey } from '../src/chain/signed-note.js';
// The receiver kit as customers install it (it ships on its own, so it is not a workspace alias).
import { verifyReceipt } from '../../receiver/src/index.js';

const ORIGIN = 'settle.dev/ledger/test';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** A log of `n` events with chained global hashes. */
function log(n: number, edit?: { position: number; streamHash: string }): CheckedEvent[] {
  const events: CheckedEvent[] = [];
  let global = '0'.repeat(64);
  for (let position = 1; position <= n; position++) {
    const streamHash = edit?.position === position ? edit.streamHash : sha(`event ${position}`);
    global = sha(`${global}\n${position}\n${streamHash}`);
    events.push({ position, streamHash, globalHash: global });
  }
  return events;
}

async function* each(events: readonly CheckedEvent[]): AsyncIterable<CheckedEvent> {
  for (const e of events) yield e;
}

/** The checkpoint of the first `size` events of `events`. */
function checkpointOf(events: readonly CheckedEvent[], size: number): LedgerCheckpoint {
  const leaves = events.slice(0, size).map((e) => ledgerLeafHash(e.position, e.streamHash));
  return {
    origin: ORIGIN,
    size,
    root: merkleRoot(leaves),
    globalHash: size === 0 ? '0'.repeat(64) : events[size - 1]!.globalHash,
    at: 1_795_000_000_000 + size,
  };
}

describe('a ledger checked against its signed checkpoints', () => {
  const honest = log(40);
  const published = [0, 10, 25, 40].map((size) => checkpointOf(honest, size));

  it('agrees with every checkpoint while untouched', async () => {
    const result = await verifyAgainstCheckpoints(each(honest), published);
    expect(result).toMatchObject({ events: 40, checkpoints: 4, disagreement: null });
    expect(result.frontier.root().equals(published[3]!.root)).toBe(true);
  });

  it('continues from the tree’s edge kept at a size checked before: only later events are read, only later checkpoints checked', async () => {
    const first = await verifyAgainstCheckpoints(each(honest.slice(0, 18)), published.slice(0, 2));
    expect(first).toMatchObject({ events: 18, checkpoints: 2, disagreement: null });
    const next = await verifyAgainstCheckpoints(each(honest.slice(18)), published, first.frontier);
    expect(next).toMatchObject({ events: 22, checkpoints: 2, disagreement: null });
    expect(next.frontier.size).toBe(40);
    // The edge given is not changed.
    expect(first.frontier.size).toBe(18);
  });

  it('an edge recomputed over a rewritten history is caught at the next checkpoint', async () => {
    const rewritten = log(40, { position: 5, streamHash: sha('an edited event') });
    const forged = await verifyAgainstCheckpoints(each(rewritten.slice(0, 18)), []);
    const next = await verifyAgainstCheckpoints(each(honest.slice(18)), published, forged.frontier);
    expect(next.disagreement).toMatchObject({ size: 25, reason: 'ROOT_MISMATCH' });
  });

  it('a history rewritten and fully recomputed (every later hash) disagrees with the first checkpoint after the edit', async () => {
    const rewritten = log(40, { position: 17, streamHash: sha('an edited event') });
    const result = await verifyAgainstCheckpoints(each(rewritten), published);
    expect(result.disagreement).toMatchObject({ size: 25, reason: 'ROOT_MISMATCH', expected: published[2]!.root.toString('hex') });
    expect(result.checkpoints).toBe(2);
  });

  it('newest events deleted: the ledger is shorter than a checkpoint', async () => {
    const result = await verifyAgainstCheckpoints(each(honest.slice(0, 30)), published);
    expect(result.disagreement).toMatchObject({ size: 40, reason: 'LEDGER_SHORTER' });
  });

  it('a global chain that disagrees at a checkpoint’s size is reported even when the leaves agree', async () => {
    const result = await verifyAgainstCheckpoints(each(honest), [{ ...published[1]!, globalHash: 'ab'.repeat(32) }]);
    expect(result.disagreement).toMatchObject({ size: 10, reason: 'GLOBAL_HASH_MISMATCH' });
  });

  it('refuses events that skip a position', async () => {
    await expect(verifyAgainstCheckpoints(each([honest[0]!, honest[2]!]), published)).rejects.toThrow(RangeError);
  });
});

describe('signed ledger checkpoints', () => {
  const current = generateNoteKey(ORIGIN);
  const retired = generateNoteKey(ORIGIN);
  const checkpoint = checkpointOf(log(12), 12);

  it('open with the current key, and with a retired one kept for verification', () => {
    const verifiers = [parseVerifierKey(current.verifier), parseVerifierKey(retired.verifier)];
    expect(openLedgerCheckpoint(signLedgerCheckpoint(checkpoint, [parseSignerKey(current.signer)]), verifiers)).toEqual(checkpoint);
    expect(openLedgerCheckpoint(signLedgerCheckpoint(checkpoint, [parseSignerKey(retired.signer)]), verifiers)).toEqual(checkpoint);
  });

  it('refuse a bad signature, an unknown key and an edited checkpoint', () => {
    const verifiers = [parseVerifierKey(current.verifier)];
    const note = signLedgerCheckpoint(checkpoint, [parseSignerKey(current.signer)]);
    expect(() => openLedgerCheckpoint(signLedgerCheckpoint(checkpoint, [parseSignerKey(retired.signer)]), verifiers)).toThrow(
      expect.objectContaining({ code: 'NOTE.UNVERIFIED' }) as unknown,
    );
    expect(() => openLedgerCheckpoint(note.replace(`\n12\n`, `\n13\n`), verifiers)).toThrow(expect.objectContaining({ code: 'NOTE.UNVERIFIED' }) as unknown);
    const sig = note.split('\n').at(-2)!;
    const blob = Buffer.from(sig.split(' ')[2]!, 'base64');
    blob[20]! ^= 0xff;
    const forged = note.replace(sig, `${sig.split(' ').slice(0, 2).join(' ')} ${blob.toString('base64')}`);
    expect(() => openLedgerCheckpoint(forged, verifiers)).toThrow(expect.objectContaining({ code: 'NOTE.UNVERIFIED' }) as unknown);
  });
});

describe('a key of another ledger', () => {
  const staging = generateNoteKey('settle.dev/ledger/staging');
  const checkpoint = checkpointOf(log(12), 12);
  const note = signLedgerCheckpoint(checkpoint, [parseSignerKey(staging.signer)]);

  it('never vouches for this ledger’s checkpoints, even when trusted: a key is named after its origin', () => {
    expect(() => openLedgerCheckpoint(note, [parseVerifierKey(staging.verifier)])).toThrow(expect.objectContaining({ code: 'NOTE.UNVERIFIED' }) as unknown);
  });

  it('nor in the receiver kit', () => {
    const events = log(12);
    const leaves = events.map((e) => ledgerLeafHash(e.position, e.streamHash));
    const proof = {
      event_id: 'e',
      receipt: { ledger_position: 3, ledger_hash: events[2]!.streamHash },
      checkpoint: note,
      tree_size: 12,
      leaf_index: 2,
      inclusion_proof: inclusionProof(leaves, 2).map((h) => h.toString('hex')),
    };
    const receipt = { eventId: 'e', ledgerPosition: 3, ledgerHash: events[2]!.streamHash };
    expect(verifyReceipt(receipt, proof, [staging.verifier])).toMatchObject({ verified: false, reason: 'UNSIGNED' });
  });
});

describe('the receiver kit’s receipt check against the ledger’s own proofs', () => {
  const key = generateNoteKey(ORIGIN);
  const signer = parseSignerKey(key.signer);

  it('accepts the proof of every event of every tree of 1 to 40 events, and refuses it one event off or with a hash too many', () => {
    const events = log(40);
    const leaves = events.map((e) => ledgerLeafHash(e.position, e.streamHash));
    for (let size = 1; size <= 40; size++) {
      const note = signLedgerCheckpoint(checkpointOf(events, size), [signer]);
      for (let index = 0; index < size; index++) {
        const hashes = inclusionProof(leaves, index, size).map((h) => h.toString('hex'));
        const receipt = { eventId: 'e', ledgerPosition: index + 1, ledgerHash: events[index]!.streamHash };
        const proof = {
          event_id: 'e',
          receipt: { ledger_position: index + 1, ledger_hash: events[index]!.streamHash },
          checkpoint: note,
          tree_size: size,
          leaf_index: index,
          inclusion_proof: hashes,
        };
        expect(verifyReceipt(receipt, proof, [key.verifier], { origin: ORIGIN }).verified, `${index} of ${size}`).toBe(true);
        expect(verifyReceipt(receipt, { ...proof, inclusion_proof: [...hashes, hashes[0] ?? 'ab'.repeat(32)] }, [key.verifier]).verified).toBe(false);
        if (size > 1) {
          const other = (index + 1) % size;
          const wrong = { eventId: 'e', ledgerPosition: index + 1, ledgerHash: events[other]!.streamHash };
          expect(verifyReceipt(wrong, { ...proof, receipt: { ...proof.receipt, ledger_hash: events[other]!.streamHash } }, [key.verifier]).verified).toBe(
            false,
          );
        }
      }
    }
  });

  it('answers malformed input with a verdict, never an exception', () => {
    const receipt = { eventId: 'e', ledgerPosition: 1, ledgerHash: 'ab'.repeat(32) };
    expect(verifyReceipt(receipt, null as never, [key.verifier])).toMatchObject({ verified: false, reason: 'MALFORMED' });
    expect(
      verifyReceipt(
        receipt,
        { event_id: 'e', receipt: { ledger_position: 1, ledger_hash: 'ab'.repeat(32) }, checkpoint: 'x\n\n', tree_size: 1, leaf_index: 0, inclusion_proof: [] },
        [42 as never],
      ),
    ).toMatchObject({ verified: false });
  });
});

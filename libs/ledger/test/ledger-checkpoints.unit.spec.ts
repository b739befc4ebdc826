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
import { ledgerLeafHash, merkleRoot } from '../src/chain/merkle-tree.js';
import { generateNoteKey, parseSignerKey, parseVerifierKey } from '../src/chain/signed-note.js';

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

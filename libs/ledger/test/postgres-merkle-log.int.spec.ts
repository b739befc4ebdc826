/**
 * The Merkle tree over a PostgreSQL ledger's global log (docs/ledger.md, "The Merkle tree over
 * the global log"), on a real PostgreSQL: extended by reading the events in batches, its roots
 * and proofs the same as the tree of the events' leaves computed from scratch, and a history
 * rewritten and recomputed by a superuser exposed by a root published before the rewrite.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  consistencyProof,
  generateNoteKey,
  LEDGER_MIGRATIONS,
  openLedgerCheckpoint,
  parseSignerKey,
  parseVerifierKey,
  readCheckedEvents,
  signLedgerCheckpoint,
  verifyAgainstCheckpoints,
  type NoteVerifier,
  ledgerLeafHash,
  merkleRoot,
  PostgresLedger,
  PostgresMerkleLog,
  streamHash,
  verifyConsistency,
  verifyInclusion,
  type LedgerEventInput,
  type MerkleTreeHead,
} from '@settle/ledger';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { createTestDatabase, withTriggersOff } from '@settle/testing';

let pool: Pool;
let drop: () => Promise<void>;

beforeAll(async () => {
  const db = await createTestDatabase('settle_merkle');
  drop = db.drop;
  pool = createPool(db.url, 4);
  await migrateSchema(pool, LEDGER_MIGRATIONS);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

const settled = (amount: number): LedgerEventInput => ({
  eventId: randomUUID(),
  type: 'TransactionSettled',
  data: { amount_minor: amount },
  metadata: { correlationId: 'c', causationId: 'c' },
});

/** Appends `count` events over a few streams. */
async function appendEvents(count: number): Promise<void> {
  const ledger = new PostgresLedger(pool);
  for (let i = 0; i < count; i++) await ledger.append(`transaction-ref_${randomUUID().slice(0, 8)}`, [settled(100 + i)], 'no_stream');
}

/** The leaves of the events as they stand in the table, computed from scratch. */
async function leavesNow(): Promise<Buffer[]> {
  const { rows } = await pool.query<{ position: string; stream_hash: string }>('SELECT position, stream_hash FROM ledger.events ORDER BY position');
  return rows.map((r) => ledgerLeafHash(Number(r.position), r.stream_hash));
}

describe('the Merkle tree over the global log', () => {
  let published: MerkleTreeHead;
  /** A checkpoint signed before the rewrite, and the key that opens it. */
  let note: string;
  let verifier: NoteVerifier;

  it('follows the log in batches: the same root and proofs as the tree of every event’s leaf', async () => {
    await appendEvents(37);
    const tree = new PostgresMerkleLog(pool, { batch: 10 });
    published = await tree.extend();
    const leaves = await leavesNow();
    expect(published.size).toBe(37);
    expect(published.root.equals(merkleRoot(leaves))).toBe(true);
    expect(await tree.head()).toEqual(published);
    for (const position of [1, 2, 17, 32, 37]) {
      const proof = await tree.inclusionProof(position);
      expect(proof.leaf.equals(leaves[position - 1]!)).toBe(true);
      expect(verifyInclusion(proof.leaf, proof.index, proof.size, proof.proof, published.root), `position ${position}`).toBe(true);
    }
    await expect(tree.inclusionProof(38)).rejects.toThrow(RangeError);
  });

  it('grows with the log, each later root proven to extend the earlier one', async () => {
    await appendEvents(20);
    const tree = new PostgresMerkleLog(pool, { batch: 7 });
    const grown = await tree.extend();
    expect(grown.size).toBe(57);
    expect((await tree.rootAt(37)).equals(published.root)).toBe(true);
    const proof = await tree.consistencyProof(37, 57);
    expect(proof.map((p) => p.toString('hex'))).toEqual(consistencyProof(await leavesNow(), 37, 57).map((p) => p.toString('hex')));
    expect(verifyConsistency(37, 57, published.root, grown.root, proof)).toBe(true);
    // An event proven against the root of an earlier size, as a receipt fetched before the growth.
    const old = await tree.inclusionProof(5, 37);
    expect(verifyInclusion(old.leaf, old.index, 37, old.proof, published.root)).toBe(true);
  });

  it('the events agree with a signed checkpoint of the tree', async () => {
    const key = generateNoteKey('settle.dev/ledger/test');
    const tree = new PostgresMerkleLog(pool);
    const head = await tree.extend();
    const { rows } = await pool.query<{ global_hash: string }>('SELECT global_hash FROM ledger.events WHERE position = $1', [head.size]);
    note = signLedgerCheckpoint({ origin: 'settle.dev/ledger/test', size: head.size, root: head.root, globalHash: rows[0]!.global_hash, at: Date.now() }, [
      parseSignerKey(key.signer),
    ]);
    verifier = parseVerifierKey(key.verifier);
    const result = await verifyAgainstCheckpoints(readCheckedEvents(pool, 10), [openLedgerCheckpoint(note, [verifier])]);
    expect(result).toMatchObject({ events: 57, checkpoints: 1, disagreement: null });
  });

  it('a history rewritten and recomputed by a superuser is consistent in itself, and not with a root published before', async () => {
    const { rows } = await pool.query<{
      position: string;
      stream_id: string;
      revision: string;
      event_id: string;
      event_type: string;
      metadata: unknown;
      recorded_at: Date;
    }>('SELECT position, stream_id, revision, event_id, event_type, metadata, recorded_at FROM ledger.events WHERE position = 12');
    const event = rows[0]!;
    const data = { amount_minor: 1 };
    const rehashed = streamHash('0'.repeat(64), {
      streamId: event.stream_id,
      revision: Number(event.revision),
      eventId: event.event_id,
      type: event.event_type,
      data,
      metadata: event.metadata,
      recordedAt: event.recorded_at,
    });
    await withTriggersOff(pool, `UPDATE ledger.events SET data = '{"amount_minor": 1}', stream_hash = '${rehashed}' WHERE position = 12`);
    // The tree is derived data: whoever rewrote the events rebuilds it too.
    await pool.query('TRUNCATE ledger.merkle_nodes, ledger.merkle_tree');
    const tree = new PostgresMerkleLog(pool);
    const rebuilt = await tree.extend();
    expect(rebuilt.size).toBe(57);
    const rewrittenAt37 = await tree.rootAt(37);
    expect(verifyConsistency(37, 57, rewrittenAt37, rebuilt.root, await tree.consistencyProof(37, 57))).toBe(true);
    expect(rewrittenAt37.equals(published.root)).toBe(false);
    expect(verifyConsistency(37, 57, published.root, rebuilt.root, await tree.consistencyProof(37, 57))).toBe(false);
    // Checked from the events themselves against the checkpoint signed before the rewrite.
    const result = await verifyAgainstCheckpoints(readCheckedEvents(pool), [openLedgerCheckpoint(note, [verifier])]);
    expect(result.disagreement).toMatchObject({ size: 57, reason: 'ROOT_MISMATCH' });
  });
});

import { inTransaction, type Pool, type PoolClient } from '@settle/platform';
import type { CheckedEvent } from '../chain/ledger-checkpoints.js';
import {
  consistencyProofFromNodes,
  inclusionProofFromNodes,
  ledgerLeafHash,
  MerkleFrontier,
  merkleRootFromNodes,
  nodesForConsistency,
  nodesForInclusion,
  nodesForRoot,
  type MerkleHash,
  type MerkleNodeId,
} from '../chain/merkle-tree.js';

/**
 * Every event of a PostgreSQL ledger from position 1, as the check against signed checkpoints
 * reads them (`verifyAgainstCheckpoints`): position, stream hash and global hash, in pages of
 * `batch`, from the events themselves (never from the tree's stored nodes).
 *
 * @throws RangeError when an event has no stream hash (a row written before the chains existed).
 */
export async function* readCheckedEvents(pool: Pool, batch = MERKLE_BATCH): AsyncGenerator<CheckedEvent> {
  let after = 0;
  for (;;) {
    const { rows } = await pool.query<{ position: string; stream_hash: string | null; global_hash: string | null }>(
      'SELECT position, stream_hash, global_hash FROM ledger.events WHERE position > $1 ORDER BY position LIMIT $2',
      [after, batch],
    );
    for (const row of rows) {
      if (row.stream_hash === null || row.global_hash === null) throw new RangeError(`the event at position ${row.position} has no hashes`);
      after = Number(row.position);
      yield { position: after, streamHash: row.stream_hash, globalHash: row.global_hash };
    }
    if (rows.length < batch) return;
  }
}

/** Events read and added to the tree per transaction, by default. */
export const MERKLE_BATCH = 5_000;

/** The tree at a size: how many events it holds and its root. */
export interface MerkleTreeHead {
  size: number;
  root: MerkleHash;
}

/** One event proven against a tree: its leaf, where it sits, and the path to the root. */
export interface LedgerInclusionProof {
  position: number;
  /** Its leaf index: position - 1. */
  index: number;
  size: number;
  leaf: MerkleHash;
  proof: MerkleHash[];
  root: MerkleHash;
}

/**
 * The Merkle tree over a PostgreSQL ledger's global log (docs/ledger.md, "The Merkle tree over
 * the global log"): {@link PostgresMerkleLog.extend} reads `ledger.events` after the size it
 * reached, by position, in transactions of at most `batch` events, adds each event's leaf
 * (`ledgerLeafHash` of its position and stream hash) to the tree, stores the perfect subtrees
 * each leaf completes in `ledger.merkle_nodes` and the tree's edge, size and root in
 * `ledger.merkle_tree`. It never touches `ledger.head`, so an append never waits for it; two
 * extenders take turns on `ledger.merkle_tree`'s row. Proofs read about 2 log2(size) stored
 * nodes, in one query.
 */
export class PostgresMerkleLog {
  constructor(
    private readonly pool: Pool,
    private readonly options: { batch?: number } = {},
  ) {}

  /**
   * Adds every event appended since the last extension.
   *
   * @returns the tree's size and root once it reached the last event it saw.
   * @throws RangeError when an event has no stream hash (a row written before the chains
   *   existed: docs/ledger.md); database errors (what was committed before stays).
   */
  async extend(): Promise<MerkleTreeHead> {
    const batch = this.options.batch ?? MERKLE_BATCH;
    for (;;) {
      const { head, read } = await inTransaction(this.pool, async (client) => {
        const frontier = await this.lockFrontier(client);
        const { rows } = await client.query<{ position: string; stream_hash: string | null }>(
          'SELECT position, stream_hash FROM ledger.events WHERE position > $1 ORDER BY position LIMIT $2',
          [frontier.size, batch],
        );
        const nodes: Array<{ level: number; index: number; hash: MerkleHash }> = [];
        for (const row of rows) {
          const position = Number(row.position);
          if (position !== frontier.size + 1) throw new RangeError(`the log has a gap before position ${position}`);
          if (row.stream_hash === null) throw new RangeError(`the event at position ${position} has no stream hash`);
          nodes.push(...frontier.append(ledgerLeafHash(position, row.stream_hash)));
        }
        if (rows.length > 0) {
          await client.query(
            `INSERT INTO ledger.merkle_nodes (level, idx, hash)
             SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[]) ON CONFLICT DO NOTHING`,
            [nodes.map((n) => n.level), nodes.map((n) => n.index), nodes.map((n) => n.hash)],
          );
          await client.query(
            `INSERT INTO ledger.merkle_tree (singleton, size, frontier, root, updated_at) VALUES (true, $1, $2, $3, now())
             ON CONFLICT (singleton) DO UPDATE SET size = EXCLUDED.size, frontier = EXCLUDED.frontier, root = EXCLUDED.root, updated_at = now()`,
            [frontier.size, JSON.stringify(frontier.toJSON()), frontier.root()],
          );
        }
        return { head: { size: frontier.size, root: frontier.root() }, read: rows.length };
      });
      if (read < batch) return head;
    }
  }

  /** The tree's size and root as last extended (the empty tree before any extension). */
  async head(): Promise<MerkleTreeHead> {
    const { rows } = await this.pool.query<{ size: string; root: Buffer }>('SELECT size, root FROM ledger.merkle_tree');
    const row = rows[0];
    return row ? { size: Number(row.size), root: row.root } : { size: 0, root: MerkleFrontier.empty().root() };
  }

  /**
   * The root of the tree at any size it reached (a checkpoint's), from the stored nodes.
   *
   * @throws RangeError when the tree has not reached `size`.
   */
  async rootAt(size: number): Promise<MerkleHash> {
    await this.checkReached(size);
    const ids = nodesForRoot(size);
    return merkleRootFromNodes(await this.read(ids), size);
  }

  /**
   * The inclusion proof of the event at `position` in the tree of `size` events (default the
   * tree's size now).
   *
   * @throws RangeError when the position is not in a tree of that size, or the tree has not reached it.
   */
  async inclusionProof(position: number, size?: number): Promise<LedgerInclusionProof> {
    const treeSize = size ?? (await this.head()).size;
    await this.checkReached(treeSize);
    const index = position - 1;
    const ids = [...nodesForInclusion(index, treeSize), { level: 0, index }, ...nodesForRoot(treeSize)];
    const read = await this.read(ids);
    return {
      position,
      index,
      size: treeSize,
      leaf: read(0, index),
      proof: inclusionProofFromNodes(read, index, treeSize),
      root: merkleRootFromNodes(read, treeSize),
    };
  }

  /**
   * The consistency proof from the tree of `oldSize` events to that of `newSize`.
   *
   * @throws RangeError unless 0 <= oldSize <= newSize and the tree reached `newSize`.
   */
  async consistencyProof(oldSize: number, newSize: number): Promise<MerkleHash[]> {
    await this.checkReached(newSize);
    return consistencyProofFromNodes(await this.read(nodesForConsistency(oldSize, newSize)), oldSize, newSize);
  }

  private async checkReached(size: number): Promise<void> {
    const { size: reached } = await this.head();
    if (!Number.isSafeInteger(size) || size < 0 || size > reached) throw new RangeError(`the tree holds ${reached} events, not ${size}`);
  }

  /** Fetches stored nodes in one query, as a reader that fails for a node not fetched. */
  private async read(ids: readonly MerkleNodeId[]): Promise<(level: number, index: number) => MerkleHash> {
    const { rows } = await this.pool.query<{ level: number; idx: string; hash: Buffer }>(
      'SELECT level, idx, hash FROM ledger.merkle_nodes WHERE (level, idx) IN (SELECT * FROM unnest($1::smallint[], $2::bigint[]))',
      [ids.map((id) => id.level), ids.map((id) => id.index)],
    );
    const nodes = new Map(rows.map((r) => [`${r.level}:${r.idx}`, r.hash]));
    return (level, index) => {
      const hash = nodes.get(`${level}:${index}`);
      if (!hash) throw new RangeError(`no stored node ${level}:${index}`);
      return hash;
    };
  }

  /** The tree's edge, locked until the caller's commit. */
  private async lockFrontier(client: PoolClient): Promise<MerkleFrontier> {
    const { rows } = await client.query<{ frontier: { size: number; nodes: Array<{ height: number; hash: string }> } }>(
      'SELECT frontier FROM ledger.merkle_tree FOR UPDATE',
    );
    if (rows[0]) return MerkleFrontier.fromJSON(rows[0].frontier);
    // The first extension: take a lock no other first extension can share.
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('ledger.merkle_tree'))`);
    const again = await client.query<{ frontier: { size: number; nodes: Array<{ height: number; hash: string }> } }>(
      'SELECT frontier FROM ledger.merkle_tree FOR UPDATE',
    );
    return again.rows[0] ? MerkleFrontier.fromJSON(again.rows[0].frontier) : MerkleFrontier.empty();
  }
}

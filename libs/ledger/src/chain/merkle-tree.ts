import { createHash } from 'node:crypto';

/**
 * The Merkle tree of a log, as Certificate Transparency keeps it (RFC 9162, section 2.1; the
 * same hashing as RFC 6962): the basis of the ledger's signed checkpoints (docs/ledger.md,
 * "Checkpoints"), whose root commits to every event up to a size, so that one event can be proven
 * against a checkpoint with a logarithmic inclusion proof, and two checkpoints can be proven to
 * describe one history growing (a consistency proof) rather than two.
 *
 * Hashes are 32-byte SHA-256 digests (`Buffer`). Leaves are given as leaf hashes
 * ({@link leafHash}); sizes and indexes count leaves, from 0. Proof generation here reads the
 * leaf hashes it is given (linear in the tree's size); verification needs only the proof.
 */

/** A 32-byte SHA-256 digest. */
export type MerkleHash = Buffer;

/** Bytes of a hash. */
export const HASH_BYTES = 32;

const LEAF_PREFIX = Buffer.of(0x00);
const NODE_PREFIX = Buffer.of(0x01);

/** The root of the empty tree: SHA-256 of nothing (RFC 9162, section 2.1.1). */
export const EMPTY_ROOT: MerkleHash = createHash('sha256').digest();

/** The hash of a leaf: SHA-256(0x00 || data) (RFC 9162, section 2.1.1). */
export function leafHash(data: Uint8Array): MerkleHash {
  return createHash('sha256').update(LEAF_PREFIX).update(data).digest();
}

/** The hash of an interior node: SHA-256(0x01 || left || right) (RFC 9162, section 2.1.1). */
export function nodeHash(left: MerkleHash, right: MerkleHash): MerkleHash {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

/**
 * The leaf of a ledger event in the tree over the global log: its global position and its
 * stream hash (which covers every field of the event and its stream's history), as the bytes of
 * `<position>\n<stream hash, hex>`. An edit of the event changes its stream hash, so the leaf,
 * so every root over it.
 *
 * @param position - the event's global position (a non-negative integer).
 * @param streamHashHex - its stream hash, 64 lower-case hex digits (`streamHash`).
 * @throws RangeError when the position is not a non-negative safe integer or the hash is not 64 hex digits.
 */
export function ledgerLeafHash(position: number, streamHashHex: string): MerkleHash {
  if (!Number.isSafeInteger(position) || position < 0) throw new RangeError(`a ledger position is a non-negative integer, not ${position}`);
  if (!/^[0-9a-f]{64}$/.test(streamHashHex)) throw new RangeError('a stream hash is 64 lower-case hex digits');
  return leafHash(Buffer.from(`${position}\n${streamHashHex}`, 'utf8'));
}

/** The largest power of two smaller than `n` (n > 1): where RFC 9162 splits a tree. */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The Merkle Tree Hash of the first `size` leaves (MTH, RFC 9162, section 2.1.1).
 *
 * @param leaves - leaf hashes, in log order.
 * @param size - how many of them the tree holds; default all.
 * @throws RangeError when `size` is negative or beyond the leaves given.
 */
export function merkleRoot(leaves: readonly MerkleHash[], size: number = leaves.length): MerkleHash {
  checkSize(size, leaves.length);
  return leafRanges(leaves)(0, size);
}

/** The root of the leaves [from, to), by the RFC's recursion: MTH(D[from:to]). */
type RangeRoot = (from: number, to: number) => MerkleHash;

/** Range roots computed from the leaf hashes themselves. */
function leafRanges(leaves: readonly MerkleHash[]): RangeRoot {
  const rootOf: RangeRoot = (from, to) => {
    const n = to - from;
    if (n === 0) return EMPTY_ROOT;
    if (n === 1) return leaves[from]!;
    const k = split(n);
    return nodeHash(rootOf(from, from + k), rootOf(from + k, to));
  };
  return rootOf;
}

/**
 * The inclusion proof of leaf `index` in the tree of the first `size` leaves (PATH(m, D[n]), RFC
 * 9162, section 2.1.3.1): the sibling hashes from the leaf up to the root, at most
 * ceil(log2(size)) of them.
 *
 * @throws RangeError when `index` is not below `size`, or `size` is beyond the leaves given.
 */
export function inclusionProof(leaves: readonly MerkleHash[], index: number, size: number = leaves.length): MerkleHash[] {
  checkSize(size, leaves.length);
  checkIndex(index, size);
  return pathOf(leafRanges(leaves), index, 0, size);
}

function checkIndex(index: number, size: number): void {
  if (!Number.isSafeInteger(index) || index < 0 || index >= size) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
}

function pathOf(rootOf: RangeRoot, m: number, from: number, to: number): MerkleHash[] {
  const n = to - from;
  if (n <= 1) return [];
  const k = split(n);
  return m < k ? [...pathOf(rootOf, m, from, from + k), rootOf(from + k, to)] : [...pathOf(rootOf, m - k, from + k, to), rootOf(from, from + k)];
}

/**
 * Checks an inclusion proof (RFC 9162, section 2.1.3.2): that the leaf whose hash is `leaf` is
 * leaf `index` of the tree of `size` leaves whose root is `root`.
 *
 * @returns `true` when the proof holds; `false` for any other input (a wrong index, size, hash or
 *   proof, a proof too long or too short), never an error.
 */
export function verifyInclusion(leaf: MerkleHash, index: number, size: number, proof: readonly MerkleHash[], root: MerkleHash): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  if (!isHash(leaf) || !isHash(root) || !proof.every(isHash)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/**
 * The consistency proof between the tree of the first `oldSize` leaves and that of the first
 * `newSize` (PROOF(m, D[n]), RFC 9162, section 2.1.4.1): what shows that the larger tree only
 * appended to the smaller one. Empty when the sizes are equal or the old tree is empty.
 *
 * @throws RangeError unless 0 <= oldSize <= newSize <= the leaves given.
 */
export function consistencyProof(leaves: readonly MerkleHash[], oldSize: number, newSize: number = leaves.length): MerkleHash[] {
  checkSize(newSize, leaves.length);
  return consistencyOf(leafRanges(leaves), oldSize, newSize);
}

function consistencyOf(rootOf: RangeRoot, oldSize: number, newSize: number): MerkleHash[] {
  if (!Number.isSafeInteger(oldSize) || oldSize < 0 || oldSize > newSize) throw new RangeError(`a tree of ${oldSize} is not a prefix of one of ${newSize}`);
  if (oldSize === 0 || oldSize === newSize) return [];
  return subproof(rootOf, oldSize, 0, newSize, true);
}

function subproof(rootOf: RangeRoot, m: number, from: number, to: number, whole: boolean): MerkleHash[] {
  const n = to - from;
  if (m === n) return whole ? [] : [rootOf(from, to)];
  const k = split(n);
  return m <= k
    ? [...subproof(rootOf, m, from, from + k, whole), rootOf(from + k, to)]
    : [...subproof(rootOf, m - k, from + k, to, false), rootOf(from, from + k)];
}

/**
 * A stored node of the tree: the root of the perfect subtree of 2^level leaves starting at leaf
 * `index * 2^level` (level 0: the leaf hashes themselves). Every range the RFC's recursion asks
 * for is either such a subtree or splits into them, so a store of these nodes answers any proof
 * for any size without the leaves: what the checkpointer writes as the log grows
 * ({@link MerkleFrontier.append} returns the nodes each leaf completes).
 */
export interface MerkleNodeId {
  level: number;
  index: number;
}

/** A stored node and its hash. */
export interface MerkleNode extends MerkleNodeId {
  hash: MerkleHash;
}

/**
 * Reads a stored node. @throws whatever the store throws for a node it does not hold (a
 * caller fetches {@link nodesForInclusion} or {@link nodesForConsistency} first).
 */
export type MerkleNodeReader = (level: number, index: number) => MerkleHash;

/** Range roots assembled from stored nodes: a perfect aligned range is one node, any other splits. */
function nodeRanges(read: MerkleNodeReader): RangeRoot {
  const rootOf: RangeRoot = (from, to) => {
    const n = to - from;
    if (n === 0) return EMPTY_ROOT;
    if (isPowerOfTwo(n) && from % n === 0) return read(Math.log2(n), from / n);
    const k = split(n);
    return nodeHash(rootOf(from, from + k), rootOf(from + k, to));
  };
  return rootOf;
}

/** The stored nodes a computation reads, in the order it reads them (it never branches on their hashes). */
function nodesRead(compute: (read: MerkleNodeReader) => unknown): MerkleNodeId[] {
  const ids: MerkleNodeId[] = [];
  compute((level, index) => {
    ids.push({ level, index });
    return EMPTY_ROOT;
  });
  return ids;
}

/** {@link merkleRoot} of the first `size` leaves, from stored nodes. @throws RangeError for a negative size. */
export function merkleRootFromNodes(read: MerkleNodeReader, size: number): MerkleHash {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`a tree of ${size} leaves`);
  return nodeRanges(read)(0, size);
}

/** {@link inclusionProof} from stored nodes. @throws RangeError when `index` is not below `size`. */
export function inclusionProofFromNodes(read: MerkleNodeReader, index: number, size: number): MerkleHash[] {
  checkIndex(index, size);
  return pathOf(nodeRanges(read), index, 0, size);
}

/** {@link consistencyProof} from stored nodes. @throws RangeError unless 0 <= oldSize <= newSize. */
export function consistencyProofFromNodes(read: MerkleNodeReader, oldSize: number, newSize: number): MerkleHash[] {
  return consistencyOf(nodeRanges(read), oldSize, newSize);
}

/** The stored nodes {@link inclusionProofFromNodes} reads (at most about 2 log2(size)): to fetch in one query. */
export function nodesForInclusion(index: number, size: number): MerkleNodeId[] {
  return nodesRead((read) => inclusionProofFromNodes(read, index, size));
}

/** The stored nodes {@link merkleRootFromNodes} reads for a tree of `size` leaves (one per binary digit set). */
export function nodesForRoot(size: number): MerkleNodeId[] {
  return nodesRead((read) => merkleRootFromNodes(read, size));
}

/** The stored nodes {@link consistencyProofFromNodes} reads: to fetch in one query. */
export function nodesForConsistency(oldSize: number, newSize: number): MerkleNodeId[] {
  return nodesRead((read) => consistencyProofFromNodes(read, oldSize, newSize));
}

/**
 * Checks a consistency proof (RFC 9162, section 2.1.4.2): that the tree of `newSize` leaves with
 * root `newRoot` extends the tree of `oldSize` leaves with root `oldRoot`. Equal sizes need an
 * empty proof and equal roots; an empty old tree is a prefix of every tree.
 *
 * @returns `true` when the proof holds; `false` for any other input, never an error.
 */
export function verifyConsistency(oldSize: number, newSize: number, oldRoot: MerkleHash, newRoot: MerkleHash, proof: readonly MerkleHash[]): boolean {
  if (!Number.isSafeInteger(oldSize) || !Number.isSafeInteger(newSize) || oldSize < 0 || oldSize > newSize) return false;
  if (!isHash(oldRoot) || !isHash(newRoot) || !proof.every(isHash)) return false;
  if (oldSize === newSize) return proof.length === 0 && oldRoot.equals(newRoot);
  if (oldSize === 0) return proof.length === 0 && oldRoot.equals(EMPTY_ROOT);
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(oldSize) ? [oldRoot, ...proof] : [...proof];
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && fr.equals(oldRoot) && sr.equals(newRoot);
}

/**
 * The right edge of a growing tree (a compact range from 0): the roots of its perfect subtrees,
 * largest first, so that appending a leaf and reading the root cost O(log n) time and memory
 * whatever the size. What a checkpointer keeps between checkpoints, reading the log from where it
 * stopped, never holding the ledger's lock; {@link MerkleFrontier.toJSON} and
 * {@link MerkleFrontier.fromJSON} store it.
 */
export class MerkleFrontier {
  private constructor(
    private count: number,
    /** Roots of the perfect subtrees, largest (leftmost) first, with their heights. */
    private readonly nodes: Array<{ height: number; hash: MerkleHash }>,
  ) {}

  /** An empty tree. */
  static empty(): MerkleFrontier {
    return new MerkleFrontier(0, []);
  }

  /**
   * A frontier as {@link MerkleFrontier.toJSON} wrote it.
   *
   * @throws RangeError when it does not describe a tree of its size (the heights are not the
   *   binary digits of the size, or a hash is not 32 bytes of hex).
   */
  static fromJSON(json: { size: number; nodes: ReadonlyArray<{ height: number; hash: string }> }): MerkleFrontier {
    const nodes = json.nodes.map((n) => ({ height: n.height, hash: Buffer.from(n.hash, 'hex') }));
    const expected = heightsOf(json.size);
    if (
      !Number.isSafeInteger(json.size) ||
      json.size < 0 ||
      nodes.length !== expected.length ||
      nodes.some((n, i) => n.height !== expected[i] || !isHash(n.hash))
    ) {
      throw new RangeError(`not the frontier of a tree of ${json.size} leaves`);
    }
    return new MerkleFrontier(json.size, nodes);
  }

  /** Leaves appended. */
  get size(): number {
    return this.count;
  }

  /**
   * Appends one leaf hash.
   *
   * @returns the stored nodes ({@link MerkleNode}) this leaf completes: the leaf itself, then each
   *   perfect subtree it closes, smallest first.
   * @throws RangeError when the leaf is not a 32-byte hash.
   */
  append(leaf: MerkleHash): MerkleNode[] {
    if (!isHash(leaf)) throw new RangeError('a leaf hash is 32 bytes');
    const completed: MerkleNode[] = [{ level: 0, index: this.count, hash: leaf }];
    let node = { height: 0, hash: leaf };
    while (this.nodes.length > 0 && this.nodes.at(-1)!.height === node.height) {
      const left = this.nodes.pop()!;
      node = { height: node.height + 1, hash: nodeHash(left.hash, node.hash) };
      completed.push({ level: node.height, index: Math.floor(this.count / 2 ** node.height), hash: node.hash });
    }
    this.nodes.push(node);
    this.count++;
    return completed;
  }

  /** The root of the tree so far (MTH of every leaf appended). */
  root(): MerkleHash {
    if (this.nodes.length === 0) return EMPTY_ROOT;
    let r = this.nodes.at(-1)!.hash;
    for (let i = this.nodes.length - 2; i >= 0; i--) r = nodeHash(this.nodes[i]!.hash, r);
    return r;
  }

  /** A copy to append to without changing this one. */
  clone(): MerkleFrontier {
    return new MerkleFrontier(
      this.count,
      this.nodes.map((n) => ({ ...n })),
    );
  }

  /** What to store: the size and the subtree roots in hex. */
  toJSON(): { size: number; nodes: Array<{ height: number; hash: string }> } {
    return { size: this.count, nodes: this.nodes.map((n) => ({ height: n.height, hash: n.hash.toString('hex') })) };
  }
}

/** The heights of the perfect subtrees of a tree of `size` leaves, largest first: its binary digits set. */
function heightsOf(size: number): number[] {
  const heights: number[] = [];
  for (let h = Math.floor(Math.log2(Math.max(size, 1))) + 1; h >= 0; h--) if (Math.floor(size / 2 ** h) % 2 === 1) heights.push(h);
  return heights;
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && Number.isInteger(Math.log2(n));
}

function isHash(value: unknown): value is MerkleHash {
  return Buffer.isBuffer(value) && value.length === HASH_BYTES;
}

function checkSize(size: number, available: number): void {
  if (!Number.isSafeInteger(size) || size < 0 || size > available) throw new RangeError(`a tree of ${size} leaves, with ${available} given`);
}

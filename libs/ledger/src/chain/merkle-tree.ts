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
  return rootOf(leaves, 0, size);
}

function rootOf(leaves: readonly MerkleHash[], from: number, to: number): MerkleHash {
  const n = to - from;
  if (n === 0) return EMPTY_ROOT;
  if (n === 1) return leaves[from]!;
  const k = split(n);
  return nodeHash(rootOf(leaves, from, from + k), rootOf(leaves, from + k, to));
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
  if (!Number.isSafeInteger(index) || index < 0 || index >= size) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
  return pathOf(leaves, index, 0, size);
}

function pathOf(leaves: readonly MerkleHash[], m: number, from: number, to: number): MerkleHash[] {
  const n = to - from;
  if (n <= 1) return [];
  const k = split(n);
  return m < k
    ? [...pathOf(leaves, m, from, from + k), rootOf(leaves, from + k, to)]
    : [...pathOf(leaves, m - k, from + k, to), rootOf(leaves, from, from + k)];
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
  if (!Number.isSafeInteger(oldSize) || oldSize < 0 || oldSize > newSize) throw new RangeError(`a tree of ${oldSize} is not a prefix of one of ${newSize}`);
  if (oldSize === 0 || oldSize === newSize) return [];
  return subproof(leaves, oldSize, 0, newSize, true);
}

function subproof(leaves: readonly MerkleHash[], m: number, from: number, to: number, whole: boolean): MerkleHash[] {
  const n = to - from;
  if (m === n) return whole ? [] : [rootOf(leaves, from, to)];
  const k = split(n);
  return m <= k
    ? [...subproof(leaves, m, from, from + k, whole), rootOf(leaves, from + k, to)]
    : [...subproof(leaves, m - k, from + k, to, false), rootOf(leaves, from, from + k)];
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

  /** Appends one leaf hash. */
  append(leaf: MerkleHash): void {
    if (!isHash(leaf)) throw new RangeError('a leaf hash is 32 bytes');
    let node = { height: 0, hash: leaf };
    while (this.nodes.length > 0 && this.nodes.at(-1)!.height === node.height) {
      const left = this.nodes.pop()!;
      node = { height: node.height + 1, hash: nodeHash(left.hash, node.hash) };
    }
    this.nodes.push(node);
    this.count++;
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

/**
 * The ledger's Merkle tree (RFC 9162, section 2.1): the reference roots and proofs every
 * Certificate Transparency implementation agrees on (a tree nobody else agrees with proves
 * nothing to an auditor), then every proof of trees of many shapes, and each kind of tampering.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  consistencyProofFromNodes,
  inclusionProofFromNodes,
  merkleRootFromNodes,
  nodesForConsistency,
  nodesForInclusion,
  type MerkleNode,
  type MerkleNodeReader,
  EMPTY_ROOT,
  inclusionProof,
  ledgerLeafHash,
  leafHash,
  MerkleFrontier,
  merkleRoot,
  verifyConsistency,
  verifyInclusion,
  type MerkleHash,
} from '../src/chain/merkle-tree.js';

const hex = (h: MerkleHash) => h.toString('hex');
const unhex = (s: string) => Buffer.from(s, 'hex');

/** The leaves of the RFC 6962 reference tree, and its root at each size 1 to 8. */
const REFERENCE_LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map((d) => leafHash(unhex(d)));
const REFERENCE_ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];

const leavesOf = (n: number) => Array.from({ length: n }, (_, i) => leafHash(Buffer.from(`event ${i}`)));
const flipped = (h: MerkleHash) => {
  const copy = Buffer.from(h);
  copy[0]! ^= 0x01;
  return copy;
};

describe('the reference tree (RFC 6962 test vectors)', () => {
  it('has the reference root at every size from 0 to 8', () => {
    expect(hex(EMPTY_ROOT)).toBe(REFERENCE_ROOTS[0]);
    for (let size = 0; size <= 8; size++) expect(hex(merkleRoot(REFERENCE_LEAVES, size)), `size ${size}`).toBe(REFERENCE_ROOTS[size]);
  });

  it('gives the reference inclusion proofs', () => {
    const vectors: Array<[index: number, size: number, proof: string[]]> = [
      [0, 1, []],
      [
        0,
        8,
        [
          '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
          '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
          '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
        ],
      ],
      [
        5,
        8,
        [
          'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
          'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
          'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
        ],
      ],
      [2, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
    ];
    for (const [index, size, proof] of vectors) {
      expect(inclusionProof(REFERENCE_LEAVES, index, size).map(hex), `${index} in ${size}`).toEqual(proof);
      expect(verifyInclusion(REFERENCE_LEAVES[index]!, index, size, proof.map(unhex), unhex(REFERENCE_ROOTS[size]!))).toBe(true);
    }
  });

  it('gives the reference consistency proofs', () => {
    const vectors: Array<[oldSize: number, newSize: number, proof: string[]]> = [
      [1, 1, []],
      [
        1,
        8,
        [
          '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
          '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
          '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
        ],
      ],
      [
        6,
        8,
        [
          '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
          'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
          'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
        ],
      ],
      [2, 5, ['5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b']],
    ];
    for (const [oldSize, newSize, proof] of vectors) {
      expect(consistencyProof(REFERENCE_LEAVES, oldSize, newSize).map(hex), `${oldSize} to ${newSize}`).toEqual(proof);
      expect(verifyConsistency(oldSize, newSize, unhex(REFERENCE_ROOTS[oldSize]!), unhex(REFERENCE_ROOTS[newSize]!), proof.map(unhex))).toBe(true);
    }
  });
});

describe('inclusion proofs', () => {
  const leaves = leavesOf(45);

  it('every leaf of every tree up to 45 leaves is proven, in at most ceil(log2(size)) hashes', () => {
    for (let size = 1; size <= leaves.length; size++) {
      const root = merkleRoot(leaves, size);
      for (let index = 0; index < size; index++) {
        const proof = inclusionProof(leaves, index, size);
        expect(proof.length).toBeLessThanOrEqual(Math.ceil(Math.log2(size)));
        expect(verifyInclusion(leaves[index]!, index, size, proof, root), `${index} in ${size}`).toBe(true);
      }
    }
  });

  it('refuses an edited leaf, a forged proof, another index, another size, another root, or a proof cut short or padded', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 45 }).chain((size) => fc.tuple(fc.constant(size), fc.nat(size - 1), fc.nat(20))),
        ([size, index, pick]) => {
          const root = merkleRoot(leaves, size);
          const proof = inclusionProof(leaves, index, size);
          const leaf = leaves[index]!;
          expect(verifyInclusion(flipped(leaf), index, size, proof, root)).toBe(false);
          if (proof.length > 0) {
            const forged = proof.map((p, i) => (i === pick % proof.length ? flipped(p) : p));
            expect(verifyInclusion(leaf, index, size, forged, root)).toBe(false);
            expect(verifyInclusion(leaf, index, size, proof.slice(0, -1), root)).toBe(false);
          }
          expect(verifyInclusion(leaf, (index + 1) % size, size, proof, root)).toBe(false);
          expect(verifyInclusion(leaf, index, size, [...proof, leaf], root)).toBe(false);
          expect(verifyInclusion(leaf, index, size, proof, flipped(root))).toBe(false);
          expect(verifyInclusion(leaf, index, index, proof, root)).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('consistency proofs', () => {
  const leaves = leavesOf(40);

  it('every tree up to 40 leaves is proven to extend each smaller one', () => {
    for (let newSize = 0; newSize <= leaves.length; newSize++) {
      const newRoot = merkleRoot(leaves, newSize);
      for (let oldSize = 0; oldSize <= newSize; oldSize++) {
        const proof = consistencyProof(leaves, oldSize, newSize);
        expect(verifyConsistency(oldSize, newSize, merkleRoot(leaves, oldSize), newRoot, proof), `${oldSize} to ${newSize}`).toBe(true);
      }
    }
  });

  it('refuses a rewritten history: an old tree whose leaves differ, even with the new tree recomputed over them', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 39 }).chain((oldSize) => fc.tuple(fc.constant(oldSize), fc.integer({ min: oldSize + 1, max: 40 }), fc.nat(oldSize - 1))),
        ([oldSize, newSize, edited]) => {
          const rewritten = leaves.map((l, i) => (i === edited ? flipped(l) : l));
          // The rewritten log is consistent in itself, yet not with the root published before the edit.
          const proof = consistencyProof(rewritten, oldSize, newSize);
          expect(verifyConsistency(oldSize, newSize, merkleRoot(rewritten, oldSize), merkleRoot(rewritten, newSize), proof)).toBe(true);
          expect(verifyConsistency(oldSize, newSize, merkleRoot(leaves, oldSize), merkleRoot(rewritten, newSize), proof)).toBe(false);
          expect(
            verifyConsistency(oldSize, newSize, merkleRoot(leaves, oldSize), merkleRoot(rewritten, newSize), consistencyProof(leaves, oldSize, newSize)),
          ).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses sizes out of order, and equal sizes with different roots', () => {
    const [a, b] = [merkleRoot(leaves, 5), merkleRoot(leaves, 9)];
    expect(verifyConsistency(9, 5, b, a, consistencyProof(leaves, 5, 9))).toBe(false);
    expect(verifyConsistency(5, 5, a, b, [])).toBe(false);
    expect(verifyConsistency(0, 5, a, a, [])).toBe(false);
    expect(() => consistencyProof(leaves, 9, 5)).toThrow(RangeError);
  });
});

describe('the frontier a checkpointer keeps', () => {
  it('has the tree’s root at every size, and survives being stored', () => {
    const leaves = leavesOf(130);
    let frontier = MerkleFrontier.empty();
    expect(frontier.root().equals(EMPTY_ROOT)).toBe(true);
    for (let size = 1; size <= leaves.length; size++) {
      frontier.append(leaves[size - 1]!);
      expect(hex(frontier.root()), `size ${size}`).toBe(hex(merkleRoot(leaves, size)));
      if (size % 17 === 0) frontier = MerkleFrontier.fromJSON(JSON.parse(JSON.stringify(frontier.toJSON())) as ReturnType<MerkleFrontier['toJSON']>);
    }
    expect(frontier.size).toBe(130);
    expect(frontier.toJSON().nodes.map((n) => n.height)).toEqual([7, 1]);
  });

  it('refuses a stored frontier that does not describe a tree of its size', () => {
    const frontier = MerkleFrontier.empty();
    for (const leaf of leavesOf(6)) frontier.append(leaf);
    const stored = frontier.toJSON();
    expect(() => MerkleFrontier.fromJSON({ ...stored, size: 7 })).toThrow(RangeError);
    expect(() => MerkleFrontier.fromJSON({ ...stored, nodes: [stored.nodes[0]!] })).toThrow(RangeError);
    expect(() => MerkleFrontier.fromJSON({ ...stored, nodes: stored.nodes.map((n) => ({ ...n, hash: 'ab' })) })).toThrow(RangeError);
  });

  it('a clone grows on its own', () => {
    const frontier = MerkleFrontier.empty();
    frontier.append(leafHash(Buffer.from('a')));
    const clone = frontier.clone();
    clone.append(leafHash(Buffer.from('b')));
    expect(frontier.size).toBe(1);
    expect(clone.size).toBe(2);
  });
});

describe('proofs from stored nodes, without the leaves', () => {
  const leaves = leavesOf(45);
  const stored = new Map<string, MerkleNode>();
  const frontier = MerkleFrontier.empty();
  for (const leaf of leaves) for (const node of frontier.append(leaf)) stored.set(`${node.level}:${node.index}`, node);

  /** Reads only the nodes a proof said it needs; any other read fails the test. */
  const onlyThese =
    (ids: ReadonlyArray<{ level: number; index: number }>): MerkleNodeReader =>
    (level, index) => {
      if (!ids.some((id) => id.level === level && id.index === index)) throw new Error(`read ${level}:${index}, not announced`);
      const node = stored.get(`${level}:${index}`);
      if (!node) throw new Error(`no stored node ${level}:${index}`);
      return node.hash;
    };

  it('the frontier stores every perfect subtree once: 2n - popcount(n) nodes for n leaves', () => {
    const ones = leaves.length.toString(2).replaceAll('0', '').length;
    expect(stored.size).toBe(2 * leaves.length - ones);
    expect(stored.get('5:0')!.hash.equals(merkleRoot(leaves, 32))).toBe(true);
  });

  it('gives the same roots and proofs as the leaves do, reading only the nodes it announces, O(log n) of them', () => {
    for (let size = 1; size <= leaves.length; size++) {
      expect(hex(merkleRootFromNodes((l, i) => stored.get(`${l}:${i}`)!.hash, size))).toBe(hex(merkleRoot(leaves, size)));
      for (let index = 0; index < size; index++) {
        const ids = nodesForInclusion(index, size);
        expect(ids.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(size)) + 1);
        expect(inclusionProofFromNodes(onlyThese(ids), index, size).map(hex), `${index} in ${size}`).toEqual(inclusionProof(leaves, index, size).map(hex));
      }
      for (let oldSize = 0; oldSize <= size; oldSize++) {
        const ids = nodesForConsistency(oldSize, size);
        expect(consistencyProofFromNodes(onlyThese(ids), oldSize, size).map(hex), `${oldSize} to ${size}`).toEqual(
          consistencyProof(leaves, oldSize, size).map(hex),
        );
      }
    }
  });
});

describe('a ledger event’s leaf', () => {
  const hash = 'ab'.repeat(32);

  it('commits to the position and the stream hash', () => {
    expect(hex(ledgerLeafHash(7, hash))).toBe(hex(leafHash(Buffer.from(`7\n${hash}`))));
    expect(ledgerLeafHash(7, hash).equals(ledgerLeafHash(8, hash))).toBe(false);
    expect(ledgerLeafHash(7, hash).equals(ledgerLeafHash(7, 'ac'.repeat(32)))).toBe(false);
  });

  it('refuses what is not a position or a stream hash', () => {
    expect(() => ledgerLeafHash(-1, hash)).toThrow(RangeError);
    expect(() => ledgerLeafHash(1.5, hash)).toThrow(RangeError);
    expect(() => ledgerLeafHash(1, 'AB'.repeat(32))).toThrow(RangeError);
  });
});

/**
 * Receipts in the receiver kit (Settle's docs/ledger.md, "Receipts"): an event's `receipt` is
 * validated with the event, read back from a stored payload, and verified offline against a
 * signed checkpoint and an inclusion proof with nothing but the published public key. The
 * checkpoints here are built by the test itself (Ed25519, the signed-note format, RFC 9162
 * hashing), independently of Settle's ledger code, which a ledger test checks against.
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseEvent } from '../src/event.js';
import { receiptOf, verifyReceipt, type ReceiptProof } from '../src/receipt.js';
import { sampleEvent } from '../src/sample.js';

const ORIGIN = 'settle.dev/ledger/test';
const sha = (...parts: Buffer[]) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();
const leaf = (position: number, hash: string) => sha(Buffer.of(0), Buffer.from(`${position}\n${hash}`));
const node = (l: Buffer, r: Buffer) => sha(Buffer.of(1), l, r);

function key(name = ORIGIN): { privateKey: KeyObject; verifier: string; id: Buffer } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const material = Buffer.concat([Buffer.of(1), raw]);
  const id = sha(Buffer.from(`${name}\n`), material).subarray(0, 4);
  return { privateKey, verifier: `${name}+${id.toString('hex')}+${material.toString('base64')}`, id };
}

function signedCheckpoint(root: Buffer, size: number, signer: ReturnType<typeof key>, name = ORIGIN): string {
  const text = `${name}\n${size}\n${root.toString('base64')}\nglobal ${'ab'.repeat(32)}\ntime 1795000000000\n`;
  const signature = sign(null, Buffer.from(text), signer.privateKey);
  return `${text}\n\u2014 ${name} ${Buffer.concat([signer.id, signature]).toString('base64')}\n`;
}

// A tree of three events: the receipt's event is the second.
const hashes = ['11', '22', '33'].map((h) => h.repeat(32));
const leaves = hashes.map((h, i) => leaf(i + 1, h));
const root = node(node(leaves[0]!, leaves[1]!), leaves[2]!);
const eventId = '9f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
const receipt = { eventId, ledgerPosition: 2, ledgerHash: hashes[1]! };
const signer = key();
const proof: ReceiptProof = {
  event_id: eventId,
  receipt: { ledger_position: 2, ledger_hash: hashes[1]! },
  checkpoint: signedCheckpoint(root, 3, signer),
  tree_size: 3,
  leaf_index: 1,
  inclusion_proof: [leaves[0]!.toString('hex'), leaves[2]!.toString('hex')],
};

describe('an event’s receipt', () => {
  const event = { ...sampleEvent(), event_id: eventId };

  it('is validated with the event: an integer position and a 64-hex-digit hash, nothing else', () => {
    expect(parseEvent({ ...event, receipt: { ledger_position: 2, ledger_hash: hashes[1] } }).kind).toBe('entitlement');
    expect(parseEvent(event).kind).toBe('entitlement');
    expect(parseEvent({ ...event, receipt: { ledger_position: 2, ledger_hash: 'XYZ' } })).toMatchObject({
      kind: 'invalid',
      errors: [{ path: 'receipt.ledger_hash' }],
    });
    expect(parseEvent({ ...event, receipt: { ledger_position: 0, ledger_hash: hashes[1] } })).toMatchObject({ errors: [{ path: 'receipt.ledger_position' }] });
    expect(parseEvent({ ...event, receipt: { ledger_position: 2, ledger_hash: hashes[1], extra: 1 } })).toMatchObject({ errors: [{ path: 'receipt.extra' }] });
    expect(parseEvent({ ...event, receipt: 'r' })).toMatchObject({ errors: [{ path: 'receipt', message: 'must be an object' }] });
  });

  it('is read back from a stored payload, or null when the event has none', () => {
    expect(receiptOf({ ...event, receipt: { ledger_position: 2, ledger_hash: hashes[1] } })).toEqual(receipt);
    expect(receiptOf(event)).toBeNull();
  });
});

describe('verifyReceipt', () => {
  it('verifies a receipt against a checkpoint signed by a published key and the inclusion proof', () => {
    expect(verifyReceipt(receipt, proof, [key().verifier, signer.verifier], { origin: ORIGIN })).toEqual({
      verified: true,
      checkpoint: {
        origin: ORIGIN,
        size: 3,
        root: root.toString('hex'),
        signedAt: new Date(1795000000000),
        key: signer.verifier.split('+').slice(0, 2).join('+'),
      },
    });
  });

  it.each([
    ['a proof of another leaf', { inclusion_proof: [leaves[2]!.toString('hex'), leaves[0]!.toString('hex')] }, 'NOT_INCLUDED'],
    ['a proof for another position', { leaf_index: 0 }, 'MISMATCH'],
    ['a proof for another tree size', { tree_size: 4 }, 'MISMATCH'],
    ['a checkpoint edited after signing', { checkpoint: proof.checkpoint.replace('\n3\n', '\n4\n') }, 'UNSIGNED'],
    ['a checkpoint of an unknown key', { checkpoint: signedCheckpoint(root, 3, key()) }, 'UNSIGNED'],
    ['a checkpoint that is not a note', { checkpoint: 'nonsense' }, 'MALFORMED'],
    ['hashes that are not hex', { inclusion_proof: ['zz'] }, 'MALFORMED'],
  ] as const)('refuses %s', (_what, change, reason) => {
    expect(verifyReceipt(receipt, { ...proof, ...change }, [signer.verifier])).toMatchObject({ verified: false, reason });
  });

  it('refuses a receipt whose hash is not the one proven, and a checkpoint of another ledger', () => {
    expect(verifyReceipt({ ...receipt, ledgerHash: hashes[0]! }, proof, [signer.verifier])).toMatchObject({ verified: false, reason: 'MISMATCH' });
    expect(verifyReceipt(receipt, proof, [signer.verifier], { origin: 'settle.dev/ledger/other' })).toMatchObject({ verified: false, reason: 'OTHER_LEDGER' });
  });

  it('ignores malformed keys and keys whose id does not match', () => {
    const [name, , material] = signer.verifier.split('+');
    expect(verifyReceipt(receipt, proof, ['nonsense', `${name}+00000000+${material}`])).toMatchObject({ verified: false, reason: 'UNSIGNED' });
  });
});

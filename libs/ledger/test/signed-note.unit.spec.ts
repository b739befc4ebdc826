/**
 * Signed notes and checkpoints (C2SP signed-note, tlog-checkpoint): byte for byte what the
 * reference implementation writes (Ed25519 signs deterministically, so the same key and text give
 * the same signature), then keys rotated, forged and unknown, and checkpoints read back.
 */
import { describe, expect, it } from 'vitest';
import {
  formatCheckpoint,
  generateNoteKey,
  NoteError,
  openNote,
  parseCheckpoint,
  parseSignerKey,
  parseVerifierKey,
  signNote,
  verifierKeyText,
  verifierOf,
} from '../src/chain/signed-note.js';

/** The example key and note of the reference implementation's documentation (golang.org/x/mod/sumdb/note). */
const REFERENCE = {
  verifier: 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
  signer: 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz',
  text: "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n",
  signature: '\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n',
};

const invalid = (code: string) => expect.objectContaining({ code }) as unknown;

describe('the reference note', () => {
  it('is signed byte for byte as the reference implementation signs it, and opens with its key', () => {
    const signer = parseSignerKey(REFERENCE.signer);
    expect(signer.keyId.toString(16)).toBe('c74f20a3');
    expect(signNote(REFERENCE.text, [signer])).toBe(`${REFERENCE.text}\n${REFERENCE.signature}`);
    expect(verifierKeyText(signer.name, verifierOf(signer).publicKey)).toBe(REFERENCE.verifier);
    const opened = openNote(`${REFERENCE.text}\n${REFERENCE.signature}`, [parseVerifierKey(REFERENCE.verifier)]);
    expect(opened).toEqual({ text: REFERENCE.text, signatures: [{ name: 'PeterNeumann', keyId: 0xc74f20a3 }] });
  });

  it('refuses a key whose id does not match, or that is not Ed25519', () => {
    expect(() => parseVerifierKey(REFERENCE.verifier.replace('c74f20a3', 'c74f20a4'))).toThrow(NoteError);
    expect(() => parseVerifierKey(REFERENCE.verifier.replace('+ARpc', '+ZRpc'))).toThrow(NoteError);
    expect(() => parseVerifierKey('Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW')).toThrow(NoteError);
    expect(() => parseSignerKey(REFERENCE.verifier)).toThrow(NoteError);
  });
});

describe('notes signed and opened', () => {
  const current = generateNoteKey('settle.dev/ledger');
  const retired = generateNoteKey('settle.dev/ledger');
  const text = 'settle.dev/ledger\n42\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n';

  it('a note signed by a retired key still opens while that key is kept for verification; one by an unknown key does not', () => {
    const keys = [parseVerifierKey(current.verifier), parseVerifierKey(retired.verifier)];
    const old = signNote(text, [parseSignerKey(retired.signer)]);
    expect(openNote(old, keys).signatures).toHaveLength(1);
    expect(() => openNote(old, [parseVerifierKey(current.verifier)])).toThrow(invalid('NOTE.UNVERIFIED'));
  });

  it('refuses an edited text, and a forged signature by a known key even beside a good one', () => {
    const keys = [parseVerifierKey(current.verifier)];
    const note = signNote(text, [parseSignerKey(current.signer)]);
    expect(() => openNote(note.replace('\n42\n', '\n43\n'), keys)).toThrow(invalid('NOTE.UNVERIFIED'));
    const line = note.slice(text.length + 1);
    const blob = Buffer.from(line.trim().split(' ')[2]!, 'base64');
    blob[10]! ^= 1;
    const forged = `${text}\n${line}\u2014 settle.dev/ledger ${blob.toString('base64')}\n`;
    expect(() => openNote(forged, keys)).toThrow(invalid('NOTE.UNVERIFIED'));
  });

  it('refuses malformed notes and texts', () => {
    const keys = [parseVerifierKey(current.verifier)];
    expect(() => openNote(text, keys)).toThrow(invalid('NOTE.INVALID'));
    expect(() => openNote(`${text}\n- settle.dev/ledger AAAA\n`, keys)).toThrow(invalid('NOTE.INVALID'));
    expect(() => signNote('no newline', [parseSignerKey(current.signer)])).toThrow(invalid('NOTE.INVALID'));
    expect(() => signNote('a\n\nb\n', [parseSignerKey(current.signer)])).toThrow(invalid('NOTE.INVALID'));
    expect(() => signNote('a\tb\n', [parseSignerKey(current.signer)])).toThrow(invalid('NOTE.INVALID'));
  });
});

describe('checkpoints', () => {
  const root = Buffer.alloc(32, 7);

  it('are written and read back with their extension lines', () => {
    const body = { origin: 'settle.dev/ledger/test', size: 1_234, root, extensions: ['position 1233', `head ${'ab'.repeat(32)}`, 'time 1795958935460'] };
    const text = formatCheckpoint(body);
    expect(text).toBe(`settle.dev/ledger/test\n1234\n${root.toString('base64')}\nposition 1233\nhead ${'ab'.repeat(32)}\ntime 1795958935460\n`);
    expect(parseCheckpoint(text)).toEqual(body);
  });

  it('refuse what is not a checkpoint', () => {
    expect(() => parseCheckpoint('settle.dev/ledger\n12\n')).toThrow(NoteError);
    expect(() => parseCheckpoint(`settle.dev/ledger\n012\n${root.toString('base64')}\n`)).toThrow(NoteError);
    expect(() => parseCheckpoint(`settle.dev/ledger\n12\n${Buffer.alloc(31).toString('base64')}\n`)).toThrow(NoteError);
    expect(() => formatCheckpoint({ origin: 'a\nb', size: 1, root, extensions: [] })).toThrow(NoteError);
    expect(() => formatCheckpoint({ origin: 'a', size: -1, root, extensions: [] })).toThrow(NoteError);
  });
});

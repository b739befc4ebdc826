import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { JsonObject } from './event.js';

/**
 * Receipts (Settle's docs/ledger.md, "Receipts"): every event Settle delivers from its PostgreSQL
 * ledger carries `receipt`, where its ledger recorded it (the global position and the event's
 * stream hash). Once a signed checkpoint of the ledger covers it, Settle's dispatcher answers
 * `GET /v1/receipts/{event_id}/proof` with that checkpoint and an inclusion proof; this module
 * checks both offline, with nothing but Settle's published public keys: the checkpoint is signed
 * by one of them (Ed25519, the transparency logs' signed-note format), and the event's leaf is
 * in the Merkle tree (RFC 9162) whose root the checkpoint states. A verified receipt is evidence
 * that this exact event is in the ledger Settle signed, which a later rewrite of that ledger
 * cannot take back. Self-contained: the kit ships without Settle's own libraries.
 */

/** A delivered event's receipt. */
export interface Receipt {
  readonly eventId: string;
  /** The event's global position in the ledger (1 for the first event). */
  readonly ledgerPosition: number;
  /** Its stream hash, 64 lower-case hex digits. */
  readonly ledgerHash: string;
}

/** The dispatcher's answer to `GET /v1/receipts/{event_id}/proof` (wire names). */
export interface ReceiptProof {
  readonly event_id: string;
  readonly receipt: { readonly ledger_position: number; readonly ledger_hash: string };
  /** The signed checkpoint that covers the event, as published (a signed note). */
  readonly checkpoint: string;
  /** The checkpoint's size: the tree the proof is in. */
  readonly tree_size: number;
  /** `ledger_position - 1`. */
  readonly leaf_index: number;
  /** The inclusion proof, hashes as 64 hex digits, from the leaf up. */
  readonly inclusion_proof: readonly string[];
}

/** What {@link verifyReceipt} found. */
export type ReceiptVerification =
  | {
      readonly verified: true;
      readonly checkpoint: { readonly origin: string; readonly size: number; readonly root: string; readonly signedAt: Date; readonly key: string };
    }
  | { readonly verified: false; readonly reason: ReceiptFailure; readonly message: string };

/**
 * Why a receipt did not verify: `MALFORMED` (the proof or checkpoint cannot be read),
 * `UNSIGNED` (no signature by a key given verifies, or one is forged), `OTHER_LEDGER` (the
 * checkpoint names another origin than the one expected), `MISMATCH` (the proof is for another
 * event, position or hash than the receipt), `NOT_INCLUDED` (the leaf is not in the signed tree).
 */
export type ReceiptFailure = 'MALFORMED' | 'UNSIGNED' | 'OTHER_LEDGER' | 'MISMATCH' | 'NOT_INCLUDED';

const HEX64 = /^[0-9a-f]{64}$/;

/** The receipt of a delivered event's payload, or `null` when it carries none (an event recorded before receipts, or on a store without them). */
export function receiptOf(payload: JsonObject): Receipt | null {
  const receipt = payload.receipt;
  if (typeof receipt !== 'object' || receipt === null || typeof payload.event_id !== 'string') return null;
  const { ledger_position: position, ledger_hash: hash } = receipt as Record<string, unknown>;
  if (!Number.isSafeInteger(position) || (position as number) < 1 || typeof hash !== 'string' || !HEX64.test(hash)) return null;
  return { eventId: payload.event_id, ledgerPosition: position as number, ledgerHash: hash };
}

/** What {@link fetchReceiptProof} got. */
export type FetchedProof =
  | { readonly status: 'proven'; readonly proof: ReceiptProof }
  /** No signed checkpoint covers the event yet: ask again after `retryAfterMs` milliseconds. */
  | { readonly status: 'not_yet'; readonly retryAfterMs: number }
  /** Settle knows no delivered event with this id. */
  | { readonly status: 'unknown' };

/**
 * Asks Settle's dispatcher for a receipt's proof.
 *
 * @param options.baseUrl - the dispatcher's base URL (`https://settle-dispatcher.example`).
 * @param options.apiKey - the merchant's API key (the one its checkout service uses), sent as a bearer token.
 * @throws Error for any other answer (status and problem code in the message) and network errors.
 */
export async function fetchReceiptProof(options: {
  baseUrl: string;
  apiKey: string;
  eventId: string;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}): Promise<FetchedProof> {
  const request = options.fetch ?? fetch;
  const url = `${options.baseUrl.replace(/\/+$/u, '')}/v1/receipts/${encodeURIComponent(options.eventId)}/proof`;
  const response = await request(url, { headers: { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' }, signal: options.signal ?? null });
  if (response.ok) return { status: 'proven', proof: (await response.json()) as ReceiptProof };
  const problem = (await response.json().catch(() => ({}))) as { code?: string };
  if (response.status === 404 && problem.code === 'RECEIPT.NOT_COVERED_YET') {
    const seconds = Number(response.headers.get('retry-after') ?? '60');
    return { status: 'not_yet', retryAfterMs: (Number.isFinite(seconds) && seconds > 0 ? seconds : 60) * 1000 };
  }
  if (response.status === 404 && problem.code === 'RECEIPT.UNKNOWN_EVENT') return { status: 'unknown' };
  throw new Error(`the receipt proof answered ${response.status} ${problem.code ?? ''}`.trim());
}

/**
 * Checks a receipt against its proof offline: the checkpoint is signed by one of `publicKeys`
 * (Settle's published verifier keys, `<name>+<key id>+<key>`: keep every key ever published, a
 * rotation retires a key for signing, not for verifying) whose name is the checkpoint's origin
 * (a ledger's key is named after it), of the ledger `origin` when given, and
 * the receipt's leaf, `SHA-256(0x00 || "<position>\n<hash>")`, is leaf `position - 1` of the tree
 * whose root the checkpoint states (RFC 9162, section 2.1.3.2).
 *
 * @returns the verdict; never throws for bad input.
 */
export function verifyReceipt(receipt: Receipt, proof: ReceiptProof, publicKeys: readonly string[], options: { origin?: string } = {}): ReceiptVerification {
  try {
    return verifyChecked(receipt, proof, publicKeys, options);
  } catch (error) {
    // Input of the wrong shape (a null proof, a key that is not a string): a verdict, not an exception.
    return { verified: false, reason: 'MALFORMED', message: `the receipt, proof or keys cannot be read (${(error as Error).message})` };
  }
}

function verifyChecked(receipt: Receipt, proof: ReceiptProof, publicKeys: readonly string[], options: { origin?: string }): ReceiptVerification {
  const fail = (reason: ReceiptFailure, message: string): ReceiptVerification => ({ verified: false, reason, message });
  if (
    proof.event_id !== receipt.eventId ||
    proof.receipt?.ledger_position !== receipt.ledgerPosition ||
    proof.receipt?.ledger_hash !== receipt.ledgerHash ||
    proof.leaf_index !== receipt.ledgerPosition - 1
  ) {
    return fail('MISMATCH', 'the proof is for another event, position or hash than the receipt');
  }
  const opened = openCheckpoint(proof.checkpoint, publicKeys);
  if ('reason' in opened) return fail(opened.reason, opened.message);
  if (options.origin !== undefined && opened.origin !== options.origin)
    return fail('OTHER_LEDGER', `the checkpoint is of ${opened.origin}, not ${options.origin}`);
  if (opened.size !== proof.tree_size) return fail('MISMATCH', 'the proof is for another tree than the checkpoint’s');
  const hashes: unknown = proof.inclusion_proof;
  if (!Array.isArray(hashes) || !hashes.every((h): h is string => typeof h === 'string' && HEX64.test(h))) {
    return fail('MALFORMED', 'the inclusion proof is a list of 64-hex-digit hashes');
  }
  const leaf = sha256(Buffer.of(0), Buffer.from(`${receipt.ledgerPosition}\n${receipt.ledgerHash}`, 'utf8'));
  const path = hashes.map((h) => Buffer.from(h, 'hex'));
  if (!included(leaf, receipt.ledgerPosition - 1, opened.size, path, opened.root))
    return fail('NOT_INCLUDED', 'the event is not in the tree the checkpoint signed');
  return {
    verified: true,
    checkpoint: { origin: opened.origin, size: opened.size, root: opened.root.toString('hex'), signedAt: opened.signedAt, key: opened.key },
  };
}

function sha256(...parts: Buffer[]): Buffer {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
}

/** RFC 9162, section 2.1.3.2: whether `leaf` is leaf `index` of the tree of `size` leaves with root `root`. */
function included(leaf: Buffer, index: number, size: number, proof: readonly Buffer[], root: Buffer): boolean {
  if (!Number.isSafeInteger(index) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = sha256(Buffer.of(1), p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = sha256(Buffer.of(1), r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

interface PublicKey {
  name: string;
  id: number;
  text: string;
  key: KeyObject;
}

/** A published verifier key `<name>+<8 hex id>+<base64(0x01 || key)>`, or `null` when malformed or its id does not match. */
function parseKey(text: string): PublicKey | null {
  const first = text.indexOf('+');
  const second = text.indexOf('+', first + 1);
  if (first <= 0 || second < 0) return null;
  const [name, id, material] = [text.slice(0, first), text.slice(first + 1, second), Buffer.from(text.slice(second + 1), 'base64')];
  if (!/^[0-9a-f]{8}$/u.test(id) || material.length !== 33 || material[0] !== 1) return null;
  const expected = sha256(Buffer.from(`${name}\n`, 'utf8'), material).readUInt32BE(0);
  if (expected !== Number.parseInt(id, 16)) return null;
  return {
    name,
    id: expected,
    text: `${name}+${id}`,
    key: createPublicKey({ key: Buffer.concat([SPKI_ED25519, material.subarray(1)]), format: 'der', type: 'spki' }),
  };
}

/** Opens a signed checkpoint note with the keys given, and reads its size, root and time. */
function openCheckpoint(
  note: string,
  publicKeys: readonly string[],
): { origin: string; size: number; root: Buffer; signedAt: Date; key: string } | { reason: ReceiptFailure; message: string } {
  if (typeof note !== 'string') return { reason: 'MALFORMED', message: 'the checkpoint is a signed note' };
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) return { reason: 'MALFORMED', message: 'a signed note is its text, a blank line and its signatures' };
  const text = note.slice(0, split + 1);
  const noteOrigin = text.slice(0, text.indexOf('\n'));
  // A ledger's key is named after its origin: a key of another ledger (a staging deployment's, kept
  // beside production's) never vouches for this one's checkpoints.
  const keys = publicKeys.map(parseKey).filter((k): k is PublicKey => k !== null && k.name === noteOrigin);
  let signedBy: string | null = null;
  for (const line of note.slice(split + 2, -1).split('\n')) {
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/]+={0,2})$/u.exec(line);
    if (!match) return { reason: 'MALFORMED', message: 'a signature line is "— <key name> <base64>"' };
    const blob = Buffer.from(match[2]!, 'base64');
    if (blob.length < 5) return { reason: 'MALFORMED', message: 'a signature is a key id and a signature' };
    const key = keys.find((k) => k.name === match[1] && k.id === blob.readUInt32BE(0));
    if (!key) continue;
    if (!verify(null, Buffer.from(text, 'utf8'), key.key, blob.subarray(4)))
      return { reason: 'UNSIGNED', message: `the signature of ${key.text} does not verify` };
    signedBy ??= key.text;
  }
  if (signedBy === null) return { reason: 'UNSIGNED', message: `no signature by a key given of ${noteOrigin}` };
  const [origin, size, root, ...extensions] = text.slice(0, -1).split('\n');
  const rootBytes = Buffer.from(root ?? '', 'base64');
  const time = extensions.find((l) => /^time \d+$/u.test(l));
  if (!origin || !/^(0|[1-9]\d*)$/u.test(size ?? '') || rootBytes.length !== 32 || !time) {
    return { reason: 'MALFORMED', message: 'a ledger checkpoint is an origin, a size, a root and its time' };
  }
  return { origin, size: Number(size), root: rootBytes, signedAt: new Date(Number(time.slice(5))), key: signedBy };
}

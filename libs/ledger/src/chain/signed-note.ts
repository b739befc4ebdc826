import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { SettleError, type ErrorKind } from '@settle/domain';

/**
 * Signed notes and checkpoints, in the formats transparency logs share (C2SP `signed-note` and
 * `tlog-checkpoint`, first defined by Go's `golang.org/x/mod/sumdb/note`): what the ledger's
 * signed checkpoints are written in (docs/ledger.md, "Checkpoints"), so that any verifier of
 * that ecosystem can read them, and so that a checkpoint is checked with nothing but the text
 * and a published key.
 *
 * A note is UTF-8 text ending in a newline, a blank line, then one line per signature:
 * `— <key name> <base64(key id, 4 bytes big-endian || Ed25519 signature)>`. A key's id is the
 * first 4 bytes of SHA-256(name || "\n" || 0x01 || public key). A verifier key is written
 * `<name>+<key id, 8 hex>+<base64(0x01 || public key)>`; a signer key
 * `PRIVATE+KEY+<name>+<key id>+<base64(0x01 || 32-byte seed)>` (a secret: it lives in a vault).
 */

/** Ed25519, the only signature algorithm written here (C2SP signed-note, algorithm 0x01). */
const ALG_ED25519 = 0x01;
/** The start of a signature line: an em dash and a space. */
const SIGNATURE_PREFIX = '\u2014 ';
/** DER prefix of a PKCS #8 Ed25519 private key, before its 32-byte seed (RFC 8410). */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
/** DER prefix of an SPKI Ed25519 public key, before its 32 bytes (RFC 8410). */
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
/** Most signatures read from one note (a bound against notes made to exhaust a verifier). */
const MAX_SIGNATURES = 100;

/** A note or key could not be read, or no known key signed it (`NOTE.INVALID`, `NOTE.UNVERIFIED`). */
export class NoteError extends SettleError {
  readonly kind: ErrorKind = 'invalid';

  /** @param code - `NOTE.INVALID` (malformed) or `NOTE.UNVERIFIED` (no signature by a known key verifies). */
  constructor(
    readonly code: 'NOTE.INVALID' | 'NOTE.UNVERIFIED',
    message: string,
  ) {
    super(message);
    this.name = 'NoteError';
  }
}

/** A key that verifies notes: its name, id and Ed25519 public key. */
export interface NoteVerifier {
  name: string;
  /** The key's id, an unsigned 32-bit integer. */
  keyId: number;
  publicKey: KeyObject;
}

/** A key that signs notes. Its text form is a secret. */
export interface NoteSigner {
  name: string;
  keyId: number;
  privateKey: KeyObject;
}

/** A signature of a note by a key the verifier knows, checked. */
export interface NoteSignature {
  name: string;
  keyId: number;
}

/** A key name: at least one character, no space, `+` or newline (C2SP signed-note). */
function checkName(name: string): void {
  if (name.length === 0 || /[\s+]/u.test(name)) throw new NoteError('NOTE.INVALID', 'a key name is one or more characters, none a space, a plus or a newline');
}

/** The id of an Ed25519 key: the first 4 bytes of SHA-256(name || "\n" || 0x01 || public key), as an unsigned integer. */
export function noteKeyId(name: string, publicKey: Uint8Array): number {
  return createHash('sha256').update(`${name}\n`, 'utf8').update(Buffer.of(ALG_ED25519)).update(publicKey).digest().readUInt32BE(0);
}

const hex8 = (id: number) => id.toString(16).padStart(8, '0');

/** The 32 raw bytes of an Ed25519 public key. */
function rawPublicKey(key: KeyObject): Buffer {
  return key.export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519.length);
}

/**
 * A new Ed25519 key pair for notes, in text form: `signer` (a secret, for the vault) and
 * `verifier` (to publish).
 *
 * @throws NoteError `NOTE.INVALID` for a name with a space, a plus or a newline.
 */
export function generateNoteKey(name: string): { signer: string; verifier: string } {
  checkName(name);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_ED25519.length);
  const id = noteKeyId(name, rawPublicKey(publicKey));
  return {
    signer: `PRIVATE+KEY+${name}+${hex8(id)}+${Buffer.concat([Buffer.of(ALG_ED25519), seed]).toString('base64')}`,
    verifier: verifierKeyText(name, publicKey),
  };
}

/** The published text of a public key: `<name>+<key id>+<base64(0x01 || key)>`. */
export function verifierKeyText(name: string, publicKey: KeyObject): string {
  checkName(name);
  const raw = rawPublicKey(publicKey);
  return `${name}+${hex8(noteKeyId(name, raw))}+${Buffer.concat([Buffer.of(ALG_ED25519), raw]).toString('base64')}`;
}

/** Splits `<name>+<id>+<key>` (the key may hold `+` itself). */
function keyParts(text: string): { name: string; id: string; material: Buffer } {
  const first = text.indexOf('+');
  const second = text.indexOf('+', first + 1);
  if (first <= 0 || second < 0) throw new NoteError('NOTE.INVALID', 'a key is <name>+<key id>+<key>');
  const [name, id, key] = [text.slice(0, first), text.slice(first + 1, second), text.slice(second + 1)];
  checkName(name);
  if (!/^[0-9a-f]{8}$/.test(id)) throw new NoteError('NOTE.INVALID', 'a key id is 8 lower-case hex digits');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key)) throw new NoteError('NOTE.INVALID', 'a key is base64');
  const material = Buffer.from(key, 'base64');
  if (material.length !== 33 || material[0] !== ALG_ED25519 || material.toString('base64') !== key) {
    throw new NoteError('NOTE.INVALID', 'only Ed25519 keys (0x01 and 32 bytes) are read');
  }
  return { name, id, material: material.subarray(1) };
}

/**
 * Reads a published verifier key.
 *
 * @throws NoteError `NOTE.INVALID` when it is malformed, not Ed25519, or its id does not match its name and key.
 */
export function parseVerifierKey(text: string): NoteVerifier {
  const { name, id, material } = keyParts(text);
  const keyId = noteKeyId(name, material);
  if (hex8(keyId) !== id) throw new NoteError('NOTE.INVALID', `the key id ${id} does not match the key`);
  return { name, keyId, publicKey: createPublicKey({ key: Buffer.concat([SPKI_ED25519, material]), format: 'der', type: 'spki' }) };
}

/**
 * Reads a signer key (a secret: never log it or its errors' input).
 *
 * @throws NoteError `NOTE.INVALID` when it is malformed, or its id does not match its public key.
 */
export function parseSignerKey(text: string): NoteSigner {
  if (!text.startsWith('PRIVATE+KEY+')) throw new NoteError('NOTE.INVALID', 'a signer key starts PRIVATE+KEY+');
  const { name, id, material } = keyParts(text.slice('PRIVATE+KEY+'.length));
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, material]), format: 'der', type: 'pkcs8' });
  const keyId = noteKeyId(name, rawPublicKey(createPublicKey(privateKey)));
  if (hex8(keyId) !== id) throw new NoteError('NOTE.INVALID', 'the key id does not match the key');
  return { name, keyId, privateKey };
}

/** The public half of a signer, to publish. */
export function verifierOf(signer: NoteSigner): NoteVerifier {
  return { name: signer.name, keyId: signer.keyId, publicKey: createPublicKey(signer.privateKey) };
}

function checkText(text: string): void {
  if (!text.endsWith('\n')) throw new NoteError('NOTE.INVALID', 'a note’s text ends with a newline');
  if (text.includes('\n\n')) throw new NoteError('NOTE.INVALID', 'a note’s text has no blank line');
  if (!text.isWellFormed() || [...text].some((c) => c !== '\n' && c.charCodeAt(0) < 0x20))
    throw new NoteError('NOTE.INVALID', 'a note’s text is UTF-8 without control characters but newlines');
}

/**
 * Signs a note's text with each signer, in order: the text, a blank line, a signature line each.
 *
 * @throws NoteError `NOTE.INVALID` when the text does not end with a newline, holds a blank line
 *   or a control character other than newlines.
 */
export function signNote(text: string, signers: readonly NoteSigner[]): string {
  checkText(text);
  const lines = signers.map((s) => {
    const signature = sign(null, Buffer.from(text, 'utf8'), s.privateKey);
    const id = Buffer.alloc(4);
    id.writeUInt32BE(s.keyId);
    return `${SIGNATURE_PREFIX}${s.name} ${Buffer.concat([id, signature]).toString('base64')}\n`;
  });
  return `${text}\n${lines.join('')}`;
}

/**
 * Opens a signed note: its text and the signatures that verify under the keys given (rotated keys
 * kept for verification among them). Signatures by keys not given are ignored.
 *
 * @throws NoteError `NOTE.INVALID` for a malformed note (no blank line before the signatures, a
 *   malformed signature line, more than 100 signatures); `NOTE.UNVERIFIED` when no signature by
 *   a key given verifies (a signature by a key given that does not verify is a forgery: refused
 *   the same way, whatever the others).
 */
export function openNote(note: string, verifiers: readonly NoteVerifier[]): { text: string; signatures: NoteSignature[] } {
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) throw new NoteError('NOTE.INVALID', 'a signed note is its text, a blank line and its signatures');
  const text = note.slice(0, split + 1);
  checkText(text);
  const lines = note.slice(split + 2, -1).split('\n');
  if (lines.length > MAX_SIGNATURES) throw new NoteError('NOTE.INVALID', `a note carries at most ${MAX_SIGNATURES} signatures`);
  const signatures: NoteSignature[] = [];
  for (const line of lines) {
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/]+={0,2})$/u.exec(line);
    if (!match) throw new NoteError('NOTE.INVALID', 'a signature line is "— <key name> <base64>"');
    const [name, blob] = [match[1]!, Buffer.from(match[2]!, 'base64')];
    if (blob.length < 5) throw new NoteError('NOTE.INVALID', 'a signature is a key id and a signature');
    const keyId = blob.readUInt32BE(0);
    const key = verifiers.find((v) => v.name === name && v.keyId === keyId);
    if (!key) continue;
    if (!verify(null, Buffer.from(text, 'utf8'), key.publicKey, blob.subarray(4))) {
      throw new NoteError('NOTE.UNVERIFIED', `the signature of ${name} does not verify`);
    }
    signatures.push({ name, keyId });
  }
  if (signatures.length === 0) throw new NoteError('NOTE.UNVERIFIED', 'no signature by a known key');
  return { text, signatures };
}

/** A checkpoint's body (C2SP tlog-checkpoint): the log's origin, its size and root, then extension lines. */
export interface CheckpointBody {
  /** The log's name (`settle.dev/ledger/<deployment>`): one line, no blank. */
  origin: string;
  /** Leaves of the tree (events of the ledger), a non-negative integer. */
  size: number;
  /** The Merkle root over them (`merkleRoot`). */
  root: Buffer;
  /** Further lines, each non-empty (Settle writes `position <n>`, `head <global hash>`, `time <epoch ms>`). */
  extensions: string[];
}

/**
 * A checkpoint's text: `<origin>\n<size>\n<base64 root>\n` and one line per extension.
 *
 * @throws NoteError `NOTE.INVALID` for an empty or multi-line origin or extension, a size that
 *   is not a non-negative safe integer, or a root that is not 32 bytes.
 */
export function formatCheckpoint(body: CheckpointBody): string {
  if (body.origin.length === 0 || body.origin.includes('\n')) throw new NoteError('NOTE.INVALID', 'a checkpoint’s origin is one non-empty line');
  if (!Number.isSafeInteger(body.size) || body.size < 0) throw new NoteError('NOTE.INVALID', 'a checkpoint’s size is a non-negative integer');
  if (body.root.length !== 32) throw new NoteError('NOTE.INVALID', 'a checkpoint’s root is 32 bytes');
  if (body.extensions.some((line) => line.length === 0 || line.includes('\n'))) throw new NoteError('NOTE.INVALID', 'an extension is one non-empty line');
  return [body.origin, String(body.size), body.root.toString('base64'), ...body.extensions].map((line) => `${line}\n`).join('');
}

/**
 * Reads a checkpoint's text (a note's, once opened).
 *
 * @throws NoteError `NOTE.INVALID` when it does not have an origin, a decimal size and a 32-byte base64 root.
 */
export function parseCheckpoint(text: string): CheckpointBody {
  const lines = text.split('\n');
  if (lines.at(-1) !== '' || lines.length < 4) throw new NoteError('NOTE.INVALID', 'a checkpoint is an origin, a size and a root, each on its line');
  const [origin, size, root, ...rest] = lines.slice(0, -1) as [string, string, string, ...string[]];
  const rootBytes = Buffer.from(root, 'base64');
  if (!/^(0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size))) throw new NoteError('NOTE.INVALID', 'a checkpoint’s size is a decimal integer');
  if (rootBytes.length !== 32 || rootBytes.toString('base64') !== root) throw new NoteError('NOTE.INVALID', 'a checkpoint’s root is 32 bytes of base64');
  if (origin.length === 0 || rest.some((line) => line.length === 0)) throw new NoteError('NOTE.INVALID', 'a checkpoint has no empty line');
  return { origin, size: Number(size), root: rootBytes, extensions: rest };
}

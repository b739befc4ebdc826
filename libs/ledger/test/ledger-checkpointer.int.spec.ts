/**
 * The ledger's signed checkpoints on a real PostgreSQL (docs/ledger.md, "Checkpoints"): made when
 * anything but checkpoints was appended, appended as ledger facts with their outbox record,
 * written once to the checkpoint sink with the public key; a sink that is missing leaves the
 * ledger working and is caught up once back; a rotated key signs what follows while the
 * checkpoints signed before still verify with the key published then.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHECKPOINT_STREAM,
  CheckpointSinkError,
  FolderCheckpointSink,
  LEDGER_MIGRATIONS,
  LedgerCheckpointer,
  ledgerLeafHash,
  merkleRoot,
  openLedgerCheckpoint,
  parseVerifierKey,
  PostgresLedger,
  PostgresLedgerWriter,
  PostgresMerkleLog,
  PostgresReceiptProofs,
  readCheckedEvents,
  READ_MODEL_MIGRATIONS,
  VaultCheckpointKey,
  verifyAgainstCheckpoints,
  type LedgerEventInput,
} from '@settle/ledger';
import type { OutboxMessage } from '@settle/messaging';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { createTestDatabase } from '@settle/testing';
// The receiver kit as customers install it (it ships on its own, so it is not a workspace alias).
import { receiptOf, verifyReceipt } from '../../receiver/src/index.js';
import { CredentialsVault, generateKey, InMemoryVaultStore, MasterKeyRing } from '@settle/vault';

const ORIGIN = 'settle.dev/ledger/test';

let pool: Pool;
let drop: () => Promise<void>;
let dir: string;

beforeAll(async () => {
  const db = await createTestDatabase('settle_checkpointer');
  drop = db.drop;
  pool = createPool(db.url, 4);
  await migrateSchema(pool, LEDGER_MIGRATIONS);
  await migrateSchema(pool, READ_MODEL_MIGRATIONS);
  dir = await mkdtemp(join(tmpdir(), 'settle-checkpoints-'));
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const settled = (amount: number): LedgerEventInput => ({
  eventId: randomUUID(),
  type: 'TransactionSettled',
  data: { amount_minor: amount },
  metadata: { correlationId: 'c', causationId: 'c' },
});

async function appendEvents(count: number): Promise<void> {
  const ledger = new PostgresLedger(pool);
  for (let i = 0; i < count; i++) await ledger.append(`other-${randomUUID().slice(0, 8)}`, [settled(100 + i)], 'no_stream');
}

function setUp(sinkDir: string | null) {
  const enqueued: OutboxMessage[] = [];
  const outbox = { enqueue: async (_client: unknown, messages: readonly OutboxMessage[]) => void enqueued.push(...messages) };
  const writer = new PostgresLedgerWriter(pool, new PostgresLedger(pool), outbox, { wake: () => undefined });
  const vault = new CredentialsVault(new InMemoryVaultStore(), MasterKeyRing.from([['v1', generateKey()]]));
  const key = new VaultCheckpointKey(vault, ORIGIN);
  const sink = sinkDir === null ? null : new FolderCheckpointSink(sinkDir);
  const checkpointer = new LedgerCheckpointer(pool, writer, new PostgresMerkleLog(pool), key, sink, ORIGIN);
  return { checkpointer, key, enqueued, sink };
}

async function leaves(): Promise<Buffer[]> {
  const all: Buffer[] = [];
  for await (const e of readCheckedEvents(pool)) all.push(ledgerLeafHash(e.position, e.streamHash));
  return all;
}

describe('LedgerCheckpointer', () => {
  let checkpointer: LedgerCheckpointer;
  let key: VaultCheckpointKey;
  let enqueued: OutboxMessage[];
  let sinkDir: string;
  beforeAll(() => {
    ({ checkpointer, key, enqueued } = setUp(null));
  });

  it('makes none for an empty ledger', async () => {
    expect(await checkpointer.checkpoint()).toEqual({ status: 'nothing_new', last: null });
  });

  it('signs the tree of the events appended, appends the fact and enqueues its record', async () => {
    await appendEvents(5);
    const outcome = await checkpointer.checkpoint();
    expect(outcome.status).toBe('made');
    if (outcome.status !== 'made') return;
    const { checkpoint } = outcome;
    expect(checkpoint.size).toBe(5);
    expect(checkpoint.root).toBe(merkleRoot((await leaves()).slice(0, 5)).toString('hex'));
    const { rows } = await pool.query<{ position: string; global_hash: string }>('SELECT position, global_hash FROM ledger.events WHERE position = 5');
    expect(checkpoint.global_hash).toBe(rows[0]!.global_hash);

    const fact = await pool.query<{ position: string; event_type: string }>('SELECT position, event_type FROM ledger.events WHERE stream_id = $1', [
      CHECKPOINT_STREAM,
    ]);
    expect(fact.rows.map((r) => [Number(r.position), r.event_type])).toEqual([[6, 'LedgerCheckpointed']]);
    expect(enqueued).toHaveLength(1);
    expect(enqueued[0]).toMatchObject({ type: 'LedgerCheckpointed', key: ORIGIN, payload: { size: 5, root: checkpoint.root, ledger_position: 6 } });

    const { verifierKey } = await key.current();
    expect(openLedgerCheckpoint(checkpoint.note, [parseVerifierKey(verifierKey)])).toMatchObject({
      origin: ORIGIN,
      size: 5,
      globalHash: checkpoint.global_hash,
    });
  });

  it('makes none when only checkpoints were appended since the last, and covers the checkpoint fact with the next', async () => {
    expect((await checkpointer.checkpoint()).status).toBe('nothing_new');
    await appendEvents(3);
    const outcome = await checkpointer.checkpoint();
    expect(outcome).toMatchObject({ status: 'made', checkpoint: { size: 9 } });
  });

  it('refuses to publish without a sink, and the ledger keeps taking appends', async () => {
    await expect(checkpointer.publish()).rejects.toMatchObject({ code: 'CHECKPOINT_SINK.UNAVAILABLE' });
    await appendEvents(1);
    expect((await checkpointer.checkpoint()).status).toBe('made');
  });

  it('keeps working while the sink folder is missing, and catches the sink up once it is back', async () => {
    sinkDir = join(dir, 'missing');
    const { checkpointer: withSink } = setUp(sinkDir);
    await appendEvents(2);
    expect((await withSink.checkpoint()).status).toBe('made');
    const failed = await withSink.publish().catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(CheckpointSinkError);
    expect(failed).toMatchObject({ code: 'CHECKPOINT_SINK.UNAVAILABLE' });

    await mkdir(sinkDir);
    // Four checkpoints were made so far (sizes 5, 9, 11, 14): every one is written, oldest first.
    expect(await withSink.publish()).toEqual({ written: 4 });
    expect(await withSink.publish()).toEqual({ written: 0 });
    const files = (await readdir(sinkDir)).filter((f) => f.endsWith('.note'));
    expect(files).toEqual([
      'checkpoint-0000000000000005.note',
      'checkpoint-0000000000000009.note',
      'checkpoint-0000000000000011.note',
      'checkpoint-0000000000000014.note',
    ]);
  });

  it('rotates the key: what follows is signed by the new key, what came before still verifies with the old one', async () => {
    const { checkpointer: withSink, key: rotating } = setUp(sinkDir);
    const before = (await rotating.current()).verifierKey;
    const { verifierKey: after } = await rotating.rotate();
    expect(after).not.toBe(before);
    await appendEvents(2);
    const outcome = await withSink.checkpoint();
    expect(outcome.status).toBe('made');
    await withSink.publish();
    const keyFiles = await readdir(join(sinkDir, 'keys'));
    expect(keyFiles).toContain(`${after.split('+')[1]}.vkey`);

    const sink = new FolderCheckpointSink(sinkDir);
    const published = (await sink.readKeys()).map(parseVerifierKey);
    const notes = await sink.readAll();
    const opened = notes.map(({ note }) => openLedgerCheckpoint(note, published));
    expect(opened.map((c) => c.size)).toEqual([5, 9, 11, 14, 17]);
    // The newest one is signed by the rotated key alone.
    expect(() => openLedgerCheckpoint(notes.at(-1)!.note, [parseVerifierKey(after)])).not.toThrow();
    expect(() =>
      openLedgerCheckpoint(
        notes.at(-1)!.note,
        published.filter((k) => k.keyId !== parseVerifierKey(after).keyId),
      ),
    ).toThrow(/UNVERIFIED|no signature/i);
    expect(await verifyAgainstCheckpoints(readCheckedEvents(pool), opened)).toMatchObject({ checkpoints: 5, disagreement: null });
  });

  it('writes each checkpoint once: a different note under a size taken is refused, the same note again is a no-op', async () => {
    const sink = new FolderCheckpointSink(sinkDir);
    const [first] = await sink.readAll();
    await expect(sink.write(first!.size, first!.note)).resolves.toBeUndefined();
    await expect(sink.write(first!.size, `${first!.note}x`)).rejects.toMatchObject({ code: 'CHECKPOINT_SINK.CONFLICT' });
    expect(await readFile(join(sinkDir, 'checkpoint-0000000000000005.note'), 'utf8')).toBe(first!.note);
  });

  it('refuses to publish when the sink holds another note under a size the ledger signed (a database restored to an earlier time)', async () => {
    const restored = join(dir, 'restored');
    await mkdir(restored);
    const sink = new FolderCheckpointSink(sinkDir);
    const notes = await sink.readAll();
    const newest = notes.at(-1)!;
    await new FolderCheckpointSink(restored).write(newest.size, newest.note.replace(/^time \d+$/m, 'time 1'));
    const { checkpointer: withRestored } = setUp(restored);
    await expect(withRestored.publish()).rejects.toMatchObject({ code: 'CHECKPOINT_SINK.CONFLICT' });
  });

  it('lets one checkpointer run at a time: another one holding the lock makes this one busy', async () => {
    const holder = await pool.connect();
    try {
      await holder.query("SELECT pg_advisory_lock(hashtext('settle.ledger.checkpointer'))");
      await appendEvents(1);
      expect(await checkpointer.checkpoint()).toEqual({ status: 'busy' });
      await holder.query("SELECT pg_advisory_unlock(hashtext('settle.ledger.checkpointer'))");
      expect((await checkpointer.checkpoint()).status).toBe('made');
    } finally {
      holder.release();
    }
  });

  it('a note that was tampered with in the sink does not open with the published keys', async () => {
    const tampered = join(dir, 'tampered');
    await mkdir(tampered);
    const sink = new FolderCheckpointSink(sinkDir);
    const [first] = await sink.readAll();
    await writeFile(join(tampered, 'checkpoint-0000000000000005.note'), first!.note.replace(/^5$/m, '6'));
    const [note] = await new FolderCheckpointSink(tampered).readAll();
    const published = (await sink.readKeys()).map(parseVerifierKey);
    expect(() => openLedgerCheckpoint(note!.note, published)).toThrow();
  });
});

describe('receipts: the proof of a delivered event against the latest signed checkpoint', () => {
  it('is not covered until a checkpoint is, then proves the event offline with the published key alone', async () => {
    const { checkpointer, key } = setUp(null);
    const eventId = randomUUID();
    const ledger = new PostgresLedger(pool);
    const appended = await ledger.append(`entitlement-user-${eventId.slice(0, 8)}:pro`, [{ ...settled(1), eventId }], 'no_stream');
    const position = appended.positions[0]!;
    const proofs = new PostgresReceiptProofs(pool);
    expect(await proofs.proofFor(eventId)).toEqual({ status: 'not_covered', position });
    expect((await checkpointer.checkpoint()).status).toBe('made');
    await appendEvents(2);

    const answer = await proofs.proofFor(eventId.toUpperCase());
    expect(answer.status).toBe('proven');
    if (answer.status !== 'proven') return;
    const { rows } = await pool.query<{ stream_hash: string }>('SELECT stream_hash FROM ledger.events WHERE position = $1', [position]);
    // The receipt as the delivered body carries it, then checked with nothing but the public key.
    const receipt = receiptOf({ event_id: eventId, receipt: { ledger_position: position, ledger_hash: rows[0]!.stream_hash } })!;
    expect(answer.proof.receipt).toEqual({ ledger_position: position, ledger_hash: rows[0]!.stream_hash });
    const { verifierKey } = await key.current();
    const verified = verifyReceipt(receipt, answer.proof, [verifierKey], { origin: ORIGIN });
    expect(verified).toMatchObject({ verified: true, checkpoint: { origin: ORIGIN, size: answer.proof.tree_size } });

    // Tampering of any part is refused.
    const flipped = answer.proof.inclusion_proof.map((h, i) => (i === 0 ? `${h[0] === '0' ? '1' : '0'}${h.slice(1)}` : h));
    expect(verifyReceipt(receipt, { ...answer.proof, inclusion_proof: flipped }, [verifierKey])).toMatchObject({ verified: false, reason: 'NOT_INCLUDED' });
    expect(verifyReceipt({ ...receipt, ledgerHash: 'ab'.repeat(32) }, answer.proof, [verifierKey])).toMatchObject({ verified: false, reason: 'MISMATCH' });
    const other = await new VaultCheckpointKey(new CredentialsVault(new InMemoryVaultStore(), MasterKeyRing.from([['v1', generateKey()]])), ORIGIN).current();
    expect(verifyReceipt(receipt, answer.proof, [other.verifierKey])).toMatchObject({ verified: false, reason: 'UNSIGNED' });
    expect(verifyReceipt(receipt, answer.proof, [verifierKey], { origin: 'settle.dev/ledger/other' })).toMatchObject({
      verified: false,
      reason: 'OTHER_LEDGER',
    });
    const forged = answer.proof.checkpoint.replace(/^(\d+)$/m, (n) => String(Number(n) + 1));
    expect(verifyReceipt(receipt, { ...answer.proof, checkpoint: forged }, [verifierKey])).toMatchObject({ verified: false, reason: 'UNSIGNED' });
  });

  it('answers unknown for an id that is not an entitlement event of the ledger', async () => {
    const proofs = new PostgresReceiptProofs(pool);
    expect(await proofs.proofFor(randomUUID())).toEqual({ status: 'unknown' });
    expect(await proofs.proofFor('not-a-uuid')).toEqual({ status: 'unknown' });
    const { rows } = await pool.query<{ event_id: string }>("SELECT event_id FROM ledger.events WHERE stream_id LIKE 'other-%' LIMIT 1");
    expect(await proofs.proofFor(rows[0]!.event_id)).toEqual({ status: 'unknown' });
  });
});

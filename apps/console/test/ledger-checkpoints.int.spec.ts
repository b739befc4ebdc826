/**
 * The console's ledger verification against signed checkpoints on PostgreSQL (docs/console.md,
 * "Ledger verification"), with a checkpoint sink in a temporary folder and a key made for the
 * test: without a sink the chains are verified and the record says the checkpoints were not
 * checked; a note edited in the sink is a break (`CHECKPOINT_UNVERIFIED`); a history rewritten
 * and recomputed by a superuser, the console's own record forged to match (its global hash and
 * tree edge), passes the chains and is found by the next incremental run as `ROOT_MISMATCH`
 * against the checkpoint signed before the rewrite.
 */
import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FolderCheckpointSink,
  generateNoteKey,
  LEDGER_MIGRATIONS,
  ledgerLeafHash,
  type LedgerCheckpoint,
  type LedgerEventInput,
  MerkleFrontier,
  parseSignerKey,
  PostgresLedger,
  READ_MODEL_MIGRATIONS,
  readCheckedEvents,
  signLedgerCheckpoint,
} from '@settle/ledger';
import { createPool, migrateSchemas, type Pool } from '@settle/platform';
import { createTestDatabase, rewriteLedgerHistory } from '@settle/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LedgerChainAuditor } from '../src/ledger-chains/ledger-chain-auditor.js';
import { runVerification } from '../src/ledger-chains/ledger-verification.js';
import { PostgresVerificationLog } from '../src/ledger-chains/postgres-verification-log.js';
import { postgresCheckedEvents, PublishedCheckpointReader } from '../src/ledger-chains/published-checkpoint-reader.js';
import { CONSOLE_MIGRATIONS } from '../src/schema.js';

const ORIGIN = 'settle.dev/ledger/console-test';
const HOUR = 3_600_000;
const silent = pino({ level: 'silent' });

let pool: Pool;
let drop: () => Promise<void>;
let sinkDir: string;
let ledger: PostgresLedger;
const key = generateNoteKey(ORIGIN);

const settled = (amount: number): LedgerEventInput => ({
  eventId: randomUUID(),
  type: 'TransactionSettled',
  data: { amount_minor: amount },
  metadata: { correlationId: 'c', causationId: 'c' },
});

async function appendEvents(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await ledger.append(`transaction-ref_${i % 3}`, [settled(100 + i)], 'any');
}

/** The checkpoint of the ledger's first `size` events, signed with the test's key and written to the sink, as the projector would. */
async function signCheckpoint(size: number): Promise<LedgerCheckpoint> {
  const frontier = MerkleFrontier.empty();
  let global = '';
  for await (const event of readCheckedEvents(pool)) {
    if (event.position > size) break;
    frontier.append(ledgerLeafHash(event.position, event.streamHash));
    global = event.globalHash;
  }
  const checkpoint = { origin: ORIGIN, size, root: frontier.root(), globalHash: global, at: Date.now() };
  await new FolderCheckpointSink(sinkDir).write(size, signLedgerCheckpoint(checkpoint, [parseSignerKey(key.signer)]));
  return checkpoint;
}

/** An auditor over the test database reading the sink at `dir` (`null`: none configured). */
function auditorFor(dir: string | null, now: () => number): LedgerChainAuditor {
  const reader = new PublishedCheckpointReader({ dir, origin: ORIGIN, trustedKeys: [] });
  return new LedgerChainAuditor(ledger, new PostgresVerificationLog(pool), silent, {
    fullEveryMs: 24 * HOUR,
    now,
    checkpoints: { read: () => reader.read(), events: postgresCheckedEvents(pool, ledger) },
  });
}

beforeAll(async () => {
  const database = await createTestDatabase('settle_console_checkpoints');
  drop = database.drop;
  pool = createPool(database.url, 4);
  await migrateSchemas(pool, [CONSOLE_MIGRATIONS, LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS]);
  ledger = new PostgresLedger(pool);
  sinkDir = await mkdtemp(join(tmpdir(), 'console-checkpoint-sink-'));
  await new FolderCheckpointSink(sinkDir).publishKey(key.verifier);
  await appendEvents(6);
  await signCheckpoint(6);
});

beforeEach(async () => {
  await pool.query('TRUNCATE console.ledger_verifications');
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
  if (sinkDir) await rm(sinkDir, { recursive: true, force: true });
});

describe('the console checks the ledger against the signed checkpoints', () => {
  it('verifies the chains without a sink and records that the checkpoints were not checked', async () => {
    expect(await auditorFor(null, () => Date.now()).runOnce()).toMatchObject({
      outcome: 'verified',
      record: { verifiedPosition: 6, broken: null, checkpoints: { notChecked: 'LEDGER_CHECKPOINT_DIR is not set', checked: 0 } },
    });
    const { rows } = await pool.query(
      'SELECT checkpoint_note, checkpoints_checked, latest_checkpoint_size, checkpoint_frontier FROM console.ledger_verifications',
    );
    expect(rows).toEqual([
      { checkpoint_note: 'LEDGER_CHECKPOINT_DIR is not set', checkpoints_checked: 0, latest_checkpoint_size: null, checkpoint_frontier: null },
    ]);
  });

  it('records a note edited in the sink as CHECKPOINT_UNVERIFIED', async () => {
    const edited = await mkdtemp(join(tmpdir(), 'console-checkpoint-edited-'));
    try {
      await cp(join(sinkDir, 'keys'), join(edited, 'keys'), { recursive: true });
      const note = await readFile(join(sinkDir, 'checkpoint-0000000000000006.note'), 'utf8');
      await writeFile(join(edited, 'checkpoint-0000000000000006.note'), note.replace(/^time \d+$/m, 'time 1'));
      expect(await auditorFor(edited, () => Date.now()).runOnce()).toMatchObject({
        record: { verifiedPosition: 6, broken: { position: 6, streamId: '', revision: -1, reason: 'CHECKPOINT_UNVERIFIED' } },
      });
      const { rows } = await pool.query('SELECT broken_position, broken_reason FROM console.ledger_verifications');
      expect(rows).toEqual([{ broken_position: 6, broken_reason: 'CHECKPOINT_UNVERIFIED' }]);
    } finally {
      await rm(edited, { recursive: true, force: true });
    }
  });

  // Last: it leaves the ledger rewritten.
  it('finds a history rewritten and recomputed after a checkpoint, with the console’s own record forged to match, as ROOT_MISMATCH', async () => {
    let now = Date.parse('2026-11-25T10:00:00Z');
    const auditor = auditorFor(sinkDir, () => now);
    expect(await auditor.runOnce()).toMatchObject({
      record: { kind: 'full', verifiedPosition: 6, broken: null, checkpoints: { notChecked: null, checked: 1, latest: { size: 6 } } },
    });
    const [kept] = (await pool.query('SELECT checkpoint_frontier, checkpoint_keys_from FROM console.ledger_verifications')).rows;
    expect(kept).toMatchObject({ checkpoint_frontier: { size: 6 }, checkpoint_keys_from: `${sinkDir}/keys` });

    // The ledger grows and the projector signs it; then the rewrite, before the console's next run.
    await appendEvents(4);
    const signed = await signCheckpoint(10);
    const globals = await rewriteLedgerHistory(pool, 3, (data) => ({ ...data, amount_minor: 1 }));
    // The console's own record, forged as well: the global hash at its last position and the tree's edge there.
    const forged = MerkleFrontier.empty();
    for await (const event of readCheckedEvents(pool)) if (event.position <= 6) forged.append(ledgerLeafHash(event.position, event.streamHash));
    await pool.query('UPDATE console.ledger_verifications SET global_hash = $1, checkpoint_frontier = $2', [globals.get(6), JSON.stringify(forged.toJSON())]);

    // The chains alone (and the console's own record) pass it.
    const log = new PostgresVerificationLog(pool);
    const latest = await log.latest();
    const chainsAlone = await runVerification(ledger, { kind: 'incremental', from: 6, globalHash: latest!.globalHash }, latest, () => now);
    expect(chainsAlone).toMatchObject({ verifiedPosition: 10, broken: null });

    now += 60_000;
    expect(await auditor.runOnce()).toMatchObject({
      record: {
        kind: 'incremental',
        fromPosition: 6,
        verifiedPosition: 10,
        broken: { position: 10, streamId: '', revision: -1, reason: 'ROOT_MISMATCH', expected: signed.root.toString('hex') },
      },
    });
    // A full run, ten minutes later, computes the tree from the first event: the first checkpoint already disagrees.
    now += 10 * 60_000;
    expect(await auditor.runOnce()).toMatchObject({ record: { kind: 'full', broken: { position: 6, reason: 'ROOT_MISMATCH' } } });
  });
});

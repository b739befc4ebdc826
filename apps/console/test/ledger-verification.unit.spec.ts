/**
 * The console's incremental verification of the ledger's hash chains over an in-memory ledger:
 * the plan (full first, then from the checkpoint; full again on schedule and while broken), the
 * checkpoint's own check, runs that only confirm, the lock, and a break that stays until a full
 * verification passes; then the check against signed checkpoints: every one in a full run, the
 * newer ones from the kept tree edge in an incremental run, each disagreement and unusable
 * checkpoint as a break, a sink that cannot be read recorded and warned about once, and the
 * sink's reader on a folder.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FolderCheckpointSink,
  generateNoteKey,
  GENESIS_HASH,
  InMemoryLedger,
  ledgerLeafHash,
  MerkleFrontier,
  parseSignerKey,
  signLedgerCheckpoint,
  type LedgerCheckpoint,
  type RecordedLedgerEvent,
  type VerifiableLedger,
} from '@settle/ledger';
import { ConfigError, loadConsoleConfig } from '@settle/config';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { LedgerChainAuditor } from '../src/ledger-chains/ledger-chain-auditor.js';
import { NO_SINK, planVerification, runVerification, type CheckpointReading, type VerificationRecord } from '../src/ledger-chains/ledger-verification.js';
import { MemoryVerificationLog } from '../src/ledger-chains/memory-verification-log.js';
import { PublishedCheckpointReader } from '../src/ledger-chains/published-checkpoint-reader.js';

/**
 * The in-memory ledger with what a whole-ledger verification reads (the head, stored stream
 * hashes), and a way to tamper with what it answers, as an attacker editing rows would.
 */
class VerifiableMemoryLedger extends InMemoryLedger implements VerifiableLedger {
  /** Edits applied to events as they are read, by position. */
  readonly edits = new Map<number, (event: RecordedLedgerEvent) => RecordedLedgerEvent | null>();
  /** Positions whose reads are counted. */
  reads: number[] = [];

  override async readAll(afterPosition: number, limit: number): Promise<RecordedLedgerEvent[]> {
    const page = (await super.readAll(afterPosition, limit + this.edits.size)).flatMap((e) => {
      const edit = this.edits.get(e.position);
      const edited = edit ? edit(e) : e;
      return edited ? [edited] : [];
    });
    const answer = page.slice(0, limit);
    this.reads.push(...answer.map((e) => e.position));
    return answer;
  }

  async head(): Promise<{ position: number; globalHash: string }> {
    const all = await super.readAll(0, Number.MAX_SAFE_INTEGER);
    const last = all.at(-1);
    return { position: last?.position ?? 0, globalHash: last?.globalHash ?? GENESIS_HASH };
  }

  async streamHashesAt(pairs: ReadonlyArray<{ streamId: string; revision: number }>): Promise<Map<string, { revision: number; hash: string | null }>> {
    const found = new Map<string, { revision: number; hash: string | null }>();
    for (const { streamId, revision } of pairs) {
      const event = (await this.readStream(streamId))[revision];
      if (event) found.set(streamId, { revision, hash: event.streamHash });
    }
    return found;
  }
}

async function append(ledger: InMemoryLedger, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await ledger.append(
      `transaction-ref_${i % 3}`,
      [{ eventId: randomUUID(), type: 'TransactionSettled', data: { amount_minor: 100 + i }, metadata: { correlationId: 'c', causationId: 'c' } }],
      'any',
    );
  }
}

const HOUR = 3_600_000;
const policy = { fullEveryMs: 24 * HOUR, brokenRecheckMs: 10 * 60_000 };
const T0 = Date.parse('2026-11-25T10:00:00Z');

const record = (over: Partial<VerificationRecord>): VerificationRecord => ({
  kind: 'full',
  fromPosition: 0,
  verifiedPosition: 5,
  globalHash: 'h5',
  eventsChecked: 5,
  startedAt: new Date(T0),
  finishedAt: new Date(T0),
  checkedAt: new Date(T0),
  lastFullAt: new Date(T0),
  broken: null,
  checkpoints: { notChecked: NO_SINK, checked: 0, latest: null, keysFrom: null, frontier: null },
  ...over,
});

describe('planning the next verification', () => {
  it('starts from the first event the first time, then from the last verified position with its global hash', () => {
    expect(planVerification(null, T0, policy)).toEqual({ kind: 'full' });
    expect(planVerification(record({}), T0 + 60_000, policy)).toEqual({ kind: 'incremental', from: 5, globalHash: 'h5' });
  });

  it('verifies from the first event again once a day, and while the ledger was empty', () => {
    expect(planVerification(record({}), T0 + 24 * HOUR, policy)).toEqual({ kind: 'full' });
    expect(planVerification(record({ verifiedPosition: 0, globalHash: GENESIS_HASH }), T0 + 60_000, policy)).toEqual({ kind: 'full' });
  });

  it('keeps a break until a full verification, tried at most every ten minutes', () => {
    const broken = record({ broken: { position: 3, streamId: 's', revision: 1, reason: 'STREAM_HASH_MISMATCH', expected: 'a', found: 'b' } });
    expect(planVerification(broken, T0 + 60_000, policy)).toEqual({ kind: 'wait' });
    expect(planVerification(broken, T0 + 10 * 60_000, policy)).toEqual({ kind: 'full' });
  });
});

describe('a verification run', () => {
  it('checks only the events after the checkpoint, and the head', async () => {
    const ledger = new VerifiableMemoryLedger();
    await append(ledger, 5);
    const first = await runVerification(ledger, { kind: 'full' }, null, () => T0);
    expect(first).toMatchObject({ kind: 'full', fromPosition: 0, verifiedPosition: 5, eventsChecked: 5, broken: null, lastFullAt: new Date(T0) });
    expect(first.globalHash).toBe((await ledger.head()).globalHash);

    await append(ledger, 3);
    ledger.reads = [];
    const next = await runVerification(ledger, { kind: 'incremental', from: 5, globalHash: first.globalHash }, first, () => T0 + 60_000);
    expect(next).toMatchObject({ kind: 'incremental', fromPosition: 5, verifiedPosition: 8, eventsChecked: 3, broken: null, lastFullAt: new Date(T0) });
    expect(Math.min(...ledger.reads)).toBe(5);
  });

  it('finds an edit after the checkpoint at the edited event', async () => {
    const ledger = new VerifiableMemoryLedger();
    await append(ledger, 5);
    const first = await runVerification(ledger, { kind: 'full' }, null, () => T0);
    await append(ledger, 3);
    ledger.edits.set(7, (e) => ({ ...e, data: { amount_minor: 1 } }));
    const next = await runVerification(ledger, { kind: 'incremental', from: 5, globalHash: first.globalHash }, first, () => T0);
    expect(next.broken).toMatchObject({ position: 7, reason: 'STREAM_HASH_MISMATCH' });
    expect(next.verifiedPosition).toBe(6);
  });

  it('refuses a checkpoint whose event is gone or carries another global hash (history rewritten up to it)', async () => {
    const ledger = new VerifiableMemoryLedger();
    await append(ledger, 5);
    const first = await runVerification(ledger, { kind: 'full' }, null, () => T0);
    const plan = { kind: 'incremental' as const, from: 5, globalHash: first.globalHash };
    ledger.edits.set(5, (e) => ({ ...e, globalHash: 'f'.repeat(64) }));
    expect((await runVerification(ledger, plan, first, () => T0)).broken).toMatchObject({ position: 5, reason: 'CHECKPOINT_MISMATCH' });
    ledger.edits.set(5, () => null);
    expect((await runVerification(ledger, plan, first, () => T0)).broken).toMatchObject({ position: 5, reason: 'CHECKPOINT_MISSING' });
  });
});

describe('the background verification', () => {
  const silent = pino({ level: 'silent' });

  it('records the first run, continues from it, and only confirms when nothing was appended', async () => {
    let now = T0;
    const ledger = new VerifiableMemoryLedger();
    const log = new MemoryVerificationLog();
    const auditor = new LedgerChainAuditor(ledger, log, silent, { fullEveryMs: 24 * HOUR, now: () => now });
    await append(ledger, 4);
    expect(await auditor.runOnce()).toMatchObject({ outcome: 'verified', record: { kind: 'full', verifiedPosition: 4 } });
    await append(ledger, 2);
    now += 60_000;
    expect(await auditor.runOnce()).toMatchObject({
      outcome: 'verified',
      record: { kind: 'incremental', fromPosition: 4, verifiedPosition: 6, eventsChecked: 2 },
    });
    now += 60_000;
    await auditor.runOnce();
    expect(log.records).toHaveLength(2);
    expect(log.records[1]!.checkedAt).toEqual(new Date(now));
  });

  it('keeps one row while the ledger is empty, each full run only confirming it', async () => {
    let now = T0;
    const log = new MemoryVerificationLog();
    const auditor = new LedgerChainAuditor(new VerifiableMemoryLedger(), log, silent, { fullEveryMs: 24 * HOUR, now: () => now });
    await auditor.runOnce();
    now += 60_000;
    expect(await auditor.runOnce()).toMatchObject({ record: { kind: 'full', verifiedPosition: 0, eventsChecked: 0 } });
    expect(log.records).toHaveLength(1);
    expect(log.records[0]).toMatchObject({ checkedAt: new Date(now), lastFullAt: new Date(now) });
  });

  it('skips while another instance holds the lock', async () => {
    const log = new MemoryVerificationLog();
    const auditor = new LedgerChainAuditor(new VerifiableMemoryLedger(), log, silent, { fullEveryMs: HOUR });
    const inner = await log.exclusively(() => auditor.runOnce());
    expect(inner).toEqual({ ran: true, value: { outcome: 'locked' } });
    expect(log.records).toEqual([]);
  });

  it('reports a break until a full verification passes', async () => {
    let now = T0;
    const ledger = new VerifiableMemoryLedger();
    const log = new MemoryVerificationLog();
    const auditor = new LedgerChainAuditor(ledger, log, silent, { fullEveryMs: 24 * HOUR, brokenRecheckMs: 10 * 60_000, now: () => now });
    await append(ledger, 3);
    await auditor.runOnce();
    await append(ledger, 3);
    ledger.edits.set(5, (e) => ({ ...e, type: 'PaymentDeclined' }));
    now += 60_000;
    expect(await auditor.runOnce()).toMatchObject({ record: { broken: { position: 5, reason: 'STREAM_HASH_MISMATCH' } } });
    now += 60_000;
    expect(await auditor.runOnce()).toEqual({ outcome: 'waited' });
    expect((await log.latest())?.broken).not.toBeNull();

    // The row restored: the next full verification, ten minutes after the last check, clears the break.
    ledger.edits.clear();
    now += 10 * 60_000;
    expect(await auditor.runOnce()).toMatchObject({ record: { kind: 'full', verifiedPosition: 6, eventsChecked: 6, broken: null } });
    expect((await log.latest())?.lastFullAt).toEqual(new Date(now));
  });
});

const ORIGIN = 'settle.dev/ledger/test';

/** The checkpoint the ledger's first `size` events give (as the projector would sign it), read before any edit. */
async function checkpointOf(ledger: InMemoryLedger, size: number, at = T0): Promise<LedgerCheckpoint> {
  const events = await InMemoryLedger.prototype.readAll.call(ledger, 0, size);
  const frontier = MerkleFrontier.empty();
  for (const e of events) frontier.append(ledgerLeafHash(e.position, e.streamHash));
  return { origin: ORIGIN, size, root: frontier.root(), globalHash: events.at(-1)?.globalHash ?? '0'.repeat(64), at };
}

const opened = (checkpoints: LedgerCheckpoint[]): (() => Promise<CheckpointReading>) => {
  return async () => ({ status: 'opened', checkpoints, keysFrom: 'LEDGER_CHECKPOINT_KEYS' });
};

describe('the check against signed checkpoints', () => {
  it('checks every checkpoint in a full run, then only the newer ones from the kept tree edge, reading only the new events', async () => {
    const ledger = new VerifiableMemoryLedger();
    await append(ledger, 6);
    const published = [await checkpointOf(ledger, 3, T0 - 2_000), await checkpointOf(ledger, 6, T0 - 1_000)];
    const first = await runVerification(ledger, { kind: 'full' }, null, () => T0, { read: opened(published) });
    expect(first.broken).toBeNull();
    expect(first.checkpoints).toMatchObject({
      notChecked: null,
      checked: 2,
      latest: { size: 6, at: new Date(T0 - 1_000) },
      keysFrom: 'LEDGER_CHECKPOINT_KEYS',
    });
    expect(first.checkpoints.frontier?.size).toBe(6);

    await append(ledger, 4);
    published.push(await checkpointOf(ledger, 9, T0 + 30_000));
    ledger.reads = [];
    const plan = { kind: 'incremental' as const, from: 6, globalHash: first.globalHash };
    const next = await runVerification(ledger, plan, first, () => T0 + 60_000, { read: opened(published) });
    expect(next).toMatchObject({ verifiedPosition: 10, broken: null });
    expect(next.checkpoints).toMatchObject({ notChecked: null, checked: 3, latest: { size: 9, at: new Date(T0 + 30_000) } });
    expect(next.checkpoints.frontier?.size).toBe(10);
    // The chains from their checkpoint (position 6) on, and the tree from its edge: nothing before.
    expect(Math.min(...ledger.reads)).toBe(6);
  });

  it('finds a history rewritten and recomputed under a forged tree edge as ROOT_MISMATCH at the next checkpoint', async () => {
    const ledger = new VerifiableMemoryLedger();
    await append(ledger, 6);
    const published = [await checkpointOf(ledger, 6)];
    const first = await runVerification(ledger, { kind: 'full' }, null, () => T0, { read: opened(published) });
    await append(ledger, 3);
    published.push(await checkpointOf(ledger, 9));
    // What whoever rewrote events 1 to 6 and recomputed their hashes would keep: another edge at 6.
    const forged = MerkleFrontier.empty();
    for (let p = 1; p <= 6; p++) forged.append(ledgerLeafHash(p, 'e'.repeat(64)));
    const tampered = { ...first, checkpoints: { ...first.checkpoints, frontier: forged.toJSON() } };
    const next = await runVerification(ledger, { kind: 'incremental', from: 6, globalHash: first.globalHash }, tampered, () => T0, {
      read: opened(published),
    });
    expect(next.broken).toMatchObject({ position: 9, streamId: '', revision: -1, reason: 'ROOT_MISMATCH', expected: published[1]!.root.toString('hex') });
    // A record without an edge is checked from the first event, and holds.
    const fromStart = { ...first, checkpoints: { ...first.checkpoints, frontier: null } };
    const again = await runVerification(ledger, { kind: 'incremental', from: 6, globalHash: first.globalHash }, fromStart, () => T0, {
      read: opened(published),
    });
    expect(again.broken).toBeNull();
    expect(again.checkpoints).toMatchObject({ checked: 2, latest: { size: 9 } });
  });

  it('reports a checkpoint beyond the ledger (LEDGER_SHORTER), another global hash, and a checkpoint that cannot be used', async () => {
    const ledger = new VerifiableMemoryLedger();
    await append(ledger, 5);
    const beyond = { ...(await checkpointOf(ledger, 5)), size: 7 };
    const shorter = await runVerification(ledger, { kind: 'full' }, null, () => T0, { read: opened([await checkpointOf(ledger, 5), beyond]) });
    expect(shorter).toMatchObject({ verifiedPosition: 5, broken: { position: 7, reason: 'LEDGER_SHORTER', streamId: '', revision: -1 } });

    const otherGlobal = { ...(await checkpointOf(ledger, 4)), globalHash: 'a'.repeat(64) };
    const global = await runVerification(ledger, { kind: 'full' }, null, () => T0, { read: opened([otherGlobal]) });
    expect(global.broken).toMatchObject({ position: 4, reason: 'GLOBAL_HASH_MISMATCH', streamId: '', expected: 'a'.repeat(64) });

    const unusable = await runVerification(ledger, { kind: 'full' }, null, () => T0, {
      read: async () => ({
        status: 'broken',
        broken: { size: 4, reason: 'CHECKPOINT_UNVERIFIED', expected: 'a note signed by a trusted key', found: 'forged' },
      }),
    });
    expect(unusable).toMatchObject({ verifiedPosition: 5, broken: { position: 4, reason: 'CHECKPOINT_UNVERIFIED', streamId: '', revision: -1 } });
  });

  it('still verifies the chains when the sink cannot be read, says why, and keeps the last edge for the next run', async () => {
    const ledger = new VerifiableMemoryLedger();
    await append(ledger, 4);
    const first = await runVerification(ledger, { kind: 'full' }, null, () => T0, { read: opened([await checkpointOf(ledger, 4)]) });
    await append(ledger, 2);
    const down = await runVerification(ledger, { kind: 'incremental', from: 4, globalHash: first.globalHash }, first, () => T0, {
      read: async () => ({ status: 'not_checked', why: 'the checkpoint sink cannot use /mnt/sink (ENOENT)' }),
    });
    expect(down).toMatchObject({ verifiedPosition: 6, broken: null });
    expect(down.checkpoints).toMatchObject({ notChecked: 'the checkpoint sink cannot use /mnt/sink (ENOENT)', checked: 1, latest: { size: 4 } });
    expect(down.checkpoints.frontier?.size).toBe(4);
    // Without a sink at all.
    expect((await runVerification(ledger, { kind: 'full' }, null, () => T0)).checkpoints).toMatchObject({ notChecked: NO_SINK, frontier: null });
  });

  it('records a change of the sink once and warns once per change', async () => {
    let now = T0;
    const ledger = new VerifiableMemoryLedger();
    const log = new MemoryVerificationLog();
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).why as string) });
    let reading: CheckpointReading = { status: 'not_checked', why: 'the checkpoint sink cannot use /mnt/sink (EACCES)' };
    const auditor = new LedgerChainAuditor(ledger, log, logger, { fullEveryMs: 24 * HOUR, now: () => now, checkpoints: { read: async () => reading } });
    await append(ledger, 3);
    await auditor.runOnce();
    now += 60_000;
    await auditor.runOnce();
    expect(warnings).toEqual(['the checkpoint sink cannot use /mnt/sink (EACCES)']);
    expect(log.records).toHaveLength(1);

    reading = { status: 'opened', checkpoints: [await checkpointOf(ledger, 3)], keysFrom: 'sink/keys' };
    now += 60_000;
    expect(await auditor.runOnce()).toMatchObject({ record: { kind: 'incremental', checkpoints: { notChecked: null, checked: 1 } } });
    expect(log.records).toHaveLength(2);
    reading = { status: 'not_checked', why: 'LEDGER_CHECKPOINT_DIR is not set' };
    now += 60_000;
    await auditor.runOnce();
    now += 60_000;
    await auditor.runOnce();
    expect(warnings).toEqual(['the checkpoint sink cannot use /mnt/sink (EACCES)', 'LEDGER_CHECKPOINT_DIR is not set']);
    expect(log.records.map((r) => r.checkpoints.notChecked)).toEqual([
      'the checkpoint sink cannot use /mnt/sink (EACCES)',
      null,
      'LEDGER_CHECKPOINT_DIR is not set',
    ]);
  });
});

describe("the checkpoint sink's reader", () => {
  it('opens signed checkpoints with the sink’s keys or the configured ones, refuses an edited note, and says why it read none', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'console-sink-'));
    try {
      const ledger = new VerifiableMemoryLedger();
      await append(ledger, 3);
      const key = generateNoteKey(ORIGIN);
      const sink = new FolderCheckpointSink(dir);
      const settings = { dir, origin: ORIGIN, trustedKeys: [] as string[] };
      expect(await new PublishedCheckpointReader(settings).read()).toEqual({ status: 'not_checked', why: `no signed checkpoint in ${dir} yet` });

      await sink.publishKey(key.verifier);
      await sink.write(3, signLedgerCheckpoint(await checkpointOf(ledger, 3), [parseSignerKey(key.signer)]));
      expect(await new PublishedCheckpointReader(settings).read()).toMatchObject({ status: 'opened', checkpoints: [{ size: 3 }], keysFrom: `${dir}/keys` });
      expect(await new PublishedCheckpointReader({ ...settings, trustedKeys: [key.verifier] }).read()).toMatchObject({
        status: 'opened',
        keysFrom: 'LEDGER_CHECKPOINT_KEYS',
      });
      expect(await new PublishedCheckpointReader({ ...settings, origin: 'settle.dev/ledger/other' }).read()).toMatchObject({
        status: 'broken',
        broken: { size: 3, reason: 'CHECKPOINT_OTHER_LEDGER' },
      });

      const note = await readFile(join(dir, 'checkpoint-0000000000000003.note'), 'utf8');
      await rm(join(dir, 'checkpoint-0000000000000003.note'), { force: true });
      await writeFile(join(dir, 'checkpoint-0000000000000003.note'), note.replace(/^time \d+$/m, 'time 1'));
      expect(await new PublishedCheckpointReader(settings).read()).toMatchObject({ status: 'broken', broken: { size: 3, reason: 'CHECKPOINT_UNVERIFIED' } });

      expect(await new PublishedCheckpointReader({ ...settings, trustedKeys: ['not-a-key'] }).read()).toMatchObject({
        status: 'not_checked',
        why: expect.stringMatching(/^a verifier key in LEDGER_CHECKPOINT_KEYS is malformed/),
      });
      expect(await new PublishedCheckpointReader({ ...settings, dir: null }).read()).toEqual({
        status: 'not_checked',
        why: 'LEDGER_CHECKPOINT_DIR is not set',
      });
      expect(await new PublishedCheckpointReader({ ...settings, dir: join(dir, 'missing') }).read()).toMatchObject({
        status: 'not_checked',
        why: expect.stringMatching(/cannot use .*missing \(ENOENT\)/),
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the configuration of the check against signed checkpoints', () => {
  const vars = { DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/settle', CONSOLE_INGESTION_URL: 'http://127.0.0.1:3000', CONSOLE_INGESTION_ADMIN_API_KEY: 'k' };

  it('reads no sink by default, the default origin, and the keys one per line or comma-separated', () => {
    expect(loadConsoleConfig(vars).ledgerCheckpoints).toEqual({ dir: null, origin: 'settle.dev/ledger/local', trustedKeys: [] });
    expect(
      loadConsoleConfig({
        ...vars,
        LEDGER_CHECKPOINT_DIR: ' /mnt/sink ',
        LEDGER_ORIGIN: 'settle.dev/ledger/prod',
        LEDGER_CHECKPOINT_KEYS: 'a+1+x, b+2+y\nc+3+z\n',
      }).ledgerCheckpoints,
    ).toEqual({ dir: '/mnt/sink', origin: 'settle.dev/ledger/prod', trustedKeys: ['a+1+x', 'b+2+y', 'c+3+z'] });
    expect(loadConsoleConfig({ ...vars, LEDGER_CHECKPOINT_DIR: ' ' }).ledgerCheckpoints.dir).toBeNull();
    expect(() => loadConsoleConfig({ ...vars, LEDGER_ORIGIN: 'settle.dev/ledger/a+b' })).toThrow(ConfigError);
  });
});

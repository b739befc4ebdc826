/**
 * The console's incremental verification of the ledger's hash chains over an in-memory ledger:
 * the plan (full first, then from the checkpoint; full again on schedule and while broken), the
 * checkpoint's own check, runs that only confirm, the lock, and a break that stays until a full
 * verification passes.
 */
import { randomUUID } from 'node:crypto';
import { GENESIS_HASH, InMemoryLedger, type RecordedLedgerEvent, type VerifiableLedger } from '@settle/ledger';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { LedgerChainAuditor } from '../src/ledger-chains/ledger-chain-auditor.js';
import { planVerification, runVerification, type VerificationRecord } from '../src/ledger-chains/ledger-verification.js';
import { MemoryVerificationLog } from '../src/ledger-chains/memory-verification-log.js';

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

/**
 * The Overview's pure parts: dead-letter records and consumer lag from offsets, the worker
 * groups and topics under a prefix, the Kafka figures' cache, time-out and `unavailable`
 * marker (over a stand-in source), and the hash-chain status shown for a verification record.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { VerificationRecord } from '../src/ledger-chains/ledger-verification.js';
import type { KafkaFiguresSource } from '../src/overview/kafka-admin-source.js';
import {
  consumerGroupLag,
  deadLetterFigures,
  deadLetterTopics,
  partitionLag,
  workerConsumerGroups,
  type ConsumerGroupLag,
  type DeadLetterTopicFigures,
} from '../src/overview/kafka-figures.js';
import { KafkaOverview } from '../src/overview/kafka-overview.js';
import { ledgerChainStatus } from '../src/overview/overview.service.js';

const silent = pino({ level: 'silent' });

describe('consumer lag arithmetic', () => {
  it('is the end offset minus the committed offset', () => {
    expect(partitionLag(40, { partition: 0, low: 0, high: 55 })).toBe(15);
    expect(partitionLag(55, { partition: 0, low: 0, high: 55 })).toBe(0);
  });

  it('counts from the low watermark without a committed offset (the workers read from the beginning), or below it (retention removed the records)', () => {
    expect(partitionLag(null, { partition: 0, low: 10, high: 25 })).toBe(15);
    expect(partitionLag(-1, { partition: 0, low: 10, high: 25 })).toBe(15);
    expect(partitionLag(3, { partition: 0, low: 10, high: 25 })).toBe(15);
  });

  it('is never negative (a commit seen before the end offset it passed)', () => {
    expect(partitionLag(30, { partition: 0, low: 0, high: 25 })).toBe(0);
  });

  it("sums a group's partitions over every topic it consumes, each partition listed in order", () => {
    const [, , sweeper] = workerConsumerGroups('settle');
    const offsets = new Map([
      [
        'settle.transaction-events.v1',
        [
          { partition: 1, low: 0, high: 7 },
          { partition: 0, low: 0, high: 10 },
        ],
      ],
      ['settle.consensus-results.v1', [{ partition: 0, low: 2, high: 9 }]],
    ]);
    const committed = new Map([['settle.transaction-events.v1', new Map([[0, 4]])]]);
    const lag = consumerGroupLag(sweeper!, offsets, committed, { state: 'Stable', members: 2 });
    expect(lag).toEqual({
      worker: 'sweeper',
      groupId: 'settle-sweeper',
      topics: ['settle.transaction-events.v1', 'settle.consensus-results.v1'],
      state: 'Stable',
      members: 2,
      lag: 6 + 7 + 7,
      partitions: [
        { topic: 'settle.transaction-events.v1', partition: 0, committedOffset: 4, endOffset: 10, lag: 6 },
        { topic: 'settle.transaction-events.v1', partition: 1, committedOffset: null, endOffset: 7, lag: 7 },
        { topic: 'settle.consensus-results.v1', partition: 0, committedOffset: null, endOffset: 9, lag: 7 },
      ],
    });
  });

  it('adds nothing for a topic not created yet', () => {
    const [verifier] = workerConsumerGroups('settle');
    expect(consumerGroupLag(verifier!, new Map(), new Map(), { state: 'Dead', members: 0 })).toMatchObject({ lag: 0, partitions: [] });
  });
});

describe('dead-letter records', () => {
  it('are the high watermark minus the low one, summed over partitions', () => {
    const figures = deadLetterFigures('settle.dead-letter.v1', 'messages', [
      { partition: 2, low: 5, high: 5 },
      { partition: 0, low: 3, high: 10 },
      { partition: 1, low: 0, high: 2 },
    ]);
    expect(figures.records).toBe(9);
    expect(figures.exists).toBe(true);
    expect(figures.partitions.map((p) => [p.partition, p.records])).toEqual([
      [0, 7],
      [1, 2],
      [2, 0],
    ]);
  });

  it('are 0 for a topic that does not exist yet, and said so', () => {
    expect(deadLetterFigures('settle.dead-letter.v1', 'messages', null)).toEqual({
      topic: 'settle.dead-letter.v1',
      kind: 'messages',
      records: 0,
      exists: false,
      partitions: [],
    });
  });
});

describe('the workers and topics under a prefix', () => {
  it('names the four workers’ default groups, ingestion’s, and both dead-letter topics', () => {
    expect(workerConsumerGroups('e2e-1a').map((g) => [g.groupId, g.topics])).toEqual([
      ['e2e-1a-verifier', ['e2e-1a.transaction-events.v1']],
      ['e2e-1a-ledger-projector', ['e2e-1a.consensus-results.v1']],
      ['e2e-1a-sweeper', ['e2e-1a.transaction-events.v1', 'e2e-1a.consensus-results.v1']],
      ['e2e-1a-dispatcher', ['e2e-1a.entitlement-events.v1']],
      ['e2e-1a-ingestion', ['e2e-1a.checkout-commands.v1']],
    ]);
    expect(deadLetterTopics('e2e-1a')).toEqual([
      { topic: 'e2e-1a.dead-letter.v1', kind: 'messages' },
      { topic: 'e2e-1a.delivery-dead-letter.v1', kind: 'deliveries' },
    ]);
  });
});

/** A source answering what it is told, counting its reads. */
class StandInSource implements KafkaFiguresSource {
  reads = 0;
  deadLetterAnswer: () => Promise<DeadLetterTopicFigures[]> = async () => [
    deadLetterFigures('p.dead-letter.v1', 'messages', [{ partition: 0, low: 0, high: 3 }]),
  ];
  lagAnswer: () => Promise<ConsumerGroupLag[]> = async () => [
    consumerGroupLag(workerConsumerGroups('p')[0]!, new Map([['p.transaction-events.v1', [{ partition: 0, low: 0, high: 5 }]]]), new Map(), {
      state: 'Stable',
      members: 1,
    }),
  ];
  async deadLetters() {
    this.reads++;
    return this.deadLetterAnswer();
  }
  async consumerLag() {
    this.reads++;
    return this.lagAnswer();
  }
  async close() {}
}

describe('the Kafka figures of the overview', () => {
  it('say "not configured" without brokers', async () => {
    expect(await new KafkaOverview(null, silent).read()).toEqual({
      deadLetteredMessages: { status: 'not_configured' },
      consumerLag: { status: 'not_configured' },
    });
  });

  it('sum the topics and the groups, and reuse an answer for the cache time, concurrent reads included', async () => {
    let now = Date.parse('2026-11-25T10:00:00Z');
    const source = new StandInSource();
    const kafka = new KafkaOverview(source, silent, { cacheMs: 5_000, now: () => now });
    const [first, concurrent] = await Promise.all([kafka.read(), kafka.read()]);
    expect(first).toBe(concurrent);
    expect(first.deadLetteredMessages).toMatchObject({ status: 'ok', total: 3, checkedAt: '2026-11-25T10:00:00.000Z' });
    expect(first.consumerLag).toMatchObject({ status: 'ok', total: 5 });
    now += 4_999;
    await kafka.read();
    expect(source.reads).toBe(2);
    now += 1;
    await kafka.read();
    expect(source.reads).toBe(4);
  });

  it('answer "unavailable" for a figure that fails or takes too long, leaving the other, without the error text', async () => {
    const source = new StandInSource();
    source.deadLetterAnswer = () => Promise.reject(new Error('Connection error: connect ECONNREFUSED 10.0.0.7:9092'));
    source.lagAnswer = () => new Promise(() => undefined);
    const started = Date.now();
    const figures = await new KafkaOverview(source, silent, { timeoutMs: 50 }).read();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(figures.deadLetteredMessages).toMatchObject({ status: 'unavailable', code: 'CONSOLE.KAFKA_UNAVAILABLE', detail: 'Kafka could not be read' });
    expect(figures.consumerLag).toMatchObject({ status: 'unavailable', code: 'CONSOLE.KAFKA_UNAVAILABLE', detail: 'Kafka did not answer within 50 ms' });
    expect(JSON.stringify(figures)).not.toContain('10.0.0.7');

    const recovering = new StandInSource();
    recovering.lagAnswer = () => Promise.reject(new Error('coordinator loading'));
    const partial = await new KafkaOverview(recovering, silent).read();
    expect(partial.deadLetteredMessages.status).toBe('ok');
    expect(partial.consumerLag.status).toBe('unavailable');
  });
});

describe('the hash-chain status of the overview', () => {
  const base: VerificationRecord = {
    kind: 'incremental',
    fromPosition: 10,
    verifiedPosition: 42,
    globalHash: 'ab'.repeat(32),
    eventsChecked: 32,
    startedAt: new Date('2026-11-25T10:00:00Z'),
    finishedAt: new Date('2026-11-25T10:00:01Z'),
    checkedAt: new Date('2026-11-25T10:05:00Z'),
    lastFullAt: new Date('2026-11-25T09:00:00Z'),
    broken: null,
    checkpoints: {
      notChecked: null,
      checked: 7,
      latest: { size: 40, at: new Date('2026-11-25T10:04:00Z') },
      keysFrom: 'LEDGER_CHECKPOINT_KEYS',
      frontier: { size: 42, nodes: [] },
    },
  };

  it('is pending before the first verification, verified up to a position at the last check, or broken where it first breaks', () => {
    expect(ledgerChainStatus(null)).toEqual({ status: 'pending' });
    expect(ledgerChainStatus(base)).toEqual({
      status: 'verified',
      position: 42,
      globalHash: 'ab'.repeat(32),
      verifiedAt: '2026-11-25T10:05:00.000Z',
      eventsChecked: 32,
      lastFullVerificationAt: '2026-11-25T09:00:00.000Z',
      checkpoints: { status: 'checked', checked: 7, latestSize: 40, latestSignedAt: '2026-11-25T10:04:00.000Z', keysFrom: 'LEDGER_CHECKPOINT_KEYS' },
    });
    expect(ledgerChainStatus({ ...base, checkpoints: { ...base.checkpoints, notChecked: 'LEDGER_CHECKPOINT_DIR is not set' } })).toMatchObject({
      status: 'verified',
      checkpoints: { status: 'not_checked', reason: 'LEDGER_CHECKPOINT_DIR is not set' },
    });
    const atEvent = { position: 17, streamId: 'transaction-ref_a', revision: 2, reason: 'STREAM_HASH_MISMATCH' as const, expected: 'x', found: 'y' };
    expect(ledgerChainStatus({ ...base, verifiedPosition: 16, broken: atEvent })).toEqual({
      status: 'broken',
      position: 17,
      reason: 'STREAM_HASH_MISMATCH',
      streamId: 'transaction-ref_a',
      revision: 2,
      checkedAt: '2026-11-25T10:05:00.000Z',
      lastVerifiedPosition: 16,
      againstSignedCheckpoint: false,
    });
    const head = { position: 50, streamId: '', revision: -1, reason: 'HEAD_MISMATCH' as const, expected: 'x', found: 'y' };
    expect(ledgerChainStatus({ ...base, broken: head })).toMatchObject({
      status: 'broken',
      streamId: null,
      revision: null,
      reason: 'HEAD_MISMATCH',
      againstSignedCheckpoint: false,
    });
    const signed = { position: 40, streamId: '', revision: -1, reason: 'GLOBAL_HASH_MISMATCH' as const, expected: 'x', found: 'y' };
    expect(ledgerChainStatus({ ...base, broken: signed })).toMatchObject({ status: 'broken', position: 40, againstSignedCheckpoint: true });
  });
});

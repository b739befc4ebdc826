/**
 * The Overview against the real Kafka and PostgreSQL, the Nest app built in-process (`inject`):
 * records produced to the dead-letter topics of a unique topic prefix and offsets committed for
 * a worker's consumer group come back as dead-lettered messages and consumer lag; failed
 * deliveries of the dispatcher's tables as dead-lettered deliveries; a broker that does not
 * answer as `unavailable` without failing the page; and the ledger's hash chains verified by the
 * console in PostgreSQL, up to the last position, then reported broken where a row was
 * tampered with (as a superuser with triggers off), one console instance at a time.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LEDGER_MIGRATIONS, PostgresLedger, READ_MODEL_MIGRATIONS } from '@settle/ledger';
import { ensureTopics, topicNames } from '@settle/messaging';
import { createPool, migrateSchemas, type Pool } from '@settle/platform';
import { Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnswerConformance } from './answer-conformance.js';
import { createTestDatabase, infra, uniqueTopicPrefix, withTriggersOff } from '@settle/testing';
import { AuthService } from '../src/auth/auth.service.js';
import { startConsoleTestApp } from './console-test-app.js';
import { PostgresAuthStore } from '../src/auth/postgres-auth-store.js';
import { LedgerChainAuditor } from '../src/ledger-chains/ledger-chain-auditor.js';
import { NO_SINK } from '../src/ledger-chains/ledger-verification.js';
import { PostgresVerificationLog } from '../src/ledger-chains/postgres-verification-log.js';
import { KafkaAdminSource } from '../src/overview/kafka-admin-source.js';
import { KafkaOverview } from '../src/overview/kafka-overview.js';
import { OverviewService } from '../src/overview/overview.service.js';
import { CONSOLE_MIGRATIONS } from '../src/schema.js';
import { TransactionRepository } from '../src/transactions/transaction.repository.js';

const dir = (app: string) => fileURLToPath(new URL(`../../${app}/migrations/${app}`, import.meta.url));
const PASSWORD = 'correct horse battery staple';
const silent = pino({ level: 'silent' });

let pool: Pool;
let drop: () => Promise<void>;
let auth: AuthService;
let kafka: Kafka;
let admin: Admin;
let producer: Producer;
const prefix = uniqueTopicPrefix('console-overview');
const topics = topicNames(prefix);
const apps: NestFastifyApplication[] = [];
const overviews: KafkaOverview[] = [];
const conformances: AnswerConformance[] = [];

/** A console app over the test database whose Kafka figures come from `brokers`; its session cookie. */
async function consoleWith(brokers: string[]): Promise<{ get: () => Promise<{ status: number; body: any }> }> {
  const transactions = new TransactionRepository(pool, new PostgresLedger(pool));
  const figures = new KafkaOverview(new KafkaAdminSource({ brokers, topicPrefix: prefix }, silent), silent, { cacheMs: 0 });
  overviews.push(figures);
  const { app, answers } = await startConsoleTestApp(pool, {
    auth,
    transactions,
    overview: new OverviewService(transactions, pool, figures, { store: 'postgres', log: new PostgresVerificationLog(pool) }),
  });
  conformances.push(answers);
  apps.push(app);
  const res = await app.inject({ method: 'POST', url: '/api/v1/session', payload: { email: 'viewer@example.com', password: PASSWORD } });
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  return {
    get: async () => {
      const answer = await app.inject({ method: 'GET', url: '/api/v1/overview', headers: { cookie } });
      return { status: answer.statusCode, body: answer.json() };
    },
  };
}

const send = (topic: string, partition: number, count: number) =>
  producer.send({ topic, messages: Array.from({ length: count }, (_, i) => ({ partition, key: `k${i}`, value: Buffer.from(`record ${i}`) })) });

beforeAll(async () => {
  const database = await createTestDatabase('settle_console_overview');
  drop = database.drop;
  pool = createPool(database.url, 8);
  await migrateSchemas(pool, [
    CONSOLE_MIGRATIONS,
    LEDGER_MIGRATIONS,
    READ_MODEL_MIGRATIONS,
    { schema: 'ingestion', dir: dir('ingestion') },
    { schema: 'sweeper', dir: dir('sweeper') },
    { schema: 'dispatcher', dir: dir('dispatcher') },
  ]);
  auth = new AuthService(new PostgresAuthStore(pool), { sessionTtlMs: 3_600_000 });
  await auth.createUser('viewer@example.com', PASSWORD, 'viewer');

  kafka = new Kafka({ clientId: 'console-overview-test', brokers: infra.kafkaBrokers, logLevel: logLevel.NOTHING });
  await ensureTopics(kafka, topics, 2);
  admin = kafka.admin();
  await admin.connect();
  producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
}, 60_000);

afterAll(async () => {
  for (const app of apps) await app.close();
  for (const figures of overviews) await figures.close();
  await producer?.disconnect();
  if (admin) {
    await admin.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined);
    await admin.disconnect();
  }
  await pool?.end();
  await drop?.();
});

describe('the Kafka figures', () => {
  it('count the dead-letter topics per partition and the lag of each worker group from its committed offsets', async () => {
    await send(topics.deadLetter, 0, 3);
    await send(topics.deadLetter, 1, 2);
    await send(topics.deliveryDeadLetter, 1, 1);
    await send(topics.transactionEvents, 0, 5);
    await send(topics.transactionEvents, 1, 4);
    await send(topics.consensusResults, 0, 6);
    // The verifier has read 3 of partition 0 and everything of partition 1; the sweeper nothing yet.
    await admin.setOffsets({
      groupId: `${prefix}-verifier`,
      topic: topics.transactionEvents,
      partitions: [
        { partition: 0, offset: '3' },
        { partition: 1, offset: '4' },
      ],
    });
    await admin.setOffsets({ groupId: `${prefix}-ledger-projector`, topic: topics.consensusResults, partitions: [{ partition: 0, offset: '6' }] });

    const console = await consoleWith(infra.kafkaBrokers);
    const { status, body } = await console.get();
    expect(status).toBe(200);
    expect(body.deadLetteredMessages).toMatchObject({ status: 'ok', total: 6 });
    expect(body.deadLetteredMessages.topics).toEqual([
      {
        topic: topics.deadLetter,
        kind: 'messages',
        records: 5,
        exists: true,
        partitions: [
          { partition: 0, low: 0, high: 3, records: 3 },
          { partition: 1, low: 0, high: 2, records: 2 },
        ],
      },
      {
        topic: topics.deliveryDeadLetter,
        kind: 'deliveries',
        records: 1,
        exists: true,
        partitions: [
          { partition: 0, low: 0, high: 0, records: 0 },
          { partition: 1, low: 0, high: 1, records: 1 },
        ],
      },
    ]);
    const groups = Object.fromEntries(body.consumerLag.groups.map((g: { worker: string }) => [g.worker, g]));
    expect(body.consumerLag.status).toBe('ok');
    expect(groups['verifier']).toMatchObject({
      groupId: `${prefix}-verifier`,
      lag: 2,
      members: 0,
      partitions: [
        { topic: topics.transactionEvents, partition: 0, committedOffset: 3, endOffset: 5, lag: 2 },
        { topic: topics.transactionEvents, partition: 1, committedOffset: 4, endOffset: 4, lag: 0 },
      ],
    });
    expect(groups['ledger-projector']).toMatchObject({ lag: 0 });
    // Nothing committed: the sweeper would read both topics from the beginning.
    expect(groups['sweeper']).toMatchObject({ lag: 5 + 4 + 6 });
    expect(groups['sweeper'].partitions.every((p: { committedOffset: number | null }) => p.committedOffset === null)).toBe(true);
    expect(groups['dispatcher']).toMatchObject({ lag: 0 });
    expect(body.consumerLag.total).toBe(2 + 15);
  });

  it('answer unavailable, within the time-out, when no broker answers; the rest of the overview still answers', async () => {
    const console = await consoleWith(['127.0.0.1:1']);
    const started = Date.now();
    const { status, body } = await console.get();
    expect(status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(body.deadLetteredMessages).toMatchObject({ status: 'unavailable', code: 'CONSOLE.KAFKA_UNAVAILABLE' });
    expect(body.consumerLag).toMatchObject({ status: 'unavailable', code: 'CONSOLE.KAFKA_UNAVAILABLE' });
    expect(body.total).toBe(0);
  });
});

describe('the dead-lettered deliveries', () => {
  it("count the dispatcher's deliveries given up (state failed), not the others", async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    for (const id of [a, b]) {
      await pool.query(`INSERT INTO dispatcher.endpoints (id, url, event_kinds, secret_version) VALUES ($1, $2, ARRAY['entitlement.granted'], 1)`, [
        id,
        `https://${id}.example.com/hooks`,
      ]);
    }
    for (const states of [
      ['failed', 'delivered'],
      ['failed', 'failed'],
      ['pending', 'cancelled'],
    ]) {
      const event = randomUUID();
      await pool.query(
        `INSERT INTO dispatcher.events (event_id, event, user_id, entitlement, reference, correlation_id, body, published_at)
         VALUES ($1, 'entitlement.granted', 'user-1', 'pro', $2, 'c', '{}', now())`,
        [event, `ref_${event.slice(0, 8)}`],
      );
      await pool.query(`INSERT INTO dispatcher.deliveries (event_id, endpoint_id, state) VALUES ($1, $2, $3), ($1, $4, $5)`, [
        event,
        a,
        states[0],
        b,
        states[1],
      ]);
    }
    const { body } = await (await consoleWith(infra.kafkaBrokers)).get();
    expect(body.deadLetteredDeliveries).toBe(3);
  });
});

describe("the ledger's hash chains", () => {
  const settled = (amount: number) => ({
    eventId: randomUUID(),
    type: 'TransactionSettled',
    data: { amount_minor: amount, currency: 'NGN' },
    metadata: { correlationId: 'c', causationId: 'c' },
  });

  it('are verified by the console up to the last position, continuing from there, and reported broken where a row was edited', async () => {
    const ledger = new PostgresLedger(pool);
    const log = new PostgresVerificationLog(pool);
    let now = Date.parse('2026-11-25T10:00:00Z');
    const auditor = new LedgerChainAuditor(ledger, log, silent, { fullEveryMs: 86_400_000, now: () => now });
    const console = await consoleWith(infra.kafkaBrokers);
    expect((await console.get()).body.ledgerChains).toEqual({ status: 'pending' });

    for (let i = 0; i < 4; i++) await ledger.append(`transaction-ref_${i % 2}`, [settled(100 + i)], 'any');
    expect(await auditor.runOnce()).toMatchObject({ outcome: 'verified', record: { kind: 'full', verifiedPosition: 4 } });
    expect((await console.get()).body.ledgerChains).toEqual({
      status: 'verified',
      position: 4,
      globalHash: (await ledger.head()).globalHash,
      verifiedAt: '2026-11-25T10:00:00.000Z',
      eventsChecked: 4,
      lastFullVerificationAt: '2026-11-25T10:00:00.000Z',
      checkpoints: { status: 'not_checked', reason: NO_SINK },
    });

    // Another instance holds the lock: this one skips.
    const other = await pool.connect();
    try {
      await other.query("SELECT pg_advisory_lock(hashtextextended('console-ledger-verification', 0))");
      expect(await auditor.runOnce()).toEqual({ outcome: 'locked' });
    } finally {
      await other.query("SELECT pg_advisory_unlock(hashtextextended('console-ledger-verification', 0))");
      other.release();
    }

    for (let i = 4; i < 7; i++) await ledger.append(`transaction-ref_${i % 2}`, [settled(100 + i)], 'any');
    now += 60_000;
    expect(await auditor.runOnce()).toMatchObject({
      outcome: 'verified',
      record: { kind: 'incremental', fromPosition: 4, verifiedPosition: 7, eventsChecked: 3 },
    });

    // The UPDATE the ledger's triggers refuse, as a superuser with triggers off.
    await ledger.append('transaction-ref_0', [settled(107)], 'any');
    await withTriggersOff(pool, `UPDATE ledger.events SET data = jsonb_set(data, '{amount_minor}', '1') WHERE position = 8`);
    now += 60_000;
    await auditor.runOnce();
    expect((await console.get()).body.ledgerChains).toEqual({
      status: 'broken',
      position: 8,
      reason: 'STREAM_HASH_MISMATCH',
      streamId: 'transaction-ref_0',
      revision: 4,
      checkedAt: '2026-11-25T10:02:00.000Z',
      lastVerifiedPosition: 7,
      againstSignedCheckpoint: false,
    });
    const { rows } = await pool.query(
      'SELECT kind, from_position, verified_position, broken_position, broken_reason FROM console.ledger_verifications ORDER BY id',
    );
    expect(rows).toEqual([
      { kind: 'full', from_position: 0, verified_position: 4, broken_position: null, broken_reason: null },
      { kind: 'incremental', from_position: 4, verified_position: 7, broken_position: null, broken_reason: null },
      { kind: 'incremental', from_position: 7, verified_position: 7, broken_position: 8, broken_reason: 'STREAM_HASH_MISMATCH' },
    ]);
  });
});

describe('answers', () => {
  it('conform to the schemas of the OpenAPI document (docs/api/console-openapi.json)', () => {
    expect(conformances.flatMap((c) => c.violations)).toEqual([]);
    expect(conformances.some((c) => c.checked.has('GET /api/v1/overview'))).toBe(true);
  });
});

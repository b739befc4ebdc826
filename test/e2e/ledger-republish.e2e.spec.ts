/**
 * `settle ledger republish` (the built dist/scripts/ops/ledger.js) against a real PostgreSQL
 * ledger, Kafka and schema registry: the originals are published the way the projector
 * publishes them (its outbox, relayed by the outbox relay), then windows of the ledger are
 * republished, and every republished record must be byte for byte an original one (key,
 * headers, Avro value), again on a second run, and only within `--until` and `--topic`.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Consumer, Kafka, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideGrant, foldEntitlement, parseAccessPeriod } from '@settle/domain';
import {
  entitlementLedgerEvent,
  entitlementStream,
  LEDGER_MIGRATIONS,
  outboxMessagesOf,
  PostgresLedger,
  transactionStream,
  type LedgerEventInput,
} from '@settle/ledger';
import {
  AvroCodec,
  createKafka,
  createProducer,
  ensureTopics,
  HEADERS,
  headerText,
  Outbox,
  OutboxRelay,
  outboxDdl,
  topicNames,
  type Topics,
} from '@settle/messaging';
import { createLogger, createPool, inTransaction, migrateSchemas, type Pool } from '@settle/platform';
import { waitUntil } from '../../scripts/ops/clients.js';
import { createTestDatabase, infra, uniqueTopicPrefix } from '@settle/testing';

const CLI = join(import.meta.dirname, '../../dist/scripts/ops/ledger.js');
const logger = createLogger('republish-e2e', 'fatal');

/** A record as read back from a topic, with its value's bytes in hex so records compare whole. */
interface Seen {
  topic: string;
  key: string;
  eventId: string;
  headers: Record<string, string | undefined>;
  value: string;
  /** The value decoded with the registry's schema. */
  payload: unknown;
}

let pool: Pool;
let url: string;
let drop: () => Promise<void>;
let prefix: string;
let topics: Topics;
let kafka: Kafka;
let producer: Producer;
let consumer: Consumer;
let codec: AvroCodec;
const seen: Seen[] = [];
/** The originals, by event id. */
const originals = new Map<string, Seen>();
let boundary: Date;
/** The payloads the ledger stands for (the projector's outbox messages), by event id. */
const projected = new Map<string, unknown>();

function outcome(reference: string, userId: string): LedgerEventInput {
  return {
    eventId: randomUUID(),
    type: 'TransactionSettled',
    data: {
      reference,
      provider: 'paystack',
      outcome: 'SETTLED_CONSENSUS',
      state: 'SETTLED_CONSENSUS',
      entitlement_status: 'UNLOCKED',
      verdict: 'cleared',
      trigger: 'webhook_received',
      provider_status: 'success',
      detail: null,
      checks: [],
      expected: { amount_minor: 500_000, currency: 'NGN', user_id: userId, entitlement: 'pro' },
      observed: { amount_minor: 500_000, charged_amount_minor: 500_000, currency: 'NGN', provider_transaction_id: `tx-${reference}` },
      decided_at: Date.now(),
    },
    metadata: { correlationId: `corr-${reference}`, causationId: randomUUID() },
  };
}

/** Settles a transaction in the ledger with its grant (positions: outcome, then grant). */
async function settle(ledger: PostgresLedger, i: number): Promise<void> {
  const reference = `ref_rp_${i}`;
  const userId = `user-rp-${i}`;
  const settled = outcome(reference, userId);
  await ledger.append(transactionStream(reference), [settled], 'no_stream');
  const [grant] = decideGrant(
    {
      type: 'GrantEntitlement',
      data: { eventId: randomUUID(), userId, entitlement: 'pro', reference, accessPeriod: parseAccessPeriod('P1M'), settledAt: Date.now() },
    },
    foldEntitlement([]),
  );
  await ledger.append(
    entitlementStream(userId, 'pro'),
    [entitlementLedgerEvent(grant!, { settlementEventId: settled.eventId, correlationId: `corr-${reference}` })],
    'no_stream',
  );
}

function republish(args: string[]) {
  const env = {
    ...process.env,
    DATABASE_URL: url,
    LEDGER_STORE: 'postgres',
    KAFKA_BROKERS: infra.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: infra.registryUrl,
    SETTLE_TOPIC_PREFIX: prefix,
  };
  const result = spawnSync(process.execPath, [CLI, 'republish', ...args], { env, encoding: 'utf8' });
  return { code: result.status, stderr: result.stderr };
}

const waitForSeen = (n: number) => waitUntil(`${n} records on the topics`, 30_000, async () => (seen.length >= n ? true : undefined), 100);

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error('dist/scripts/ops/ledger.js is missing: run "npm run build" first');
  const database = await createTestDatabase('settle_republish');
  ({ url, drop } = database);
  pool = createPool(url, 2);
  await migrateSchemas(pool, [LEDGER_MIGRATIONS]);
  const ledger = new PostgresLedger(pool);
  for (let i = 0; i < 3; i++) await settle(ledger, i); // positions 1..6
  await new Promise((resolve) => setTimeout(resolve, 20));
  boundary = new Date();
  await new Promise((resolve) => setTimeout(resolve, 20));
  for (let i = 3; i < 5; i++) await settle(ledger, i); // positions 7..10

  prefix = uniqueTopicPrefix('republish');
  topics = topicNames(prefix);
  kafka = createKafka('settle-republish-e2e', infra.kafkaBrokers, logger);
  await ensureTopics(kafka, topics, 2);
  codec = AvroCodec.connect(infra.registryUrl, topics);
  await codec.registerAll(['SettlementRecorded', 'EntitlementGranted']);
  producer = await createProducer(kafka);
  consumer = kafka.consumer({ groupId: `${prefix}-spy` });
  await consumer.connect();
  await consumer.subscribe({ topics: [topics.settlements, topics.entitlementEvents], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ topic, message }) => {
      const { payload } = await codec.decode(message.value, message.headers);
      seen.push({
        topic,
        key: message.key!.toString(),
        eventId: payload.event_id,
        headers: Object.fromEntries(Object.values(HEADERS).map((h) => [h, headerText(message.headers, h)])),
        value: message.value!.toString('hex'),
        payload,
      });
    },
  });

  // The originals, as the projector publishes them: its outbox messages, relayed.
  await inTransaction(pool, async (client) => {
    for (const statement of outboxDdl('projector')) await client.query(statement);
  });
  const outbox = new Outbox('projector', topics, codec);
  const messages = outboxMessagesOf(await ledger.readAll(0, 100));
  for (const m of messages) projected.set(m.payload.event_id, m.payload);
  await inTransaction(pool, async (client) => outbox.enqueue(client, messages));
  expect(await new OutboxRelay(pool, 'projector', producer, codec, logger).pass()).toBe(10);
  await waitForSeen(10);
  for (const record of seen.splice(0)) originals.set(record.eventId, record);
});

afterAll(async () => {
  await consumer?.disconnect();
  await producer?.disconnect();
  await pool?.end();
  await drop?.();
});

describe('settle ledger republish', () => {
  it('republishes a window with the original event ids, keys, headers and Avro bytes, and the same ids again on a second run', async () => {
    const first = republish(['--since', '1', '--until', '7']);
    expect(first.stderr).toMatch(/republished 3 to .*settlements\.v1, 3 to .*entitlement-events\.v1 \(6 ledger events at positions 1 to 6\)/);
    expect(first.code).toBe(0);
    await waitForSeen(6);
    const once = seen.splice(0);
    const expectedIds = [...originals.values()].filter((r) => /ref_rp_[012]$|user-rp-[012]$/.test(r.key)).map((r) => r.eventId);
    expect(once.map((r) => r.eventId).sort()).toEqual(expectedIds.sort());
    for (const record of once) {
      expect(record).toEqual(originals.get(record.eventId));
      expect(record.payload).toEqual(projected.get(record.eventId));
    }

    expect(republish(['--since', '1', '--until', '7']).code).toBe(0);
    await waitForSeen(6);
    const again = seen.splice(0);
    // A subscriber that de-duplicates by event id sees nothing new.
    expect(new Set(again.map((r) => r.eventId))).toEqual(new Set(once.map((r) => r.eventId)));
    for (const record of again) expect(record).toEqual(originals.get(record.eventId));
  });

  it('sends only the chosen topic, from a time, and counts without sending on a dry run', async () => {
    const dry = republish(['--since', '0', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toMatch(/would republish 5 to .*settlements\.v1, 5 to .*entitlement-events\.v1 \(10 ledger events at positions 1 to 10\)/);

    const later = republish(['--since', boundary.toISOString(), '--topic', 'entitlements']);
    expect(later.code).toBe(0);
    expect(later.stderr).toMatch(/republished 0 to .*settlements\.v1, 2 to .*entitlement-events\.v1 \(4 ledger events at positions 7 to 10\)/);
    await waitForSeen(2);
    // Nothing else arrives: the dry run sent nothing and --topic kept the settlements back.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const sent = seen.splice(0);
    expect(sent.map((r) => [r.topic, r.key]).sort()).toEqual([
      [topics.entitlementEvents, 'user-rp-3'],
      [topics.entitlementEvents, 'user-rp-4'],
    ]);
    for (const record of sent) expect(record).toEqual(originals.get(record.eventId));
  });

  it('refuses a malformed window with exit code 2', () => {
    const bad = republish(['--since', 'last-week']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since must be a ledger position/);
  });
});

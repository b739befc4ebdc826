/**
 * Rewinding a worker's consumer group, as an operator does with `kafka-consumer-groups.sh
 * --reset-offsets --to-earliest` (docs/operations.md): once checkouts settled, a worker is
 * stopped, its group (`<prefix>-<worker>`) is set back to the start of its topic with Kafka's
 * admin API, and the worker is started again. It reads everything a second time, and nothing
 * is doubled. The ledger projector: the same ledger entries per stream and no new record on the
 * settlements or entitlement-events topics (a result already in the ledger appends and
 * publishes nothing). The verifier: every trigger is in its inbox, so no provider is queried
 * again and no consensus result is published again.
 */
import { randomBytes } from 'node:crypto';
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, topicNames, type Topics } from '@settle/messaging';
import { createLogger } from '@settle/platform';
import { waitUntil } from '../../scripts/ops/clients.js';
import { infra, startStack, type RunningStack } from '@settle/testing';

const CHECKOUTS = 6;
let stack: RunningStack;
let admin: Admin;
let topics: Topics;
/** Checkouts settled before the tests, each with one ledger entry. */
let references: string[] = [];

beforeAll(async () => {
  stack = await startStack({ inactivityMs: 3_000 });
  topics = topicNames(stack.topicPrefix);
  admin = createKafka('rewind-e2e', infra.kafkaBrokers, createLogger('rewind-e2e', 'fatal')).admin();
  await admin.connect();
  references = await Promise.all(Array.from({ length: CHECKOUTS }, () => checkout()));
  for (const reference of references) {
    await waitUntil(`${reference} to settle`, 30_000, async () => {
      const answer = await stack.ingestion.status(reference);
      return answer.status === 200 && answer.body.state === 'SETTLED_CONSENSUS' ? true : undefined;
    });
  }
});

afterAll(async () => {
  await admin?.disconnect();
  await stack?.stop();
});

async function checkout(): Promise<string> {
  const reference = `ref_rewind_${randomBytes(6).toString('hex')}`;
  const email = `payer.${reference}@example.com`;
  const amount = 500_000;
  expect((await stack.sandbox.create({ reference, amount, currency: 'NGN', email, behaviour: {} })).status).toBe(201);
  const registered = await stack.ingestion.register({
    provider: 'paystack',
    reference,
    amount,
    currency: 'NGN',
    user_id: `user-${reference}`,
    customer: { email },
    entitlement: 'pro-monthly',
    access_period: 'P1M',
  });
  expect(registered.status).toBe(202);
  expect((await stack.sandbox.pay(reference)).status).toBe(200);
  expect((await stack.ingestion.complete(reference)).status).toBe(202);
  return reference;
}

/** Records on a topic so far: the sum of its partitions' high watermarks (no transactional markers: the producers are idempotent, not transactional). */
async function recordsOn(topic: string): Promise<number> {
  return (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0);
}

/** Ledger entries per stream. */
async function ledgerSnapshot(): Promise<{ streams: Record<string, number> }> {
  // The checkpoints are the ledger's statements about itself, signed on a timer whatever the
  // consumer reads (docs/ledger.md, "Checkpoints"): not what a rewind could double.
  const { rows } = await stack.db.query<{ stream_id: string; n: number }>(
    "SELECT stream_id, count(*)::int AS n FROM ledger.events WHERE stream_id <> 'ledger-checkpoints' GROUP BY stream_id",
  );
  return { streams: Object.fromEntries(rows.map((r) => [r.stream_id, r.n])) };
}

/** A group's committed offsets on a topic, by partition (-1: none committed). */
async function committed(group: string, topic: string): Promise<Map<number, number>> {
  const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
  return new Map(offsets!.partitions.map((p) => [p.partition, Number(p.offset)]));
}

/** Whether the group has committed the end of every partition (an empty partition may have no commit: -1). */
function atEnd(offsets: Map<number, number>, ends: ReadonlyArray<{ partition: number; low: string; high: string }>): boolean {
  return ends.every((p) => offsets.get(p.partition) === Number(p.high) || (p.high === p.low && offsets.get(p.partition) === -1));
}

/** Waits until a worker's group has committed the end of its topic, the topic's offsets then. */
async function caughtUp(app: 'ledger-projector' | 'verifier', topic: string) {
  return waitUntil(`${app} to commit the end of ${topic}`, 60_000, async () => {
    const ends = await admin.fetchTopicOffsets(topic);
    return atEnd(await committed(`${stack.topicPrefix}-${app}`, topic), ends) ? ends : undefined;
  });
}

/**
 * The operator's rewind: stop the worker (a group's offsets can be set only while it has no
 * members), set its group to the earliest offsets of its topic (what `kafka-consumer-groups.sh
 * --reset-offsets --to-earliest --execute` does), start it again, and wait until it has read
 * everything again and committed the end.
 */
async function rewind(app: 'ledger-projector' | 'verifier', topic: string): Promise<void> {
  const group = `${stack.topicPrefix}-${app}`;
  const ends = await caughtUp(app, topic);
  expect(ends.some((p) => Number(p.high) > Number(p.low))).toBe(true);
  await stack.stopApp(app);
  await waitUntil(`the ${app} group to be empty`, 30_000, async () => {
    const { groups } = await admin.describeGroups([group]);
    return groups[0]!.members.length === 0 ? true : undefined;
  });
  await admin.setOffsets({ groupId: group, topic, partitions: ends.map((p) => ({ partition: p.partition, offset: p.low })) });
  const rewound = await committed(group, topic);
  expect(ends.every((p) => rewound.get(p.partition) === Number(p.low))).toBe(true);
  await stack.startApp(app);
  await waitUntil(`the restarted ${app} to catch up`, 60_000, async () => (atEnd(await committed(group, topic), ends) ? true : undefined));
}

/** Rows waiting in an outbox. */
async function outboxRows(schema: 'ledger' | 'verifier'): Promise<number> {
  const { rows } = await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.outbox`);
  return rows[0]!.n;
}

/** The provider queries the sandbox answered per reference. */
async function verifyCalls(): Promise<number[]> {
  return Promise.all(references.map(async (r) => (await stack.sandbox.inspect(r)).body.verifyCalls));
}

/** Records on the topics the rewound workers write. */
async function allRecords() {
  return {
    results: await recordsOn(topics.consensusResults),
    settlements: await recordsOn(topics.settlements),
    grants: await recordsOn(topics.entitlementEvents),
  };
}

describe('consumer-group rewind', () => {
  it('a ledger projector rewound to the earliest offsets reads every result again and doubles nothing', async () => {
    await caughtUp('ledger-projector', topics.consensusResults);
    await waitUntil('the projector outbox to drain', 30_000, async () => ((await outboxRows('ledger')) === 0 ? true : undefined));
    const before = await ledgerSnapshot();
    for (const reference of references) expect(before.streams[`transaction-${reference}`]).toBe(1);
    const records = await allRecords();
    expect(records.settlements).toBe(CHECKOUTS);
    expect(records.grants).toBe(CHECKOUTS);

    await rewind('ledger-projector', topics.consensusResults);
    // Let its outbox relay run a few passes: anything it had enqueued would be published now.
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    expect(await ledgerSnapshot()).toEqual(before);
    expect(await allRecords()).toEqual(records);
    expect(stack.exited()).toEqual([]);
  });

  it('a verifier rewound to the earliest offsets skips every trigger it has in its inbox: no provider query, no result again', async () => {
    await caughtUp('verifier', topics.transactionEvents);
    await waitUntil('the verifier outbox to drain', 30_000, async () => ((await outboxRows('verifier')) === 0 ? true : undefined));
    const { rows: inbox } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM verifier.inbox');
    expect(inbox[0]!.n).toBeGreaterThanOrEqual(CHECKOUTS);
    const calls = await verifyCalls();
    expect(calls.every((n) => n >= 1)).toBe(true);
    const records = await allRecords();
    const ledger = await ledgerSnapshot();

    await rewind('verifier', topics.transactionEvents);
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    expect(await verifyCalls()).toEqual(calls);
    expect(await outboxRows('verifier')).toBe(0);
    expect(await allRecords()).toEqual(records);
    expect(await ledgerSnapshot()).toEqual(ledger);
    expect(stack.exited()).toEqual([]);
  });
});

/**
 * Rewinding a worker's consumer group, as an operator does with `kafka-consumer-groups.sh
 * --reset-offsets --to-earliest` (docs/operations.md): once checkouts settled, the ledger
 * projector is stopped, its group (`<prefix>-ledger-projector`) is set back to the start of the
 * consensus-results topic with Kafka's admin API, and the projector is started again. It reads
 * every result a second time, and nothing is doubled: the same ledger entries per stream, no
 * new record on the settlements or entitlement-events topics (its appends are idempotent by
 * event id, so a result already in the ledger appends and publishes nothing).
 */
import { randomBytes } from 'node:crypto';
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, topicNames, type Topics } from '@settle/messaging';
import { createLogger } from '@settle/platform';
import { waitUntil } from '../../scripts/ops/clients.js';
import { infra } from '../../scripts/harness/infra.js';
import { startStack, type RunningStack } from '../../scripts/harness/stack.js';

const CHECKOUTS = 6;
let stack: RunningStack;
let admin: Admin;
let topics: Topics;

beforeAll(async () => {
  stack = await startStack({ inactivityMs: 3_000 });
  topics = topicNames(stack.topicPrefix);
  admin = createKafka('rewind-e2e', infra.kafkaBrokers, createLogger('rewind-e2e', 'fatal')).admin();
  await admin.connect();
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

/** Ledger entries per stream, and the projector's outbox backlog. */
async function ledgerSnapshot(): Promise<{ streams: Record<string, number>; outbox: number }> {
  const { rows } = await stack.db.query<{ stream_id: string; n: number }>('SELECT stream_id, count(*)::int AS n FROM ledger.events GROUP BY stream_id');
  const { rows: outbox } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger.outbox');
  return { streams: Object.fromEntries(rows.map((r) => [r.stream_id, r.n])), outbox: outbox[0]!.n };
}

/** The projector group's committed offsets on consensus-results, by partition. */
async function committed(group: string): Promise<Map<number, number>> {
  const [topic] = await admin.fetchOffsets({ groupId: group, topics: [topics.consensusResults] });
  return new Map(topic!.partitions.map((p) => [p.partition, Number(p.offset)]));
}

/** Whether the group has committed the end of every partition (an empty partition may have no commit: -1). */
function atEnd(offsets: Map<number, number>, ends: ReadonlyArray<{ partition: number; low: string; high: string }>): boolean {
  return ends.every((p) => offsets.get(p.partition) === Number(p.high) || (p.high === p.low && offsets.get(p.partition) === -1));
}

describe('consumer-group rewind', () => {
  it('a ledger projector rewound to the earliest offsets reads every result again and doubles nothing', async () => {
    const references = await Promise.all(Array.from({ length: CHECKOUTS }, () => checkout()));
    for (const reference of references) {
      await waitUntil(`${reference} to settle`, 30_000, async () => {
        const answer = await stack.ingestion.status(reference);
        return answer.status === 200 && answer.body.state === 'SETTLED_CONSENSUS' ? true : undefined;
      });
    }
    const group = `${stack.topicPrefix}-ledger-projector`;
    // Everything handled and published: the group is at the end of its topic and the outbox is drained.
    const results = await waitUntil('the projector to commit every result and drain its outbox', 30_000, async () => {
      const ends = await admin.fetchTopicOffsets(topics.consensusResults);
      return atEnd(await committed(group), ends) && (await ledgerSnapshot()).outbox === 0 ? ends : undefined;
    });
    const before = await ledgerSnapshot();
    for (const reference of references) expect(before.streams[`transaction-${reference}`]).toBe(1);
    const settlementsBefore = await recordsOn(topics.settlements);
    const grantsBefore = await recordsOn(topics.entitlementEvents);
    expect(settlementsBefore).toBe(CHECKOUTS);
    expect(grantsBefore).toBe(CHECKOUTS);
    const resultsCount = await recordsOn(topics.consensusResults);
    expect(resultsCount).toBeGreaterThanOrEqual(CHECKOUTS);

    // The operator's rewind: the group must be empty (its worker stopped) to have its offsets set; this is
    // what `kafka-consumer-groups.sh --reset-offsets --to-earliest --execute` does.
    await stack.stopApp('ledger-projector');
    await waitUntil('the projector group to be empty', 30_000, async () => {
      const { groups } = await admin.describeGroups([group]);
      return groups[0]!.members.length === 0 ? true : undefined;
    });
    await admin.setOffsets({ groupId: group, topic: topics.consensusResults, partitions: results.map((p) => ({ partition: p.partition, offset: p.low })) });
    const rewound = await committed(group);
    expect(results.every((p) => rewound.get(p.partition) === Number(p.low))).toBe(true);

    await stack.startApp('ledger-projector');
    await waitUntil('the restarted projector to catch up', 60_000, async () => (atEnd(await committed(group), results) ? true : undefined));
    // Let its outbox relay run a few passes: anything it had enqueued would be published now.
    await waitUntil('the outbox to be empty', 10_000, async () => ((await ledgerSnapshot()).outbox === 0 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    expect(await ledgerSnapshot()).toEqual(before);
    expect(await recordsOn(topics.settlements)).toBe(settlementsBefore);
    expect(await recordsOn(topics.entitlementEvents)).toBe(grantsBefore);
    expect(await recordsOn(topics.consensusResults)).toBe(resultsCount);
    expect(stack.exited()).toEqual([]);
  });
});

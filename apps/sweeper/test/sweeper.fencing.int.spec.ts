/**
 * Two sweepers never both act for a partition's timers: each claim bumps the partition's
 * epoch in PostgreSQL, and every write is fenced by it. Runs the app's classes in-process
 * against a real PostgreSQL and the real schema registry, with a fake clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RECOVERY_POLICY } from '@settle/domain';
import { AvroCodec, Outbox, topicNames, type BatchItem, type CheckoutRegisteredV1, type Topics } from '@settle/messaging';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { createLogger, createPool, endSpan, migrateSchema, startSpan, startTracing, traceCarrierOf, type Pool } from '@settle/platform';
import { createTestDatabase, infra, uniqueTopicPrefix } from '@settle/testing';
import { PartitionFencedError } from '../src/partition-fencing.js';
import { OVERDUE_AFTER_MS, SweeperMetrics } from '../src/sweeper.metrics.js';
import { SweeperService } from '../src/sweeper.service.js';
import { SWEEPER_MIGRATIONS, WatchStore } from '../src/watch.store.js';

let pool: Pool;
let drop: () => Promise<void>;
let topics: Topics;
let codec: AvroCodec;
const logger = createLogger('sweeper-fencing', 'fatal');
const T0 = 1_800_000_000_000;

beforeAll(async () => {
  const database = await createTestDatabase('settle_sweeper_fence');
  drop = database.drop;
  pool = createPool(database.url, 6);
  await migrateSchema(pool, SWEEPER_MIGRATIONS);
  topics = topicNames(uniqueTopicPrefix('fence'));
  codec = AvroCodec.connect(infra.registryUrl, topics);
  await codec.registerAll(['VerificationRequested']);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

function sweeper(owner: string, clock: () => number, metrics?: SweeperMetrics): SweeperService {
  return new SweeperService({
    metrics,
    pool,
    store: new WatchStore(pool, owner),
    outbox: new Outbox('sweeper', topics, codec),
    relay: { wake: () => undefined },
    policy: DEFAULT_RECOVERY_POLICY,
    tick: { intervalMs: 250, batchSize: 1_000 },
    logger,
    clock,
  });
}

const assign = (s: SweeperService, partitions: number[]) => s.onAssignment({ [topics.transactionEvents]: partitions, [topics.consensusResults]: partitions });

function registered(reference: string, partition: number, at: number, offset: number): BatchItem {
  const payload: CheckoutRegisteredV1 = {
    event_id: `evt-${reference}`,
    occurred_at: at,
    correlation_id: `corr-${reference}`,
    reference,
    provider: 'paystack',
    amount_minor: 500_000,
    currency: 'NGN',
    user_id: 'user-1',
    customer_email: 'ada@example.com',
    customer_phone: null,
    entitlement: 'pro',
    access_period: 'P1M',
  };
  return {
    event: { type: 'CheckoutRegistered', payload },
    context: { topic: topics.transactionEvents, partition, offset: String(offset), key: reference, timestamp: at, headers: {} },
  };
}

async function requests(): Promise<Array<{ reference: string; trigger: string }>> {
  const { rows } = await pool.query<{ message_key: string; payload: { trigger: string } }>(
    `SELECT message_key, payload FROM sweeper.outbox WHERE event_type = 'VerificationRequested' ORDER BY id`,
  );
  return rows.map((r) => ({ reference: r.message_key, trigger: r.payload.trigger }));
}

describe('sweeper partition ownership (fencing epochs)', () => {
  it('after a newer claim, the earlier owner can neither store activity nor fire a timer; the new owner fires each once', async () => {
    let now = T0;
    const a = sweeper('a', () => now);
    const b = sweeper('b', () => now);
    assign(a, [0, 1]);
    await a.handleBatch([registered('ref_p0', 0, T0, 0)]);
    await a.handleBatch([registered('ref_p1', 1, T0, 0)]);
    expect(a.ownedPartitions()).toEqual([0, 1]);

    // b takes partition 1 (a rebalance a has not noticed yet: a still believes it owns it).
    assign(b, [1]);
    await b.sweep(); // waits for the claim
    now = T0 + DEFAULT_RECOVERY_POLICY.inactivityMs + 1;

    await expect(a.handleBatch([registered('ref_p1_late', 1, now, 1)])).rejects.toBeInstanceOf(PartitionFencedError);
    const fromA = await a.sweep();
    expect(fromA.published).toBe(1); // only partition 0's timer
    expect(a.ownedPartitions()).toEqual([0]);
    const fromB = await b.sweep();
    expect(fromB.published).toBe(1);
    expect(await requests()).toEqual([
      { reference: 'ref_p0', trigger: 'sweeper_orphaned' },
      { reference: 'ref_p1', trigger: 'sweeper_orphaned' },
    ]);
    // Nothing is due twice: both watches were re-armed by the sweep that fired them.
    expect((await a.sweep()).published + (await b.sweep()).published).toBe(0);
    // a would claim partition 1 again shortly (it still believes it is assigned); its
    // rebalance arrives first here.
    a.onRevocation();
  });

  it('a rebalance in progress stops a sweeper acting for any partition until its next assignment', async () => {
    let now = T0;
    const c = sweeper('c', () => now);
    assign(c, [2]);
    await c.handleBatch([registered('ref_p2', 2, T0, 0)]);
    c.onRevocation();
    now = T0 + DEFAULT_RECOVERY_POLICY.inactivityMs + 1;
    expect(await c.sweep()).toEqual({ published: 0, maxLagMs: 0 });
    await expect(c.handleBatch([registered('ref_p2_b', 2, now, 1)])).rejects.toBeInstanceOf(PartitionFencedError);
    assign(c, [2]);
    expect((await c.sweep()).published).toBe(1);
  });

  it("folds both topics' batches of one partition into a new watch without one hiding the other", async () => {
    const e = sweeper('e', () => T0);
    assign(e, [4]);
    const held = (reference: string, offset: number): BatchItem => ({
      event: {
        type: 'ConsensusResult',
        payload: {
          event_id: `res-${reference}`,
          occurred_at: T0 + 5,
          correlation_id: `corr-${reference}`,
          causation_id: 'c',
          reference,
          provider: 'paystack',
          trigger: 'sweeper_orphaned',
          verdict: 'clearing',
          provider_status: 'ongoing',
          detail: null,
          outcome: 'RECOVERING',
          ledger_event_type: 'PaymentHeldInReview',
          ledger_expected_revision: 0,
          state_before: 'PENDING',
          state_after: 'RECOVERING',
          entitlement_status: 'HELD_IN_REVIEW',
          checks: [],
          amount_minor: 500_000,
          currency: 'NGN',
          user_id: 'user-1',
          entitlement: 'pro',
          observed_amount_minor: null,
          charged_amount_minor: null,
          observed_currency: null,
          provider_transaction_id: null,
          access_period: 'P1M',
        },
      },
      context: { topic: topics.consensusResults, partition: 4, offset: String(offset), key: reference, timestamp: T0, headers: {} },
    });
    const refs = Array.from({ length: 2_000 }, (_, i) => `ref_race_${i}`);
    // Both topics' batches of partition 4 arrive at the same time, as kafkajs hands them over.
    await Promise.all([e.handleBatch(refs.map((r, i) => registered(r, 4, T0, i))), e.handleBatch(refs.map((r, i) => held(r, i)))]);
    const { rows } = await pool.query<{ registered: boolean; status: string; due_at: number }>(
      'SELECT registered, status, due_at FROM sweeper.watch_state WHERE reference = ANY($1)',
      [refs],
    );
    expect(rows).toHaveLength(2_000);
    expect(rows.every((r) => r.registered && r.status === 'RECOVERING' && r.due_at === T0 + 5 + DEFAULT_RECOVERY_POLICY.recheck.initialDelayMs)).toBe(true);
  });

  it('a member whose claim was overtaken by a stale one claims its partition again, and fires its timers', async () => {
    let now = T0;
    const owner = sweeper('owner', () => now);
    assign(owner, [5]);
    await owner.handleBatch([registered('ref_p5', 5, T0, 0)]);
    // A claim from a member whose assignment has since changed, delayed behind a lock, lands late.
    await new WatchStore(pool, 'stale').claim([5]);
    now = T0 + DEFAULT_RECOVERY_POLICY.inactivityMs + 1;
    expect((await owner.sweep()).published).toBe(0); // fenced: nothing fired by anyone yet
    expect(owner.ownedPartitions()).toEqual([]);
    await expect.poll(() => owner.ownedPartitions(), { timeout: 5_000 }).toEqual([5]);
    expect((await owner.sweep()).published).toBe(1);
    owner.onRevocation();
  });

  it('counts the due and overdue watches of its own partitions only, until a sweep fires them', async () => {
    let now = T0;
    const metrics = new SweeperMetrics();
    const g = sweeper('g', () => now, metrics);
    const value = async (gauge: 'watchesDue' | 'watchesOverdue') => (await metrics[gauge].get()).values[0]?.value;
    await g.countDue();
    expect([await value('watchesDue'), await value('watchesOverdue')]).toEqual([0, 0]); // no partition owned
    assign(g, [7]);
    await g.handleBatch([registered('ref_p7_a', 7, T0, 0), registered('ref_p7_b', 7, T0 + 20_000, 1)]);
    // A watch of another member's partition, due long ago, is not this member's to count.
    const h = sweeper('h', () => now);
    assign(h, [8]);
    await h.handleBatch([registered('ref_p8', 8, T0 - 3_600_000, 0)]);
    h.onRevocation();

    await g.countDue();
    expect([await value('watchesDue'), await value('watchesOverdue')]).toEqual([0, 0]);
    now = T0 + DEFAULT_RECOVERY_POLICY.inactivityMs + 1;
    await g.countDue();
    expect([await value('watchesDue'), await value('watchesOverdue')]).toEqual([1, 0]);
    now = T0 + DEFAULT_RECOVERY_POLICY.inactivityMs + OVERDUE_AFTER_MS + 1;
    await g.countDue();
    expect([await value('watchesDue'), await value('watchesOverdue')]).toEqual([2, 1]);

    expect((await g.sweep()).published).toBe(2);
    await g.countDue();
    expect([await value('watchesDue'), await value('watchesOverdue')]).toEqual([0, 0]);
    g.onRevocation();
  });

  it('re-applying a redelivered batch leaves the watch as it was', async () => {
    const d = sweeper('d', () => T0);
    assign(d, [3]);
    const batch = [registered('ref_p3', 3, T0, 0), registered('ref_p3', 3, T0 + 10, 1)];
    await d.handleBatch(batch);
    const { rows: once } = await pool.query("SELECT * FROM sweeper.watch_state WHERE reference = 'ref_p3'");
    await d.handleBatch(batch);
    const { rows: twice } = await pool.query("SELECT * FROM sweeper.watch_state WHERE reference = 'ref_p3'");
    expect({ ...twice[0], updated_at: null }).toEqual({ ...once[0], updated_at: null });
    expect(once[0]).toMatchObject({ due_at: T0 + 10 + DEFAULT_RECOVERY_POLICY.inactivityMs, checks: 0 });
  });

  it('merged batches of several partitions: the owned ones are committed, the fenced one is named for the loop to give up', async () => {
    const now = T0;
    const f = sweeper('f', () => now);
    const g = sweeper('g', () => now);
    assign(f, [6, 7]);
    await f.sweep(); // waits for the claim
    assign(g, [7]);
    await g.sweep();
    // f still believes it owns partition 7: one fetch of both partitions, merged into one call.
    const failed = await f.handleBatch([
      registered('ref_p6_merged', 6, now, 0),
      registered('ref_p7_merged', 7, now, 0),
      registered('ref_p6_merged_b', 6, now, 1),
    ]);
    expect(failed).toEqual([{ index: 1, error: expect.any(PartitionFencedError) }]);
    const { rows } = await pool.query<{ reference: string }>(`SELECT reference FROM sweeper.watch_state WHERE reference LIKE '%_merged%' ORDER BY reference`);
    expect(rows.map((r) => r.reference)).toEqual(['ref_p6_merged', 'ref_p6_merged_b']);
    expect(f.ownedPartitions()).toEqual([6]);
    f.onRevocation();
    g.onRevocation();
  });

  it("a request it fires starts a new trace, linked to the last message's, and its outbox row carries it", async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = startTracing(
      { exporter: 'console', serviceName: 'sweeper', sampler: { kind: 'parentbased_always_on', ratio: 1 }, scheduleDelayMs: 10 },
      logger,
      { exporter },
    );
    try {
      let now = T0;
      const h = sweeper('h', () => now);
      assign(h, [5]);
      const message = startSpan('test', 'process');
      const item = registered('ref_traced', 5, T0, 0);
      await h.handleBatch([{ ...item, context: { ...item.context, trace: message.context } }]);
      endSpan(message.span);
      const kept = await pool.query<{ traceparent: string }>(`SELECT traceparent FROM sweeper.watch_state WHERE reference = 'ref_traced'`);
      expect(kept.rows).toEqual([{ traceparent: traceCarrierOf(message.context)!.traceparent }]);

      now = T0 + DEFAULT_RECOVERY_POLICY.inactivityMs + 1;
      expect((await h.sweep()).published).toBe(1);
      const request = exporter.getFinishedSpans().find((span) => span.name === 'sweeper request')!;
      expect(request.attributes).toMatchObject({ 'settle.reference': 'ref_traced', 'settle.trigger': 'sweeper_orphaned' });
      expect(request.parentSpanContext).toBeUndefined();
      expect(request.spanContext().traceId).not.toBe(message.span.spanContext().traceId);
      expect(request.links.map((l) => l.context.spanId)).toEqual([message.span.spanContext().spanId]);
      const { rows } = await pool.query<{ traceparent: string }>(`SELECT traceparent FROM sweeper.outbox WHERE message_key = 'ref_traced'`);
      expect(rows).toEqual([{ traceparent: `00-${request.spanContext().traceId}-${request.spanContext().spanId}-01` }]);
      h.onRevocation();
    } finally {
      await tracing.shutdown();
    }
  });

  it('with a tick of a minute, a watch armed by a batch still fires when it falls due: the batch tells the timer', async () => {
    const policy = { ...DEFAULT_RECOVERY_POLICY, inactivityMs: 1_500 };
    const s = new SweeperService({
      pool,
      store: new WatchStore(pool, 'timed'),
      outbox: new Outbox('sweeper', topics, codec),
      relay: { wake: () => undefined },
      policy,
      tick: { intervalMs: 60_000, batchSize: 1_000 },
      logger,
    });
    assign(s, [11]);
    s.start();
    try {
      await expect.poll(() => s.ownedPartitions(), { timeout: 5_000 }).toEqual([11]);
      // The looks at start and after the claim found nothing armed: the next is a minute away.
      const armedAt = Date.now();
      await s.handleBatch([registered('ref_timed', 11, armedAt, 0)]);
      await expect
        .poll(async () => (await requests()).filter((r) => r.reference === 'ref_timed'), { timeout: 10_000, interval: 50 })
        .toEqual([{ reference: 'ref_timed', trigger: 'sweeper_orphaned' }]);
      expect(Date.now() - armedAt).toBeGreaterThanOrEqual(policy.inactivityMs);
    } finally {
      await s.stop();
      s.onRevocation();
    }
  });
});

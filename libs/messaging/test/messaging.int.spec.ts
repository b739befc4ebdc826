import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Kafka, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AvroCodec,
  type CheckoutRegisteredV1,
  createKafka,
  createProducer,
  ensureTopics,
  HEADERS,
  headerText,
  MessagingMetrics,
  Outbox,
  outboxDdl,
  OutboxRelay,
  PermanentMessageError,
  startConsumerLoop,
  topicNames,
  type Topics,
} from '@settle/messaging';
import { MAX_AMOUNT_MINOR } from '@settle/domain';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { createLogger, createPool, endSpan, inTransaction, startSpan, startTracing, traceCarrierOf, withTraceContext, type Pool } from '@settle/platform';
import { Registry } from 'prom-client';
import { waitUntil } from '../../../scripts/ops/clients.js';
import { createTestDatabase, infra, uniqueTopicPrefix } from '@settle/testing';

const logger = createLogger('messaging-int', 'fatal');

/** Applies an outbox's idempotent DDL in one transaction (the apps apply it as their schema's first migration). */
async function applyDdl(pool: Pool, statements: readonly string[]): Promise<void> {
  await inTransaction(pool, async (client) => {
    for (const statement of statements) await client.query(statement);
  });
}
let kafka: Kafka;
let producer: Producer;
let topics: Topics;
let codec: AvroCodec;

beforeAll(async () => {
  topics = topicNames(uniqueTopicPrefix('int'));
  kafka = createKafka('settle-int', infra.kafkaBrokers, logger);
  await ensureTopics(kafka, topics, 2);
  codec = AvroCodec.connect(infra.registryUrl, topics);
  await codec.registerAll();
  producer = await createProducer(kafka);
});

afterAll(async () => {
  await producer?.disconnect();
});

const registered = (reference: string): CheckoutRegisteredV1 => ({
  event_id: randomUUID(),
  occurred_at: Date.now(),
  correlation_id: randomUUID(),
  reference,
  provider: 'paystack',
  amount_minor: MAX_AMOUNT_MINOR,
  currency: 'NGN',
  user_id: 'user-1',
  customer_email: 'ada@example.com',
  customer_phone: null,
  entitlement: 'pro',
  access_period: 'P1M',
});

/** Sends `CheckoutRegistered` events for the references in one produce request (one record batch), all under `key`. */
async function sendRegistered(key: string, references: readonly string[]) {
  return producer.send({
    topic: topics.transactionEvents,
    acks: -1,
    messages: await Promise.all(
      references.map(async (reference) => ({
        key,
        value: await codec.encode('CheckoutRegistered', registered(reference)),
        headers: { [HEADERS.eventType]: 'CheckoutRegistered' },
      })),
    ),
  });
}

describe('Avro through the schema registry', () => {
  it('round-trips a contract, keeping the largest accepted minor-unit amount exact', async () => {
    const payload = registered('ref_codec');
    const value = await codec.encode('CheckoutRegistered', payload);
    expect(value[0]).toBe(0); // Confluent wire format: magic byte
    const decoded = await codec.decode(value, { [HEADERS.eventType]: Buffer.from('CheckoutRegistered') });
    expect(decoded).toEqual({ type: 'CheckoutRegistered', payload });
  });

  it('refuses a payload that does not match its schema', async () => {
    const bad = { ...registered('ref_bad'), amount_minor: 'a lot' } as unknown as CheckoutRegisteredV1;
    await expect(codec.encode('CheckoutRegistered', bad)).rejects.toThrow();
  });
});

describe('consumer loop on the real broker', () => {
  it('hands over decoded messages and dead-letters the undecodable and the permanently failing, losing none, counting the records and the lag', async () => {
    const seen: string[] = [];
    const metrics = new MessagingMetrics(new Registry());
    const groupId = `int-${randomUUID()}`;
    const loop = await startConsumerLoop({
      kafka,
      groupId,
      metrics,
      topics: [topics.transactionEvents],
      codec,
      producer,
      deadLetterTopic: topics.deadLetter,
      logger,
      handleBatch: async (items) =>
        items.flatMap(({ event }, index) => {
          if (event.payload.reference === 'ref_poison') return [{ index, error: new PermanentMessageError('TEST.POISON', 'cannot be processed') }];
          seen.push(event.payload.reference);
          return [];
        }),
    });
    const dlq: Array<{ code?: string; offset?: string }> = [];
    const dlqConsumer = kafka.consumer({ groupId: `int-dlq-${randomUUID()}` });
    await dlqConsumer.connect();
    await dlqConsumer.subscribe({ topic: topics.deadLetter, fromBeginning: true });
    await dlqConsumer.run({
      eachMessage: async ({ message }) => {
        dlq.push({ code: headerText(message.headers, HEADERS.dlqErrorCode), offset: headerText(message.headers, HEADERS.dlqSourceOffset) });
      },
    });
    try {
      const encode = async (reference: string) => ({
        key: reference,
        value: await codec.encode('CheckoutRegistered', registered(reference)),
        headers: { [HEADERS.eventType]: 'CheckoutRegistered' },
      });
      await producer.send({
        topic: topics.transactionEvents,
        acks: -1,
        messages: [
          await encode('ref_a'),
          { key: 'ref_garbage', value: Buffer.from('not avro'), headers: { [HEADERS.eventType]: 'CheckoutRegistered' } },
          await encode('ref_poison'),
          { key: 'ref_untyped', value: Buffer.from('x') },
          await encode('ref_b'),
        ],
      });
      await waitUntil('valid messages to be handled', 30_000, async () => (seen.length >= 2 ? true : undefined));
      await waitUntil('bad messages to be dead-lettered', 30_000, async () => (dlq.length >= 3 ? true : undefined));
      expect(seen.sort()).toEqual(['ref_a', 'ref_b']);
      expect(dlq.map((d) => d.code).sort()).toEqual(['MESSAGE.UNDECODABLE', 'MESSAGE.UNKNOWN_TYPE', 'TEST.POISON']);
      const deadLettered = (await metrics.deadLetterRecords.get()).values.map((v) => `${v.labels.topic} ${v.labels.reason} ${v.value}`);
      expect(deadLettered.sort()).toEqual(
        ['MESSAGE.UNDECODABLE', 'MESSAGE.UNKNOWN_TYPE', 'TEST.POISON'].map((reason) => `${topics.transactionEvents} ${reason} 1`),
      );
      // Every message of the partition they went to is behind the loop: no lag left there.
      const lag = (await metrics.consumerLag.get()).values.filter((v) => v.labels.consumer_group === groupId);
      expect(lag.length).toBeGreaterThan(0);
      expect(lag.every((v) => v.labels.topic === topics.transactionEvents && v.value === 0)).toBe(true);
    } finally {
      await loop.stop();
      await dlqConsumer.disconnect();
    }
  });
});

describe('consumer loop logs', () => {
  it("name each batch's group, topic, partition and offsets, and each message's offset, correlation and causation ids", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const capture = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const groupId = `int-logs-${randomUUID()}`;
    let failures = 0;
    const loop = await startConsumerLoop({
      kafka,
      groupId,
      topics: [topics.transactionEvents],
      codec,
      producer,
      deadLetterTopic: topics.deadLetter,
      logger: createLogger('messaging-logs', 'debug', capture),
      handleBatch: async (items) => {
        const logged = items.findIndex(({ event }) => event.payload.reference === 'ref_logged');
        if (logged < 0) return [];
        // Transient once, for the retry line; then refused for good, for the dead-letter line.
        if (failures++ === 0) throw new Error('database restarting');
        return [{ index: logged, error: new PermanentMessageError('TEST.REFUSED', 'refused for the log line') }];
      },
    });
    const correlationId = randomUUID();
    const causationId = randomUUID();
    try {
      const [sent] = await producer.send({
        topic: topics.transactionEvents,
        acks: -1,
        messages: [
          {
            key: 'ref_logged',
            value: await codec.encode('CheckoutRegistered', registered('ref_logged')),
            headers: { [HEADERS.eventType]: 'CheckoutRegistered', [HEADERS.correlationId]: correlationId, [HEADERS.causationId]: causationId },
          },
        ],
      });
      // The topic holds the earlier tests' messages too: this one is the last of its partition's batch.
      const offset = sent!.baseOffset!;
      const batch = { groupId, topic: topics.transactionEvents, partition: sent!.partition, lastOffset: offset };
      const handled = await waitUntil('the batch to be handled and logged', 30_000, async () =>
        lines.find((l) => l.msg === 'batch handled' && l.partition === batch.partition && l.lastOffset === offset),
      );
      expect(handled).toMatchObject({ ...batch, app: 'messaging-logs', firstOffset: expect.any(String) });
      expect(BigInt(handled.firstOffset as string)).toBeLessThanOrEqual(BigInt(offset));
      expect(lines.find((l) => l.msg === 'retrying batch' && l.partition === batch.partition)).toMatchObject({ ...batch, attempt: 1 });
      expect(lines.find((l) => l.msg === 'message sent to the dead-letter topic' && l.offset === offset)).toMatchObject({
        topic: batch.topic,
        partition: batch.partition,
        offset,
        correlationId,
        causationId,
        code: 'TEST.REFUSED',
      });
    } finally {
      await loop.stop();
    }
  });
});

describe('heartbeats inside a long batch', () => {
  it('keeps the partitions of a member whose batch takes longer than the session time-out: no rejoin, no redelivery', async () => {
    const sessionTimeoutMs = 6_000;
    const attempts: string[] = [];
    const handled: string[] = [];
    let joins = 0;
    const loop = await startConsumerLoop({
      kafka,
      groupId: `int-slow-${randomUUID()}`,
      topics: [topics.transactionEvents],
      codec,
      producer,
      deadLetterTopic: topics.deadLetter,
      logger,
      sessionTimeoutMs,
      onAssignment: () => joins++,
      handleBatch: async (items) => {
        const references = items.map((item) => item.event.payload.reference);
        attempts.push(...references);
        // Waits like a batch whose provider answers at its time-out, past the session time-out.
        if (references.includes('ref_slow')) await new Promise((resolve) => setTimeout(resolve, sessionTimeoutMs + 3_000));
        handled.push(...references);
        return [];
      },
    });
    try {
      await producer.send({
        topic: topics.transactionEvents,
        acks: -1,
        messages: [
          { key: 'ref_slow', value: await codec.encode('CheckoutRegistered', registered('ref_slow')), headers: { [HEADERS.eventType]: 'CheckoutRegistered' } },
        ],
      });
      await waitUntil('the slow batch to be handled', 30_000, async () => (handled.includes('ref_slow') ? true : undefined));
      // Long enough for an evicted member to rejoin and fetch the uncommitted batch again.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(attempts.filter((reference) => reference === 'ref_slow')).toHaveLength(1);
      expect(joins).toBe(1);
    } finally {
      await loop.stop();
    }
  });
});

describe('offset commits', () => {
  it('commit at once after a quiet spell, then at most once per interval while batches come, and everything resolved when the loop stops', async () => {
    const groupId = `int-commit-${randomUUID()}`;
    const handled: string[] = [];
    const loop = await startConsumerLoop({
      kafka,
      groupId,
      topics: [topics.transactionEvents],
      codec,
      producer,
      deadLetterTopic: topics.deadLetter,
      logger,
      fromBeginning: false,
      offsetCommitIntervalMs: 60_000,
      handleBatch: async (items) => {
        for (const { event } of items) if (event.payload.reference.startsWith('ref_commit')) handled.push(event.payload.reference);
        return [];
      },
    });
    const admin = kafka.admin();
    await admin.connect();
    // One key, so one partition: its committed offset is the next one the group would read.
    const send = async (reference: string) =>
      (
        await producer.send({
          topic: topics.transactionEvents,
          acks: -1,
          messages: [
            {
              key: 'ref_commit',
              value: await codec.encode('CheckoutRegistered', registered(reference)),
              headers: { [HEADERS.eventType]: 'CheckoutRegistered' },
            },
          ],
        })
      )[0]!;
    const committed = async (partition: number) => {
      const [topic] = await admin.fetchOffsets({ groupId, topics: [topics.transactionEvents] });
      return Number(topic!.partitions.find((p) => p.partition === partition)!.offset);
    };
    try {
      // The loop joins at the topic's end: send until one arrives.
      const first = await waitUntil('the first message to be handled', 30_000, async () => {
        const sent = await send('ref_commit_probe');
        return handled.length > 0 ? sent : undefined;
      });
      const partition = first.partition;
      await waitUntil('the first batch to be committed', 10_000, async () => ((await committed(partition)) > 0 ? true : undefined));
      const afterFirst = await committed(partition);
      const later = [await send('ref_commit_2'), await send('ref_commit_3')];
      await waitUntil('the later batches to be handled', 30_000, async () => (handled.includes('ref_commit_3') ? true : undefined));
      expect(await committed(partition)).toBe(afterFirst); // handled, resolved, not committed yet: the interval has not passed
      await loop.stop();
      expect(await committed(partition)).toBe(Number(later[1]!.baseOffset) + 1);
    } finally {
      await loop.stop().catch(() => undefined);
      await admin.disconnect();
    }
  });
});

describe('transactional outbox', () => {
  let pool: Pool;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const db = await createTestDatabase('settle_outbox');
    drop = db.drop;
    pool = createPool(db.url, 4);
    await applyDdl(pool, outboxDdl('app'));
  });

  afterAll(async () => {
    await pool?.end();
    await drop?.();
  });

  it('refuses to enqueue a payload that does not match its schema, failing the transaction', async () => {
    const outbox = new Outbox('app', topics, codec);
    const bad = { ...registered('ref_outbox_invalid'), currency: 42 } as unknown as CheckoutRegisteredV1;
    await expect(inTransaction(pool, (client) => outbox.enqueue(client, [{ type: 'CheckoutRegistered', payload: bad }]))).rejects.toThrow(
      /does not match its schema at: currency/,
    );
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM app.outbox');
    expect(rows[0]!.n).toBe(0);
  });

  it('publishes only what committed, in order, and deletes it once Kafka acknowledged it', async () => {
    const outbox = new Outbox('app', topics, codec);
    const committed = registered('ref_outbox_committed');
    await inTransaction(pool, (client) => outbox.enqueue(client, [{ type: 'CheckoutRegistered', payload: committed }]));
    await expect(
      inTransaction(pool, async (client) => {
        await outbox.enqueue(client, [{ type: 'CheckoutRegistered', payload: registered('ref_outbox_rolled_back') }]);
        throw new Error('business rule failed');
      }),
    ).rejects.toThrow('business rule failed');

    const received: string[] = [];
    const consumer = kafka.consumer({ groupId: `int-outbox-${randomUUID()}` });
    await consumer.connect();
    await consumer.subscribe({ topic: topics.transactionEvents, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        // The topic also holds the dead-letter test's garbage: only the keys matter here.
        received.push(message.key?.toString() ?? '');
      },
    });
    const relay = new OutboxRelay(pool, 'app', producer, codec, logger, { pollIntervalMs: 50, batchSize: 100 });
    relay.start();
    try {
      await waitUntil('the committed message to arrive', 30_000, async () => (received.includes('ref_outbox_committed') ? true : undefined));
      await waitUntil('the published row to be deleted', 10_000, async () => {
        const r = await pool.query<{ pending: number }>('SELECT count(*)::int AS pending FROM app.outbox');
        return r.rows[0]!.pending === 0 ? true : undefined;
      });
      expect(received.filter((key) => key === 'ref_outbox_committed')).toHaveLength(1);
      expect(received).not.toContain('ref_outbox_rolled_back');
    } finally {
      await relay.stop();
      await consumer.disconnect();
    }
  });

  it('lingers before its next fetch after a small batch (fetch.lingerMs): what arrives meanwhile comes in one batch', async () => {
    const batches: Array<{ at: number; references: string[] }> = [];
    const loop = await startConsumerLoop({
      kafka,
      groupId: `int-linger-${randomUUID()}`,
      topics: [topics.transactionEvents],
      codec,
      producer,
      deadLetterTopic: topics.deadLetter,
      logger,
      fromBeginning: false,
      fetch: { lingerMs: 600 },
      handleBatch: async (items) => {
        const references = items.map(({ event }) => event.payload.reference).filter((r) => r.startsWith('ref_linger'));
        if (references.length > 0) batches.push({ at: performance.now(), references });
        return [];
      },
    });
    const send = (...references: string[]) => sendRegistered('ref_linger', references);
    try {
      // The loop joins at the topic's end: wait until its first fetch was answered by sending until one arrives.
      await waitUntil('the first message to be handled', 30_000, async () => {
        await send('ref_linger_1');
        return batches.length > 0 ? true : undefined;
      });
      const first = batches.at(-1)!.at;
      await send('ref_linger_2');
      await send('ref_linger_3');
      await send('ref_linger_4');
      const next = await waitUntil('the next batch', 30_000, async () => batches.find((b) => b.references.includes('ref_linger_2')));
      expect(next.at - first).toBeGreaterThanOrEqual(500);
      // (A probe sent just before the first was seen may ride along.)
      expect(next.references.filter((r) => r !== 'ref_linger_1')).toEqual(['ref_linger_2', 'ref_linger_3', 'ref_linger_4']);
    } finally {
      await loop.stop();
    }
  });

  it('brings a loop far behind its backlog in batches bounded by fetch.maxBytesPerPartition, none lost', async () => {
    const sizes: number[] = [];
    const seen = new Set<string>();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    const loop = await startConsumerLoop({
      kafka,
      groupId: `int-fetch-bytes-${randomUUID()}`,
      topics: [topics.transactionEvents],
      codec,
      producer,
      deadLetterTopic: topics.deadLetter,
      logger,
      fromBeginning: false,
      fetch: { lingerMs: 0, maxBytesPerPartition: 4_096 },
      handleBatch: async (items) => {
        const references = items.map(({ event }) => event.payload.reference).filter((r) => r.startsWith('ref_backlog_'));
        for (const r of references) seen.add(r);
        if (!held && references.includes('ref_backlog_probe')) {
          held = true;
          await gate; // the backlog builds up behind this batch
        } else if (held && references.length > 0) sizes.push(references.length);
        return [];
      },
    });
    // Each send is one record batch of ten messages, about 2 KiB.
    const send = (...references: string[]) => sendRegistered('ref_backlog', references);
    try {
      await waitUntil('the probe to be handled', 30_000, async () => {
        await send('ref_backlog_probe');
        return held ? true : undefined;
      });
      const backlog = Array.from({ length: 300 }, (_, i) => `ref_backlog_${i}`);
      for (let i = 0; i < backlog.length; i += 10) await send(...backlog.slice(i, i + 10));
      release();
      await waitUntil('the backlog to be handled', 30_000, async () => (backlog.every((r) => seen.has(r)) ? true : undefined));
      // kafkajs's own default (1 MiB a partition) brings the 300 (about 60 KiB) in one batch.
      expect(Math.max(...sizes)).toBeLessThanOrEqual(40);
      expect(sizes.length).toBeGreaterThanOrEqual(8);
    } finally {
      release();
      await loop.stop();
    }
  });

  it('flushes on stop: what committed since its last pass is published before stop resolves, in more than one pass', async () => {
    const outbox = new Outbox('app', topics, codec);
    // A relay that will not pass again on its own for a minute: only stop can publish what follows.
    const relay = new OutboxRelay(pool, 'app', producer, codec, logger, { pollIntervalMs: 60_000, batchSize: 2 });
    relay.start();
    // Its first pass (an empty outbox) runs at once; then it sleeps.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const references = ['ref_flush_1', 'ref_flush_2', 'ref_flush_3', 'ref_flush_4', 'ref_flush_5'];
    await inTransaction(pool, (client) =>
      outbox.enqueue(
        client,
        references.map((r) => ({ type: 'CheckoutRegistered' as const, payload: registered(r) })),
      ),
    );
    const admin = kafka.admin();
    await admin.connect();
    const records = async () => (await admin.fetchTopicOffsets(topics.transactionEvents)).reduce((n, o) => n + Number(o.high), 0);
    try {
      const before = await records();
      await relay.stop();
      const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM app.outbox');
      expect(rows[0]!.n).toBe(0);
      expect((await records()) - before).toBe(references.length);
    } finally {
      await admin.disconnect();
    }
  });

  it("carries the trace context of the work that wrote a row to the record's consumer: request, send, process, one trace", async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = startTracing(
      { exporter: 'console', serviceName: 'messaging-int', sampler: { kind: 'parentbased_always_on', ratio: 1 }, scheduleDelayMs: 10 },
      logger,
      { exporter },
    );
    const outbox = new Outbox('app', topics, codec);
    const relay = new OutboxRelay(pool, 'app', producer, codec, logger, { pollIntervalMs: 50, batchSize: 100 });
    const handled: Array<{ traceparent: string | undefined }> = [];
    const loop = await startConsumerLoop({
      kafka,
      groupId: `int-traced-${randomUUID()}`,
      topics: [topics.transactionEvents],
      codec,
      producer,
      deadLetterTopic: topics.deadLetter,
      logger,
      // The topic also holds the other tests' records: only this one matters here.
      handleBatch: async (items) => {
        for (const { event, context } of items)
          if (event.payload.reference === 'ref_outbox_traced') handled.push({ traceparent: traceCarrierOf(context.trace)?.traceparent });
        return [];
      },
    });
    const request = startSpan('test', 'request');
    try {
      await withTraceContext(request.context, () =>
        inTransaction(pool, (client) => outbox.enqueue(client, [{ type: 'CheckoutRegistered', payload: registered('ref_outbox_traced') }])),
      );
      endSpan(request.span);
      const stored = await pool.query<{ traceparent: string }>(`SELECT traceparent FROM app.outbox WHERE message_key = 'ref_outbox_traced'`);
      expect(stored.rows).toEqual([{ traceparent: traceCarrierOf(request.context)!.traceparent }]);
      relay.start();
      await waitUntil('the traced record to be handled', 30_000, async () => (handled.length > 0 ? true : undefined));
    } finally {
      await relay.stop();
      await loop.stop();
    }
    const spans = exporter.getFinishedSpans();
    await tracing.shutdown();
    const requestSpan = spans.find((s) => s.name === 'request')!;
    const send = spans.find((s) => s.name === `send ${topics.transactionEvents}` && s.attributes['settle.reference'] === 'ref_outbox_traced')!;
    const process = spans.find((s) => s.name === `process ${topics.transactionEvents}` && s.attributes['settle.reference'] === 'ref_outbox_traced')!;
    const traceId = requestSpan.spanContext().traceId;
    expect([send.spanContext().traceId, process.spanContext().traceId]).toEqual([traceId, traceId]);
    expect(send.parentSpanContext?.spanId).toBe(requestSpan.spanContext().spanId);
    expect(process.parentSpanContext?.spanId).toBe(send.spanContext().spanId);
    expect(handled[0]!.traceparent).toBe(`00-${traceId}-${process.spanContext().spanId}-01`);
  });

  it('reports the age of its oldest unpublished row, still growing while that row cannot be published, and 0 once the outbox is empty', async () => {
    await applyDdl(pool, outboxDdl('aged'));
    const registry = new Registry();
    const relay = new OutboxRelay(pool, 'aged', producer, codec, logger, { pollIntervalMs: 50, batchSize: 100 }, new MessagingMetrics(registry));
    const gauge = async () => {
      const text = await registry.getSingleMetricAsString('settle_outbox_backlog_age_seconds');
      return Number(/settle_outbox_backlog_age_seconds\{outbox="aged"\} (\S+)/.exec(text)?.[1]);
    };
    expect(await gauge()).toBe(0);
    // A row written 90 s ago whose payload its schema refuses: it holds the outbox, as a real one would.
    const stuck = { ...registered('ref_outbox_stuck'), amount_minor: 'a lot' };
    await pool.query(
      `INSERT INTO aged.outbox (topic, message_key, event_type, payload, correlation_id, created_at)
       VALUES ($1, 'ref_outbox_stuck', 'CheckoutRegistered', $2, $3, now() - interval '90 seconds')`,
      [topics.transactionEvents, JSON.stringify(stuck), stuck.correlation_id],
    );
    await expect(relay.pass()).rejects.toThrow();
    const first = await gauge();
    expect(first).toBeGreaterThanOrEqual(90);
    expect(first).toBeLessThan(120);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await gauge()).toBeGreaterThan(first + 0.2);

    await pool.query('DELETE FROM aged.outbox');
    expect(await relay.pass()).toBe(0);
    expect(await gauge()).toBe(0);
    await inTransaction(pool, (client) =>
      new Outbox('aged', topics, codec).enqueue(client, [{ type: 'CheckoutRegistered', payload: registered('ref_outbox_fresh') }]),
    );
    expect(await relay.pass()).toBe(1);
    expect(await gauge()).toBe(0);
  });

  it('migrates an outbox that kept published rows: those are deleted, the unpublished ones kept, the column dropped', async () => {
    await pool.query(`CREATE SCHEMA legacy`);
    await pool.query(
      `CREATE TABLE legacy.outbox (id bigserial PRIMARY KEY, topic text NOT NULL, message_key text NOT NULL, event_type text NOT NULL,
         payload jsonb NOT NULL, correlation_id text NOT NULL, causation_id text, created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz)`,
    );
    await pool.query(`CREATE INDEX outbox_unpublished ON legacy.outbox (id) WHERE published_at IS NULL`);
    await pool.query(
      `INSERT INTO legacy.outbox (topic, message_key, event_type, payload, correlation_id, published_at)
       VALUES ('t', 'ref_sent', 'CheckoutRegistered', '{}', 'c', now()), ('t', 'ref_waiting', 'CheckoutRegistered', '{}', 'c', NULL)`,
    );
    await applyDdl(pool, outboxDdl('legacy'));
    await applyDdl(pool, outboxDdl('legacy')); // idempotent
    const { rows } = await pool.query<{ message_key: string }>('SELECT message_key FROM legacy.outbox ORDER BY id');
    expect(rows).toEqual([{ message_key: 'ref_waiting' }]);
    const columns = await pool.query(
      `SELECT 1 FROM information_schema.columns WHERE table_schema = 'legacy' AND table_name = 'outbox' AND column_name = 'published_at'`,
    );
    expect(columns.rowCount).toBe(0);
  });
});

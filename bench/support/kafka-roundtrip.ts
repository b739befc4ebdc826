import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Admin, Consumer, KafkaMessage, Producer } from 'kafkajs';
import { createKafka, createProducer } from '@settle/messaging';
import type { Logger } from '@settle/platform';
import { percentile } from './proc.js';
import { openLoop, sleep } from './open-loop.js';

/*
 * The bare Kafka round trip, the floor under any event-driven pipeline on this broker: a
 * producer sends a message to topic A, a consumer of A produces it to topic B, a consumer of
 * B records its arrival. Same kafkajs client settings as Settle's apps (libs/messaging:
 * createKafka, createProducer: idempotent, one request in flight, acks -1, murmur2
 * partitioning; consumers as startConsumerLoop makes them: eachBatch, six partitions
 * consumed concurrently, offsets auto-committed every second) and the same batching as
 * Settle's outbox relay (what falls due while a produce is in flight goes out in the next
 * one, at most 500 records). No database, no decoding, no business logic.
 */

/** Most records per produce request, as Settle's outbox relay (`DEFAULT_RELAY_OPTIONS.batchSize`). */
const MAX_BATCH = 500;

/** One measured round trip: `count` messages A → forwarder → B. */
export interface RoundTripResult {
  count: number;
  /** Offered rate, messages per second (Infinity: a burst, everything due at once). */
  offeredRate: number;
  /** Distinct messages that arrived at B. */
  received: number;
  /** Copies of a message that arrived at B more than once (at-least-once redelivery). */
  duplicates: number;
  /** From the first send to the last arrival at B, seconds. */
  seconds: number;
  /** `received / seconds`. */
  throughput: number;
  /** Send (due time) → arrival at B, ms, ascending. */
  latencies: Float64Array;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Produce requests to topic A and the records they carried. */
  produceRequests: number;
}

/**
 * A running A → B round trip on fresh topics. {@link KafkaRoundTrip.start} creates the topics
 * and connects everything; {@link KafkaRoundTrip.run} measures one schedule;
 * {@link KafkaRoundTrip.stop} disconnects and deletes the topics.
 */
export class KafkaRoundTrip {
  private readonly arrivals = new Map<string, { at: number; copies: number }>();
  private runTag = '';

  private constructor(
    private readonly admin: Admin,
    private readonly producerA: Producer,
    private readonly producerB: Producer,
    private readonly forwarder: Consumer,
    private readonly sink: Consumer,
    readonly topics: { a: string; b: string },
    private readonly payloadBytes: number,
  ) {}

  /**
   * Creates topics A and B with `partitions` partitions each (replication 1, as Settle's
   * `ensureTopics`), connects two producers and the two consumer groups, and waits until both
   * groups have joined.
   *
   * @param payloadBytes - size of each message value (Settle's Avro events are a few hundred bytes).
   * @throws when the broker is unreachable or the groups do not join within 60 s.
   */
  static async start(options: { brokers: string[]; partitions: number; payloadBytes: number; logger: Logger }): Promise<KafkaRoundTrip> {
    const prefix = `bench-roundtrip-${randomBytes(4).toString('hex')}`;
    const topics = { a: `${prefix}.a`, b: `${prefix}.b` };
    const kafka = createKafka('bench-roundtrip', options.brokers, options.logger);
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [topics.a, topics.b].map((topic) => ({ topic, numPartitions: options.partitions, replicationFactor: 1 })),
    });
    const [producerA, producerB] = [await createProducer(kafka), await createProducer(kafka)];
    const consumer = (groupId: string) => kafka.consumer({ groupId, allowAutoTopicCreation: false, sessionTimeout: 30_000, heartbeatInterval: 3_000 });
    const forwarder = consumer(`${prefix}-forwarder`);
    const sink = consumer(`${prefix}-sink`);
    const trip = new KafkaRoundTrip(admin, producerA, producerB, forwarder, sink, topics, options.payloadBytes);
    const joined = (c: Consumer) => new Promise<void>((resolve) => c.on(c.events.GROUP_JOIN, () => resolve()));
    const bothJoined = Promise.all([joined(forwarder), joined(sink)]);
    await forwarder.connect();
    await forwarder.subscribe({ topic: topics.a, fromBeginning: true });
    await forwarder.run({
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 6,
      autoCommit: true,
      autoCommitInterval: 1_000,
      eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary }) => {
        if (batch.messages.length === 0) return;
        await producerB.send({
          topic: topics.b,
          acks: -1,
          messages: batch.messages.map((m) => ({ key: m.key, value: m.value, headers: m.headers })),
        });
        resolveOffset(batch.messages.at(-1)!.offset);
        await commitOffsetsIfNecessary();
      },
    });
    await sink.connect();
    await sink.subscribe({ topic: topics.b, fromBeginning: true });
    await sink.run({
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 6,
      autoCommit: true,
      autoCommitInterval: 1_000,
      eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary }) => {
        const at = performance.now();
        for (const m of batch.messages) trip.arrived(m, at);
        if (batch.messages.length > 0) resolveOffset(batch.messages.at(-1)!.offset);
        await commitOffsetsIfNecessary();
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the round trip consumer groups did not join within 60 s')), 60_000);
    });
    try {
      await Promise.race([bothJoined, timeout]);
    } catch (error) {
      await trip.stop();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return trip;
  }

  private arrived(message: KafkaMessage, at: number): void {
    const key = message.key?.toString() ?? '';
    if (!key.startsWith(this.runTag)) return; // a straggler of an earlier run
    const seen = this.arrivals.get(key);
    if (seen) seen.copies += 1;
    else this.arrivals.set(key, { at, copies: 1 });
  }

  /**
   * Sends `count` messages to A on an open-loop timetable at `ratePerSecond` (Infinity: all at
   * once, a burst), batching what falls due while a produce is in flight, and waits until every
   * one arrived at B, or until nothing arrived for `stallTimeoutMs`.
   */
  async run(count: number, ratePerSecond: number, stallTimeoutMs = 30_000): Promise<RoundTripResult> {
    this.runTag = `rt-${randomBytes(3).toString('hex')}-`;
    this.arrivals.clear();
    const value = randomBytes(this.payloadBytes);
    const dueAt = new Float64Array(count);
    const queue: Array<{ key: string; value: Buffer }> = [];
    let inFlight: Promise<void> | null = null;
    let produceRequests = 0;
    let failure: unknown = null;
    const flush = async (): Promise<void> => {
      while (queue.length > 0) {
        const batch = queue.splice(0, MAX_BATCH);
        produceRequests += 1;
        await this.producerA.send({ topic: this.topics.a, acks: -1, messages: batch });
      }
    };
    const kick = () => {
      if (inFlight) return;
      inFlight = flush()
        .catch((error: unknown) => {
          failure = error;
        })
        .finally(() => {
          inFlight = null;
          if (queue.length > 0 && !failure) kick();
        });
    };
    const schedule = await openLoop(count, ratePerSecond, (i, due) => {
      dueAt[i] = due;
      queue.push({ key: `${this.runTag}${i}`, value });
      kick();
    });
    let lastProgress = performance.now();
    let lastSeen = -1;
    while (this.arrivals.size < count && !failure) {
      if (this.arrivals.size !== lastSeen) {
        lastSeen = this.arrivals.size;
        lastProgress = performance.now();
      } else if (performance.now() - lastProgress > stallTimeoutMs) break;
      await sleep(5);
    }
    if (failure) throw failure instanceof Error ? failure : new Error(JSON.stringify(failure));
    const latencies: number[] = [];
    let duplicates = 0;
    let lastArrival = schedule.startedAt;
    for (const [key, arrival] of this.arrivals) {
      const i = Number(key.slice(this.runTag.length));
      latencies.push(arrival.at - dueAt[i]!);
      duplicates += arrival.copies - 1;
      lastArrival = Math.max(lastArrival, arrival.at);
    }
    const sorted = Float64Array.from(latencies).sort();
    const seconds = (lastArrival - schedule.startedAt) / 1000;
    return {
      count,
      offeredRate: ratePerSecond,
      received: this.arrivals.size,
      duplicates,
      seconds,
      throughput: this.arrivals.size / Math.max(seconds, 1e-9),
      latencies: sorted,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted.at(-1) ?? Number.NaN,
      produceRequests,
    };
  }

  /** Disconnects the consumers and producers and deletes both topics. */
  async stop(): Promise<void> {
    await Promise.allSettled([this.forwarder.disconnect(), this.sink.disconnect()]);
    await Promise.allSettled([this.producerA.disconnect(), this.producerB.disconnect()]);
    await this.admin.deleteTopics({ topics: [this.topics.a, this.topics.b] }).catch(() => undefined);
    await this.admin.disconnect();
  }
}

import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import { joinedWithin } from './kafka-join.js';

/** Where an observed message comes from. */
export interface ObservedAt {
  topic: string;
  partition: number;
}

/** What {@link startObserver} runs. */
export interface ObserverOptions {
  /** A group of the observer's own (never one of the stack's). */
  groupId: string;
  topics: string[];
  /** Names the observer in the error thrown when it does not join its group. */
  what: string;
  /** Called once per message, in offset order within a partition; a throw hands that message over again. */
  onMessage: (message: KafkaMessage, at: ObservedAt) => Promise<void> | void;
}

/**
 * Starts one of the benchmarks' observers: a consumer in a group of its own that reads `topics`
 * from the beginning, six partitions at a time, and hands `onMessage` every message once.
 *
 * It commits no offsets. kafkajs's auto-commit sends an OffsetCommit at the end of every batch
 * whatever its `autoCommitInterval`, and an observer that keeps up fetches a batch per message or
 * two: at 100 checkouts/s the settlement watch alone sent 76 of the broker's 354 requests a second,
 * appends to `__consumer_offsets` that the broker's CPU per checkout, read as the stack's, carried
 * (docs/benchmarks.md, "The benchmark's own requests to the broker"). Instead it keeps, per topic
 * and partition, the next offset it expects, moved after each message `onMessage` took. When the
 * group is joined again (a rebalance, kafkajs restarting the consumer after a failed batch's
 * retries) it seeks every partition it is given to that offset, and skips what a fetch already
 * under way still hands it from before: a message is never handed over twice, and a re-join does
 * not read the run's topic again from its beginning.
 *
 * @returns the running consumer (disconnect it to stop).
 * @throws Error when the consumer does not join its group within 60 s (it is disconnected first).
 */
export async function startObserver(kafka: Kafka, options: ObserverOptions): Promise<Consumer> {
  const consumer = kafka.consumer({ groupId: options.groupId, allowAutoTopicCreation: false, sessionTimeout: 30_000, heartbeatInterval: 3_000 });
  const nextOffset = new Map<string, number>();
  const key = (topic: string, partition: number) => `${topic}\u0000${partition}`;
  let resolveJoined: () => void = () => undefined;
  const joined = new Promise<void>((resolve) => (resolveJoined = resolve));
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    for (const [topic, partitions] of Object.entries(payload.memberAssignment)) {
      for (const partition of partitions) {
        const next = nextOffset.get(key(topic, partition));
        if (next !== undefined) consumer.seek({ topic, partition, offset: String(next) });
      }
    }
    resolveJoined();
  });
  await consumer.connect();
  await consumer.subscribe({ topics: options.topics, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    partitionsConsumedConcurrently: 6,
    eachBatch: async ({ batch }) => {
      const at = { topic: batch.topic, partition: batch.partition };
      const k = key(batch.topic, batch.partition);
      for (const message of batch.messages) {
        const offset = Number(message.offset);
        if (offset < (nextOffset.get(k) ?? 0)) continue;
        await options.onMessage(message, at);
        nextOffset.set(k, offset + 1);
      }
    },
  });
  try {
    await joinedWithin(joined, options.what);
  } catch (error) {
    await consumer.disconnect();
    throw error;
  }
  return consumer;
}

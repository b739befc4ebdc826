import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import { joinedWithin } from './kafka-join.js';

/** Messages of one partition that an observer is handed for the first time, in offset order. */
export interface ObservedBatch {
  topic: string;
  partition: number;
  messages: KafkaMessage[];
}

/** What {@link startObserver} runs. */
export interface ObserverOptions {
  /** A group of the observer's own (never one of the stack's). */
  groupId: string;
  topics: string[];
  /** Names the observer in the error thrown when it does not join its group. */
  what: string;
  onBatch: (batch: ObservedBatch) => Promise<void> | void;
}

/**
 * Starts one of the benchmarks' observers: a consumer in a group of its own that reads `topics`
 * from the beginning, six partitions at a time, and hands `onBatch` every message once.
 *
 * It commits no offsets. kafkajs's auto-commit sends an OffsetCommit at the end of every batch
 * whatever its `autoCommitInterval`, and an observer that keeps up fetches a batch per message or
 * two: at 100 checkouts/s the settlement watch alone sent 76 of the broker's 370 requests a second,
 * appends to `__consumer_offsets` that the broker's CPU per checkout, read as the stack's, carried
 * (docs/benchmarks.md, "The benchmark's own requests to the broker"). A group with nothing
 * committed reads from the beginning again after a rebalance: messages below the next offset it
 * expects on a partition were handed over already and are skipped, so a re-read never counts
 * as a second copy.
 *
 * @returns the running consumer (disconnect it to stop).
 * @throws Error when the consumer does not join its group within 60 s.
 */
export async function startObserver(kafka: Kafka, options: ObserverOptions): Promise<Consumer> {
  const consumer = kafka.consumer({ groupId: options.groupId, allowAutoTopicCreation: false, sessionTimeout: 30_000, heartbeatInterval: 3_000 });
  const nextOffset = new Map<string, number>();
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  await consumer.connect();
  await consumer.subscribe({ topics: options.topics, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    partitionsConsumedConcurrently: 6,
    eachBatch: async ({ batch }) => {
      const key = `${batch.topic}:${batch.partition}`;
      const next = nextOffset.get(key) ?? 0;
      const messages = batch.messages.filter((m) => Number(m.offset) >= next);
      if (messages.length === 0) return;
      await options.onBatch({ topic: batch.topic, partition: batch.partition, messages });
      nextOffset.set(key, Number(messages[messages.length - 1]!.offset) + 1);
    },
  });
  await joinedWithin(joined, options.what);
  return consumer;
}

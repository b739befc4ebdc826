import type { Consumer, ConsumerRunConfig, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { startObserver, type ObservedBatch } from '../../bench/support/observer.js';

/** A kafkajs consumer that records how it was run and joins at once. */
function fakeKafka() {
  const state: { run?: ConsumerRunConfig } = {};
  let onJoin: (() => void) | undefined;
  const consumer = {
    events: { GROUP_JOIN: 'consumer.group_join' },
    on: (_event: string, listener: () => void) => {
      onJoin = listener;
      return () => undefined;
    },
    connect: async () => undefined,
    subscribe: async () => undefined,
    run: async (config: ConsumerRunConfig) => {
      state.run = config;
      onJoin?.();
    },
    disconnect: async () => undefined,
  } as unknown as Consumer;
  const kafka = { consumer: () => consumer } as unknown as Kafka;
  const deliver = (partition: number, offsets: number[]) =>
    state.run!.eachBatch!({
      batch: {
        topic: 't',
        partition,
        messages: offsets.map((offset) => ({ offset: String(offset), key: null, value: null, headers: {} }) as unknown as KafkaMessage),
      },
    } as unknown as EachBatchPayload);
  return { kafka, state, deliver };
}

describe('the benchmarks\u2019 observers', () => {
  it('commit no offsets, and hand over each message once when a rebalance makes the group read a partition again', async () => {
    const { kafka, state, deliver } = fakeKafka();
    const seen: Array<[number, string]> = [];
    await startObserver(kafka, {
      groupId: 'g',
      topics: ['t'],
      what: 'the test observer',
      onBatch: ({ partition, messages }: ObservedBatch) => {
        for (const m of messages) seen.push([partition, m.offset]);
      },
    });
    expect(state.run?.autoCommit).toBe(false);

    await deliver(0, [0, 1, 2]);
    await deliver(1, [0]);
    // After a rebalance, nothing committed: partition 0 is read from its beginning again.
    await deliver(0, [0, 1, 2, 3]);
    await deliver(1, [0, 1]);

    expect(seen).toEqual([
      [0, '0'],
      [0, '1'],
      [0, '2'],
      [1, '0'],
      [0, '3'],
      [1, '1'],
    ]);
  });

  it('hand a batch over again when its handler failed, as kafkajs retries it', async () => {
    const { kafka, deliver } = fakeKafka();
    const seen: string[] = [];
    let fail = true;
    await startObserver(kafka, {
      groupId: 'g',
      topics: ['t'],
      what: 'the test observer',
      onBatch: ({ messages }: ObservedBatch) => {
        if (fail) {
          fail = false;
          throw new Error('decode failed');
        }
        seen.push(...messages.map((m) => m.offset));
      },
    });
    await expect(deliver(0, [0, 1])).rejects.toThrow('decode failed');
    await deliver(0, [0, 1]);
    expect(seen).toEqual(['0', '1']);
  });
});

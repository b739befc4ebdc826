import type { Consumer, ConsumerRunConfig, ConsumerSubscribeTopics, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import { startObserver } from '../../bench/support/observer.js';

/** A kafkajs consumer that records how it was subscribed, run and sought, and joins when told to. */
function fakeKafka() {
  const state: { run?: ConsumerRunConfig; subscribed?: ConsumerSubscribeTopics; seeks: Array<{ topic: string; partition: number; offset: string }> } = {
    seeks: [],
  };
  let onJoin: ((event: { payload: { memberAssignment: Record<string, number[]> } }) => void) | undefined;
  const consumer = {
    events: { GROUP_JOIN: 'consumer.group_join' },
    on: (_event: string, listener: typeof onJoin) => {
      onJoin = listener;
      return () => undefined;
    },
    connect: async () => undefined,
    subscribe: async (subscription: ConsumerSubscribeTopics) => {
      state.subscribed = subscription;
    },
    run: async (config: ConsumerRunConfig) => {
      state.run = config;
    },
    seek: (seek: { topic: string; partition: number; offset: string }) => state.seeks.push(seek),
    disconnect: async () => undefined,
  } as unknown as Consumer;
  const kafka = { consumer: () => consumer } as unknown as Kafka;
  const join = (memberAssignment: Record<string, number[]>) => onJoin?.({ payload: { memberAssignment } });
  const deliver = (topic: string, partition: number, offsets: number[]) =>
    state.run!.eachBatch!({
      batch: {
        topic,
        partition,
        messages: offsets.map((offset) => ({ offset: String(offset), key: null, value: null, headers: {} }) as unknown as KafkaMessage),
      },
    } as unknown as EachBatchPayload);
  return { kafka, state, join, deliver };
}

/** Starts an observer on the fake, joined at once, recording what it is handed as `topic/partition@offset`. */
async function observe(onMessage?: (message: KafkaMessage) => void) {
  const fake = fakeKafka();
  const seen: string[] = [];
  const started = startObserver(fake.kafka, {
    groupId: 'g',
    topics: ['a', 'b'],
    what: 'the test observer',
    onMessage: (message, { topic, partition }) => {
      onMessage?.(message);
      seen.push(`${topic}/${partition}@${message.offset}`);
    },
  });
  await Promise.resolve();
  fake.join({ a: [0], b: [0] });
  await started;
  return { ...fake, seen };
}

describe('the benchmarks\u2019 observers', () => {
  it('read their topics from the beginning and commit no offsets', async () => {
    const { state } = await observe();
    expect(state.subscribed).toEqual({ topics: ['a', 'b'], fromBeginning: true });
    expect(state.run?.autoCommit).toBe(false);
  });

  it('hand each message over once when a partition is read again, per topic and by offset as a number', async () => {
    const { deliver, seen } = await observe();
    await deliver('a', 0, [9, 10]);
    await deliver('b', 0, [0]);
    // Read again (nothing committed), past offsets that sort before "9" as text.
    await deliver('a', 0, [9, 10, 100]);
    await deliver('b', 0, [0, 1]);
    expect(seen).toEqual(['a/0@9', 'a/0@10', 'b/0@0', 'a/0@100', 'b/0@1']);
  });

  it('hand a batch whose handler failed partway over again from the message that failed', async () => {
    let failOn: string | null = '11';
    const { deliver, seen } = await observe((message) => {
      if (message.offset === failOn) {
        failOn = null;
        throw new Error('decode failed');
      }
    });
    await expect(deliver('a', 0, [10, 11, 12])).rejects.toThrow('decode failed');
    await deliver('a', 0, [10, 11, 12]);
    expect(seen).toEqual(['a/0@10', 'a/0@11', 'a/0@12']);
  });

  it('seek each partition it is given again to the next offset it expects when it joins again', async () => {
    const { deliver, join, state } = await observe();
    await deliver('a', 0, [0, 1, 2]);
    join({ a: [0, 1], b: [0] });
    expect(state.seeks).toEqual([{ topic: 'a', partition: 0, offset: '3' }]);
  });

  it('disconnect and throw when they do not join their group in time', async () => {
    const fake = fakeKafka();
    let disconnected = false;
    (fake.kafka.consumer({ groupId: 'g' }) as unknown as { disconnect: () => Promise<void> }).disconnect = async () => {
      disconnected = true;
    };
    vi.useFakeTimers();
    try {
      const started = startObserver(fake.kafka, { groupId: 'g', topics: ['a'], what: 'the test observer', onMessage: () => undefined });
      const failed = expect(started).rejects.toThrow('the test observer did not join its group within 60 s');
      await vi.advanceTimersByTimeAsync(60_000);
      await failed;
    } finally {
      vi.useRealTimers();
    }
    expect(disconnected).toBe(true);
  });
});

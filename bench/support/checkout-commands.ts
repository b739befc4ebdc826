import { performance } from 'node:perf_hooks';
import { HEADERS, headerText, type AvroCodec, type RegisterCheckoutV1 } from '@settle/messaging';
import type { Consumer, Kafka, Producer } from 'kafkajs';
import { startObserver } from './observer.js';
import { sleep, wallNow } from './open-loop.js';

/*
 * The two ends of the checkout commands topic as an upstream checkout service sees them: a
 * producer of `RegisterCheckout` commands (Avro with the registered schema's id, keyed by
 * reference, `settle-event-type` and `settle-producer` headers, batched sends with acks=all), and
 * a consumer of the results topic in a group of its own that matches each `CheckoutCommandResult`
 * to its command by `causation_id`.
 */

/** When each command of a {@link sendRegisterCheckouts} call was handed to the producer and acknowledged. */
export interface CommandSends {
  /** Wall-clock ms (epoch) at which command `i`'s batch was handed to `sendBatch` (after it was encoded). */
  sendAt: Float64Array;
  /** Wall-clock ms at which Kafka acknowledged command `i`'s batch (acks=all). */
  ackAt: Float64Array;
  /** Wall-clock ms before the first command was encoded. */
  startedAt: number;
  /** Wall-clock ms once the last batch was acknowledged. */
  endedAt: number;
  /** `sendBatch` calls. */
  requests: number;
  /** Encoded value bytes, all commands together. */
  valueBytes: number;
}

/**
 * Produces `commands` to `topic` in batches of `batchSize` as an upstream producer would: each
 * batch encoded with the codec (the registered schema's id), then one `sendBatch` with acks=all,
 * the next batch once it is acknowledged (an idempotent producer keeps one request in flight).
 *
 * @param producerId - the `settle-producer` header every command carries.
 * @throws the codec's or kafkajs's errors.
 */
export async function sendRegisterCheckouts(options: {
  producer: Producer;
  codec: AvroCodec;
  topic: string;
  producerId: string;
  commands: readonly RegisterCheckoutV1[];
  batchSize: number;
}): Promise<CommandSends> {
  const { commands } = options;
  const sendAt = new Float64Array(commands.length);
  const ackAt = new Float64Array(commands.length);
  const startedAt = wallNow();
  let requests = 0;
  let valueBytes = 0;
  for (let first = 0; first < commands.length; first += options.batchSize) {
    const last = Math.min(commands.length, first + options.batchSize);
    const messages: Array<{ key: string; value: Buffer; headers: Record<string, string> }> = [];
    for (let i = first; i < last; i++) {
      const command = commands[i]!;
      command.occurred_at = Date.now();
      const value = await options.codec.encode('RegisterCheckout', command);
      valueBytes += value.length;
      messages.push({
        key: command.reference,
        value,
        headers: { [HEADERS.eventType]: 'RegisterCheckout', [HEADERS.producer]: options.producerId, [HEADERS.correlationId]: command.correlation_id },
      });
    }
    const at = wallNow();
    sendAt.fill(at, first, last);
    await options.producer.sendBatch({ acks: -1, topicMessages: [{ topic: options.topic, messages }] });
    requests += 1;
    ackAt.fill(wallNow(), first, last);
  }
  return { sendAt, ackAt, startedAt, endedAt: wallNow(), requests, valueBytes };
}

/** What the results consumer saw of the commands it expects. */
export interface CommandResults {
  /** Commands answered `accepted` (each counted once). */
  accepted: number;
  /** Results of an expected command beyond its first (a relay may publish a record twice). */
  duplicates: number;
  /** Outcomes other than `accepted` of expected commands, by outcome and problem code. */
  otherOutcomes: Record<string, number>;
  /** Wall-clock ms of each command's first `accepted` result's arrival at this consumer; NaN when none came. */
  arrivedAt: Float64Array;
  /** The result's `occurred_at`: when ingestion started the batch that handled the command (its `now`). */
  decidedAt: Float64Array;
  /** The result record's timestamp: when ingestion's relay produced it. */
  onTopicAt: Float64Array;
  /** The results topic's partition each result came on (-1 when none). */
  partition: Int16Array;
}

/**
 * A consumer of the results topic in a group of its own (`groupId`), from the beginning, committing
 * nothing ({@link startObserver}): each
 * `CheckoutCommandResult` is decoded and matched to the command it answers (`causation_id`
 * among the event ids given to {@link CommandResultWatch.expect}); results of other commands are
 * skipped.
 */
export class CommandResultWatch {
  private index = new Map<string, number>();
  private state: CommandResults = CommandResultWatch.empty(0);

  private consumer: Consumer | null = null;

  private constructor(private readonly codec: AvroCodec) {}

  private static empty(count: number): CommandResults {
    return {
      accepted: 0,
      duplicates: 0,
      otherOutcomes: {},
      arrivedAt: new Float64Array(count).fill(Number.NaN),
      decidedAt: new Float64Array(count).fill(Number.NaN),
      onTopicAt: new Float64Array(count).fill(Number.NaN),
      partition: new Int16Array(count).fill(-1),
    };
  }

  /**
   * Connects the consumer, subscribes to `topic` and waits until it joined its group.
   *
   * @throws when the group is not joined within 60 s.
   */
  static async start(kafka: Kafka, topic: string, codec: AvroCodec, groupId: string): Promise<CommandResultWatch> {
    const watch = new CommandResultWatch(codec);
    watch.consumer = await startObserver(kafka, {
      groupId,
      topics: [topic],
      what: 'the results consumer',
      onMessage: async (message, { partition }) => {
        const at = wallNow();
        if (headerText(message.headers, HEADERS.eventType) !== 'CheckoutCommandResult') return;
        const decoded = await watch.codec.decode(message.value, message.headers);
        if (decoded.type !== 'CheckoutCommandResult') return;
        const result = decoded.payload;
        const i = watch.index.get(result.causation_id);
        if (i === undefined) return;
        const s = watch.state;
        if (result.outcome !== 'accepted') {
          const key = `${result.outcome}${result.problem ? ` ${result.problem.code}` : ''}`;
          s.otherOutcomes[key] = (s.otherOutcomes[key] ?? 0) + 1;
          return;
        }
        if (!Number.isNaN(s.arrivedAt[i]!)) {
          s.duplicates += 1;
          return;
        }
        s.accepted += 1;
        s.arrivedAt[i] = at;
        s.decidedAt[i] = result.occurred_at;
        s.onTopicAt[i] = Number(message.timestamp);
        s.partition[i] = partition;
      },
    });
    return watch;
  }

  /** Forgets what was seen and expects the results of the commands with these event ids (index = position). */
  expect(eventIds: readonly string[]): void {
    this.index = new Map(eventIds.map((id, i) => [id, i]));
    this.state = CommandResultWatch.empty(eventIds.length);
  }

  /** What was seen so far of the expected commands. */
  get results(): CommandResults {
    return this.state;
  }

  /**
   * Waits until every expected command has its `accepted` result, or until none arrived for
   * `stallMs`; `check` runs every poll (to fail early when an app died).
   *
   * @returns whether every result arrived.
   */
  async waitForAll(stallMs: number, check: () => void = () => undefined): Promise<boolean> {
    let seen = -1;
    let progressAt = performance.now();
    while (this.state.accepted < this.index.size) {
      check();
      const settled = this.state.accepted + Object.values(this.state.otherOutcomes).reduce((a, b) => a + b, 0);
      if (settled >= this.index.size) return false; // every command answered, some not accepted
      if (this.state.accepted !== seen) {
        seen = this.state.accepted;
        progressAt = performance.now();
      } else if (performance.now() - progressAt > stallMs) return false;
      await sleep(5);
    }
    return true;
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}

import { randomBytes } from 'node:crypto';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import {
  AvroCodec,
  createKafka,
  createProducer,
  HEADERS,
  subjectFor,
  topicNames,
  type CheckoutCommandResultV1,
  type CompleteCheckoutV1,
  type RegisterCheckoutV1,
} from '@settle/messaging';
import { createLogger } from '@settle/platform';
import type { Consumer, Kafka, Producer } from 'kafkajs';
import type { ChaosBed } from './bed.js';

/** The commands the chaos load sends over Kafka. */
export type SentCommandType = 'RegisterCheckout' | 'CompleteCheckout';

/** One command the load produced to the checkout commands topic. */
export interface SentCommand {
  eventId: string;
  type: SentCommandType;
  reference: string;
}

/**
 * An upstream checkout service's side of the checkout commands topic (docs/api.md, "Two ways
 * in"), for the chaos load: it produces commands (keyed by reference, with the
 * `settle-event-type` and `settle-producer` headers), encoded with the schemas Settle
 * registered at ingestion's boot (never registering one itself), and reads the results topic
 * for their answers.
 */
export interface CommandChannel {
  /** The `settle-producer` header it sends: ingestion records `kafka:<producer>` as the submitter. */
  producer: string;
  /** Every command produced, in order. */
  sent: SentCommand[];
  /**
   * Produces one command, once (the producer is idempotent and retries on its own), and waits
   * for its first result on the results topic.
   *
   * @throws Error when no result came within `timeoutMs`.
   */
  send(type: 'RegisterCheckout', payload: RegisterCheckoutV1, timeoutMs: number): Promise<CheckoutCommandResultV1>;
  send(type: 'CompleteCheckout', payload: CompleteCheckoutV1, timeoutMs: number): Promise<CheckoutCommandResultV1>;
  /** Stops reading the results and disconnects. */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Connects a {@link CommandChannel} to the bed's broker and registry: an idempotent producer
 * and a consumer of the results topic in a group of its own, from its beginning.
 *
 * @param producer - the `settle-producer` header's value.
 * @throws when the broker or the registry cannot be reached, or the commands' schemas are not registered.
 */
export async function startCommandChannel(bed: ChaosBed, producer: string): Promise<CommandChannel> {
  const topics = topicNames(bed.stack.topicPrefix);
  const logger = createLogger('settle-chaos-commands', 'fatal');
  const kafka: Kafka = createKafka('settle-chaos-commands', bed.stack.kafkaBrokers, logger);
  const registry = new SchemaRegistry({ host: bed.stack.registryUrl, clientId: 'settle-chaos-commands' });
  const ids = {
    RegisterCheckout: await registry.getLatestSchemaId(subjectFor(topics, 'RegisterCheckout')),
    CompleteCheckout: await registry.getLatestSchemaId(subjectFor(topics, 'CompleteCheckout')),
  };
  const codec = AvroCodec.connect(bed.stack.registryUrl, topics);
  const results = new Map<string, CheckoutCommandResultV1>();
  const kafkaProducer: Producer = await createProducer(kafka);
  const consumer: Consumer = kafka.consumer({ groupId: `settle-chaos-results-${randomBytes(4).toString('hex')}`, maxWaitTimeInMs: 100 });
  try {
    await consumer.connect();
    await consumer.subscribe({ topic: topics.checkoutResults, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const event = await codec.decode(message.value, message.headers);
        if (event.type !== 'CheckoutCommandResult') return;
        const result = event.payload;
        if (!results.has(result.causation_id)) results.set(result.causation_id, result);
      },
    });
  } catch (error) {
    await kafkaProducer.disconnect();
    await consumer.disconnect().catch(() => undefined);
    throw error;
  }
  const sent: SentCommand[] = [];
  const send = async (type: SentCommandType, payload: RegisterCheckoutV1 | CompleteCheckoutV1, timeoutMs: number) => {
    const value = await registry.encode(ids[type], payload);
    await kafkaProducer.send({
      topic: topics.checkoutCommands,
      acks: -1,
      messages: [{ key: payload.reference, value, headers: { [HEADERS.eventType]: type, [HEADERS.producer]: producer } }],
    });
    sent.push({ eventId: payload.event_id, type, reference: payload.reference });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const result = results.get(payload.event_id);
      if (result) return result;
      if (Date.now() > deadline) throw new Error(`no result for ${type} ${payload.reference} within ${timeoutMs} ms`);
      await sleep(50);
    }
  };
  return {
    producer,
    sent,
    send,
    close: async () => {
      await consumer.disconnect().catch(() => undefined);
      await kafkaProducer.disconnect().catch(() => undefined);
    },
  };
}

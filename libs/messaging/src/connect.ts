import type { Kafka, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { AvroCodec } from './codec.js';
import type { EventType } from './contracts.js';
import { createKafka, createProducer, ensureTopics } from './kafka.js';
import { topicNames, type Topics } from './topics.js';

/** An app's Kafka side, ready to use. */
export interface MessagingConnection {
  kafka: Kafka;
  topics: Topics;
  codec: AvroCodec;
  /** Idempotent, acks-all producer. */
  producer: Producer;
}

/**
 * Connects an app to Kafka and the schema registry: creates missing topics, registers the
 * schemas of the records the app produces, and connects an idempotent producer.
 *
 * @param produces - record types this app publishes (their schemas are registered now).
 * @throws when the broker or the registry cannot be reached, or a schema is refused.
 */
export async function connectMessaging(options: {
  clientId: string;
  brokers: string[];
  topicPrefix: string;
  registryUrl: string;
  produces: readonly EventType[];
  logger: Logger;
}): Promise<MessagingConnection> {
  const topics = topicNames(options.topicPrefix);
  const kafka = createKafka(options.clientId, options.brokers, options.logger);
  await ensureTopics(kafka, topics);
  const codec = AvroCodec.connect(options.registryUrl, topics);
  await codec.registerAll(options.produces);
  const producer = await createProducer(kafka);
  return { kafka, topics, codec, producer };
}

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
 * A registration that fails for a reason other than a refused schema (the registry down, or
 * answering 5xx, as Apicurio does once per connection its database ended) is tried again, five
 * times in all over about 15 s, so that a registry blip does not fail the boot.
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
  await withRegistryRetries(() => codec.registerAll(options.produces), {
    onRetry: (error, attempt) => options.logger.warn({ err: error, attempt }, 'schema registration failed; retrying'),
  });
  const producer = await createProducer(kafka);
  return { kafka, topics, codec, producer };
}

/** Registry answers that no retry changes: an incompatible (409) or invalid (422) schema. */
const REFUSED = new Set([409, 422]);

/**
 * Runs `call` (a request to the schema registry) up to `attempts` times (default 5), waiting
 * `delayMs` (default 1 000) milliseconds, doubled each time, between them, unless it failed
 * because the registry refused a schema (HTTP 409 or 422), which is thrown at once.
 *
 * @throws the last failure, or a refusal at once.
 */
export async function withRegistryRetries<T>(
  call: () => Promise<T>,
  options: { attempts?: number; delayMs?: number; onRetry?: (error: unknown, attempt: number) => void } = {},
): Promise<T> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      if (attempt >= attempts || (typeof status === 'number' && REFUSED.has(status))) throw error;
      options.onRetry?.(error, attempt);
      await new Promise((resolve) => setTimeout(resolve, (options.delayMs ?? 1_000) * 2 ** (attempt - 1)));
    }
  }
}

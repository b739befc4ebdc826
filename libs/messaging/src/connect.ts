import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';
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
 * answering 5xx, as Apicurio does once per connection its database ended) is tried again for
 * about a minute and a half ({@link withRegistryRetries}), so that a registry blip does not fail
 * the boot.
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

/** How {@link withRegistryRetries} retries. */
export interface RegistryRetryOptions {
  /** Calls in all, the first included (default 20). */
  attempts?: number;
  /** First wait between calls, milliseconds (default 1 000); it doubles, with jitter. */
  delayMs?: number;
  /** Longest wait between calls, milliseconds (default 5 000). */
  maxDelayMs?: number;
  /** Called before each retry (attempt from 1) with the failure that caused it, for a log line. */
  onRetry?: (error: unknown, attempt: number) => void;
}

/**
 * Runs `call` (a request to the schema registry) until it succeeds, at most `attempts` times,
 * with an exponential backoff (cockatiel's, decorrelated jitter) from `delayMs` up to
 * `maxDelayMs` between calls: with the defaults about a minute and a half in all. A registry
 * whose database restarted answers 5xx once per pooled connection the restart ended (Apicurio),
 * and a booting app may be the only one asking, so each call flushes one: five calls were not
 * enough (docs/reliability.md, findings 6 and 8). A refusal of the schema itself (HTTP 409 or
 * 422) is thrown at once.
 *
 * @throws the last failure, or a refusal at once.
 */
export async function withRegistryRetries<T>(call: () => Promise<T>, options: RegistryRetryOptions = {}): Promise<T> {
  const policy = retry(
    handleWhen((error) => {
      const status = (error as { status?: unknown }).status;
      return !(typeof status === 'number' && REFUSED.has(status));
    }),
    {
      maxAttempts: (options.attempts ?? 20) - 1,
      backoff: new ExponentialBackoff({ initialDelay: options.delayMs ?? 1_000, maxDelay: options.maxDelayMs ?? 5_000 }),
    },
  );
  const { onRetry } = options;
  if (onRetry) policy.onRetry((reason) => 'error' in reason && onRetry(reason.error, reason.attempt));
  return policy.execute(() => call());
}

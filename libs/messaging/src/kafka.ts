import { Kafka, logLevel, Partitioners, type Admin, type Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { repairKafkajsIdleTimer } from './kafkajs-idle-timer.js';
import { DEFAULT_PARTITIONS, topicConfig, type Topics } from './topics.js';

/**
 * A kafkajs client whose log lines go to pino. Its retries wait at most 2 s apart (kafkajs
 * doubles the wait up to 30 s by default): after a broker restart the consumers and the admin
 * client are back within about 2 s of the broker, instead of sleeping through a 12 to 30 s
 * wait (measured by the chaos suite, docs/reliability.md). Sixty retries keep the time before
 * a client gives up about what the default gave (two minutes). kafkajs's idle 1 ms timer is
 * repaired first ({@link repairKafkajsIdleTimer}).
 */
export function createKafka(clientId: string, brokers: string[], logger: Logger): Kafka {
  repairKafkajsIdleTimer();
  return new Kafka({
    clientId,
    brokers,
    logLevel: logLevel.WARN,
    retry: { initialRetryTime: 300, maxRetryTime: 2_000, retries: 60 },
    logCreator:
      () =>
      ({ level, log }) => {
        const { message, ...extra } = log;
        const child = logger.child({ component: 'kafkajs', ...extra });
        if (level <= logLevel.ERROR) child.error(message);
        else if (level === logLevel.WARN) child.warn(message);
        else child.debug(message);
      },
  });
}

/**
 * A producer that is idempotent and waits for every in-sync replica (`acks: -1`): a send
 * resolves only once the record is durable in Kafka. One request in flight keeps order.
 */
export async function createProducer(kafka: Kafka): Promise<Producer> {
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    // Murmur2 partitioning, as the Java client does: the same key lands on the same partition.
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 300, maxRetryTime: 5_000 },
  });
  await producer.connect();
  return producer;
}

/**
 * Creates Settle's topics when missing. Idempotent. Replication 1 suits the single local
 * broker; production clusters create topics with their own replication settings.
 */
export async function ensureTopics(kafka: Kafka, topics: Topics, partitions = DEFAULT_PARTITIONS): Promise<void> {
  const admin: Admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = (Object.values(topics) as string[]).filter((t) => !existing.has(t));
    if (missing.length > 0) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((topic) => ({ topic, numPartitions: partitions, replicationFactor: 1, configEntries: topicConfig(topics, topic) })),
      });
    }
  } finally {
    await admin.disconnect();
  }
}

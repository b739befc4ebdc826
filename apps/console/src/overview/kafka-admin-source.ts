import { Kafka, logLevel, type Admin } from 'kafkajs';
import type { Logger } from '@settle/platform';
import { repairKafkajsIdleTimer } from '@settle/messaging';
import {
  consumerGroupLag,
  deadLetterFigures,
  deadLetterTopics,
  workerConsumerGroups,
  type ConsumerGroupLag,
  type DeadLetterTopicFigures,
  type PartitionWatermarks,
} from './kafka-figures.js';

/** What the Overview reads from Kafka (docs/console.md, "Overview"): the port {@link KafkaOverview} caches. */
export interface KafkaFiguresSource {
  /** Records stored in each dead-letter topic. */
  deadLetters(): Promise<DeadLetterTopicFigures[]>;
  /** Each worker's consumer group lag, per partition. */
  consumerLag(): Promise<ConsumerGroupLag[]>;
  /** Closes the connections. */
  close(): Promise<void>;
}

/** How long the client waits to connect to a broker, milliseconds. */
const CONNECTION_TIMEOUT_MS = 1_000;
/** How long the client waits for a broker's answer to one request, milliseconds. */
const REQUEST_TIMEOUT_MS = 2_000;

/**
 * Reads the dead-letter topics' watermarks and the workers' committed offsets with kafkajs's
 * Admin client: `fetchTopicOffsets` (low and high watermarks), `fetchOffsets` (a group's
 * committed offsets) and `describeGroups` (its state and members). It never produces, consumes
 * or joins a group. The client connects on first use, fails fast (one retry, short time-outs:
 * the caller bounds each read again) and reconnects on the next read after a failure.
 */
export class KafkaAdminSource implements KafkaFiguresSource {
  private readonly kafka: Kafka;
  /** The connected (or connecting) admin client, shared by concurrent reads; `null` until the next read. */
  private admin: Promise<Admin> | null = null;

  /**
   * @param options.brokers - `host:port` list (`KAFKA_BROKERS`).
   * @param options.topicPrefix - the other apps' `SETTLE_TOPIC_PREFIX`: names the topics and groups.
   */
  constructor(
    private readonly options: { brokers: string[]; topicPrefix: string },
    logger: Logger,
  ) {
    repairKafkajsIdleTimer();
    this.kafka = new Kafka({
      clientId: 'settle-console',
      brokers: options.brokers,
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      retry: { retries: 1, initialRetryTime: 100, maxRetryTime: 500 },
      // Brokers down means a line per failed read: the caller logs one warning per outage instead.
      logLevel: logLevel.WARN,
      logCreator:
        () =>
        ({ log }) => {
          const { message, ...extra } = log;
          logger.debug({ component: 'kafkajs', ...extra }, message);
        },
    });
  }

  async deadLetters(): Promise<DeadLetterTopicFigures[]> {
    return this.read(async (admin) => {
      const existing = new Set(await admin.listTopics());
      return Promise.all(
        deadLetterTopics(this.options.topicPrefix).map(async ({ topic, kind }) =>
          deadLetterFigures(topic, kind, existing.has(topic) ? watermarksOf(await admin.fetchTopicOffsets(topic)) : null),
        ),
      );
    });
  }

  async consumerLag(): Promise<ConsumerGroupLag[]> {
    return this.read(async (admin) => {
      const groups = workerConsumerGroups(this.options.topicPrefix);
      const existing = new Set(await admin.listTopics());
      const topics = [...new Set(groups.flatMap((g) => g.topics))].filter((t) => existing.has(t));
      const offsets = new Map(await Promise.all(topics.map(async (topic) => [topic, watermarksOf(await admin.fetchTopicOffsets(topic))] as const)));
      const described = await admin.describeGroups(groups.map((g) => g.groupId));
      return Promise.all(
        groups.map(async (group) => {
          const consumed = group.topics.filter((t) => existing.has(t));
          const answer = consumed.length > 0 ? await admin.fetchOffsets({ groupId: group.groupId, topics: consumed }) : [];
          const committed = new Map(answer.map((t) => [t.topic, new Map(t.partitions.map((p) => [p.partition, Number(p.offset)]))]));
          const description = described.groups.find((g) => g.groupId === group.groupId);
          return consumerGroupLag(group, offsets, committed, { state: description?.state ?? 'Unknown', members: description?.members.length ?? 0 });
        }),
      );
    });
  }

  async close(): Promise<void> {
    const admin = this.admin;
    this.admin = null;
    await (await admin?.catch(() => null))?.disconnect();
  }

  private async connect(): Promise<Admin> {
    const admin = this.kafka.admin({ retry: { retries: 1, initialRetryTime: 100, maxRetryTime: 500 } });
    await admin.connect();
    return admin;
  }

  /** Runs `work` on a connected admin client; on failure drops it, so the next read connects afresh. */
  private async read<T>(work: (admin: Admin) => Promise<T>): Promise<T> {
    try {
      this.admin ??= this.connect();
      return await work(await this.admin);
    } catch (error) {
      await this.close().catch(() => undefined);
      throw error;
    }
  }
}

/** kafkajs's `fetchTopicOffsets` answer (offsets as strings) as numbers. */
function watermarksOf(answer: ReadonlyArray<{ partition: number; low: string; high: string }>): PartitionWatermarks[] {
  return answer.map((p) => ({ partition: p.partition, low: Number(p.low), high: Number(p.high) }));
}

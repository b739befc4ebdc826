import { topicNames } from '@settle/messaging';

/** A partition's offsets as the brokers answer them: the low and high watermarks (the high one is the end offset). */
export interface PartitionWatermarks {
  partition: number;
  /** First offset still stored (earlier records were removed by retention). */
  low: number;
  /** Offset the next record will get: the end offset. */
  high: number;
}

/** Records waiting in one partition of a dead-letter topic. */
export interface DeadLetterPartition extends PartitionWatermarks {
  /** `high - low`: records stored in the partition. */
  records: number;
}

/** Records stored in one dead-letter topic (docs/architecture.md, "Topics and contracts"). */
export interface DeadLetterTopicFigures {
  topic: string;
  /** What the topic holds: `messages` no consumer could process, or `deliveries` the dispatcher gave up. */
  kind: 'messages' | 'deliveries';
  /** Sum over partitions of the high watermark minus the low watermark. */
  records: number;
  /** Whether the topic exists on the cluster (the workers create it at their first boot). */
  exists: boolean;
  partitions: DeadLetterPartition[];
}

/** How far one consumer group is behind in one partition. */
export interface PartitionLag {
  topic: string;
  partition: number;
  /** The group's committed offset (the next record it will read); `null` when it has committed none. */
  committedOffset: number | null;
  /** The partition's end offset (high watermark). */
  endOffset: number;
  /** Records the group has not consumed yet: see {@link partitionLag}. */
  lag: number;
}

/** The lag of one worker's consumer group over the topics it consumes. */
export interface ConsumerGroupLag {
  /** The worker app (`verifier`, `ledger-projector`, `sweeper`, `dispatcher`). */
  worker: string;
  groupId: string;
  topics: string[];
  /** The group's state as the coordinator reports it (`Stable`, `Empty`, `PreparingRebalance`, `Dead`, ...). */
  state: string;
  /** Members of the group now (0: no instance of the worker is consuming). */
  members: number;
  /** Sum of the partitions' lag. */
  lag: number;
  /** One entry per partition of the consumed topics, by topic then partition. */
  partitions: PartitionLag[];
}

/** A consumer group of a worker and the topics it consumes. */
export interface WorkerConsumerGroup {
  worker: string;
  groupId: string;
  topics: string[];
}

/**
 * The consumer groups of the apps that consume, under a topic prefix: each app's default group
 * `<prefix>-<app>` (libs/runtime, `@ConsumeBatches`) with the topics its controller subscribes
 * to (docs/architecture.md, "Topics and contracts"): the four Kafka workers', then ingestion's of the checkout commands topic (docs/api.md, "Two ways in").
 */
export function workerConsumerGroups(topicPrefix: string): WorkerConsumerGroup[] {
  const topics = topicNames(topicPrefix);
  return [
    { worker: 'verifier', groupId: `${topicPrefix}-verifier`, topics: [topics.transactionEvents] },
    { worker: 'ledger-projector', groupId: `${topicPrefix}-ledger-projector`, topics: [topics.consensusResults] },
    { worker: 'sweeper', groupId: `${topicPrefix}-sweeper`, topics: [topics.transactionEvents, topics.consensusResults] },
    { worker: 'dispatcher', groupId: `${topicPrefix}-dispatcher`, topics: [topics.entitlementEvents] },
    { worker: 'ingestion', groupId: `${topicPrefix}-ingestion`, topics: [topics.checkoutCommands] },
  ];
}

/**
 * The dead-letter topics under a topic prefix: `<prefix>.dead-letter.v1` (records no consumer
 * could process) and `<prefix>.delivery-dead-letter.v1` (entitlement events the dispatcher
 * gave up for an endpoint after every retry).
 */
export function deadLetterTopics(topicPrefix: string): Array<{ topic: string; kind: DeadLetterTopicFigures['kind'] }> {
  const topics = topicNames(topicPrefix);
  return [
    { topic: topics.deadLetter, kind: 'messages' },
    { topic: topics.deliveryDeadLetter, kind: 'deliveries' },
  ];
}

/**
 * Records stored in a dead-letter topic: per partition the high watermark minus the low one
 * (records removed by retention are gone, not waiting), summed.
 *
 * @param partitions - the topic's watermarks; empty when the topic does not exist (`exists` false).
 */
export function deadLetterFigures(topic: string, kind: DeadLetterTopicFigures['kind'], partitions: PartitionWatermarks[] | null): DeadLetterTopicFigures {
  const rows = [...(partitions ?? [])].sort((a, b) => a.partition - b.partition).map((p) => ({ ...p, records: Math.max(0, p.high - p.low) }));
  return { topic, kind, records: rows.reduce((sum, p) => sum + p.records, 0), exists: partitions !== null, partitions: rows };
}

/**
 * A consumer group's lag in one partition: the end offset minus the committed offset. A group
 * with no committed offset there (or one below the low watermark, its records removed by
 * retention) will read from the low watermark, since the workers subscribe from the beginning:
 * its lag is the end offset minus the low watermark. Never negative.
 *
 * @param committed - the committed offset, `null` (or negative, Kafka's -1) when none.
 */
export function partitionLag(committed: number | null, watermarks: PartitionWatermarks): number {
  const next = committed === null || committed < 0 ? watermarks.low : Math.max(committed, watermarks.low);
  return Math.max(0, watermarks.high - next);
}

/**
 * A worker's consumer group lag: one {@link PartitionLag} per partition of each topic it consumes,
 * and their sum.
 *
 * @param offsets - per topic, the partitions' watermarks; a topic missing here (not created yet) adds nothing.
 * @param committed - per topic, the group's committed offset per partition (absent: none).
 * @param description - the group's state and member count as the coordinator reports them.
 */
export function consumerGroupLag(
  group: WorkerConsumerGroup,
  offsets: ReadonlyMap<string, PartitionWatermarks[]>,
  committed: ReadonlyMap<string, ReadonlyMap<number, number>>,
  description: { state: string; members: number },
): ConsumerGroupLag {
  const partitions: PartitionLag[] = [];
  for (const topic of group.topics) {
    for (const watermarks of [...(offsets.get(topic) ?? [])].sort((a, b) => a.partition - b.partition)) {
      const offset = committed.get(topic)?.get(watermarks.partition);
      const committedOffset = offset === undefined || offset < 0 ? null : offset;
      partitions.push({ topic, partition: watermarks.partition, committedOffset, endOffset: watermarks.high, lag: partitionLag(committedOffset, watermarks) });
    }
  }
  return { ...group, ...description, lag: partitions.reduce((sum, p) => sum + p.lag, 0), partitions };
}

import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * A partition's consumer lag, in messages: the partition's high watermark (the offset the next
 * record written to it will get) minus the next offset this consumer will process; never
 * below 0. Both as kafkajs gives them (decimal strings, `batch.highWatermark` and an offset).
 * Pure.
 *
 * @example `consumerLag('120', '100')` is 20: offsets 100 to 119 wait.
 */
export function consumerLag(highWatermark: string, nextOffset: string): number {
  const lag = BigInt(highWatermark) - BigInt(nextOffset);
  return lag > 0n ? Number(lag) : 0;
}

/** The next offset after `offset` (a decimal string, as kafkajs gives offsets). Pure. */
export function nextOffsetAfter(offset: string): string {
  return (BigInt(offset) + 1n).toString();
}

/**
 * The Prometheus metrics of the messaging layer, registered on an app's registry (one instance
 * per registry): what the consumer loops, the dead-letter writer and the outbox relays of the
 * app record (docs/observability.md). Every label set is bounded: consumer groups, topics,
 * partitions, outbox schemas and error codes, never a reference or a key.
 */
export class MessagingMetrics {
  /**
   * Messages waiting in each partition this member consumes, per consumer group, topic and
   * partition: set from the high watermark kafkajs returns with every fetched batch (when the
   * batch is handed over, and again once its offsets are resolved), so no admin call is made.
   * A partition the member no longer owns is removed at the next assignment, so summing over
   * the group's members counts each partition once. A partition with nothing new since this
   * member was assigned it has no series until its first batch.
   */
  readonly consumerLag: Gauge<'consumer_group' | 'topic' | 'partition'>;

  /**
   * Records written to the dead-letter topic, by the topic the message was read from and the
   * reason (the error's stable code, as in the record's `dlq-error-code` header).
   */
  readonly deadLetterRecords: Counter<'topic' | 'reason'>;

  /**
   * Age of the oldest row of each outbox (by schema) that is not yet published, seconds; 0 when
   * the outbox is empty. Measured by the outbox's relay at each pass (its database clock), and
   * growing with this process's clock between passes, so a relay that cannot publish (broker
   * down, a row its schema refuses) or cannot reach the database shows the age still rising.
   */
  readonly outboxBacklogAge: Gauge<'outbox'>;

  private readonly outboxes = new Map<string, () => number>();
  /** Label sets of the lag gauge set so far, per consumer group: `topic` and `partition`. */
  private readonly lagSeries = new Map<string, Map<string, { topic: string; partition: number }>>();
  /** The latest assignment of each consumer group's member in this process. */
  private readonly assignments = new Map<string, Readonly<Record<string, readonly number[]>>>();

  constructor(registry: Registry) {
    this.consumerLag = new Gauge({
      name: 'settle_consumer_lag_messages',
      help: 'Messages waiting in a partition this member consumes (high watermark minus the next offset to process), by consumer group, topic and partition',
      labelNames: ['consumer_group', 'topic', 'partition'] as const,
      registers: [registry],
    });
    this.deadLetterRecords = new Counter({
      name: 'settle_dead_letter_records_total',
      help: 'Records written to the dead-letter topic, by the topic the message was read from and the reason (error code)',
      labelNames: ['topic', 'reason'] as const,
      registers: [registry],
    });
    const outboxes = this.outboxes;
    this.outboxBacklogAge = new Gauge({
      name: 'settle_outbox_backlog_age_seconds',
      help: 'Age of the oldest unpublished row of an outbox, seconds (0 when empty), by outbox schema',
      labelNames: ['outbox'] as const,
      registers: [registry],
      collect() {
        for (const [outbox, age] of outboxes) this.set({ outbox }, age());
      },
    });
  }

  /**
   * Sets a partition's lag, unless the partition is outside the member's latest assignment (a
   * batch that finished after a rebalance took its partition away).
   *
   * @param highWatermark - the partition's high watermark, from the fetched batch.
   * @param nextOffset - the next offset this member will process.
   */
  recordLag(group: string, topic: string, partition: number, highWatermark: string, nextOffset: string): void {
    const assignment = this.assignments.get(group);
    if (assignment && !assignment[topic]?.includes(partition)) return;
    let series = this.lagSeries.get(group);
    if (!series) {
      series = new Map<string, { topic: string; partition: number }>();
      this.lagSeries.set(group, series);
    }
    series.set(`${topic}\u0000${partition}`, { topic, partition });
    this.consumerLag.set({ consumer_group: group, topic, partition: String(partition) }, consumerLag(highWatermark, nextOffset));
  }

  /** A new assignment of the group: the lag of every partition outside it is removed. */
  keepAssigned(group: string, assignment: Readonly<Record<string, readonly number[]>>): void {
    this.assignments.set(group, assignment);
    const series = this.lagSeries.get(group);
    if (!series) return;
    for (const [key, { topic, partition }] of series) {
      if (assignment[topic]?.includes(partition)) continue;
      series.delete(key);
      this.consumerLag.remove({ consumer_group: group, topic, partition: String(partition) });
    }
  }

  /** The member left its group (stopped): every lag series of the group is removed. */
  forgetGroup(group: string): void {
    this.keepAssigned(group, {});
    this.assignments.delete(group);
  }

  /**
   * Reports an outbox's backlog age at every collection.
   *
   * @param ageSeconds - the age of its oldest unpublished row now, seconds (0 when empty).
   */
  watchOutbox(outbox: string, ageSeconds: () => number): void {
    this.outboxes.set(outbox, ageSeconds);
  }
}

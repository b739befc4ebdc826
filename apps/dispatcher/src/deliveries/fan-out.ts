import type { BatchItem } from '@settle/messaging';
import type { Logger } from '@settle/platform';
import type { DeliveryRepository, ReceivedEvent } from './delivery.repository.js';

/**
 * The dispatcher's Kafka side: each fetched batch of the entitlement-events topic (one
 * partition) is recorded in one transaction, an event and one pending delivery per subscribed
 * endpoint, and only then are its offsets resolved (the consumer loop does that after this
 * resolves). Nothing here waits for an endpoint: a slow customer never stalls a partition.
 */
export class FanOut {
  constructor(
    private readonly repository: Pick<DeliveryRepository, 'recordEvents'>,
    private readonly scheduler: { wake(): void },
    private readonly logger: Logger,
  ) {}

  /** Records a batch; a throw (database down) is transient and the batch is retried. */
  async handleBatch(items: readonly BatchItem[]): Promise<ReadonlyArray<{ index: number; error: unknown }>> {
    const events: ReceivedEvent[] = [];
    for (const { event, context } of items) {
      if (event.type === 'EntitlementGranted') events.push({ event: event.payload, publishedAt: context.timestamp });
    }
    const recorded = await this.repository.recordEvents(events);
    if (recorded > 0) this.scheduler.wake();
    const first = items[0]?.context;
    this.logger.debug({ topic: first?.topic, partition: first?.partition, events: events.length, deliveries: recorded }, 'entitlement events recorded');
    return [];
  }
}

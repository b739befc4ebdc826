import { PermanentMessageError, type BatchItem } from '@settle/messaging';
import { traceCarrierOf, type Logger } from '@settle/platform';
import type { DispatcherMetrics } from '../dispatcher.metrics.js';
import type { DeliveryRepository, ReceivedEvent } from './delivery.repository.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The dispatcher's Kafka side: each fetched batch of the entitlement-events topic (one
 * partition: grants, revocations and reinstatements) is recorded in one transaction, an event and one pending delivery per subscribed
 * endpoint, and only then are its offsets resolved (the consumer loop does that after this
 * resolves). Nothing here waits for an endpoint: a slow customer never stalls a partition.
 */
export class FanOut {
  constructor(
    private readonly repository: Pick<DeliveryRepository, 'recordEvents'>,
    private readonly scheduler: { wake(): void },
    private readonly logger: Logger,
    private readonly metrics: Pick<DispatcherMetrics, 'unsubscribedEvents'>,
  ) {}

  /**
   * Records a batch; a throw (database down) is transient and the batch is retried. An event
   * that can never be recorded (its `event_id` not a UUID) goes to the dead-letter topic instead
   * of holding the partition.
   */
  async handleBatch(items: readonly BatchItem[]): Promise<ReadonlyArray<{ index: number; error: unknown }>> {
    const events: ReceivedEvent[] = [];
    const rejected: Array<{ index: number; error: unknown }> = [];
    for (const [index, { event, context }] of items.entries()) {
      if (event.type !== 'EntitlementGranted' && event.type !== 'EntitlementAccessChanged') continue;
      if (!UUID.test(event.payload.event_id)) {
        rejected.push({ index, error: new PermanentMessageError('DELIVERY.INVALID_EVENT', 'event_id is not a UUID') });
        continue;
      }
      events.push({ event: event.payload, publishedAt: context.timestamp, trace: traceCarrierOf(context.trace) });
    }
    const { deliveries, unsubscribed } = await this.repository.recordEvents(events);
    if (deliveries > 0) this.scheduler.wake();
    const first = items[0]?.context;
    this.logger.debug({ topic: first?.topic, partition: first?.partition, events: events.length, deliveries }, 'entitlement events recorded');
    if (unsubscribed.length > 0) {
      this.metrics.unsubscribedEvents.inc(unsubscribed.length);
      this.logger.warn(
        { eventIds: unsubscribed.slice(0, 20), count: unsubscribed.length },
        'entitlement events recorded with no subscribed endpoint: delivered to nobody until an endpoint recovers them',
      );
    }
    return rejected;
  }
}

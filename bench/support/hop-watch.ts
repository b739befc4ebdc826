import { AvroCodec, HEADERS, headerText } from '@settle/messaging';
import type { Consumer, Kafka } from 'kafkajs';
import { startObserver } from './observer.js';

/** When one checkout's settlement passed the stages between ingestion and the ledger, epoch ms. */
export interface Hops {
  /** Its `ProviderWebhookReceived` written to the transaction-events topic by ingestion's relay (Kafka timestamp). */
  webhookOnTopic?: number;
  /** The verifier decided `SETTLED_CONSENSUS` (the result's `occurred_at`: provider answered, decider ran). */
  verified?: number;
  /** That `ConsensusResult` written to the consensus-results topic by the verifier's relay (Kafka timestamp). */
  resultOnTopic?: number;
}

/**
 * A consumer of the two topics between ingestion and the ledger (transaction-events and
 * consensus-results), in a group of its own that commits nothing ({@link startObserver}), recording per reference when its webhook and its
 * settled consensus result were published (the producer's timestamp of each record, set by the
 * relay when it sends) and when the verifier decided. With the webhook's answer and the
 * ledger's `recorded_at`, that splits the end-to-end latency into its hops: ingestion's relay,
 * the verifier (consume, provider call, decision), the verifier's commit and relay, the
 * projector. Only settled results are decoded; webhooks are recognised by their headers and
 * key (the reference), so the watch costs the load generator little.
 */
export class HopWatch {
  readonly byReference = new Map<string, Hops>();

  private consumer: Consumer | null = null;

  private constructor() {}

  /** @throws when the consumer does not join its group within 60 s. */
  static async start(kafka: Kafka, topics: { transactionEvents: string; consensusResults: string }, codec: AvroCodec, groupId: string): Promise<HopWatch> {
    const watch = new HopWatch();
    const hops = (reference: string): Hops => {
      let h = watch.byReference.get(reference);
      if (!h) watch.byReference.set(reference, (h = {}));
      return h;
    };
    watch.consumer = await startObserver(kafka, {
      groupId,
      topics: [topics.transactionEvents, topics.consensusResults],
      what: 'the hop consumer',
      onMessage: async (message) => {
        const type = headerText(message.headers, HEADERS.eventType);
        const reference = message.key?.toString();
        if (!reference) return;
        const at = Number(message.timestamp);
        if (type === 'ProviderWebhookReceived') {
          const h = hops(reference);
          h.webhookOnTopic = Math.min(h.webhookOnTopic ?? at, at);
        } else if (type === 'ConsensusResult') {
          const decoded = await codec.decode(message.value, message.headers).catch(() => null);
          if (decoded?.type !== 'ConsensusResult' || decoded.payload.outcome !== 'SETTLED_CONSENSUS') return;
          const h = hops(reference);
          if (h.resultOnTopic !== undefined && h.resultOnTopic <= at) return; // a relay's second copy
          h.verified = decoded.payload.occurred_at;
          h.resultOnTopic = at;
        }
      },
    });
    return watch;
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}

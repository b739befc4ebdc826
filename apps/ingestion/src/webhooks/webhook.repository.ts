import { Inject, Injectable } from '@nestjs/common';
import type { ProviderName, VerificationTrigger } from '@settle/domain';
import { Outbox, type OutboxRelay } from '@settle/messaging';
import { deterministicId, type Pool } from '@settle/platform';
import { OUTBOX, OUTBOX_RELAY, PG_POOL } from '../tokens.js';
import { VerificationRequests, type VerificationRequestOutcome } from '../verification/verification-requests.js';
import { WebhookBatcher } from './webhook-batcher.js';

/**
 * The webhook inbox: each provider event is recorded once (keyed by the provider's event
 * identity) together with its outbox message, in one transaction. Once this commits the
 * event is durable and the webhook can be acknowledged.
 */
@Injectable()
export class WebhookRepository {
  private readonly batcher: WebhookBatcher;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(OUTBOX) private readonly outbox: Outbox,
    @Inject(OUTBOX_RELAY) private readonly relay: Pick<OutboxRelay, 'wake'>,
    private readonly verifications: VerificationRequests,
  ) {
    this.batcher = new WebhookBatcher(pool, outbox.table);
  }

  /**
   * Records a verified webhook and enqueues `ProviderWebhookReceived`.
   *
   * @returns `false` when this event was already recorded (a duplicate: nothing enqueued).
   */
  async recordVerified(input: {
    provider: ProviderName;
    dedupeKey: string;
    reference: string;
    providerEventType: string;
    bodySha256: string;
    now: Date;
  }): Promise<boolean> {
    const eventId = deterministicId('ProviderWebhookReceived', input.provider, input.dedupeKey);
    const row = await this.outbox.prepare({
      type: 'ProviderWebhookReceived',
      payload: {
        event_id: eventId,
        occurred_at: input.now.getTime(),
        // Replaced in SQL by the checkout's correlation id when the checkout is known.
        correlation_id: eventId,
        reference: input.reference,
        provider: input.provider,
        provider_event_type: input.providerEventType,
        body_sha256: input.bodySha256,
      },
    });
    // Group commit: stored with the webhooks arriving meanwhile, in one statement whose
    // inbox and outbox rows commit together or not at all; a duplicate inserts neither.
    const fresh = await this.batcher.submit({
      provider: input.provider,
      dedupeKey: input.dedupeKey,
      reference: input.reference,
      topic: row.topic,
      eventType: row.type,
      payload: row.payload,
      traceparent: row.traceparent,
      tracestate: row.tracestate,
    });
    if (fresh) this.relay.wake();
    return fresh;
  }

  /**
   * After a rejected signature: when the untrusted body names a known checkout, asks for a
   * `VerificationRequested` (`webhook_signature_rejected`; docs/spec.md, section 3, "Signature
   * rejection": the raw transaction is verified through the secure REST call), at most once per
   * distinct body and coalesced per reference (docs/webhooks.md, "Spoofed webhooks and repeated
   * verifications"): while a request of this trigger is unanswered, or a provider answer is
   * younger than `SETTLE_VERIFY_COALESCE_MS`, another body adds nothing.
   *
   * @returns what became of the request, or `null` when no checkout is registered under the reference.
   * @throws database errors (nothing was recorded).
   */
  async requestVerificationAfterRejection(input: {
    provider: string;
    dedupeKey: string;
    reference: string;
    now: Date;
  }): Promise<VerificationRequestOutcome | null> {
    const trigger: VerificationTrigger = 'webhook_signature_rejected';
    return this.verifications.request({
      reference: input.reference,
      trigger,
      requestedBy: 'ingestion',
      requestId: deterministicId('VerificationRequested', trigger, input.provider, input.dedupeKey),
      now: input.now,
      rejectedBody: { provider: input.provider, dedupeKey: `rejected:${input.dedupeKey}` },
    });
  }
}

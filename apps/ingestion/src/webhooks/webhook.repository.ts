import { Inject, Injectable } from '@nestjs/common';
import type { ProviderName, VerificationTrigger } from '@settle/domain';
import { Outbox, OutboxRelay } from '@settle/messaging';
import { deterministicId, inTransaction, type Pool } from '@settle/platform';
import { OUTBOX, OUTBOX_RELAY, PG_POOL } from '../tokens.js';
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
    @Inject(OUTBOX_RELAY) private readonly relay: OutboxRelay,
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
    });
    if (fresh) this.relay.wake();
    return fresh;
  }

  /**
   * After a rejected signature: when the untrusted body names a known checkout, enqueue one
   * `VerificationRequested` per distinct body (docs/spec.md, section 3, "Signature rejection": the raw
   * transaction is verified through the secure REST call).
   *
   * @returns whether a verification was requested.
   */
  async requestVerificationAfterRejection(input: { provider: string; dedupeKey: string; reference: string; now: Date }): Promise<boolean> {
    const requested = await inTransaction(this.pool, async (client) => {
      const known = await client.query<{ correlation_id: string }>('SELECT correlation_id FROM ingestion.checkouts WHERE reference = $1', [input.reference]);
      const correlationId = known.rows[0]?.correlation_id;
      if (!correlationId) return false;
      const inserted = await client.query(
        `INSERT INTO ingestion.webhook_inbox (provider, dedupe_key, reference, signature_valid)
         VALUES ($1, $2, $3, false) ON CONFLICT DO NOTHING`,
        [input.provider, `rejected:${input.dedupeKey}`, input.reference],
      );
      if (inserted.rowCount === 0) return false;
      const trigger: VerificationTrigger = 'webhook_signature_rejected';
      await this.outbox.enqueue(client, [
        {
          type: 'VerificationRequested',
          payload: {
            event_id: deterministicId('VerificationRequested', trigger, input.provider, input.dedupeKey),
            occurred_at: input.now.getTime(),
            correlation_id: correlationId,
            reference: input.reference,
            trigger,
            requested_by: 'ingestion',
          },
        },
      ]);
      return true;
    });
    if (requested) this.relay.wake();
    return requested;
  }
}

import { OUTBOX_COLUMNS } from '@settle/messaging';
import type { Pool } from '@settle/platform';

/** One verified webhook waiting to be stored. */
export interface PendingWebhook {
  provider: string;
  dedupeKey: string;
  reference: string;
  /** Outbox columns, the payload as JSON text (already checked against its schema). */
  topic: string;
  eventType: string;
  payload: string;
  /** W3C trace context of the request that received it (`Outbox.prepare`); null while tracing is off. */
  traceparent: string | null;
  tracestate: string | null;
}

interface Waiting {
  item: PendingWebhook;
  resolve: (fresh: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for the webhook inbox: verified webhooks that arrive while earlier ones are
 * being written are stored together in one statement (one round trip, one commit, one WAL
 * flush), instead of one transaction each. Each caller's promise resolves only after the
 * statement holding its webhook committed: `true` when it was new, `false` for a duplicate
 * (of a stored webhook, or of another one in the same batch). A failed statement rejects every
 * caller of that batch, which then answers 503.
 *
 * At most `maxInFlight` statements run at once; while they do, new webhooks queue for the next
 * one, so batches grow with load and latency stays one statement long when idle.
 */
export class WebhookBatcher {
  private queue: Waiting[] = [];
  private inFlight = 0;

  constructor(
    private readonly pool: Pool,
    private readonly outboxTable: string,
    private readonly options: { maxInFlight: number; maxBatch: number } = { maxInFlight: 4, maxBatch: 256 },
  ) {}

  /** Stores one webhook with its outbox row; resolves once committed. */
  submit(item: PendingWebhook): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.drain();
    });
  }

  private drain(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.inFlight += 1;
      this.write(batch)
        .finally(() => {
          this.inFlight -= 1;
          this.drain();
        })
        .catch(() => undefined);
    }
  }

  private async write(batch: Waiting[]): Promise<void> {
    const column = <K extends keyof PendingWebhook>(k: K) => batch.map((w) => w.item[k]);
    try {
      const { rows } = await this.pool.query<{ provider: string; dedupe_key: string }>(
        `WITH items AS (
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
             WITH ORDINALITY AS t(provider, dedupe_key, reference, topic, event_type, payload, traceparent, tracestate, n)
         ), inbox AS (
           INSERT INTO ingestion.webhook_inbox (provider, dedupe_key, reference, signature_valid)
           SELECT DISTINCT ON (provider, dedupe_key) provider, dedupe_key, reference, true FROM items ORDER BY provider, dedupe_key, n
           ON CONFLICT DO NOTHING
           RETURNING provider, dedupe_key
         ), fresh AS (
           SELECT DISTINCT ON (items.provider, items.dedupe_key) items.*,
                  COALESCE(c.correlation_id, items.payload::jsonb ->> 'event_id') AS correlation_id
             FROM items
             JOIN inbox USING (provider, dedupe_key)
             LEFT JOIN ingestion.checkouts c ON c.reference = items.reference
            ORDER BY items.provider, items.dedupe_key, items.n
         ), outbox AS (
           INSERT INTO ${this.outboxTable} ${OUTBOX_COLUMNS}
           SELECT topic, reference, event_type, jsonb_set(payload::jsonb, '{correlation_id}', to_jsonb(correlation_id)), correlation_id, NULL, traceparent, tracestate
             FROM fresh ORDER BY n
           RETURNING 1
         )
         SELECT provider, dedupe_key FROM fresh`,
        [
          column('provider'),
          column('dedupeKey'),
          column('reference'),
          column('topic'),
          column('eventType'),
          column('payload'),
          column('traceparent'),
          column('tracestate'),
        ],
      );
      const fresh = new Set(rows.map((r) => `${r.provider}\u0000${r.dedupe_key}`));
      for (const waiting of batch) {
        const key = `${waiting.item.provider}\u0000${waiting.item.dedupeKey}`;
        // The first webhook of a key in the batch is the stored one; later copies are duplicates.
        waiting.resolve(fresh.delete(key));
      }
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    }
  }
}

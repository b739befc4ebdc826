import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { createTestDatabase } from '@settle/testing';
import { INGESTION_MIGRATIONS } from '../src/persistence/schema.js';
import { WebhookBatcher, type PendingWebhook } from '../src/webhooks/webhook-batcher.js';

let pool: Pool;
let drop: () => Promise<void>;

beforeAll(async () => {
  const db = await createTestDatabase('settle_batcher');
  drop = db.drop;
  pool = createPool(db.url, 4);
  await migrateSchema(pool, INGESTION_MIGRATIONS);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

/** A webhook received outside any trace (tracing off). */
const NO_TRACE = { traceparent: null, tracestate: null };

const webhook = (
  dedupeKey: string,
  reference = `ref_${dedupeKey}`,
  trace: { traceparent: string | null; tracestate: string | null } = NO_TRACE,
): PendingWebhook => ({
  provider: 'paystack',
  dedupeKey,
  reference,
  topic: 'settle.transaction-events.v1',
  eventType: 'ProviderWebhookReceived',
  payload: JSON.stringify({ event_id: `evt-${dedupeKey}`, correlation_id: `evt-${dedupeKey}`, reference }),
  ...trace,
});

describe('webhook group commit (PostgreSQL)', () => {
  it('stores each distinct webhook once, whatever the concurrency, and reports duplicates', async () => {
    const batcher = new WebhookBatcher(pool, 'ingestion.outbox', { maxInFlight: 2, maxBatch: 16 });
    const copies = Array.from({ length: 50 }, () => batcher.submit(webhook('same')));
    const distinct = Array.from({ length: 40 }, (_, i) => batcher.submit(webhook(`k${i}`)));
    const [copyResults, distinctResults] = await Promise.all([Promise.all(copies), Promise.all(distinct)]);
    expect(copyResults.filter(Boolean)).toHaveLength(1);
    expect(distinctResults.every(Boolean)).toBe(true);
    expect(await batcher.submit(webhook('k0'))).toBe(false);
    const { rows } = await pool.query<{ inbox: number; outbox: number }>(
      'SELECT (SELECT count(*)::int FROM ingestion.webhook_inbox) AS inbox, (SELECT count(*)::int FROM ingestion.outbox) AS outbox',
    );
    expect(rows[0]).toEqual({ inbox: 41, outbox: 41 });
  });

  it("puts the checkout's correlation id on the event when the checkout is known", async () => {
    await pool.query(
      `INSERT INTO ingestion.checkouts (reference, provider, amount_minor, currency, user_id, entitlement, request_sha256, correlation_id, registered_at)
       VALUES ('ref_known', 'paystack', 100, 'NGN', 'u', 'pro', 'x', 'corr-known', now())`,
    );
    const batcher = new WebhookBatcher(pool, 'ingestion.outbox');
    expect(await batcher.submit(webhook('known', 'ref_known'))).toBe(true);
    const { rows } = await pool.query<{ correlation_id: string; payload: { correlation_id: string } }>(
      `SELECT correlation_id, payload FROM ingestion.outbox WHERE message_key = 'ref_known'`,
    );
    expect(rows).toEqual([{ correlation_id: 'corr-known', payload: expect.objectContaining({ correlation_id: 'corr-known' }) }]);
  });

  it("keeps each webhook's trace context in its own outbox row, in one batch", async () => {
    const batcher = new WebhookBatcher(pool, 'ingestion.outbox', { maxInFlight: 1, maxBatch: 16 });
    const traced = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'vendor=abc' };
    await Promise.all([batcher.submit(webhook('traced', 'ref_traced', traced)), batcher.submit(webhook('untraced', 'ref_untraced'))]);
    const { rows } = await pool.query<{ message_key: string; traceparent: string | null; tracestate: string | null }>(
      `SELECT message_key, traceparent, tracestate FROM ingestion.outbox WHERE message_key IN ('ref_traced', 'ref_untraced') ORDER BY message_key`,
    );
    expect(rows).toEqual([
      { message_key: 'ref_traced', ...traced },
      { message_key: 'ref_untraced', ...NO_TRACE },
    ]);
  });

  it('rejects every caller of a batch whose statement fails, storing nothing', async () => {
    const batcher = new WebhookBatcher(pool, 'ingestion.no_such_outbox');
    await expect(batcher.submit(webhook('fails'))).rejects.toThrow();
    const { rows } = await pool.query(`SELECT 1 FROM ingestion.webhook_inbox WHERE dedupe_key = 'fails'`);
    expect(rows).toHaveLength(0);
  });
});

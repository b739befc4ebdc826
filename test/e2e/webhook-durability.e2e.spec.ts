import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { waitUntil } from '../../scripts/ops/clients.js';
import {
  startOwnBroker,
  type OwnBroker,
  createTestDatabase,
  infra,
  uniqueTopicPrefix,
  publishedMessages,
  readTopics,
  freePort,
  seedWebhookVault,
} from '@settle/testing';
import { generateMasterKey } from '@settle/vault';

/**
 * Webhook durability with the ingestion app alone, on a broker of its own that the test stops
 * and restarts: webhooks are acknowledged only once durable (inbox and outbox in PostgreSQL),
 * so a broker outage delays publication and loses nothing; duplicates, even 50 at once, are
 * stored and published once.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const secret = `sk_test_${randomBytes(20).toString('hex')}`;
const apiKey = `sk_settle_${randomBytes(24).toString('hex')}`;
const webhookKeys = `v1:${generateMasterKey().toString('base64')}`;
let broker: OwnBroker;
let ingestion: ChildProcess;
let url: string;
let db: pg.Pool;
let drop: () => Promise<void>;
let dir: string;
let topicPrefix: string;

beforeAll(async () => {
  broker = await startOwnBroker();
  const database = await createTestDatabase('settle_durability');
  drop = database.drop;
  db = new pg.Pool({ connectionString: database.url, max: 2 });
  db.on('error', () => undefined);
  topicPrefix = uniqueTopicPrefix('durability');
  await seedWebhookVault(database.url, webhookKeys, { paystackSecret: secret, stripeWebhookSecret: 'whsec_x', flutterwaveHash: 'x', mpesaCallbackToken: 'x' });
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  dir = mkdtempSync(join(tmpdir(), 'settle-durability-'));
  const out = openSync(join(dir, 'ingestion.log'), 'a');
  ingestion = spawn(process.execPath, [join(ROOT, 'dist/apps/ingestion/src/main.js')], {
    env: {
      PATH: process.env.PATH,
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
      KAFKA_BROKERS: broker.address,
      SCHEMA_REGISTRY_URL: infra.registryUrl,
      DATABASE_URL: database.url,
      SETTLE_TOPIC_PREFIX: topicPrefix,
      INGESTION_PORT: String(port),
      SETTLE_API_KEY_SHA256: createHash('sha256').update(apiKey).digest('hex'),
      SETTLE_VAULT_MASTER_KEYS: webhookKeys,
      SETTLE_READY_FILE: join(dir, 'ready'),
    },
    stdio: ['ignore', out, out],
  });
  await waitUntil('ingestion to be ready', 60_000, async () => {
    if (ingestion.exitCode !== null) throw new Error(readFileSync(join(dir, 'ingestion.log'), 'utf8'));
    return existsSync(join(dir, 'ready')) ? true : undefined;
  });
});

afterAll(async () => {
  if (ingestion && ingestion.exitCode === null) {
    await new Promise<void>((resolve) => {
      ingestion.once('exit', () => resolve());
      ingestion.kill('SIGKILL');
    });
  }
  await db?.end();
  await drop?.();
  await broker?.destroy();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function webhook(reference: string): { body: string; signature: string } {
  const body = JSON.stringify({ event: 'charge.success', data: { id: Date.now(), reference, status: 'success', amount: 150_000, currency: 'NGN' } });
  return { body, signature: createHmac('sha512', secret).update(body).digest('hex') };
}

async function deliver(w: { body: string; signature: string }): Promise<number> {
  const response = await fetch(`${url}/v1/webhooks/paystack`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-paystack-signature': w.signature },
    body: w.body,
  });
  await response.text();
  return response.status;
}

/** Every ProviderWebhookReceived on the test broker's topic, by reference. */
async function publishedReferences(): Promise<string[]> {
  const records = await readTopics([broker.address], infra.registryUrl, topicPrefix, ['transactionEvents']);
  return records.filter((m) => m.type === 'ProviderWebhookReceived').map((m) => m.payload.reference!);
}

describe('webhooks are acknowledged only once durable, and survive a broker outage', () => {
  it('50 concurrent copies of one webhook all answer 200 and publish one event', async () => {
    const reference = `ref_dup_${randomBytes(4).toString('hex')}`;
    const w = webhook(reference);
    const statuses = await Promise.all(Array.from({ length: 50 }, () => deliver(w)));
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(await deliver(w)).toBe(200);
    await waitUntil('the outbox to drain', 30_000, async () => {
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM ingestion.outbox');
      return rows[0]!.n === 0 ? true : undefined;
    });
    expect((await publishedReferences()).filter((r) => r === reference)).toHaveLength(1);
  });

  it('a spoofed webhook, sent five times, requests exactly one verification and publishes no provider event', async () => {
    const reference = `ref_spoof_${randomBytes(4).toString('hex')}`;
    const registered = await fetch(`${url}/v1/checkouts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        provider: 'paystack',
        reference,
        amount: 150_000,
        currency: 'NGN',
        user_id: 'u',
        customer: { email: 'a@example.com' },
        entitlement: 'pro',
        access_period: 'P1M',
      }),
    });
    expect(registered.status).toBe(202);
    const body = webhook(reference).body;
    const forged = createHmac('sha512', `sk_test_${randomBytes(20).toString('hex')}`)
      .update(body)
      .digest('hex');
    for (let i = 0; i < 5; i++) expect(await deliver({ body, signature: forged })).toBe(401);
    const published = await publishedMessages(
      { db, topicPrefix },
      { kafkaBrokers: [broker.address], registryUrl: infra.registryUrl },
      'ingestion',
      'transactionEvents',
    );
    expect(
      published
        .filter((m) => m.key === reference)
        .map((m) => m.type)
        .sort(),
    ).toEqual(['CheckoutRegistered', 'VerificationRequested']);
  });

  it('with the broker down, webhooks are still acknowledged from the outbox, and all arrive once it is back', async () => {
    const before = Array.from({ length: 10 }, (_, i) => `ref_up_${i}_${randomBytes(3).toString('hex')}`);
    for (const reference of before) expect(await deliver(webhook(reference))).toBe(200);
    await broker.stop('SIGKILL');
    const during = Array.from({ length: 20 }, (_, i) => `ref_down_${i}_${randomBytes(3).toString('hex')}`);
    const started = Date.now();
    for (const reference of during) expect(await deliver(webhook(reference))).toBe(200);
    // Acknowledged while Kafka is unreachable: durability does not wait for the broker.
    expect(Date.now() - started).toBeLessThan(10_000);
    const pending = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM ingestion.outbox');
    expect(pending.rows[0]!.n).toBeGreaterThan(0);
    await broker.start();
    await waitUntil('the outbox to drain after the broker is back', 120_000, async () => {
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM ingestion.outbox');
      return rows[0]!.n === 0 ? true : undefined;
    });
    const published = await publishedReferences();
    for (const reference of [...before, ...during]) {
      expect(
        published.filter((r) => r === reference),
        reference,
      ).toHaveLength(1);
    }
  });
});

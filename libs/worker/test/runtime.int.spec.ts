import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerConfig } from '@settle/config';
import type { CheckoutRegisteredV1 } from '@settle/messaging';
import { inTransaction } from '@settle/platform';
import { defineWorker, startWorker, type RunningWorker } from '@settle/worker';
import { Counter } from 'prom-client';
import { waitUntil } from '../../../scripts/ops/clients.js';
import { createTestDatabase, infra, uniqueTopicPrefix, freePort } from '@settle/testing';

/**
 * The worker runtime end to end on the real Kafka, registry and PostgreSQL, with a probe
 * worker: migrations applied, an outbox relayed, a per-message and a per-batch loop fed, the
 * metrics endpoint and the ready file, and the ordered shutdown.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let dir: string;
let worker: RunningWorker<WorkerConfig, 'probe'>;
const events: string[] = [];
const batches: number[] = [];
/** The batch loop's lag series of the partition being handled, read inside the handler. */
const lagInBatch: number[] = [];

const probe = (config: WorkerConfig) =>
  defineWorker({
    name: 'probe',
    config: () => config,
    logBindings: { instance: 'probe-1' },
    migrations: [{ schema: 'probe', dir: fileURLToPath(new URL('./migrations/probe', import.meta.url)) }],
    produces: ['CheckoutRegistered'],
    outboxes: [{ schema: 'probe', relay: { pollIntervalMs: 100 } }],
    setup: ({ pool, topics, metrics, config: { kafka } }) => {
      const handled = new Counter({ name: 'probe_handled_total', help: 'handled', registers: [metrics] });
      const seen = (eventId: string, via: string) =>
        pool.query('INSERT INTO probe.seen (event_id, via) VALUES ($1, $2) ON CONFLICT DO NOTHING', [eventId, via]);
      return {
        consumers: [
          {
            topics: [topics.transactionEvents],
            handleBatch: async (items) => {
              for (const { event } of items) {
                await seen(event.payload.event_id, 'message');
                handled.inc();
              }
              return [];
            },
            onRevocation: () => events.push('message loop revoked'),
          },
          {
            groupId: `${kafka.topicPrefix}-probe-batches`,
            topics: [topics.transactionEvents],
            handleBatch: async (items) => {
              batches.push(items.length);
              const { partition } = items[0]!.context;
              const lag = (await metrics.getSingleMetric('settle_consumer_lag_messages')!.get()).values.find(
                (v) => v.labels.consumer_group === `${kafka.topicPrefix}-probe-batches` && v.labels.partition === String(partition),
              );
              lagInBatch.push(lag?.value ?? -1);
              for (const item of items) await seen(randomUUID(), `batch:${item.event.payload.event_id}`);
              return [];
            },
          },
        ],
        start: () => void events.push('started'),
        stop: async () => void events.push('stop hook'),
      };
    },
  });

beforeAll(async () => {
  database = await createTestDatabase('settle_worker');
  dir = mkdtempSync(join(tmpdir(), 'settle-worker-'));
  const config: WorkerConfig = {
    env: 'test',
    logLevel: 'fatal',
    kafka: { brokers: infra.kafkaBrokers, topicPrefix: uniqueTopicPrefix('worker') },
    schemaRegistry: { url: infra.registryUrl },
    database: { url: database.url, poolSize: 3 },
    readyFile: join(dir, 'ready'),
    shutdownTimeoutMs: 10_000,
    metricsPort: await freePort(),
    worker: { partitionsConcurrency: 2, fetch: { minBytes: 1, maxWaitTimeMs: 5_000 } },
  };
  worker = await startWorker(probe(config));
});

afterAll(async () => {
  await database?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const registered = (reference: string): CheckoutRegisteredV1 => ({
  event_id: randomUUID(),
  occurred_at: Date.now(),
  correlation_id: randomUUID(),
  reference,
  provider: 'paystack',
  amount_minor: 150_000,
  currency: 'NGN',
  user_id: 'user-1',
  customer_email: 'ada@example.com',
  customer_phone: null,
  entitlement: 'pro',
  access_period: null,
});

describe('the worker runtime', () => {
  it('boots: migrations applied, the start hook run, the ready file written', async () => {
    expect(events).toEqual(['started']);
    expect(readFileSync(join(dir, 'ready'), 'utf8').trim()).toBe(String(process.pid));
    const { rows } = await worker.context.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM probe.outbox');
    expect(rows).toEqual([{ n: 0 }]);
    expect(worker.loops).toHaveLength(2);
  });

  it('relays what the outbox holds to both loops, per message and per batch, and counts it in the metrics', async () => {
    const { outbox, relay } = worker.context.outboxes.probe;
    const payloads = ['ref_w_1', 'ref_w_2', 'ref_w_3'].map(registered);
    await inTransaction(worker.context.pool, (client) =>
      outbox.enqueue(
        client,
        payloads.map((payload) => ({ type: 'CheckoutRegistered' as const, payload })),
      ),
    );
    relay.wake();
    await waitUntil('both loops to handle every message', 30_000, async () => {
      const { rows } = await worker.context.pool.query<{ via: string }>('SELECT via FROM probe.seen');
      const vias = rows.map((r) => r.via);
      return payloads.every((p) => vias.includes('message') && vias.includes(`batch:${p.event_id}`)) && vias.filter((v) => v === 'message').length === 3
        ? true
        : undefined;
    });
    expect(batches.reduce((a, b) => a + b, 0)).toBe(3);
    // While a batch is handled, its partition's lag counts the batch's messages at least; once
    // its offsets are resolved, nothing is left behind.
    expect(lagInBatch.map((lag, i) => lag >= batches[i]!)).toEqual(batches.map(() => true));
    const metrics = await fetch(`http://127.0.0.1:${worker.metricsPort}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^probe_handled_total 3$/m);
    // prom-client's default process metrics, and the runtime's own.
    expect(metrics).toMatch(/^process_cpu_seconds_total \d/m);
    expect(metrics).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(metrics).toMatch(/^settle_outbox_backlog_age_seconds\{outbox="probe"\} 0$/m);
    const prefix = worker.context.config.kafka.topicPrefix;
    const lags = [...metrics.matchAll(/^settle_consumer_lag_messages\{consumer_group="([^"]+)",topic="([^"]+)",partition="(\d+)"\} (\S+)$/gm)];
    expect(new Set(lags.map((m) => m[1]))).toEqual(new Set([`${prefix}-probe`, `${prefix}-probe-batches`]));
    expect(lags.every((m) => m[2] === `${prefix}.transaction-events.v1` && m[4] === '0')).toBe(true);
  });

  it('stops in order: the consumer loops, then the stop hook, then relays, metrics, producer and pool', async () => {
    await worker.stop();
    expect(events.slice(-2)).toEqual(['message loop revoked', 'stop hook']);
    expect(worker.context.pool.ended).toBe(true);
    await expect(fetch(`http://127.0.0.1:${worker.metricsPort}/metrics`)).rejects.toThrow();
    expect(existsSync(join(dir, 'ready'))).toBe(true);
  });

  it('refuses a worker without consumer loops, and releases what it had opened', async () => {
    const config: WorkerConfig = { ...worker.context.config, metricsPort: null, readyFile: undefined };
    const empty = defineWorker({ name: 'empty', config: () => config, produces: [], setup: () => ({ consumers: [] }) });
    await expect(startWorker(empty)).rejects.toThrow(/declares no consumer loop/);
  });
});

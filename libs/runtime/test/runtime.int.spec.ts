import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Controller, Inject, Injectable, Module, UseInterceptors, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerConfig } from '@settle/config';
import type { Assignment, BatchItem, CheckoutRegisteredV1 } from '@settle/messaging';
import { inTransaction } from '@settle/platform';
import {
  ConsumeBatches,
  KafkaBatchTransport,
  type ConsumerGroupMember,
  listen,
  startWorker,
  WORKER_CONTEXT,
  WorkerModule,
  type RunningWorker,
  type WorkerContext,
} from '@settle/runtime';
import { Counter } from 'prom-client';
import type { Observable } from 'rxjs';
import { waitUntil } from '../../../scripts/ops/clients.js';
import { createTestDatabase, infra, uniqueTopicPrefix, freePort } from '@settle/testing';

/**
 * The worker runtime end to end on the real Kafka, registry and PostgreSQL, with a probe worker
 * built as the apps are (a Nest module importing `WorkerModule.forRoot`, its loops declared with
 * `@ConsumeBatches` on a controller) and booted through `@nestjs/testing` on the Kafka batch
 * transport: migrations applied, an outbox relayed, two loops fed whole batches (an interceptor
 * sees the batch, a transient error is retried in place), the metrics endpoint and the ready
 * file, and the ordered shutdown through Nest's hooks.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let dir: string;
let worker: RunningWorker;
let context: WorkerContext<WorkerConfig, 'probe'>;
const events: string[] = [];
const batches: number[] = [];
/** The batch loop's lag series of the partition being handled, read inside the handler. */
const lagInBatch: number[] = [];
/** What the interceptor saw of each call: the size of the batch it was handed. */
const intercepted: number[] = [];
let config: WorkerConfig;

/** Records the batch's size: interceptors see the batch, not its messages. */
@Injectable()
class BatchSizeInterceptor implements NestInterceptor {
  intercept(execution: ExecutionContext, next: CallHandler): Observable<unknown> {
    intercepted.push(execution.switchToRpc().getData<readonly BatchItem[]>().length);
    return next.handle();
  }
}

/** Told of the `messages` loop's group membership. */
@Injectable()
class ProbeMembership implements ConsumerGroupMember {
  onAssignment(assignment: Assignment) {
    events.push(`assigned ${Object.values(assignment).flat().length} partitions`);
  }

  onRevocation() {
    events.push('message loop revoked');
  }
}

@Controller()
class ProbeController {
  private failedOnce = false;
  private readonly handled: Counter;

  constructor(@Inject(WORKER_CONTEXT) private readonly worker: WorkerContext<WorkerConfig, 'probe'>) {
    this.handled = new Counter({ name: 'probe_handled_total', help: 'handled', registers: [worker.metrics] });
  }

  private seen(eventId: string, via: string) {
    return this.worker.pool.query('INSERT INTO probe.seen (event_id, via) VALUES ($1, $2) ON CONFLICT DO NOTHING', [eventId, via]);
  }

  @ConsumeBatches('messages', { topics: ['transactionEvents'], membership: ProbeMembership })
  @UseInterceptors(BatchSizeInterceptor)
  async eachMessage(items: readonly BatchItem[]) {
    if (!this.failedOnce) {
      // A transient error: the loop retries the whole batch in place.
      this.failedOnce = true;
      events.push('transient error');
      throw new Error('the database blinked');
    }
    for (const { event } of items) {
      await this.seen(event.payload.event_id, 'message');
      this.handled.inc();
    }
    return [];
  }

  @ConsumeBatches('batches', { topics: ['transactionEvents'], groupSuffix: 'probe-batches' })
  async wholeBatch(items: readonly BatchItem[]) {
    batches.push(items.length);
    const { partition } = items[0]!.context;
    const group = `${this.worker.config.kafka.topicPrefix}-probe-batches`;
    const lag = (await this.worker.metrics.getSingleMetric('settle_consumer_lag_messages')!.get()).values.find(
      (v) => v.labels.consumer_group === group && v.labels.partition === String(partition),
    );
    lagInBatch.push(lag?.value ?? -1);
    for (const item of items) await this.seen(randomUUID(), `batch:${item.event.payload.event_id}`);
    return [];
  }

  onApplicationBootstrap() {
    events.push('started');
  }

  onApplicationShutdown() {
    events.push(`stop hook, pool open: ${String(!this.worker.pool.ended)}`);
  }
}

@Module({
  imports: [
    WorkerModule.forRoot({
      name: 'probe',
      config: () => config,
      logBindings: { instance: 'probe-1' },
      migrations: [{ schema: 'probe', dir: fileURLToPath(new URL('./migrations/probe', import.meta.url)) }],
      produces: ['CheckoutRegistered'],
      outboxes: [{ schema: 'probe', relay: { pollIntervalMs: 100 } }],
    }),
  ],
  controllers: [ProbeController],
  providers: [BatchSizeInterceptor, ProbeMembership],
})
class ProbeModule {}

beforeAll(async () => {
  database = await createTestDatabase('settle_worker');
  dir = mkdtempSync(join(tmpdir(), 'settle-worker-'));
  config = {
    env: 'test',
    logLevel: 'fatal',
    kafka: { brokers: infra.kafkaBrokers, topicPrefix: uniqueTopicPrefix('worker') },
    schemaRegistry: { url: infra.registryUrl },
    database: { url: database.url, poolSize: 3 },
    readyFile: join(dir, 'ready'),
    shutdownTimeoutMs: 10_000,
    metricsPort: await freePort(),
    worker: { partitionsConcurrency: 2, fetch: { minBytes: 1, maxWaitTimeMs: 5_000, lingerMs: 0 } },
  };
  const testing = await Test.createTestingModule({ imports: [ProbeModule] }).compile();
  const transport = new KafkaBatchTransport();
  worker = await listen(testing.createNestMicroservice({ strategy: transport }), transport, { ownsProcess: false });
  context = worker.runtime.context;
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
  it('boots: migrations applied, the bootstrap hook run, the ready file written', async () => {
    expect(events[0]).toBe('started');
    expect(readFileSync(join(dir, 'ready'), 'utf8').trim()).toBe(String(process.pid));
    const { rows } = await context.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM probe.outbox');
    expect(rows).toEqual([{ n: 0 }]);
    expect(worker.runtime.loops.map((loop) => loop.groupId)).toEqual([`${config.kafka.topicPrefix}-probe`, `${config.kafka.topicPrefix}-probe-batches`]);
  });

  it('relays what the outbox holds to both loops, whole batches through Nest (interceptor included, a transient error retried), and counts it in the metrics', async () => {
    const { outbox, relay } = context.outboxes.probe;
    const payloads = ['ref_w_1', 'ref_w_2', 'ref_w_3'].map(registered);
    await inTransaction(context.pool, (client) =>
      outbox.enqueue(
        client,
        payloads.map((payload) => ({ type: 'CheckoutRegistered' as const, payload })),
      ),
    );
    relay.wake();
    await waitUntil('both loops to handle every message', 30_000, async () => {
      const { rows } = await context.pool.query<{ via: string }>('SELECT via FROM probe.seen');
      const vias = rows.map((r) => r.via);
      return payloads.every((p) => vias.includes('message') && vias.includes(`batch:${p.event_id}`)) && vias.filter((v) => v === 'message').length === 3
        ? true
        : undefined;
    });
    expect(batches.reduce((a, b) => a + b, 0)).toBe(3);
    // The interceptor saw each call's whole batch (the failed one and its retry included), never one message.
    expect(intercepted.every((size) => size >= 1)).toBe(true);
    expect(intercepted.length).toBeGreaterThanOrEqual(2);
    expect(events).toContain('transient error');
    // While a batch is handled, its partition's lag counts the batch's messages at least; once
    // its offsets are resolved, nothing is left behind.
    expect(lagInBatch.map((lag, i) => lag >= batches[i]!)).toEqual(batches.map(() => true));
    const metrics = await fetch(`http://127.0.0.1:${worker.runtime.metricsPort}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^probe_handled_total 3$/m);
    // prom-client's default process metrics, and the runtime's own.
    expect(metrics).toMatch(/^process_cpu_seconds_total \d/m);
    expect(metrics).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(metrics).toMatch(/^settle_outbox_backlog_age_seconds\{outbox="probe"\} 0$/m);
    const prefix = context.config.kafka.topicPrefix;
    const lags = [...metrics.matchAll(/^settle_consumer_lag_messages\{consumer_group="([^"]+)",topic="([^"]+)",partition="(\d+)"\} (\S+)$/gm)];
    expect(new Set(lags.map((m) => m[1]))).toEqual(new Set([`${prefix}-probe`, `${prefix}-probe-batches`]));
    expect(lags.every((m) => m[2] === `${prefix}.transaction-events.v1` && m[4] === '0')).toBe(true);
  });

  it('stops in order through Nest: the consumer loops, then the app’s shutdown hook, then relays, metrics, producer and pool', async () => {
    await worker.stop();
    expect(events.slice(-2)).toEqual(['message loop revoked', 'stop hook, pool open: true']);
    expect(events).toContain('assigned 6 partitions');
    expect(worker.runtime.loops.map((loop) => loop.state().phase)).toEqual(['stopped', 'stopped']);
    expect(context.pool.ended).toBe(true);
    await expect(fetch(`http://127.0.0.1:${worker.runtime.metricsPort}/metrics`)).rejects.toThrow();
    expect(existsSync(join(dir, 'ready'))).toBe(true);
  });

  it('refuses a worker without consumer loops, and releases what it had opened', async () => {
    const emptyConfig: WorkerConfig = { ...config, metricsPort: null, readyFile: undefined };
    @Module({ imports: [WorkerModule.forRoot({ name: 'empty', config: () => emptyConfig, produces: [] })] })
    class EmptyModule {}
    await expect(startWorker(EmptyModule)).rejects.toThrow(/declares no consumer loop/);
  });
});

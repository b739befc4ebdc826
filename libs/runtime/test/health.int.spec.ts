/**
 * A worker's liveness and readiness on its metrics port (docs/observability.md, "Health"), with
 * a probe worker on the real Kafka and PostgreSQL: PostgreSQL through a TCP fault proxy (to cut
 * it off), the schema registry at a closed port (a running worker rides a registry outage out:
 * degraded, still ready). Ready once its consumer joined the group, with the partitions it holds;
 * not ready, 503 problem details with terminus's details, while PostgreSQL is unreachable; its
 * metrics beside them, on the same Nest edge as the HTTP apps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerConfig } from '@settle/config';
import { Controller, Module } from '@nestjs/common';
import { ConsumeBatches, startWorker, WorkerModule, type RunningWorker } from '@settle/runtime';
import { DEFAULT_PARTITIONS } from '@settle/messaging';
import { waitUntil } from '../../../scripts/ops/clients.js';
import { startFaultProxy, type FaultProxy, createTestDatabase, infra, uniqueTopicPrefix, freePort } from '@settle/testing';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let proxy: FaultProxy;
let worker: RunningWorker;
let config: WorkerConfig;

@Controller()
class IdleController {
  @ConsumeBatches('idle', { topics: ['transactionEvents'] })
  handle() {
    return [];
  }
}

@Module({
  // Nothing produced: no schema to register, so it boots with the registry away.
  imports: [WorkerModule.forRoot({ name: 'health-probe', config: () => config, produces: [] })],
  controllers: [IdleController],
})
class HealthProbeModule {}
let base: string;

beforeAll(async () => {
  database = await createTestDatabase('settle_worker_health');
  proxy = await startFaultProxy(Number(new URL(database.url).port || 5432));
  const url = new URL(database.url);
  url.port = String(proxy.port);
  const topicPrefix = uniqueTopicPrefix('worker-health');
  config = {
    env: 'test',
    logLevel: 'fatal',
    kafka: { brokers: infra.kafkaBrokers, topicPrefix },
    schemaRegistry: { url: `http://127.0.0.1:${await freePort()}/apis/ccompat/v7` },
    database: { url: url.toString(), poolSize: 2 },
    readyFile: undefined,
    shutdownTimeoutMs: 10_000,
    metricsPort: await freePort(),
    worker: { partitionsConcurrency: 1, fetch: { minBytes: 1, maxWaitTimeMs: 500, lingerMs: 0 } },
  };
  worker = await startWorker(HealthProbeModule);
  base = `http://127.0.0.1:${worker.runtime.metricsPort}`;
});

afterAll(async () => {
  proxy?.setMode({ kind: 'pass' });
  await worker?.stop();
  await proxy?.close();
  await database?.drop();
});

const get = async (path: string) => {
  const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: (await res.json()) as Record<string, unknown> };
};

describe('a worker’s health on its metrics port', () => {
  it('is alive', async () => {
    expect(await get('/health/live')).toMatchObject({ status: 200, body: { status: 'ok', info: {}, error: {}, details: {} } });
  });

  it('is ready once its consumer joined the group, with its partitions, PostgreSQL and Kafka; degraded with the registry away', async () => {
    const group = `${worker.runtime.context.config.kafka.topicPrefix}-health-probe`;
    const ready = await waitUntil('the consumer to join its group', 30_000, async () => {
      const answer = await get('/health/ready');
      return answer.status === 200 ? answer : undefined;
    });
    expect(ready.body).toMatchObject({
      status: 'degraded',
      error: {},
      info: {
        worker: { status: 'up', state: 'running' },
        postgres: { status: 'up' },
        kafka: { status: 'up', brokers: expect.any(Number) },
        schema_registry: { status: 'degraded', message: 'unreachable (ECONNREFUSED)' },
        [`consumer:${group}`]: { status: 'up', groupId: group, state: 'joined', partitions: DEFAULT_PARTITIONS },
      },
    });
  });

  it('is not ready (503 HEALTH.NOT_READY with the details) while PostgreSQL is unreachable, and ready again once it is back', async () => {
    proxy.setMode({ kind: 'reset' });
    const down = await get('/health/ready');
    expect(down.status).toBe(503);
    expect(down.type).toMatch(/^application\/problem\+json/);
    expect(down.body).toMatchObject({
      type: 'urn:settle:problem:health.not_ready',
      status: 503,
      code: 'HEALTH.NOT_READY',
      detail: 'Not ready: postgres down',
      instance: '/health/ready',
      error: { postgres: { status: 'down', message: expect.any(String) } },
      details: { kafka: { status: 'up' }, worker: { status: 'up' } },
    });
    expect((await get('/health')).status).toBe(503);
    expect((await get('/health/live')).status).toBe(200);
    proxy.setMode({ kind: 'pass' });
    expect((await get('/health/ready')).status).toBe(200);
  });

  it('serves its metrics at GET /metrics, through the same Nest edge as the HTTP apps (404 problem details elsewhere)', async () => {
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await metrics.text();
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    expect(text).toMatch(/^settle_http_request_duration_seconds_count\{.*route="\/health\/ready"/m);
    const elsewhere = await fetch(`${base}/elsewhere`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await elsewhere.json()).toMatchObject({ status: 404, code: expect.any(String) });
  });
});

/**
 * Ingestion's liveness and readiness (docs/observability.md, "Health") on the real PostgreSQL,
 * Kafka and schema registry, the app built in-process: ready with every dependency answering;
 * still ready, degraded, with Kafka and the registry at a closed port (the outbox holds what it
 * accepts); not ready, 503 problem details `HEALTH.NOT_READY` with terminus's details, while
 * PostgreSQL is cut off (a TCP fault proxy in front of it), and ready again once it is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy, freePort } from '@settle/testing';
import { startIngestionTestApp, type IngestionTestApp } from './ingestion-test-app.js';

let proxy: FaultProxy;
let healthy: IngestionTestApp;
let isolated: IngestionTestApp;

beforeAll(async () => {
  const postgres = new URL(process.env.SETTLE_TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  proxy = await startFaultProxy(Number(postgres.port || 5432));
  healthy = await startIngestionTestApp({
    databaseUrlOf: (url) => {
      const through = new URL(url);
      through.port = String(proxy.port);
      return through.toString();
    },
  });
  const closed = await freePort();
  isolated = await startIngestionTestApp({ kafkaBrokers: [`127.0.0.1:${closed}`], registryUrl: `http://127.0.0.1:${closed}/apis/ccompat/v7` });
});

afterAll(async () => {
  proxy?.setMode({ kind: 'pass' });
  await healthy?.close();
  await isolated?.close();
  await proxy?.close();
});

describe('ingestion health', () => {
  it('is alive, and ready with PostgreSQL, Kafka and the registry up', async () => {
    const live = await healthy.app.inject({ method: 'GET', url: '/health/live' });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'ok', info: {}, error: {}, details: {} });
    const ready = await healthy.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({
      status: 'ok',
      error: {},
      details: {
        postgres: { status: 'up' },
        kafka: { status: 'up', brokers: expect.any(Number) },
        schema_registry: { status: 'up' },
      },
    });
  });

  it('stays ready, degraded, with Kafka and the registry unreachable', async () => {
    const ready = await isolated.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({
      status: 'degraded',
      error: {},
      info: {
        postgres: { status: 'up' },
        kafka: { status: 'degraded', message: expect.any(String) },
        schema_registry: { status: 'degraded', message: 'unreachable (ECONNREFUSED)' },
      },
    });
  });

  it('is not ready (503 HEALTH.NOT_READY with the details) while PostgreSQL is unreachable, and ready again once it is back', async () => {
    proxy.setMode({ kind: 'reset' });
    const down = await healthy.app.inject({ method: 'GET', url: '/health/ready' });
    expect(down.statusCode).toBe(503);
    expect(down.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(down.json()).toMatchObject({
      type: 'urn:settle:problem:health.not_ready',
      status: 503,
      code: 'HEALTH.NOT_READY',
      detail: 'Not ready: postgres down',
      instance: '/health/ready',
      error: { postgres: { status: 'down', message: expect.any(String) } },
      details: { postgres: { status: 'down' }, kafka: { status: 'up' }, schema_registry: { status: 'up' } },
    });
    // The same on the route the callers from before the split use; liveness does not care.
    expect((await healthy.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(503);
    expect((await healthy.app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    proxy.setMode({ kind: 'pass' });
    const back = await healthy.app.inject({ method: 'GET', url: '/health/ready' });
    expect(back.statusCode).toBe(200);
    expect(back.json()).toMatchObject({ status: 'ok', details: { postgres: { status: 'up' } } });
  });
});

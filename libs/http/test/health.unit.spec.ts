/**
 * The Nest apps' health routes (`HealthModule`, on @nestjs/terminus) on a small edge app built
 * in-process, with probes defined in the test: liveness, readiness up, degraded and down, the
 * 503 problem shape (a worker's metrics port serves the same module: libs/runtime's worker endpoint).
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { createEdgeApp, HealthModule, ProblemDetailsFilter } from '@settle/http';
import { HealthProbes, type HealthProbe } from '@settle/platform';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const failures: Record<string, Error | null> = { postgres: null, kafka: null };
const probeOf = (key: string, whenFailing: 'down' | 'degraded'): HealthProbe => ({
  key,
  whenFailing,
  timeoutMs: 1_000,
  cacheMs: 0,
  check: async () => {
    if (failures[key]) throw failures[key];
    return { checked: key };
  },
});
const probes = new HealthProbes([probeOf('postgres', 'down'), probeOf('kafka', 'degraded')]);
const logger = pino({ level: 'silent' });

@Module({
  imports: [HealthModule.forRoot({ probes, metrics: new Registry() })],
  providers: [{ provide: APP_FILTER, useFactory: () => new ProblemDetailsFilter(logger) }],
})
class TestModule {}

let app: NestFastifyApplication;

beforeAll(async () => {
  app = await createEdgeApp(TestModule, { bodyLimitBytes: 1024, logger, metrics: new Registry() });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
});

afterAll(async () => {
  await app?.close();
});

describe('a Nest app’s health routes', () => {
  it('GET /health/live answers 200 in terminus’s shape, checking nothing', async () => {
    failures.postgres = new Error('down');
    const res = await app.inject({ method: 'GET', url: '/health/live' });
    failures.postgres = null;
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', info: {}, error: {}, details: {} });
    expect(res.headers['cache-control']).toMatch(/no-store/);
  });

  it('GET /health/ready and GET /health answer 200 with every dependency when all answer', async () => {
    for (const url of ['/health/ready', '/health']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.json(), url).toEqual({
        status: 'ok',
        info: {
          postgres: { status: 'up', checked: 'postgres', responseTime: expect.any(Number) },
          kafka: { status: 'up', checked: 'kafka', responseTime: expect.any(Number) },
        },
        error: {},
        details: {
          postgres: { status: 'up', checked: 'postgres', responseTime: expect.any(Number) },
          kafka: { status: 'up', checked: 'kafka', responseTime: expect.any(Number) },
        },
      });
    }
  });

  it('stays ready (200, status degraded) while a dependency the app rides out fails', async () => {
    failures.kafka = new Error('connect ECONNREFUSED 127.0.0.1:1');
    const res = await app.inject({ method: 'GET', url: '/health/ready' });
    failures.kafka = null;
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'degraded', info: { kafka: { status: 'degraded', message: 'connect ECONNREFUSED 127.0.0.1:1' } }, error: {} });
  });

  it('answers 503 problem details HEALTH.NOT_READY, with terminus’s details, when a dependency is down', async () => {
    failures.postgres = new Error('connection refused');
    const res = await app.inject({ method: 'GET', url: '/health/ready' });
    failures.postgres = null;
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toMatchObject({
      type: 'urn:settle:problem:health.not_ready',
      title: 'Not ready',
      status: 503,
      code: 'HEALTH.NOT_READY',
      detail: 'Not ready: postgres down',
      instance: '/health/ready',
      error: { postgres: { status: 'down', message: 'connection refused' } },
      info: { kafka: { status: 'up' } },
      details: { postgres: { status: 'down' }, kafka: { status: 'up' } },
    });
  });

  it('serves GET /metrics beside them', async () => {
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
  });
});

import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMetricsRegistry, PeriodicMeasurement, startMetricsServer } from '@settle/platform';

const logger = pino({ level: 'silent' });

describe('createMetricsRegistry', () => {
  it("collects prom-client's default process metrics into a registry of the app's own", async () => {
    const one = createMetricsRegistry();
    const other = createMetricsRegistry();
    const text = await one.metrics();
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(other.getSingleMetric('process_cpu_seconds_total')).toBeDefined();
  });
});

describe('startMetricsServer', () => {
  it('serves the registry at GET /metrics and the routes given, 404 elsewhere, 500 for a route that fails', async () => {
    const registry = createMetricsRegistry();
    const server = await startMetricsServer(registry, 0, logger, {
      routes: {
        '/ready': async () => ({ status: 200, contentType: 'application/json', body: '{"status":"ok"}' }),
        '/broken': async () => {
          throw new Error('cannot answer');
        },
      },
    });
    const base = `http://127.0.0.1:${server.port}`;
    try {
      const metrics = await fetch(`${base}/metrics?x=1`);
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('content-type')).toBe(registry.contentType);
      expect(await metrics.text()).toMatch(/^process_cpu_seconds_total /m);
      const ready = await fetch(`${base}/ready`);
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ok' }]);
      expect((await fetch(`${base}/broken`)).status).toBe(500);
      expect((await fetch(`${base}/elsewhere`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe('PeriodicMeasurement', () => {
  it('measures at start and every interval, carries on after a failed run, and stops', async () => {
    const runs: number[] = [];
    const measurement = new PeriodicMeasurement(
      async () => {
        runs.push(runs.length);
        if (runs.length === 2) throw new Error('database down');
      },
      10,
      logger,
      'test',
    );
    measurement.start();
    await expect.poll(() => runs.length, { timeout: 2_000 }).toBeGreaterThanOrEqual(4);
    await measurement.stop();
    const stoppedAt = runs.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(runs.length).toBe(stoppedAt);
    await measurement.runOnce();
    expect(runs.length).toBe(stoppedAt + 1);
  });
});

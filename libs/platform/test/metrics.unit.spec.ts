import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMetricsRegistry, PeriodicMeasurement } from '@settle/platform';

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

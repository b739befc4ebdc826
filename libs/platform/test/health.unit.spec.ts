/**
 * The health probes' runner and answers, on probes defined in the test (each stands for a
 * dependency that answers, fails, hangs or recovers): time-outs, caching, degraded against down,
 * the aggregation, the HTTP answers of the workers' port, and one log line per change.
 */
import { Writable } from 'node:stream';
import { createLogger, HealthCheckFailure, HealthProbes, healthReport, type HealthProbe } from '@settle/platform';
import { describe, expect, it } from 'vitest';

/** A probe whose answer the test sets; counts its checks. */
function probe(key: string, options: Partial<Pick<HealthProbe, 'whenFailing' | 'timeoutMs' | 'cacheMs'>> = {}) {
  const state = { failure: null as Error | null, hang: false, details: { answered: true } as Record<string, unknown>, checks: 0 };
  const p: HealthProbe = {
    key,
    whenFailing: options.whenFailing ?? 'down',
    timeoutMs: options.timeoutMs ?? 1_000,
    cacheMs: options.cacheMs ?? 0,
    check: async () => {
      state.checks += 1;
      if (state.hang) await new Promise(() => undefined);
      if (state.failure) throw state.failure;
      return state.details;
    },
  };
  return { probe: p, state };
}

function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger('health-test', 'info', stream), lines };
}

describe('health probes', () => {
  it('report each dependency with its details and response time, in terminus’s shape', async () => {
    const db = probe('postgres');
    const kafka = probe('kafka');
    kafka.state.details = { brokers: 3 };
    const report = await new HealthProbes([db.probe, kafka.probe]).report();
    expect(report).toEqual({
      status: 'ok',
      info: {
        postgres: { status: 'up', answered: true, responseTime: expect.any(Number) },
        kafka: { status: 'up', brokers: 3, responseTime: expect.any(Number) },
      },
      error: {},
      details: {
        postgres: { status: 'up', answered: true, responseTime: expect.any(Number) },
        kafka: { status: 'up', brokers: 3, responseTime: expect.any(Number) },
      },
    });
  });

  it('bound a check by its time-out: a dependency that never answers is down with the reason', async () => {
    const slow = probe('schema_registry', { timeoutMs: 50 });
    slow.state.hang = true;
    const started = performance.now();
    const report = await new HealthProbes([slow.probe]).report();
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(report.status).toBe('error');
    expect(report.error.schema_registry).toMatchObject({ status: 'down', message: 'timeout of 50ms exceeded' });
  });

  it('make a failing dependency degraded (200, still ready) or down (not ready), as the probe says', async () => {
    const kafka = probe('kafka', { whenFailing: 'degraded' });
    kafka.state.failure = new Error('connect ECONNREFUSED');
    const db = probe('postgres');
    const degraded = await new HealthProbes([kafka.probe, db.probe]).report();
    expect(degraded.status).toBe('degraded');
    expect(degraded.info.kafka).toMatchObject({ status: 'degraded', message: 'connect ECONNREFUSED' });
    expect(degraded.error).toEqual({});
    db.state.failure = new HealthCheckFailure('stopped', { groupId: 'g' });
    const down = await new HealthProbes([kafka.probe, db.probe]).report();
    expect(down.status).toBe('error');
    expect(down.error).toEqual({ postgres: { status: 'down', message: 'stopped', groupId: 'g', responseTime: expect.any(Number) } });
    expect(Object.keys(down.details).sort()).toEqual(['kafka', 'postgres']);
  });

  it('reuse an answer for its cache time, marked cachedResponse, and share a check in flight', async () => {
    let now = 0;
    const kafka = probe('kafka', { cacheMs: 5_000 });
    const probes = new HealthProbes([kafka.probe], undefined, () => now);
    const [a, b] = await Promise.all([probes.report(), probes.report()]);
    expect(kafka.state.checks).toBe(1);
    expect(a.details.kafka).not.toHaveProperty('cachedResponse');
    expect(b.details.kafka).not.toHaveProperty('cachedResponse');
    now = 4_000;
    kafka.state.failure = new Error('gone');
    expect((await probes.report()).details.kafka).toMatchObject({ status: 'up', cachedResponse: true });
    now = 5_001;
    expect((await probes.report()).details.kafka).toMatchObject({ status: 'down', message: 'gone' });
    expect(kafka.state.checks).toBe(2);
  });

  it('log a dependency once when it starts failing and once when it answers again', async () => {
    const { logger, lines } = captureLogger();
    const db = probe('postgres');
    const probes = new HealthProbes([db.probe], logger);
    await probes.report();
    db.state.failure = new Error('connection refused');
    await probes.report();
    await probes.report();
    db.state.failure = null;
    await probes.report();
    await probes.report();
    expect(lines.map(({ msg, dependency, reason }) => ({ msg, dependency, reason }))).toEqual([
      { msg: 'health check failing', dependency: 'postgres', reason: 'connection refused' },
      { msg: 'health check answers again', dependency: 'postgres', reason: undefined },
    ]);
  });

  it('aggregate as terminus does: degraded beats ok, down beats both', () => {
    expect(healthReport([]).status).toBe('ok');
    expect(healthReport([{ a: { status: 'up' } }, { b: { status: 'degraded' } }]).status).toBe('degraded');
    expect(healthReport([{ a: { status: 'degraded' } }, { b: { status: 'down' } }])).toEqual({
      status: 'error',
      info: { a: { status: 'degraded' } },
      error: { b: { status: 'down' } },
      details: { a: { status: 'degraded' }, b: { status: 'down' } },
    });
  });
});

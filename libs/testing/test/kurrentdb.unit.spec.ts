/**
 * `kurrentDbForTests`: where a KurrentDB suite's server comes from, decided with the container
 * runtime probe injected, so no Docker engine is needed (and none is started: `start()` of the
 * container path is never called here).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_KURRENTDB_TEST_IMAGE, kurrentDbForTests, type KurrentDbForTests } from '@settle/testing';

const noRuntime = () => Promise.reject(new Error('Could not find a working container runtime strategy'));
const runtime = () => Promise.resolve({});

function source(decision: KurrentDbForTests | string): KurrentDbForTests {
  if (typeof decision === 'string') throw new Error(`expected a server, got the skip reason: ${decision}`);
  return decision;
}

describe('kurrentDbForTests', () => {
  it('uses KURRENTDB_CONNECTION_STRING when it is set, without probing for a container runtime', async () => {
    const probeRuntime = vi.fn(runtime);
    const decision = source(await kurrentDbForTests({ env: { KURRENTDB_CONNECTION_STRING: ' kurrentdb://10.0.0.7:2113?tls=false ' }, probeRuntime }));
    expect(decision.source).toBe('environment');
    expect(decision.image).toBeUndefined();
    const server = await decision.start();
    expect(server.connectionString).toBe('kurrentdb://10.0.0.7:2113?tls=false');
    await server.stop();
    expect(probeRuntime).not.toHaveBeenCalled();
  });

  it('with no connection string and no reachable runtime, gives the skip reason naming both ways to run the suite', async () => {
    for (const env of [{}, { KURRENTDB_CONNECTION_STRING: '   ' }]) {
      const reason = await kurrentDbForTests({ env, probeRuntime: noRuntime });
      expect(typeof reason).toBe('string');
      expect(reason).toContain('KURRENTDB_CONNECTION_STRING is not set');
      expect(reason).toContain('Could not find a working container runtime strategy');
      expect(reason).toContain('set KURRENTDB_CONNECTION_STRING (kurrentdb://127.0.0.1:2113?tls=false');
      expect(reason).toContain('where a Docker engine is reachable: it then starts a KurrentDB container itself (testcontainers)');
    }
  });

  it('counts a probe that does not answer in time as no runtime', async () => {
    const startedAt = Date.now();
    const reason = await kurrentDbForTests({ env: {}, probeRuntime: () => new Promise(() => undefined), probeTimeoutMs: 50 });
    expect(reason).toContain('no answer from the container runtime probe within 50 ms');
    expect(reason).toContain('set KURRENTDB_CONNECTION_STRING');
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  });

  it('with no connection string and a reachable runtime, plans a container of the default image or KURRENTDB_TEST_IMAGE', async () => {
    const planned = source(await kurrentDbForTests({ env: {}, probeRuntime: runtime }));
    expect(planned.source).toBe('container');
    expect(planned.image).toBe(DEFAULT_KURRENTDB_TEST_IMAGE);
    const overridden = source(await kurrentDbForTests({ env: { KURRENTDB_TEST_IMAGE: 'registry.example/kurrentdb:26.0' }, probeRuntime: runtime }));
    expect(overridden.image).toBe('registry.example/kurrentdb:26.0');
  });

  it('starts by default the image docker-compose.yml runs', () => {
    const compose = parse(readFileSync(fileURLToPath(new URL('../../../docker-compose.yml', import.meta.url)), 'utf8')) as {
      services: Record<string, { image?: string }>;
    };
    expect(DEFAULT_KURRENTDB_TEST_IMAGE).toBe(compose.services.kurrentdb?.image);
  });
});

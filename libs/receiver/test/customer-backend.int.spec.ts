import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delivery, entitlementEvent, newSecret, waitFor } from './support/delivery.js';
import { Redis } from 'ioredis';
import { createTestDatabase, deleteKeys, redisUrl, uniquePrefix } from './support/infra.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const [currentSecret, previousSecret] = [newSecret(), newSecret()];
const scratch = mkdtempSync(join(tmpdir(), 'settle-customer-backend-'));

beforeAll(() => {
  // Builds and packs the kit, installs the example from the tarball (as a customer would).
  execFileSync('bash', ['scripts/local/receiver-kit.sh'], { cwd: root, stdio: 'inherit' });
}, 180_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The example backend as a child process, on a free port and a throwaway database. */
async function startBackend(env: Record<string, string> = {}) {
  const db = await createTestDatabase('settle_customer_backend');
  const port = await freePort();
  const readyFile = join(scratch, `ready-${port}`);
  const child: ChildProcess = spawn(process.execPath, ['src/server.js'], {
    cwd: join(root, 'examples/customer-backend'),
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      DATABASE_URL: db.url,
      SETTLE_WEBHOOK_SECRETS: `${currentSecret},${previousSecret}`,
      SETTLE_READY_FILE: readyFile,
      LOG_LEVEL: 'error',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = once(child, 'exit');
  await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`the example exited with ${child.exitCode}`);
      return existsSync(readyFile) ? true : undefined;
    },
    'the example to listen',
    20_000,
  );
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    databaseUrl: db.url,
    exited: () => child.exitCode !== null || child.signalCode !== null,
    get: async (path: string) => {
      const response = await fetch(`${url}${path}`);
      return { status: response.status, body: (await response.json()) as any };
    },
    post: async (payload: object | string, options: { secrets?: string[]; tamper?: boolean; path?: string } = {}) => {
      const { body, headers } = delivery(payload, options.secrets ?? [currentSecret]);
      const response = await fetch(`${url}${options.path ?? '/webhook/settle'}`, {
        method: 'POST',
        headers,
        body: options.tamper ? body.replace('"user-', '"admin-') : body,
      });
      return { status: response.status, contentType: response.headers.get('content-type'), body: (await response.json()) as any };
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await db.drop();
    },
  };
}

type Backend = Awaited<ReturnType<typeof startBackend>>;

describe('the example customer backend, from the packed kit', () => {
  let backend: Backend;

  beforeAll(async () => {
    // The first run of each event fails: the kit retries it; its rolled-back row never counts.
    backend = await startBackend({ EXAMPLE_FAIL_FIRST_RUNS: '1', RETRY_INITIAL_DELAY_MS: '50' });
  });

  afterAll(() => backend?.stop());

  it('applies signed events in any order, once each, and reports access and stats', async () => {
    const user = `user-${Date.now()}`;
    const started = entitlementEvent({ user_id: user, event: 'subscription_started', expires_at: '2026-12-23T10:15:30.000Z' });
    const renewed = entitlementEvent({ user_id: user, event: 'subscription_renewed', expires_at: '2027-01-23T10:15:30.000Z' });

    expect(await backend.post(renewed)).toMatchObject({ status: 200, body: { received: true } });
    expect(await backend.post(started, { secrets: [previousSecret] })).toMatchObject({ status: 200, body: { received: true } });
    expect(await backend.post(started)).toMatchObject({ status: 200, body: { received: true, duplicate: true } });
    const forged = await backend.post(entitlementEvent({ user_id: user, expires_at: '2099-01-01T00:00:00.000Z' }), { tamper: true });
    expect(forged).toMatchObject({ status: 401, contentType: 'application/problem+json', body: { code: 'RECEIVER.SIGNATURE_INVALID' } });

    const stats = await waitFor(async () => {
      const { body } = await backend.get('/stats');
      return body.events.processed === 2 ? body : undefined;
    }, 'both events to be processed');
    expect(stats).toEqual({
      events: { pending: 0, processing: 0, processed: 2, failed: 0, ignored: 0 },
      runs: { subscription_renewed: 1, subscription_started: 1 },
    });
    expect(await backend.get(`/access/${user}/pro-monthly`)).toEqual({
      status: 200,
      body: { user_id: user, entitlement: 'pro-monthly', expires_at: '2027-01-23T10:15:30.000Z' },
    });
    expect(await backend.get(`/access/${user}/pro-yearly`)).toMatchObject({ status: 404, body: { code: 'EXAMPLE.ACCESS_NOT_FOUND' } });
    expect(await backend.get('/health')).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('answers 404 problem details to a path parameter that is not valid percent-encoding, and stays up', async () => {
    for (const [method, path] of [
      ['GET', '/access/%E0%A4%A/pro-monthly'],
      ['POST', '/events/%zz/retry'],
    ] as const) {
      const response = await fetch(`${backend.url}${path}`, { method });
      expect([response.status, response.headers.get('content-type')]).toEqual([404, 'application/problem+json']);
      expect(await response.json()).toMatchObject({ status: 404, code: 'EXAMPLE.NOT_FOUND' });
    }
    expect(await backend.get('/health')).toEqual({ status: 200, body: { status: 'ok' } });
  });
});

describe('the example customer backend on the Redis store (RECEIVER_STORE=redis)', () => {
  const prefix = uniquePrefix('customer-backend');

  afterAll(async () => {
    const redis = new Redis(redisUrl);
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  it("refuses to start on a Redis without an append-only file, saying what to change (the machine's Redis keeps none)", async () => {
    const redis = new Redis(redisUrl);
    const aof = /^aof_enabled:(\d)/m.exec(await redis.info('persistence'))?.[1];
    redis.disconnect();
    if (aof !== '0') return void console.warn("[customer backend on Redis] the machine's Redis keeps an append-only file: nothing to refuse");
    await expect(startBackend({ RECEIVER_STORE: 'redis', REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix })).rejects.toThrow(/exited with 1/);
  });

  it('applies signed events (REDIS_PERSISTENCE=off), its access at once and its business logic once the processor ran it', async () => {
    const backend = await startBackend({ RECEIVER_STORE: 'redis', REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, REDIS_PERSISTENCE: 'off' });
    try {
      const user = `user-redis-${Date.now()}`;
      const started = entitlementEvent({ user_id: user, expires_at: '2027-02-01T00:00:00.000Z' });
      expect(await backend.post(started)).toMatchObject({ status: 200, body: { received: true } });
      expect(await backend.get(`/access/${user}/pro-monthly`)).toMatchObject({ status: 200, body: { expires_at: '2027-02-01T00:00:00.000Z' } });
      const stats = await waitFor(async () => {
        const { body } = await backend.get('/stats');
        return body.runs.subscription_started >= 1 ? body : undefined;
      }, 'the event to be run');
      expect(stats.runs).toEqual({ subscription_started: 1 });
    } finally {
      await backend.stop();
    }
  });
});

describe('the example customer backend: failed events and retry over HTTP', () => {
  let backend: Backend;

  beforeAll(async () => {
    backend = await startBackend({ EXAMPLE_FAIL_FIRST_RUNS: '2', RETRY_MAX_ATTEMPTS: '2', RETRY_INITIAL_DELAY_MS: '50' });
  });

  afterAll(() => backend?.stop());

  it('lists an event whose runs kept failing, and runs it again on request', async () => {
    const event = entitlementEvent({ user_id: `user-${Date.now()}` });
    await backend.post(event);
    const failed = await waitFor(async () => {
      const { body } = await backend.get('/events/failed');
      return body.events.length === 1 ? body.events[0] : undefined;
    }, 'the event to fail');
    expect(failed).toEqual({
      event_id: event.event_id,
      event: 'subscription_started',
      attempts: 2,
      last_error: `Error: EXAMPLE_FAIL_FIRST_RUNS: run 2 of ${event.event_id} fails on purpose`,
      failed_at: expect.any(String),
      payload: event,
    });
    // The user paid: access is raised although the business logic kept failing (its rows rolled back).
    expect((await backend.get(`/access/${event.user_id}/pro-monthly`)).body.expires_at).toBe(event.expires_at);
    expect((await backend.get('/stats')).body.runs).toEqual({});

    const retried = await fetch(`${backend.url}/events/${event.event_id}/retry`, { method: 'POST' });
    expect([retried.status, await retried.json()]).toEqual([202, { event_id: event.event_id, state: 'pending' }]);
    const stats = await waitFor(async () => {
      const { body } = await backend.get('/stats');
      return body.events.processed === 1 ? body : undefined;
    }, 'the retried event to be processed');
    expect(stats.runs).toEqual({ subscription_started: 1 });
    expect((await backend.get('/events/failed')).body).toEqual({ events: [] });
    expect((await backend.get(`/access/${event.user_id}/pro-monthly`)).body.expires_at).toBe(event.expires_at);

    const again = await fetch(`${backend.url}/events/${event.event_id}/retry`, { method: 'POST' });
    expect([again.status, ((await again.json()) as { code: string }).code]).toEqual([409, 'EXAMPLE.EVENT_NOT_FAILED']);
    const unknown = await fetch(`${backend.url}/events/no-such-event/retry`, { method: 'POST' });
    expect([unknown.status, ((await unknown.json()) as { code: string }).code]).toEqual([404, 'EXAMPLE.EVENT_NOT_FOUND']);
  });
});

describe('the example customer backend: PostgreSQL ends its connections mid-run', () => {
  let backend: Backend;

  beforeAll(async () => {
    // Each run holds the kit's transaction open for a moment.
    backend = await startBackend({ EXAMPLE_RUN_DELAY_MS: '1000', RETRY_INITIAL_DELAY_MS: '50' });
  });

  afterAll(() => backend?.stop());

  it('stays up: the run fails, the kit retries it, and the event is applied once', async () => {
    const admin = new pg.Client({ connectionString: backend.databaseUrl });
    await admin.connect();
    try {
      const event = entitlementEvent({ user_id: `user-${Date.now()}` });
      expect(await backend.post(event)).toMatchObject({ status: 200, body: { received: true } });
      await waitFor(async () => {
        const { rowCount } = await admin.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'");
        return rowCount ? true : undefined;
      }, 'a run to hold its transaction open');
      // As a PostgreSQL restart does: every connection of the example ends, the checked-out one included.
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');

      const stats = await waitFor(async () => {
        if (backend.exited()) throw new Error('the example crashed');
        const { body } = await backend.get('/stats');
        return body.events.processed === 1 ? body : undefined;
      }, 'the event to be processed after a retry');
      expect(stats.runs).toEqual({ subscription_started: 1 });
      expect(await backend.get(`/access/${event.user_id}/pro-monthly`)).toMatchObject({ status: 200, body: { expires_at: event.expires_at } });
      expect((await admin.query('SELECT attempts FROM settle_receiver.events WHERE event_id = $1', [event.event_id])).rows).toEqual([{ attempts: 2 }]);
      expect(await backend.get('/health')).toEqual({ status: 200, body: { status: 'ok' } });
      expect(backend.exited()).toBe(false);
    } finally {
      await admin.end();
    }
  });
});

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delivery, entitlementEvent, newSecret, waitFor } from './support/delivery.js';
import { createTestDatabase } from './support/infra.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const [currentSecret, previousSecret] = [newSecret(), newSecret()];
const scratch = mkdtempSync(join(tmpdir(), 'settle-customer-backend-'));

beforeAll(() => {
  // Builds and packs the kit, installs the example from the tarball (as a customer would).
  execFileSync('bash', ['scripts/receiver-kit.sh'], { cwd: root, stdio: 'inherit' });
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
  await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`the example exited with ${child.exitCode}`);
    return existsSync(readyFile) ? true : undefined;
  }, 'the example to listen', 20_000);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
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
    expect((await backend.get(`/access/${event.user_id}/pro-monthly`)).status).toBe(404); // rolled back with the run

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

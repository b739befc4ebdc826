import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceiverStore } from '../src/index.js';
import { RedisReceiverStore } from '../src/redis-store.js';
import { delivery, entitlementEvent, newSecret, waitFor } from './support/delivery.js';
import { createTestDatabase, deleteKeys, freshPostgresStore, redisUrl, uniquePrefix } from './support/infra.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/receiver-process.mjs', import.meta.url));
const secret = newSecret();
const EVENTS = 20;

beforeAll(() => {
  // The child processes run the built kit, as a customer would.
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'libs/receiver/tsconfig.json'], { cwd: root, stdio: 'inherit' });
});

async function startReceivers(env: Record<string, string>): Promise<{ ports: number[]; children: ChildProcess[] }> {
  const children = [0, 1].map(() => fork(fixture, { env: { ...process.env, ...env, SECRET: secret }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  const ports = await Promise.all(children.map(async (child) => ((await once(child, 'message')) as [{ port: number }])[0].port));
  return { ports, children };
}

async function stopReceivers(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children
      .filter((child) => child.exitCode === null)
      .map(async (child) => {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }),
  );
}

/** POSTs the same signed delivery of each event to both processes at the same moment. */
async function deliverToBoth(ports: number[]): Promise<string[]> {
  const events = Array.from({ length: EVENTS }, (_, i) =>
    entitlementEvent({ user_id: 'user-shared', expires_at: new Date(Date.UTC(2027, 0, 1 + i)).toISOString() }),
  );
  await Promise.all(
    events.map(async (event) => {
      const { body, headers } = delivery(event, [secret]);
      const answers = await Promise.all(
        ports.map(async (port) => {
          const response = await fetch(`http://127.0.0.1:${port}/webhook/settle`, { method: 'POST', headers, body });
          return { status: response.status, body: (await response.json()) as { duplicate?: boolean } };
        }),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(answers.filter((a) => !a.body.duplicate)).toHaveLength(1);
    }),
  );
  return events.map((event) => event.event_id);
}

async function allProcessed(store: ReceiverStore<unknown>): Promise<true | undefined> {
  const counts = await store.counts();
  return counts.processed === EVENTS ? true : undefined;
}

describe('two receiver processes sharing one PostgreSQL database', () => {
  let pool: pg.Pool;
  let drop: () => Promise<void>;
  let children: ChildProcess[] = [];

  beforeAll(async () => {
    const db = await createTestDatabase('settle_receiver_procs');
    drop = db.drop;
    pool = new pg.Pool({ connectionString: db.url });
  });

  afterAll(async () => {
    await stopReceivers(children);
    await pool?.end();
    await drop?.();
  });

  it('run the business logic of an event delivered to both at once exactly once', async () => {
    const schema = 'receiver_two_processes';
    const store = await freshPostgresStore(pool, schema);
    await pool.query(`CREATE TABLE ${schema}.runs (event_id text NOT NULL, pid integer NOT NULL)`);
    const started = await startReceivers({ STORE: 'postgres', DATABASE_URL: pool.options.connectionString!, SCHEMA: schema });
    children = started.children;
    const ids = await deliverToBoth(started.ports);
    await waitFor(() => allProcessed(store), 'every event to be processed');
    const { rows } = await pool.query<{ event_id: string; n: number }>(`SELECT event_id, count(*)::int AS n FROM ${schema}.runs GROUP BY event_id`);
    expect(Object.fromEntries(rows.map((r) => [r.event_id, r.n]))).toEqual(Object.fromEntries(ids.map((id) => [id, 1])));
    expect(await store.accessExpiry('user-shared', 'pro-monthly')).toEqual(new Date(Date.UTC(2027, 0, EVENTS)));
  });
});

describe('two receiver processes sharing one Redis', () => {
  const prefix = uniquePrefix('procs');
  let redis: Redis;
  let children: ChildProcess[] = [];

  beforeAll(() => {
    redis = new Redis(redisUrl);
  });

  afterAll(async () => {
    await stopReceivers(children);
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  it('run the business logic of an event delivered to both at once exactly once', async () => {
    const store = new RedisReceiverStore(redis, { keyPrefix: prefix, persistence: 'off' });
    const started = await startReceivers({ STORE: 'redis', REDIS_URL: redisUrl, KEY_PREFIX: prefix });
    children = started.children;
    const ids = await deliverToBoth(started.ports);
    await waitFor(() => allProcessed(store), 'every event to be processed');
    const runs = (await redis.lrange(`${prefix}runs`, 0, -1)).map((run) => run.split(' ')[0]!);
    expect(runs.sort()).toEqual([...ids].sort());
    expect(await store.accessExpiry('user-shared', 'pro-monthly')).toEqual(new Date(Date.UTC(2027, 0, EVENTS)));
  });
});

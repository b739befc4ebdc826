import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type EntitlementEvent, type WebhookReceiver } from '../src/index.js';
import { PostgresReceiverStore } from '../src/postgres-store.js';
import { RedisReceiverStore } from '../src/redis-store.js';
import { delivery, entitlementEvent, newSecret } from './support/delivery.js';
import { createTestDatabase, deleteKeys, freshPostgresStore, redisUrl, uniquePrefix } from './support/infra.js';
import { finalExpiry, latestExpiry, play, scenarios, streamScenarios } from './support/property.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
let pool: pg.Pool;
let drop: () => Promise<void>;

beforeAll(async () => {
  const db = await createTestDatabase('settle_receiver');
  drop = db.drop;
  pool = new pg.Pool({ connectionString: db.url, max: 10 });
  await pool.query('CREATE TABLE handler_runs (event_id text NOT NULL, event text NOT NULL)');
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

describe('the receiver over PostgreSQL', () => {
  it("ends at the latest expires_at for any order and duplication, each event_id's handler writes committed exactly once", async () => {
    const secret = newSecret();
    const store = await freshPostgresStore(pool);
    const handler = async (event: EntitlementEvent, { tx }: { tx: pg.PoolClient }) => {
      await tx.query('INSERT INTO handler_runs (event_id, event) VALUES ($1, $2)', [event.event_id, event.event]);
    };
    const receiver = createReceiver({ secrets: [secret], store, handlers: { subscription_started: handler, subscription_renewed: handler }, logger: quiet });
    await fc.assert(
      fc.asyncProperty(scenarios(6), async (scenario) => {
        const events = await play(receiver, secret, scenario);
        expect(await receiver.accessExpiry(events[0]!.user_id, 'pro-monthly')).toEqual(latestExpiry(events));
        const { rows } = await pool.query<{ event_id: string; n: number }>(
          'SELECT event_id, count(*)::int AS n FROM handler_runs WHERE event_id = ANY($1) GROUP BY event_id',
          [events.map((event) => event.event_id)],
        );
        expect(Object.fromEntries(rows.map((row) => [row.event_id, row.n]))).toEqual(Object.fromEntries(events.map((event) => [event.event_id, 1])));
      }),
      { numRuns: 15 },
    );
  });

  it('with revocations: ends at the expiry of the highest revision for any order and duplication, on PostgreSQL and on Redis', async () => {
    const secret = newSecret();
    const redis = new Redis(redisUrl);
    const keyPrefix = uniquePrefix('stream-property');
    const stores = [await freshPostgresStore(pool), new RedisReceiverStore(redis, { keyPrefix, persistence: 'off' })];
    try {
      for (const store of stores) {
        const receiver = createReceiver({ secrets: [secret], store, logger: quiet });
        await fc.assert(
          fc.asyncProperty(streamScenarios(6), async (scenario) => {
            const events = await play(receiver, secret, scenario);
            expect(await receiver.accessExpiry(events[0]!.user_id, 'pro-monthly')).toEqual(finalExpiry(events));
          }),
          { numRuns: 15 },
        );
      }
    } finally {
      await deleteKeys(redis, keyPrefix);
      redis.disconnect();
    }
  });

  it('a handler failing after its writes: they roll back, the run is retried, and they commit once', async () => {
    const secret = newSecret();
    let failuresLeft = 2;
    const receiver = createReceiver({
      secrets: [secret],
      store: await freshPostgresStore(pool),
      retry: { initialDelayMs: 0 },
      logger: quiet,
      handlers: {
        subscription_started: async (event, { tx }) => {
          await tx.query('INSERT INTO handler_runs (event_id, event) VALUES ($1, $2)', [event.event_id, event.event]);
          if (failuresLeft-- > 0) throw new Error('downstream failed after the insert');
        },
      },
    });
    const event = entitlementEvent();
    const { body, headers } = delivery(event, [secret]);
    await receiver.receive(body, headers);
    await receiver.processDue();
    expect(await receiver.find(event.event_id)).toMatchObject({ state: 'processed', attempts: 3 });
    expect((await pool.query('SELECT 1 FROM handler_runs WHERE event_id = $1', [event.event_id])).rowCount).toBe(1);
  });

  it("a write only the commit refuses (a deferred constraint) fails its own event, not its batch's others", async () => {
    const secret = newSecret();
    const table = `deferred_${randomUUID().slice(0, 8)}`;
    await pool.query(
      `CREATE TABLE ${table} (event_id text NOT NULL, parent text REFERENCES ${table} (event_id) DEFERRABLE INITIALLY DEFERRED, UNIQUE (event_id))`,
    );
    const events = [entitlementEvent(), entitlementEvent(), entitlementEvent()];
    const broken = events[1]!.event_id;
    const receiver = createReceiver({
      secrets: [secret],
      store: await freshPostgresStore(pool),
      retry: { initialDelayMs: 60_000 },
      logger: quiet,
      handlers: {
        subscription_started: async (event, { tx }) => {
          // The broken event's row points at a parent that never exists: only COMMIT checks it.
          await tx.query(`INSERT INTO ${table} (event_id, parent) VALUES ($1, $2)`, [event.event_id, event.event_id === broken ? 'nobody' : null]);
        },
      },
    });
    for (const event of events) {
      const { body, headers } = delivery(event, [secret]);
      expect((await receiver.receive(body, headers)).status).toBe(200);
    }
    expect(await receiver.processDue()).toBe(3);
    const { rows } = await pool.query<{ event_id: string }>(`SELECT event_id FROM ${table}`);
    expect(rows.map((row) => row.event_id).sort()).toEqual([events[0]!.event_id, events[2]!.event_id].sort());
    expect(await receiver.find(events[0]!.event_id)).toMatchObject({ state: 'processed', attempts: 1 });
    expect(await receiver.find(events[2]!.event_id)).toMatchObject({ state: 'processed', attempts: 1 });
    expect(await receiver.find(broken)).toMatchObject({ state: 'pending', attempts: 1, lastError: expect.stringMatching(/foreign key/) });
  });

  it('a handler that keeps failing: the user still gets access, the event is left failed, its writes never commit', async () => {
    const secret = newSecret();
    const receiver = createReceiver({
      secrets: [secret],
      store: await freshPostgresStore(pool),
      retry: { maxAttempts: 3, initialDelayMs: 0 },
      logger: quiet,
      handlers: {
        subscription_started: async (event, { tx }) => {
          await tx.query('INSERT INTO handler_runs (event_id, event) VALUES ($1, $2)', [event.event_id, event.event]);
          throw new Error('the welcome email insert failed');
        },
      },
    });
    const event = entitlementEvent({ user_id: `user-${randomUUID()}` });
    const { body, headers } = delivery(event, [secret]);
    await receiver.receive(body, headers);
    await receiver.processDue();
    expect(await receiver.find(event.event_id)).toMatchObject({ state: 'failed', attempts: 3, lastError: 'Error: the welcome email insert failed' });
    expect(await receiver.accessExpiry(event.user_id, 'pro-monthly')).toEqual(new Date(event.expires_at));
    expect((await pool.query('SELECT 1 FROM handler_runs WHERE event_id = $1', [event.event_id])).rowCount).toBe(0);
  });

  it('PostgreSQL ending the connection of a run in progress: no crash, the run fails and is retried, the store keeps working', async () => {
    // Without an 'error' listener on the checked-out client, pg would throw this out of a socket
    // event: an uncaught exception, which kills a customer's backend.
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const secret = newSecret();
      let runs = 0;
      const handler = async (event: EntitlementEvent, { tx }: { tx: pg.PoolClient }) => {
        runs += 1;
        if (runs === 1) {
          const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          // Not events.once: it would listen to 'error' itself.
          const ended = new Promise<void>((resolve) => tx.once('end', () => resolve()));
          await pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
          await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 3_000))]);
        }
        await tx.query('INSERT INTO handler_runs (event_id, event) VALUES ($1, $2)', [event.event_id, event.event]);
      };
      const receiver = createReceiver({
        secrets: [secret],
        store: await freshPostgresStore(pool),
        retry: { initialDelayMs: 0 },
        logger: quiet,
        handlers: { subscription_started: handler, subscription_renewed: handler },
      });
      const first = entitlementEvent({ user_id: `user-${randomUUID()}` });
      const sent = delivery(first, [secret]);
      expect((await receiver.receive(sent.body, sent.headers)).status).toBe(200);
      await receiver.processDue();
      expect(uncaught).toEqual([]);
      expect(await receiver.find(first.event_id)).toMatchObject({ state: 'processed', attempts: 2, lastError: null });
      expect(runs).toBe(2);
      expect((await pool.query('SELECT 1 FROM handler_runs WHERE event_id = $1', [first.event_id])).rowCount).toBe(1);
      expect(await receiver.accessExpiry(first.user_id, 'pro-monthly')).toEqual(new Date(first.expires_at));

      // The store keeps working: the broken client left the pool.
      const next = entitlementEvent({ user_id: first.user_id, event: 'subscription_renewed', expires_at: '2027-02-23T10:15:30.000Z' });
      const again = delivery(next, [secret]);
      expect((await receiver.receive(again.body, again.headers)).status).toBe(200);
      await receiver.processDue();
      expect(await receiver.find(next.event_id)).toMatchObject({ state: 'processed', attempts: 1 });
      expect(await receiver.accessExpiry(first.user_id, 'pro-monthly')).toEqual(new Date(next.expires_at));
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});

describe('store unavailable: 503, nothing acknowledged', () => {
  const secret = newSecret();
  const send = async (receiver: WebhookReceiver) => {
    const { body, headers } = delivery(entitlementEvent(), [secret]);
    const started = Date.now();
    const result = await receiver.receive(body, headers);
    return { result, ms: Date.now() - started };
  };

  it('answers 503 when PostgreSQL refuses connections', async () => {
    const down = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 500 });
    try {
      const { result } = await send(createReceiver({ secrets: [secret], store: new PostgresReceiverStore(down), logger: quiet }));
      expect(result).toMatchObject({ status: 503, body: { code: 'RECEIVER.STORE_UNAVAILABLE' } });
    } finally {
      await down.end();
    }
  });

  it('answers 503 within recordTimeoutMs when Redis does not answer', async () => {
    const down = new Redis('redis://127.0.0.1:1', { lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
    try {
      const { result, ms } = await send(
        createReceiver({ secrets: [secret], store: new RedisReceiverStore(down, { persistence: 'off' }), recordTimeoutMs: 300, logger: quiet }),
      );
      expect(result).toMatchObject({ status: 503, body: { code: 'RECEIVER.STORE_UNAVAILABLE' } });
      expect(ms).toBeLessThan(2_000);
    } finally {
      down.disconnect();
    }
  });
});

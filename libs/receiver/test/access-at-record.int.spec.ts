/**
 * "Access does not wait for your business logic" (README, "Processing guarantees"), on every
 * store: with the processor running, handlers that do not return until the test lets them (a
 * slow business logic) and a backlog of recorded events waiting behind them, each new delivery's
 * access is visible to another reader (a second client of the same storage) at the first read
 * after its 200, including a renewal of a user whose previous event's handler is still running.
 * The time from each 200 to the access being visible is printed; the kit's benchmark reports it
 * at load (docs/benchmarks.md, "delivery").
 */
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, MemoryReceiverStore, type ReceiverStore } from '../src/index.js';
import { PostgresReceiverStore } from '../src/postgres-store.js';
import { RedisReceiverStore } from '../src/redis-store.js';
import { delivery, entitlementEvent, newSecret } from './support/delivery.js';
import { createTestDatabase, deleteKeys, redisUrl, uniquePrefix } from './support/infra.js';

/** Events recorded and waiting behind the blocked handlers before the measured ones. */
const BACKLOG = 40;
/** Deliveries measured from their 200 to their access. */
const MEASURED = 10;

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

let pool: pg.Pool;
let readerPool: pg.Pool;
let drop: () => Promise<void>;
let redis: Redis;
let readerRedis: Redis;
const prefix = uniquePrefix('access-at-record');

beforeAll(async () => {
  const db = await createTestDatabase('settle_receiver_access');
  drop = db.drop;
  pool = new pg.Pool({ connectionString: db.url, max: 12 });
  readerPool = new pg.Pool({ connectionString: db.url, max: 2 });
  redis = new Redis(redisUrl);
  readerRedis = new Redis(redisUrl);
});

afterAll(async () => {
  await readerPool?.end();
  await pool?.end();
  await drop?.();
  await deleteKeys(redis, prefix);
  redis?.disconnect();
  readerRedis?.disconnect();
});

/** A store and a second store over other connections to the same storage: the reader. */
type StorePair = { store: ReceiverStore<unknown>; reader: ReceiverStore<unknown> };

const stores: Array<[string, () => Promise<StorePair>]> = [
  [
    'in memory',
    async () => {
      const store = new MemoryReceiverStore();
      return { store, reader: store };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const schema = `receiver_${randomBytes(4).toString('hex')}`;
      const store = new PostgresReceiverStore(pool, { schema });
      await store.migrate();
      return { store, reader: new PostgresReceiverStore(readerPool, { schema }) };
    },
  ],
  [
    'Redis',
    async () => {
      // The machine's Redis keeps no append-only file: the persistence check is off here.
      const keyPrefix = `${prefix}${randomBytes(4).toString('hex')}:`;
      return {
        store: new RedisReceiverStore(redis, { keyPrefix, persistence: 'off' }),
        reader: new RedisReceiverStore(readerRedis, { keyPrefix, persistence: 'off' }),
      };
    },
  ],
];

describe.each(stores)('access is applied when the event is recorded, before the 200: %s', (_, make) => {
  it(`is visible at the first read after the 200, behind ${BACKLOG} events and handlers that never return`, async () => {
    const { store, reader } = await make();
    const secret = newSecret();
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    let handlersStarted = 0;
    const slow = async () => {
      handlersStarted += 1;
      await blocked;
    };
    const receiver = createReceiver({
      secrets: [secret],
      store,
      handlers: { subscription_started: slow, subscription_renewed: slow },
      processor: { pollIntervalMs: 20 },
      logger: quiet,
    });
    receiver.start();
    const send = async (event: ReturnType<typeof entitlementEvent>) => {
      const signed = delivery(event, [secret]);
      const answer = await receiver.receive(signed.body, signed.headers);
      expect(answer.status).toBe(200);
    };
    try {
      const expiry = (i: number) => new Date(Date.UTC(2027, 0, 1) + i * 86_400_000).toISOString();
      for (let i = 0; i < BACKLOG; i++) await send(entitlementEvent({ user_id: `user-backlog-${i}`, expires_at: expiry(i) }));
      // The processor has claimed a batch and its handlers are stuck; the rest waits behind them.
      for (let i = 0; i < 200 && handlersStarted === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(handlersStarted).toBeGreaterThan(0);

      const measured: number[] = [];
      for (let i = 0; i < MEASURED; i++) {
        // Every other one renews a user whose first event's handler is running now.
        const user = i % 2 === 0 ? `user-new-${i}` : 'user-backlog-0';
        const expiresAt = expiry(BACKLOG + i);
        await send(entitlementEvent({ event: i % 2 === 0 ? 'subscription_started' : 'subscription_renewed', user_id: user, expires_at: expiresAt }));
        const answeredAt = performance.now();
        const seen = await reader.accessExpiry(user, 'pro-monthly');
        measured.push(performance.now() - answeredAt);
        expect(seen, `${user}'s access at the first read after the 200`).toEqual(new Date(expiresAt));
      }
      const counts = await reader.counts();
      expect(counts.processed).toBe(0);
      expect(counts.pending + counts.processing).toBe(BACKLOG + MEASURED);
      console.log(
        `[access at record] ${_}: ${MEASURED} deliveries behind ${BACKLOG} events and ${handlersStarted} stuck handlers; ` +
          `200 to access visible: max ${Math.max(...measured).toFixed(1)} ms (one read)`,
      );
    } finally {
      release();
      await receiver.stop();
    }
  });
});

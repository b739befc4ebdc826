/**
 * The Redis store: the store contract on the machine's Redis, and the persistence check (README,
 * "Redis") against Redis servers of this test's own, started with and without an append-only
 * file (skipped, saying why, where no `redis-server` binary exists).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@settle/testing';
import { createReceiver } from '../src/index.js';
import { ReceiverStoreNotDurableError } from '../src/errors.js';
import { RedisReceiverStore } from '../src/redis-store.js';
import { delivery, entitlementEvent } from './support/delivery.js';
import { deleteKeys, redisUrl, uniquePrefix } from './support/infra.js';
import { storeContract } from './store.contract.js';

let redis: Redis;
const run = uniquePrefix('store');
let stores = 0;

beforeAll(() => {
  redis = new Redis(redisUrl);
});

afterAll(async () => {
  await deleteKeys(redis, run);
  redis.disconnect();
});

// The machine's Redis keeps no append-only file: the contract runs with the check off.
storeContract('Redis', async () => new RedisReceiverStore(redis, { keyPrefix: `${run}${stores++}:`, persistence: 'off' }));

const GRANT = { userId: 'user-42', entitlement: 'pro-monthly', expiresAt: Date.parse('2027-01-01T00:00:00Z'), revision: null };
const record = (store: RedisReceiverStore) =>
  store.record({ eventId: randomUUID(), kind: 'subscription_started', payload: {}, state: 'pending', grant: GRANT, now: Date.now() });

/** A logger that keeps what it was told. */
function recordingLogger() {
  const warnings: Array<{ fields: object; message: string }> = [];
  return { warnings, warn: (fields: object, message: string) => warnings.push({ fields, message }) };
}

const redisServer = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
if (redisServer.status !== 0) {
  const reason = 'no redis-server binary on this machine to start a Redis with an append-only file';
  console.warn(`[redis persistence] skipped: ${reason}`);
  describe('the persistence check', () => {
    it.skip(`skipped: ${reason}`, () => undefined);
  });
} else {
  describe('the persistence check (README, "Redis")', () => {
    const servers: Array<{ child: ChildProcess; dir: string; client: Redis }> = [];

    /** A Redis server of this test's own, with these settings, and a client of it. */
    async function startRedis(settings: string[]): Promise<Redis> {
      const dir = mkdtempSync(join(tmpdir(), 'settle-receiver-redis-'));
      const port = await freePort();
      const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', ...settings], { stdio: 'ignore' });
      const client = new Redis({ port, host: '127.0.0.1', retryStrategy: (n) => (n > 50 ? null : 100) });
      client.on('error', () => undefined); // refused until the server listens; ping() waits for it
      servers.push({ child, dir, client });
      await client.ping();
      return client;
    }

    afterAll(async () => {
      for (const { child, dir, client } of servers) {
        client.disconnect();
        child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('require (the default), appendonly no: ready() and every record refuse, naming appendonly; a receiver answers 503, so nothing is acknowledged', async () => {
      const client = await startRedis(['--appendonly', 'no']);
      const store = new RedisReceiverStore(client);
      await expect(store.ready()).rejects.toBeInstanceOf(ReceiverStoreNotDurableError);
      await expect(store.ready()).rejects.toThrow(/appendonly is off.*persistence: 'warn'/);
      await expect(record(store)).rejects.toThrow(/appendonly is off/);
      expect(await store.counts()).toEqual({ pending: 0, processing: 0, processed: 0, failed: 0, ignored: 0 });

      const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      const receiver = createReceiver({ secrets: [secret], store, logger: { info: () => undefined, warn: () => undefined, error: () => undefined } });
      await expect(receiver.ready()).rejects.toThrow(/appendonly is off/);
      const signed = delivery(entitlementEvent(), [secret]);
      const answer = await receiver.receive(signed.body, signed.headers);
      expect(answer).toMatchObject({ status: 503, body: { code: 'RECEIVER.STORE_UNAVAILABLE' } });
    });

    it('warn, appendonly no: says so once, loudly, and records', async () => {
      const logger = recordingLogger();
      const client = await startRedis(['--appendonly', 'no']);
      const store = new RedisReceiverStore(client, { persistence: 'warn', logger });
      expect(await record(store)).toBe('recorded');
      expect(await record(store)).toBe('recorded');
      await store.ready();
      expect(logger.warnings).toEqual([
        { message: 'the Redis server can lose acknowledged events', fields: { problems: [expect.stringMatching(/appendonly is off/)] } },
      ]);
    });

    it('require: passes with appendonly yes, appendfsync always and noeviction, silently', async () => {
      const logger = recordingLogger();
      const client = await startRedis(['--appendonly', 'yes', '--appendfsync', 'always', '--maxmemory-policy', 'noeviction']);
      const store = new RedisReceiverStore(client, { logger });
      await store.ready();
      expect(await record(store)).toBe('recorded');
      expect(await store.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date(GRANT.expiresAt));
      expect(logger.warnings).toEqual([]);
    });

    it('require: passes with appendfsync everysec, warning that a crash can lose the last second', async () => {
      const logger = recordingLogger();
      const client = await startRedis(['--appendonly', 'yes', '--appendfsync', 'everysec', '--maxmemory-policy', 'noeviction']);
      const store = new RedisReceiverStore(client, { logger });
      await store.ready();
      expect(logger.warnings).toEqual([{ message: expect.any(String), fields: { problems: [expect.stringMatching(/appendfsync is everysec/)] } }]);
    });

    it('require: refuses an eviction policy that may delete recorded events', async () => {
      const client = await startRedis(['--appendonly', 'yes', '--appendfsync', 'always', '--maxmemory-policy', 'allkeys-lru']);
      await expect(new RedisReceiverStore(client).ready()).rejects.toThrow(/maxmemory-policy is allkeys-lru/);
    });
  });
}

import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createTestDatabase as createDatabase, infra } from '@settle/testing';
import { PostgresReceiverStore } from '../../src/postgres-store.js';

/**
 * A throwaway database (@settle/testing), whose `drop()` first waits for the connections of
 * ended pools to close: `pool.end()` resolves before their sockets do, and a forced drop would
 * fail them with an error nobody listens to.
 */
export async function createTestDatabase(prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const db = await createDatabase(prefix);
  const drop = async () => {
    const admin = new pg.Client({ connectionString: infra.adminDatabaseUrl });
    await admin.connect();
    try {
      for (const deadline = Date.now() + 5_000; Date.now() < deadline;) {
        const { rows } = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [db.name]);
        if (rows[0]!.n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await admin.end();
    }
    await db.drop();
  };
  return { url: db.url, drop };
}

/** The local Redis the tests use (`SETTLE_TEST_REDIS_URL`, default 127.0.0.1:6379). */
export const redisUrl = process.env.SETTLE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A unique key prefix for one test run, so runs never see each other's keys. */
export const uniquePrefix = (name: string): string => `settle-receiver-test:${name}:${randomBytes(4).toString('hex')}:`;

/** Deletes every key under `prefix`. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** A PostgreSQL store in a schema of its own (isolated counts), with its tables applied. */
export async function freshPostgresStore(
  pool: pg.Pool,
  schema = `receiver_${randomBytes(4).toString('hex')}`,
  options: { preparedStatements?: boolean } = {},
): Promise<PostgresReceiverStore> {
  const store = new PostgresReceiverStore(pool, { schema, ...options });
  await store.migrate();
  return store;
}

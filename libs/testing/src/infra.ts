import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Where the local infrastructure that scripts/local/test.sh starts listens. Ports follow the same
 * variables as the scripts; nothing here starts servers.
 */
export const infra = {
  kafkaBrokers: [`127.0.0.1:${process.env.SETTLE_KAFKA_PORT ?? '19092'}`],
  registryUrl: `http://127.0.0.1:${process.env.SETTLE_REGISTRY_PORT ?? '18081'}/apis/ccompat/v7`,
  /** Administrative connection used to create and drop per-test databases. */
  adminDatabaseUrl: process.env.SETTLE_TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  /**
   * Administrative connection of the PostgreSQL server the benchmarks create their databases on:
   * the stack's own cluster (`scripts/local/infra.sh`, `SETTLE_BENCH_ADMIN_DATABASE_URL`), else the tests'.
   */
  benchAdminDatabaseUrl:
    process.env.SETTLE_BENCH_ADMIN_DATABASE_URL ??
    process.env.SETTLE_TEST_ADMIN_DATABASE_URL ??
    process.env.DATABASE_URL ??
    'postgres://postgres@127.0.0.1:5432/postgres',
};

/**
 * A fresh, uniquely named database; `drop()` removes it.
 *
 * @param adminDatabaseUrl - the server to create it on (an administrative connection);
 *   default the local infrastructure's.
 */
export async function createTestDatabase(
  prefix: string,
  adminDatabaseUrl: string = infra.adminDatabaseUrl,
): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminDatabaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminDatabaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const c = new pg.Client({ connectionString: adminDatabaseUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** A unique topic prefix so test runs never see each other's messages. */
export function uniqueTopicPrefix(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/**
 * Runs SQL with the database's triggers switched off, in one transaction: what only a
 * superuser could do to a ledger, for tests that prove tampering is found.
 */
export async function withTriggersOff(pool: pg.Pool, sql: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query(sql);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

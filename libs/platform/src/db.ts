import pg from 'pg';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

/**
 * A PostgreSQL pool that survives the loss of idle connections. `bigint` columns come back as JS numbers: every one we store
 * (minor-unit amounts, revisions, positions) stays far below 2^53, and the parser
 * refuses anything larger rather than lose precision.
 */
export function createPool(connectionString: string, max = 10, onIdleError?: (error: Error) => void): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, application_name: 'settle' });
  // An idle connection that the server closes (restart, failover, terminated backend) is
  // reported here. Without a listener Node would crash the app; the pool replaces the
  // connection on next use, so it is only worth a log line.
  pool.on('error', (error) => onIdleError?.(error));
  return pool;
}

pg.types.setTypeParser(20, (value: string) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`bigint ${value} exceeds the safe integer range`);
  return n;
});

/**
 * Runs `work` in a transaction on one pooled connection: COMMIT when it resolves,
 * ROLLBACK when it throws (and the error is re-thrown).
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Applies idempotent DDL for one owner (an app or a lib) under an advisory lock, so apps
 * booting together never race on `CREATE ... IF NOT EXISTS`.
 *
 * @param owner - name used for the lock, for example `ledger`.
 * @param statements - SQL statements, each idempotent.
 */
export async function migrate(pool: pg.Pool, owner: string, statements: readonly string[]): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`settle-migrate:${owner}`]);
    for (const statement of statements) await client.query(statement);
  });
}

/** Whether an error is PostgreSQL's unique violation (SQLSTATE 23505). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505';
}

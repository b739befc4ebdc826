import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPool, inTransaction, isDatabaseUnavailable, POOL_IDLE_TIMEOUT_MS, type Pool, withClient } from '@settle/platform';
import pg from 'pg';
import { waitUntil } from '../../../scripts/ops/clients.js';
import { createTestDatabase } from '@settle/testing';

/**
 * The pool survives connections the server ends under it: a checked-out connection whose
 * backend is terminated (what a PostgreSQL restart does to every session, with 57P01) must
 * not crash the process with an unhandled `'error'` event, and the pool must serve the next
 * caller on a fresh connection. Vitest fails the run on any uncaught error, so each case also
 * proves that nothing escaped.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let admin: pg.Client;
let pool: Pool;
const lost: Error[] = [];

beforeAll(async () => {
  database = await createTestDatabase('settle_pool');
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  pool = createPool(database.url, 3, (error) => lost.push(error));
});

afterAll(async () => {
  await pool?.end();
  await admin?.end();
  await database?.drop();
});

/** Terminates the backend of a session, as a server shutdown does. */
async function terminate(pid: number): Promise<void> {
  const { rows } = await admin.query<{ done: boolean }>('SELECT pg_terminate_backend($1) AS done', [pid]);
  expect(rows[0]?.done).toBe(true);
}

async function backendPid(client: pg.PoolClient): Promise<number> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return rows[0]!.pid;
}

describe('a pool whose connections the server ends', () => {
  it('a checked-out connection terminated between queries is reported, not thrown, and discarded on release', async () => {
    const before = lost.length;
    const client = await pool.connect();
    const pid = await backendPid(client);
    await terminate(pid);
    await waitUntil('the loss to be reported', 5_000, async () => (lost.length > before ? true : undefined));
    expect((lost.at(-1) as { code?: string }).code).toBe('57P01');
    await expect(client.query('SELECT 1')).rejects.toThrow();
    client.release();
    const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(rows[0]!.pid).not.toBe(pid);
  });

  it('a transaction whose backend is terminated mid-statement rejects with the server error, and the pool recovers', async () => {
    let pid = 0;
    // The outcome is observed from the start: the rejection may come while `terminate` is awaited.
    const outcome = inTransaction(pool, async (client) => {
      pid = await backendPid(client);
      await client.query('SELECT pg_sleep(30)');
    }).then(
      () => null,
      (e: unknown) => e,
    );
    await waitUntil('the transaction to be running', 5_000, async () => (pid !== 0 ? true : undefined));
    await terminate(pid);
    const error = await outcome;
    expect(error).not.toBeNull();
    expect(isDatabaseUnavailable(error)).toBe(true);
    // Every connection of the pool is usable again: none of them is the terminated one.
    const pids = await Promise.all([1, 2, 3].map(() => inTransaction(pool, backendPid)));
    expect(pids).not.toContain(pid);
    expect(pool.totalCount).toBeLessThanOrEqual(3);
  });

  it('an idle connection terminated in the pool is reported and replaced on next use', async () => {
    const client = await pool.connect();
    const pid = await backendPid(client);
    client.release();
    const before = lost.length;
    await terminate(pid);
    await waitUntil('the loss to be reported', 5_000, async () => (lost.length > before ? true : undefined));
    const { rows } = await pool.query<{ ok: number }>('SELECT 1 AS ok');
    expect(rows).toEqual([{ ok: 1 }]);
  });

  it('every connection terminated at once, as in a restart: callers get errors, then the pool serves again', async () => {
    const clients = await Promise.all([pool.connect(), pool.connect(), pool.connect()]);
    const pids = await Promise.all(clients.map(backendPid));
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY($1::int[])', [pids]);
    await waitUntil('every loss to be reported', 5_000, async () =>
      clients.every((c) => !(c as unknown as { _queryable: boolean })._queryable) ? true : undefined,
    );
    const errors = await Promise.all(
      clients.map((c) =>
        c.query('SELECT 1').then(
          () => null,
          (e: unknown) => e,
        ),
      ),
    );
    expect(errors.every((e) => isDatabaseUnavailable(e))).toBe(true);
    for (const c of clients) c.release();
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => pool.query<{ ok: number }>('SELECT 1 AS ok')));
    expect(answers.map((a) => a.rows[0]!.ok)).toEqual([1, 1, 1, 1, 1]);
  });
});

describe('idle connections', () => {
  it('are kept through a lull of a minute (pg-pool closes them after 10 s by default) and closed after five', async () => {
    const idle = createPool(database.url, 3);
    try {
      // A burst opens three connections; released, they wait in the pool under fake timers.
      const clients = await Promise.all([idle.connect(), idle.connect(), idle.connect()]);
      const pids = await Promise.all(clients.map(backendPid));
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      try {
        for (const c of clients) c.release();
        vi.advanceTimersByTime(60_000);
        expect(idle.totalCount).toBe(3);
        vi.advanceTimersByTime(POOL_IDLE_TIMEOUT_MS - 60_000 + 1);
      } finally {
        vi.useRealTimers();
      }
      await waitUntil('the idle connections to be closed', 5_000, async () => (idle.totalCount === 0 ? true : undefined));
      // The pool counts a connection gone when it sends Terminate; the server's backend exits a
      // moment later, so the server side is awaited too rather than read once.
      const serverSide = async () =>
        (await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1::int[])', [pids])).rows[0]!.n;
      await waitUntil("the server's backends to exit", 5_000, async () => ((await serverSide()) === 0 ? true : undefined));
      expect(await serverSide()).toBe(0);
    } finally {
      await idle.end();
    }
  });
});

describe('a transaction opened with a first statement', () => {
  it('runs it inside the transaction, before the work: a transaction-level lock it takes is held by the work and released at COMMIT', async () => {
    const key = 424_242;
    const holders = async () =>
      (await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted`, [key])).rows[0]!.n;
    const inside = await inTransaction(
      pool,
      async (client) => {
        const { rows } = await client.query<{ open: boolean }>(`SELECT now() = statement_timestamp() AS open`);
        return { held: await holders(), sameTransaction: rows[0]!.open === false };
      },
      { firstStatement: `SELECT pg_advisory_xact_lock_shared(${key})` },
    );
    expect(inside).toEqual({ held: 1, sameTransaction: true });
    expect(await holders()).toBe(0);
  });
});

describe('prepared statements (docs/postgres.md, "Prepared statements")', () => {
  const prepared = async (client: pg.PoolClient) =>
    (await client.query<{ name: string; statement: string }>('SELECT name, statement FROM pg_prepared_statements ORDER BY name')).rows;

  it('a parameterised statement run again is prepared on the connection under a name, and answers as before', async () => {
    const one = createPool(database.url, 1);
    try {
      const text = 'SELECT $1::int + 1 AS n';
      const answers = [];
      for (const n of [1, 2, 3]) answers.push((await one.query<{ n: number }>(text, [n])).rows[0]!.n);
      expect(answers).toEqual([2, 3, 4]);
      await withClient(one, async (client) => {
        expect(await prepared(client)).toEqual([{ name: expect.stringMatching(/^settle_[0-9a-f]{24}$/), statement: text }]);
      });
    } finally {
      await one.end();
    }
  });

  it('a statement returning a table’s `*` is never prepared, so a column added meanwhile is simply returned', async () => {
    await admin.query('DROP TABLE IF EXISTS star_check; CREATE TABLE star_check (id int PRIMARY KEY); INSERT INTO star_check VALUES (1)');
    const one = createPool(database.url, 1);
    try {
      const text = 'SELECT * FROM star_check WHERE id = $1';
      for (let i = 0; i < 3; i += 1) expect((await one.query(text, [1])).rows).toEqual([{ id: 1 }]);
      await admin.query("ALTER TABLE star_check ADD COLUMN note text NOT NULL DEFAULT 'added'");
      expect((await one.query(text, [1])).rows).toEqual([{ id: 1, note: 'added' }]);
      await withClient(one, async (client) => expect(await prepared(client)).toEqual([]));
    } finally {
      await one.end();
    }
  });

  it('none are prepared when the pool is told not to (a pooler in transaction mode)', async () => {
    const one = createPool(database.url, 1, undefined, { preparedStatements: false });
    try {
      for (const n of [1, 2, 3]) await one.query('SELECT $1::int AS n', [n]);
      await withClient(one, async (client) => expect(await prepared(client)).toEqual([]));
    } finally {
      await one.end();
    }
  });
});

import { createHash } from 'node:crypto';
import pg from 'pg';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

/** Longest wait for a connection (a new one, or a pooled one to be released), milliseconds. */
const CONNECTION_TIMEOUT_MS = 30_000;
/** Idle time after which TCP keep-alive probes a connection, milliseconds: a vanished server is noticed. */
const KEEP_ALIVE_INITIAL_DELAY_MS = 10_000;
/**
 * Idle time after which the pool closes a connection, milliseconds (pg-pool's default is 10 s).
 * The pool hands out its most recently released connection first, so under a steady load the
 * connections a burst opened sit idle and, at 10 s, were closed and opened again by the next
 * burst, about one a second per app: each a new PostgreSQL backend (a process started, its
 * caches filled) for nothing (docs/benchmarks.md, "Connections kept"). Five minutes keeps them
 * through a lull and still gives them back after a spike.
 */
export const POOL_IDLE_TIMEOUT_MS = 300_000;

/**
 * A PostgreSQL pool that rides out the loss of its connections (a server restart or failover,
 * a terminated backend): every connection the pool creates gets an `error` listener the
 * moment it connects, so a connection that breaks, idle or checked out, is reported through
 * `onConnectionLost` instead of crashing the process with an unhandled `'error'` event. A
 * broken connection is discarded when it is released (it is no longer queryable) and the
 * pool opens a new one on next use; the queries that were running on it reject with the
 * server's error (57P01 `admin_shutdown`, `ECONNRESET`, ...), for the caller to retry.
 *
 * Waiting for a connection is bounded ({@link CONNECTION_TIMEOUT_MS}) and TCP keep-alive is on,
 * so a call never waits for ever on a server that vanished without closing its sockets. An idle
 * connection is kept {@link POOL_IDLE_TIMEOUT_MS} (five minutes) before the pool closes it.
 *
 * `bigint` columns come back as JS numbers: every one we store (minor-unit amounts,
 * revisions, positions) stays far below 2^53, and the parser refuses anything larger rather
 * than lose precision.
 *
 * Repeated parameterised statements run as named prepared statements
 * ({@link PreparedStatementNames}: parsed and planned once per connection, not at every call)
 * unless `options.preparedStatements` is `false`, for a connection pooler in transaction mode
 * that does not keep prepared statements (docs/postgres.md, "Prepared statements").
 *
 * @param max - most connections open at once.
 * @param onConnectionLost - called once for each connection that broke, with its error.
 * @param options.preparedStatements - run repeated statements as prepared ones (default `true`).
 */
export function createPool(
  connectionString: string,
  max = 10,
  onConnectionLost?: (error: Error) => void,
  options: { preparedStatements?: boolean } = {},
): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    ...(options.preparedStatements === false ? {} : { Client: clientWithPreparedStatements(new PreparedStatementNames()) }),
    application_name: 'settle',
    connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
    idleTimeoutMillis: POOL_IDLE_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_INITIAL_DELAY_MS,
  });
  pool.on('connect', (client) => {
    let reported = false;
    client.on('error', (error: Error) => {
      // A client may emit more than once (the server's message, then the socket closing).
      if (reported) return;
      reported = true;
      onConnectionLost?.(error);
    });
  });
  // pg-pool re-emits the error of an idle connection on the pool after discarding it; the
  // connection's own listener above has reported it already.
  pool.on('error', () => undefined);
  return pool;
}

/** Most statements one process names ({@link PreparedStatementNames}): each connection may hold as many. */
export const MAX_PREPARED_STATEMENTS = 200;
/** Most distinct statement texts counted while deciding which repeat; later new texts run unnamed. */
const MAX_COUNTED_TEXTS = 2_000;
/**
 * A result whose columns are a table's `*` (`SELECT *`, `SELECT t.*`, `RETURNING *`), except
 * `* FROM unnest(...)`, whose columns are the statement's own parameters.
 */
const TABLE_STAR_RESULT = /(?:\bselect|\breturning|,)\s+(?:"?\w+"?\.)?\*(?!\s*from\s+unnest\s*\()/i;

/**
 * Which statements a process runs as named prepared statements, and their names. PostgreSQL
 * parses, analyses and plans an unnamed statement at every execution; a named one once per
 * connection (after five executions it may keep a generic plan), so a stage's transaction and
 * its relay's pass (ten statements) cost the backend about two fifths less CPU, and a checkout a
 * third less of Settle's PostgreSQL end to end (docs/postgres.md, "Prepared statements"). A
 * statement is named when:
 *
 * - it has parameters (a `values` array: it goes by the extended protocol already; `BEGIN`,
 *   `COMMIT` and multi-statement texts do not);
 * - its text was seen before in this process, so a text built once (an ad-hoc filter) does not
 *   leave a prepared statement on the connection;
 * - its result is not a table's `*`: PostgreSQL refuses to run a prepared statement whose result
 *   columns changed ("cached plan must not change result type", SQLSTATE 0A000), which a
 *   migration adding a column would cause on every connection of an instance still running;
 * - fewer than {@link MAX_PREPARED_STATEMENTS} texts are named already, so a connection's
 *   prepared statements stay bounded.
 *
 * The name is a digest of the text (`settle_` and 24 hex digits of its SHA-256): the same text
 * always has the same name, so pg never meets one name for two texts on a connection.
 */
export class PreparedStatementNames {
  private readonly seen = new Map<string, string | null>();
  private named = 0;

  constructor(private readonly limit = MAX_PREPARED_STATEMENTS) {}

  /** The name to prepare `text` under, or `undefined` to run it unnamed this time. */
  nameOf(text: string): string | undefined {
    const known = this.seen.get(text);
    if (typeof known === 'string') return known;
    if (known === undefined) {
      if (this.seen.size < MAX_COUNTED_TEXTS) this.seen.set(text, null);
      return undefined;
    }
    if (this.named >= this.limit || TABLE_STAR_RESULT.test(text)) return undefined;
    const name = `settle_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    this.seen.set(text, name);
    this.named += 1;
    return name;
  }
}

/**
 * pg's client with `query(text, values[, callback])` run as a named statement where `names`
 * gives one; every other form (a config object, a stream, a text without values) is left as
 * it is. pg prepares the name on a connection's first use of it and only binds it afterwards.
 */
function clientWithPreparedStatements(names: PreparedStatementNames): typeof pg.Client {
  // pg's own implementation, always called with the client as `this`.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const query = pg.Client.prototype.query as (this: pg.Client, config: unknown, values?: unknown, callback?: unknown) => unknown;
  return class extends pg.Client {
    // Every overload of pg's query funnels into this one implementation.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    override query(config: unknown, values?: unknown, callback?: unknown): any {
      const name = typeof config === 'string' && Array.isArray(values) ? names.nameOf(config) : undefined;
      return name === undefined ? query.call(this, config, values, callback) : query.call(this, { name, text: config, values }, callback);
    }
  };
}

pg.types.setTypeParser(20, (value: string) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`bigint ${value} exceeds the safe integer range`);
  return n;
});

/**
 * Runs `work` with one pooled connection and releases it afterwards, always. A connection
 * that `work` marks broken (its state unknown, for example after a failed ROLLBACK) is
 * released with that error, so the pool closes it instead of handing it to the next caller;
 * one whose socket broke is never handed out again either (pg marks it unqueryable).
 *
 * @param work - receives the client, and `markBroken(error)` to discard the connection on release.
 * @throws whatever `work` throws, or the pool's error when no connection could be had.
 */
export async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient, markBroken: (error: Error) => void) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    return await work(client, (error) => {
      broken ??= error;
    });
  } finally {
    client.release(broken);
  }
}

/**
 * Runs `work` in a transaction on one pooled connection: COMMIT when it resolves,
 * ROLLBACK when it throws (and the error is re-thrown). When the ROLLBACK itself fails (the
 * connection broke, or its state is unknown), the connection is discarded rather than
 * returned to the pool. A failed COMMIT leaves the outcome unknown to the caller, as with any
 * database: callers retry idempotent work.
 *
 * @param options.firstStatement - SQL without parameters run in BEGIN's round trip, before
 *   `work` (`BEGIN; <firstStatement>`, one simple query): a lock `work`'s statements must be
 *   taken under, so that their snapshots are taken after it is held.
 * @throws the error of `work`, of BEGIN or COMMIT, or of the pool when no connection could be had.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, options: { firstStatement?: string } = {}): Promise<T> {
  return withClient(pool, async (client, markBroken) => {
    try {
      await client.query(options.firstStatement === undefined ? 'BEGIN' : `BEGIN; ${options.firstStatement}`);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => markBroken(toError(rollbackError)));
      throw error;
    }
  });
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Whether an error is PostgreSQL's unique violation (SQLSTATE 23505). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505';
}

/**
 * Whether PostgreSQL refused a statement for the data it carried (SQLSTATE class 22, data
 * exception: a character it cannot store such as `\u0000` in `jsonb` (22P05) or a NUL byte in
 * `text` (22021), a string too long (22001), a number out of range (22003)), rather than for
 * being unreachable or for a fault of the statement: the same data fails again, so the error is
 * the caller's input, never a reason to retry.
 */
export function isDataException(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}

/** Socket errors of a lost or refused connection. */
const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** Messages pg gives a connection that ended or could not be had (they carry no code). */
const CONNECTION_ERROR_MESSAGE = /Connection terminated|not queryable|timeout exceeded when trying to connect|Cannot use a pool after calling end/;

/**
 * Whether an error means the database is unreachable for now (down, restarting, shutting
 * down, too many connections) rather than that the statement was wrong: SQLSTATE class 08
 * (connection exception), 57P01-57P03 (shutdown, crash, cannot connect now), 53300 (too many
 * connections), a refused or reset socket, or pg's own "connection terminated" errors. Such
 * an error is transient: the same work succeeds once the database is back.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') return true;
    if (CONNECTION_ERROR_CODES.has(code)) return true;
  }
  return typeof message === 'string' && CONNECTION_ERROR_MESSAGE.test(message);
}

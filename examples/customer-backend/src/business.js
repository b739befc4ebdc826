/**
 * The example's own business logic: what a customer writes. Each run of an event inserts one row
 * into `entitlement_runs`, through the transaction the kit hands over, so the row commits
 * together with the kit marking the event processed: exactly once per event_id, which the
 * tests check. A run that throws rolls its row back and is retried by the kit.
 */

/** The example's own table, beside the kit's (idempotent). */
export const BUSINESS_DDL = `
CREATE TABLE IF NOT EXISTS entitlement_runs (
  event_id    text NOT NULL,
  event       text NOT NULL,
  user_id     text NOT NULL,
  entitlement text NOT NULL,
  expires_at  timestamptz NOT NULL,
  ran_at      timestamptz NOT NULL DEFAULT now()
);`;

/**
 * The handler for every event kind (grants, revocations, reinstatements).
 *
 * @param {{ failFirstRuns: number, runDelayMs?: number, pool: import('pg').Pool }} options -
 *   `failFirstRuns`: the first n runs of each event in this process throw after their insert, to
 *   show retries and failed events (EXAMPLE_FAIL_FIRST_RUNS). `runDelayMs`: each run first waits
 *   this long, in milliseconds, inside the kit's transaction, to watch a database connection lost
 *   mid-run or a slow business logic (EXAMPLE_RUN_DELAY_MS, default 0). `pool`: where the row
 *   goes when the kit's store gives no transaction (the Redis store): at least once, then.
 * @returns {import('@settle/receiver').EventHandler<import('pg').PoolClient | undefined>}
 */
export function recordRun({ failFirstRuns, runDelayMs = 0, pool }) {
  /** @type {Map<string, number>} runs so far per event_id, for EXAMPLE_FAIL_FIRST_RUNS */
  const runs = new Map();
  return async (event, { tx }) => {
    if (runDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, runDelayMs));
    await (tx ?? pool).query('INSERT INTO entitlement_runs (event_id, event, user_id, entitlement, expires_at) VALUES ($1, $2, $3, $4, $5)', [
      event.event_id,
      event.event,
      event.user_id,
      event.entitlement,
      event.expires_at,
    ]);
    // Anything else here (an email, a call to another service) happens at least once: make it
    // idempotent by event.event_id.
    const run = (runs.get(event.event_id) ?? 0) + 1;
    runs.set(event.event_id, run);
    if (run <= failFirstRuns) {
      throw new Error(`EXAMPLE_FAIL_FIRST_RUNS: run ${run} of ${event.event_id} fails on purpose`);
    }
  };
}

/**
 * Business-logic runs that committed, per event kind.
 *
 * @param {import('pg').Pool} pool
 * @returns {Promise<Record<string, number>>}
 */
export async function runsByKind(pool) {
  const { rows } = await pool.query('SELECT event, count(*)::int AS n FROM entitlement_runs GROUP BY event ORDER BY event');
  return Object.fromEntries(rows.map((row) => [row.event, row.n]));
}

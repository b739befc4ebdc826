import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { DEFAULT_RECOVERY_POLICY, type RecoveryPolicy } from '@settle/domain';
import { Outbox } from '@settle/messaging';
import { createLogger, createPool } from '@settle/platform';
import { SweeperService } from '../apps/sweeper/src/sweeper.service.js';
import { WatchStore } from '../apps/sweeper/src/watch.store.js';
import { waitUntil } from '../scripts/ops/clients.js';
import { infra, startSweeperBed, type SweeperBed, type SweeperProcess } from '@settle/testing';
import { percentile } from './support/proc.js';

const INACTIVITY_MS = DEFAULT_RECOVERY_POLICY.inactivityMs;
/**
 * The bulk of open transactions is held in review with its next re-check hours away, so that
 * only the measured sets fall due during the run. Everything else is the production default.
 */
const STRETCHED_RECHECK = { initialDelayMs: 6 * 3_600_000, maxDelayMs: 12 * 3_600_000 };
const POLICY: RecoveryPolicy = { ...DEFAULT_RECOVERY_POLICY, recheck: { ...DEFAULT_RECOVERY_POLICY.recheck, ...STRETCHED_RECHECK } };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} ms`;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.match(/(\d+)/)?.[1] ?? 0) * 1024;
}

const refs = (n: number, tag: string) => {
  const run = randomUUID().slice(0, 6);
  return Array.from({ length: n }, (_, i) => `ref_${tag}_${run}_${i}`);
};

async function countWhere(bed: SweeperBed, where: string, params: unknown[] = []): Promise<number> {
  const { rows } = await bed.db.query<{ n: string }>(`SELECT count(*) AS n FROM sweeper.watch_state WHERE ${where}`, params);
  return Number(rows[0]!.n);
}

/** Tick cost measured in-process on the same classes the app runs, owning all six partitions. */
async function measureTicks(bed: SweeperBed, label: string, dueCount: number): Promise<{ idle: number[]; dueMs: number; fired: number }> {
  const pool = createPool(bed.databaseUrl, 4);
  const logger = createLogger('bench-sweeper', 'warn');
  let offset = 0;
  const store = new WatchStore(pool, `bench-${label}`);
  const service = new SweeperService({
    pool,
    store,
    outbox: new Outbox('sweeper', bed.topics, bed.codec),
    relay: { wake: () => undefined },
    policy: POLICY,
    tick: { intervalMs: 250, batchSize: 1_000 },
    logger,
    clock: () => Date.now() + offset,
  });
  service.onAssignment({ [bed.topics.transactionEvents]: [0, 1, 2, 3, 4, 5], [bed.topics.consensusResults]: [0, 1, 2, 3, 4, 5] });
  // Idle: nothing due. One tick is a sweep plus the look-up of the next due time.
  const idle: number[] = [];
  for (let i = 0; i < 320; i++) {
    const started = performance.now();
    const { published } = await service.sweep();
    await store.nextDueAt(service.ownedPartitions());
    if (published !== 0) throw new Error('something fell due during the idle measurement');
    if (i >= 20) idle.push(performance.now() - started); // the first ones warm caches and plans
  }
  idle.sort((a, b) => a - b);
  // Due: the clock moves past the measured set's due time; sweep until it is drained.
  offset = INACTIVITY_MS + 1_000;
  const started = performance.now();
  let fired = 0;
  for (;;) {
    const { published } = await service.sweep();
    fired += published;
    if (published < 1_000) break;
  }
  const dueMs = performance.now() - started;
  if (fired !== dueCount) throw new Error(`expected ${dueCount} due, fired ${fired}`);
  await pool.end();
  return { idle, dueMs, fired };
}

/**
 * `npm run bench -- sweeper [open=1000000] [due=10000]`: the sweeper with a million open
 * transactions loaded through Kafka (docs/spec.md, section 8, at scale).
 * - Memory: the sweeper process's RSS before and after loading, and the durable state per
 *   open transaction in PostgreSQL (table and due index).
 * - Tick cost with nothing due and with `due` watches due, on a nearly empty store and on the
 *   loaded one: it must follow the due set, not the open set.
 * - Detection lag: from the moment a transaction has had 45 s without activity to the Kafka
 *   timestamp of its verification request, for `due` orphans arriving over 10 s and for `due`
 *   orphans all registered in the same millisecond.
 */
export async function sweeperBenchmark(args: string[]): Promise<void> {
  const open = Number(args[0] ?? 1_000_000);
  const due = Number(args[1] ?? 10_000);
  const env = {
    LOG_LEVEL: 'warn',
    SWEEPER_RECHECK_INITIAL_DELAY_MS: String(STRETCHED_RECHECK.initialDelayMs),
    SWEEPER_RECHECK_MAX_DELAY_MS: String(STRETCHED_RECHECK.maxDelayMs),
  };
  const bed = await startSweeperBed(env, { adminDatabaseUrl: infra.benchAdminDatabaseUrl });
  let sweeper: SweeperProcess | null = null;
  try {
    // 1. A nearly empty store: `due` orphans only.
    sweeper = await bed.start('small');
    const small = refs(due, 'small');
    await bed.register(small);
    await waitUntil('the small set to be stored', 120_000, async () => ((await countWhere(bed, 'true')) === due ? true : undefined));
    await sweeper.stop();
    const smallTicks = await measureTicks(bed, 'small', due);

    // 2. Load `open` transactions held in review through Kafka.
    sweeper = await bed.start('load');
    await sleep(2_000);
    const rssBefore = rssOf(sweeper.pid);
    const bulk = refs(open, 'open');
    const loadStarted = performance.now();
    for (let i = 0; i < bulk.length; i += 50_000) {
      const chunk = bulk.slice(i, i + 50_000);
      await bed.register(chunk);
      await bed.results(chunk, 'PENDING', 'RECOVERING');
      process.stdout.write(`\r  produced ${(i + chunk.length).toLocaleString('en')} / ${open.toLocaleString('en')} open transactions`);
    }
    const producedSeconds = (performance.now() - loadStarted) / 1000;
    process.stdout.write('\n');
    await waitUntil('every open transaction to be stored, held in review', 1_800_000, async () =>
      (await countWhere(bed, "status = 'RECOVERING'")) === open ? true : undefined,
    );
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    await sleep(3_000);
    const rssAfter = rssOf(sweeper.pid);
    const { rows: size } = await bed.db.query<{ total: string; table: string; due_index: string; pkey: string; n: string }>(
      `SELECT pg_total_relation_size('sweeper.watch_state') AS total, pg_relation_size('sweeper.watch_state') AS table,
              pg_relation_size('sweeper.watch_state_due') AS due_index, pg_relation_size('sweeper.watch_state_pkey') AS pkey,
              (SELECT count(*) FROM sweeper.watch_state) AS n`,
    );
    const stored = Number(size[0]!.n);

    // 3. The same number due, now among the loaded store.
    const large = refs(due, 'large');
    await bed.register(large);
    await waitUntil('the second due set to be stored', 120_000, async () =>
      (await countWhere(bed, 'reference = ANY($1)', [large])) === due ? true : undefined,
    );
    await sweeper.stop();
    await bed.db.query('ANALYZE sweeper.watch_state');
    const largeTicks = await measureTicks(bed, 'large', due);

    // 4. Detection lag through the running app: orphans spread over 10 s, then a burst.
    sweeper = await bed.start('lag');
    await sleep(3_000);
    const spread: Array<{ references: string[]; at: number }> = [];
    const perSecond = Math.ceil(due / 10);
    const spreadRefs = refs(due, 'spread');
    for (let i = 0; i < due; i += perSecond) {
      const chunk = spreadRefs.slice(i, i + perSecond);
      const at = Date.now();
      await bed.register(chunk, at);
      spread.push({ references: chunk, at });
      await sleep(Math.max(0, 1_000 - (Date.now() - at)));
    }
    const burstRefs = refs(due, 'burst');
    const burstAt = Date.now();
    await bed.register(burstRefs, burstAt);
    const dueAtOf = new Map<string, number>();
    for (const s of spread) for (const r of s.references) dueAtOf.set(r, s.at + INACTIVITY_MS);
    for (const r of burstRefs) dueAtOf.set(r, burstAt + INACTIVITY_MS);
    await waitUntil('every orphan to be requested', 180_000, async () => {
      const seen = new Set(bed.requests.filter((r) => dueAtOf.has(r.reference)).map((r) => r.reference));
      return seen.size === dueAtOf.size ? true : undefined;
    });
    const lags = (wanted: readonly string[]) => {
      const set = new Set(wanted);
      return bed.requests
        .filter((r) => set.has(r.reference))
        .map((r) => r.publishedAt - dueAtOf.get(r.reference)!)
        .sort((a, b) => a - b);
    };
    const spreadLags = lags(spreadRefs);
    const burstLags = lags(burstRefs);
    const rssLag = rssOf(sweeper.pid);

    const tickRow = (label: string, t: { idle: number[]; dueMs: number }, openCount: number) =>
      `| ${label} | ${openCount.toLocaleString('en')} | ${ms(percentile(t.idle, 50))} | ${ms(percentile(t.idle, 99))} | ${ms(t.dueMs)} (${((t.dueMs * 1000) / due).toFixed(0)} µs per request) |`;
    console.log(
      `\nopen transactions loaded: ${stored.toLocaleString('en')} (${(2 * open).toLocaleString('en')} Kafka records produced in ${producedSeconds.toFixed(0)} s, all stored after ${loadSeconds.toFixed(0)} s: ${((2 * open) / loadSeconds).toFixed(0)} records/s)`,
    );
    console.log('\nmemory');
    console.log(
      `  sweeper RSS: ${mb(rssBefore)} before loading, ${mb(rssAfter)} with ${open.toLocaleString('en')} open (${((rssAfter - rssBefore) / open).toFixed(1)} B per open transaction), ${mb(rssLag)} after the lag run`,
    );
    const total = Number(size[0]!.total);
    console.log(
      `  durable state: ${mb(total)} in PostgreSQL, ${(total / stored).toFixed(0)} B per open transaction (table ${mb(Number(size[0]!.table))}, primary key ${mb(Number(size[0]!.pkey))}, due index ${mb(Number(size[0]!.due_index))})`,
    );
    console.log('\ntick cost (one sweep plus the next-due look-up; due: sweeps of 1,000 until drained)');
    console.log('| store | open transactions | idle tick p50 | idle tick p99 | ' + `${due.toLocaleString('en')} due |`);
    console.log('|---|---|---|---|---|');
    console.log(tickRow('nearly empty', smallTicks, due));
    console.log(tickRow('loaded', largeTicks, stored + due));
    console.log('\ndetection lag (Kafka timestamp of the request minus the moment 45 s of inactivity passed)');
    console.log('| arrival | requests | p50 | p99 | max |');
    console.log('|---|---|---|---|---|');
    for (const [label, l] of [
      [`${due.toLocaleString('en')} over 10 s`, spreadLags],
      [`${due.toLocaleString('en')} at once`, burstLags],
    ] as const) {
      console.log(`| ${label} | ${l.length} | ${ms(percentile(l, 50))} | ${ms(percentile(l, 99))} | ${ms(l.at(-1)!)} |`);
    }
  } finally {
    await bed.close();
  }
}

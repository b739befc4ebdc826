import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ChainVerifier, LEDGER_MIGRATIONS, PostgresLedger, type LedgerEventInput } from '@settle/ledger';
import { createPool, inTransaction, migrateSchema, type Pool } from '@settle/platform';
import { createTestDatabase, infra } from '@settle/testing';

const CLI = fileURLToPath(new URL('../scripts/ops/ledger.js', import.meta.url));

/** A ledger event of realistic size: a settlement with its four checks (about 900 bytes of JSON). */
function outcome(reference: string): LedgerEventInput {
  return {
    eventId: randomUUID(),
    type: 'TransactionSettled',
    data: {
      reference,
      provider: 'paystack',
      outcome: 'SETTLED_CONSENSUS',
      state: 'SETTLED_CONSENSUS',
      entitlement_status: 'UNLOCKED',
      trigger: 'webhook_received',
      verdict: 'cleared',
      provider_status: 'success',
      detail: null,
      checks: [
        { check: 'transaction_identity', passed: true, code: null, expected: reference, observed: reference },
        { check: 'currency', passed: true, code: null, expected: 'NGN', observed: 'NGN' },
        { check: 'amount', passed: true, code: null, expected: '500000', observed: '500000' },
        { check: 'customer', passed: true, code: null, expected: 'ada@example.com', observed: 'ada@example.com' },
      ],
      expected: { amount_minor: 500_000, currency: 'NGN', user_id: `user-${reference}`, entitlement: 'pro-monthly' },
      observed: { amount_minor: 500_000, charged_amount_minor: null, currency: 'NGN', provider_transaction_id: '4099260516' },
      decided_at: Date.now(),
    },
    metadata: { correlationId: randomUUID(), causationId: randomUUID() },
  };
}

const RAW_DDL = [
  'CREATE SCHEMA IF NOT EXISTS bench',
  `CREATE TABLE IF NOT EXISTS bench.raw_events (
     position bigserial PRIMARY KEY, stream_id text NOT NULL, revision bigint NOT NULL, event_id uuid NOT NULL UNIQUE,
     event_type text NOT NULL, data jsonb NOT NULL, metadata jsonb NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now(),
     UNIQUE (stream_id, revision))`,
];

interface Run {
  perSecond: number;
  p50: number;
  p99: number;
  count: number;
}

/** Runs `op` from `writers` concurrent loops for `seconds`, timing each call. */
async function drive(writers: number, seconds: number, op: (i: number) => Promise<void>): Promise<Run> {
  const latencies: number[] = [];
  let next = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (performance.now() < deadline) {
        const i = next++;
        const t = performance.now();
        await op(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  return { perSecond: latencies.length / elapsed, p50: q(0.5), p99: q(0.99), count: latencies.length };
}

async function appendRun(pool: Pool, writers: number, seconds: number): Promise<Run> {
  const ledger = new PostgresLedger(pool);
  const tag = randomUUID().slice(0, 6);
  return drive(writers, seconds, async (i) => {
    await ledger.append(`transaction-ref_${tag}_${i}`, [outcome(`ref_${tag}_${i}`)], 'no_stream');
  });
}

async function rawRun(pool: Pool, writers: number, seconds: number): Promise<Run> {
  const tag = randomUUID().slice(0, 6);
  return drive(writers, seconds, async (i) => {
    const e = outcome(`ref_${tag}_${i}`);
    await pool.query('INSERT INTO bench.raw_events (stream_id, revision, event_id, event_type, data, metadata) VALUES ($1, 0, $2, $3, $4, $5)', [
      `transaction-ref_${tag}_${i}`,
      e.eventId,
      e.type,
      JSON.stringify(e.data),
      JSON.stringify(e.metadata),
    ]);
  });
}

/**
 * `npm run bench -- ledger [seconds=15] [replay=1000000]`:
 * - appends per second and p50/p99 latency through the port on PostgreSQL (one event per
 *   append, a new stream each: what the projector does per settlement), with 1 and with 16
 *   concurrent writers, against raw single-row INSERTs of the same rows into a plain table
 *   (no revision check, no chains, no head), same connections, same run: the ratio is the
 *   price of optimistic concurrency, idempotency and the tamper-evident chains;
 * - replay: `replay` events loaded through the port (50 per append), then read back in
 *   global order through the port, verified (both chains), and exported as JSON Lines by
 *   the ops command line.
 */
export async function ledgerBenchmark(args: string[]): Promise<void> {
  const seconds = Number(args[0] ?? 15);
  const replayCount = Number(args[1] ?? 1_000_000);
  const database = await createTestDatabase('settle_bench_ledger', infra.benchAdminDatabaseUrl);
  const pool = createPool(database.url, 17);
  try {
    await migrateSchema(pool, LEDGER_MIGRATIONS);
    await inTransaction(pool, async (client) => {
      for (const statement of RAW_DDL) await client.query(statement);
    });
    console.log(`appends (${seconds} s per run, one ${JSON.stringify(outcome('ref_x').data).length}-byte event per append)`);
    console.log('| writers | through the port | p50 | p99 | raw INSERT | p50 | p99 | ratio |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const writers of [1, 16]) {
      await appendRun(pool, writers, 2); // warm-up
      const port = await appendRun(pool, writers, seconds);
      await rawRun(pool, writers, 2);
      const raw = await rawRun(pool, writers, seconds);
      const f = (n: number) => `${n.toFixed(2)} ms`;
      console.log(
        `| ${writers} | ${Math.round(port.perSecond).toLocaleString('en')}/s | ${f(port.p50)} | ${f(port.p99)} | ${Math.round(raw.perSecond).toLocaleString('en')}/s | ${f(raw.p50)} | ${f(raw.p99)} | ${(port.perSecond / raw.perSecond).toFixed(2)} |`,
      );
    }

    // Replay: fill up to `replayCount` events, then read them all back.
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM ledger.events');
    const have = Number(rows[0]!.n);
    const ledger = new PostgresLedger(pool);
    const loadStarted = performance.now();
    const tag = randomUUID().slice(0, 6);
    let appended = 0;
    const missing = Math.max(0, replayCount - have);
    await Promise.all(
      Array.from({ length: 4 }, async (_, w) => {
        for (let s = w; s * 50 < missing; s += 4) {
          const stream = `transaction-ref_fill_${tag}_${s}`;
          await ledger.append(
            stream,
            Array.from({ length: Math.min(50, missing - s * 50) }, () => outcome(stream)),
            'no_stream',
          );
          appended += 50;
          if (s % 400 === 0) process.stderr.write(`\r  loaded ${Math.min(appended, missing).toLocaleString('en')} / ${missing.toLocaleString('en')} events`);
        }
      }),
    );
    process.stderr.write('\n');
    const total = have + missing;
    console.log(`\nreplay of ${total.toLocaleString('en')} events (loaded through the port in ${((performance.now() - loadStarted) / 1000).toFixed(0)} s)`);
    let started = performance.now();
    let read = 0;
    for (let after = 0; ;) {
      const page = await ledger.readAll(after, 5_000);
      if (page.length === 0) break;
      read += page.length;
      after = page.at(-1)!.position;
    }
    const readSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    const verifier = new ChainVerifier({ checkGlobal: true });
    for (let after = 0; ;) {
      const page = await ledger.readAll(after, 5_000);
      if (page.length === 0) break;
      for (const e of page) if (verifier.check(e)) throw new Error(`chain broken at ${e.position}`);
      after = page.at(-1)!.position;
    }
    const verifySeconds = (performance.now() - started) / 1000;
    started = performance.now();
    const cli = spawnSync(process.execPath, [CLI, 'replay'], {
      env: { ...process.env, DATABASE_URL: database.url },
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    const cliSeconds = (performance.now() - started) / 1000;
    if (cli.status !== 0) throw new Error(`ledger replay failed: ${cli.stderr}`);
    console.log('| pass | events | time | events/s |');
    console.log('|---|---|---|---|');
    const row = (label: string, n: number, s: number) =>
      console.log(`| ${label} | ${n.toLocaleString('en')} | ${s.toFixed(1)} s | ${Math.round(n / s).toLocaleString('en')} |`);
    row('read in global order through the port (pages of 5,000)', read, readSeconds);
    row('read and verify both SHA-256 chains', verifier.checked, verifySeconds);
    row('`settle ledger replay` to JSON Lines (stdout to /dev/null)', read, cliSeconds);
  } finally {
    await pool.end();
    await database.drop();
  }
}

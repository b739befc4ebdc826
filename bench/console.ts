/**
 * `npm run bench -- console [transactions=1000000] [requests=200]`: the operations console's
 * transaction list and search over a large book (docs/console.md; the issue's target: p99 at
 * most 100 ms over 1,000,000 transactions).
 *
 * A fresh database on the benchmarks' PostgreSQL gets the schemas the console reads, migrated by
 * their owners' migrations (ingestion's checkouts, the read models, the ledger) and the console's
 * own, then `transactions` checkouts with their read-model rows, generated in SQL: four
 * providers, a realistic mix of states (most settled; a few declined, State Mismatch, held in
 * review, in manual review), a user for every five checkouts, an email and a phone each, updated
 * over 90 days; an entitlement event and its delivery per settled transaction, 1 in 200 of the
 * deliveries given up (the overview's dead-lettered deliveries). The console runs as its own process (the built app); the benchmark signs in and
 * asks, `requests` times each, one request at a time (the latency of one operator's page): the
 * first page, a page deep in the list by its cursor, each rare filter, a search by a whole
 * reference, a user id, an email, a phone, and a broad reference prefix. It reports p50, p99
 * and max per request kind: the whole HTTP answer (session check, the queries, JSON), so an
 * upper bound of the query time; and, as the baseline of the same run, the first page's query
 * alone from a pg client.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS } from '@settle/ledger';
import { createPool, migrateSchemas } from '@settle/platform';
import { ROOT, spawnApp, createTestDatabase, infra, freePort } from '@settle/testing';

interface Kind {
  name: string;
  path: () => string;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

export async function consoleBenchmark(args: string[]): Promise<void> {
  const total = Number(args[0] ?? 1_000_000);
  const requests = Number(args[1] ?? 200);
  const database = await createTestDatabase('settle_bench_console', infra.benchAdminDatabaseUrl);
  const pool = createPool(database.url, 2);
  const dir = mkdtempSync(join(tmpdir(), 'settle-bench-console-'));
  let app: Awaited<ReturnType<typeof spawnApp>> | null = null;
  try {
    await migrateSchemas(pool, [
      { schema: 'ingestion', dir: join(ROOT, 'apps/ingestion/migrations/ingestion') },
      LEDGER_MIGRATIONS,
      READ_MODEL_MIGRATIONS,
      { schema: 'dispatcher', dir: join(ROOT, 'apps/dispatcher/migrations/dispatcher') },
    ]);
    const seeding = performance.now();
    // One statement per table, rows numbered 1..total; state by the row number's remainder.
    await pool.query(
      `INSERT INTO ingestion.checkouts (reference, provider, amount_minor, currency, user_id, customer_email, customer_phone,
                                        entitlement, request_sha256, correlation_id, registered_at, access_period)
       SELECT 'ref_bench_' || lpad(n::text, 8, '0'),
              (ARRAY['paystack','stripe','flutterwave','mpesa'])[1 + n % 4],
              50000 + (n % 997) * 500, 'NGN', 'user_' || (n / 5), 'payer' || n || '@example.com', '+2547' || lpad(n::text, 8, '0'),
              'pro-monthly', md5(n::text), 'corr-' || n, now() - make_interval(secs => (n % 7776000)), 'P1M'
         FROM generate_series(1, $1::int) AS n`,
      [total],
    );
    await pool.query(
      `INSERT INTO read_model.transaction_status (reference, provider, state, entitlement_status, amount_minor, currency, checks,
                                                 last_verdict, last_trigger, ledger_revision, updated_at)
       SELECT 'ref_bench_' || lpad(n::text, 8, '0'),
              (ARRAY['paystack','stripe','flutterwave','mpesa'])[1 + n % 4],
              s.state, s.entitlement, 50000 + (n % 997) * 500, 'NGN', NULL, s.verdict, 'webhook_received', 0,
              now() - make_interval(secs => (n % 7776000)) + make_interval(secs => 30)
         FROM generate_series(1, $1::int) AS n,
              LATERAL (SELECT CASE WHEN n % 200 = 0 THEN 'MANUAL_REVIEW' WHEN n % 50 = 1 THEN 'RECOVERING'
                                   WHEN n % 33 = 2 THEN 'STATE_MISMATCH' WHEN n % 14 = 3 THEN 'FAILED_DECLINED'
                                   ELSE 'SETTLED_CONSENSUS' END AS state) AS st,
              LATERAL (SELECT st.state,
                              CASE st.state WHEN 'SETTLED_CONSENSUS' THEN 'UNLOCKED' WHEN 'RECOVERING' THEN 'HELD_IN_REVIEW'
                                            WHEN 'MANUAL_REVIEW' THEN 'HELD_IN_REVIEW' ELSE 'LOCKED' END AS entitlement,
                              CASE st.state WHEN 'FAILED_DECLINED' THEN 'declined' WHEN 'RECOVERING' THEN 'clearing'
                                            WHEN 'MANUAL_REVIEW' THEN 'unreachable' ELSE 'cleared' END AS verdict) AS s`,
      [total],
    );
    // The overview's dead-lettered deliveries: an entitlement event and its delivery to one
    // endpoint per settled transaction, 1 in 200 given up (state failed).
    const endpoint = '00000000-0000-4000-8000-00000000bec0';
    await pool.query(
      `INSERT INTO dispatcher.endpoints (id, url, event_kinds, secret_version) VALUES ($1, 'https://bench.example.com/hooks', ARRAY['entitlement.granted'], 1)`,
      [endpoint],
    );
    await pool.query(
      `INSERT INTO dispatcher.events (event_id, event, user_id, entitlement, reference, correlation_id, body, published_at)
       SELECT md5(t.reference)::uuid, 'entitlement.granted', 'user_bench', 'pro-monthly', t.reference, 'corr', '{}', t.updated_at
         FROM read_model.transaction_status t WHERE t.state = 'SETTLED_CONSENSUS'`,
    );
    await pool.query(
      `INSERT INTO dispatcher.deliveries (event_id, endpoint_id, state, attempts)
       SELECT e.event_id, $1, CASE WHEN row_number() OVER (ORDER BY e.event_id) % 200 = 0 THEN 'failed' ELSE 'delivered' END, 1
         FROM dispatcher.events e`,
      [endpoint],
    );
    await pool.query('ANALYZE dispatcher.deliveries');
    await pool.query('ANALYZE ingestion.checkouts');
    await pool.query('ANALYZE read_model.transaction_status');
    const seededSeconds = (performance.now() - seeding) / 1000;

    const port = await freePort();
    app = await spawnApp(
      'console',
      {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        SETTLE_ENV: 'test',
        LOG_LEVEL: 'warn',
        DATABASE_URL: database.url,
        CONSOLE_PORT: String(port),
        CONSOLE_INGESTION_URL: 'http://127.0.0.1:9',
        CONSOLE_INGESTION_ADMIN_API_KEY: 'unused-by-this-benchmark',
      },
      dir,
    );
    const base = `http://127.0.0.1:${port}`;
    const password = randomBytes(18).toString('base64url');
    const created = spawnSync(process.execPath, [join(ROOT, 'dist/apps/console/src/cli/create-user.js'), '--email', 'bench@example.com', '--role', 'viewer'], {
      input: `${password}\n`,
      env: { PATH: process.env.PATH, DATABASE_URL: database.url },
      encoding: 'utf8',
    });
    if (created.status !== 0) throw new Error(`create-user failed: ${created.stderr}`);
    const signIn = await fetch(`${base}/api/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', password }),
    });
    if (signIn.status !== 200) throw new Error(`sign-in answered ${signIn.status}`);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    const get = async (path: string) => {
      const answer = await fetch(`${base}${path}`, { headers: { cookie } });
      const body = (await answer.json()) as { items?: unknown[]; nextCursor?: string | null };
      if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${JSON.stringify(body)}`);
      return body;
    };

    // A cursor 100 pages deep (5,000 rows in), walked once before the timed runs.
    let deep = '';
    for (let i = 0; i < 100; i++) deep = (await get(`/api/v1/transactions?limit=50${deep ? `&cursor=${encodeURIComponent(deep)}` : ''}`)).nextCursor ?? '';
    const someone = Math.floor(total / 2);
    const ref = (n: number) => `ref_bench_${String(n).padStart(8, '0')}`;
    const kinds: Kind[] = [
      { name: 'first page (50, newest first)', path: () => '/api/v1/transactions?limit=50' },
      { name: 'a page 100 pages deep (cursor)', path: () => `/api/v1/transactions?limit=50&cursor=${encodeURIComponent(deep)}` },
      { name: 'filter: manual review (0.5 %)', path: () => '/api/v1/transactions?limit=50&state=MANUAL_REVIEW' },
      { name: 'filter: held in review', path: () => '/api/v1/transactions?limit=50&entitlement=HELD_IN_REVIEW' },
      { name: 'filter: provider mpesa', path: () => '/api/v1/transactions?limit=50&provider=mpesa' },
      { name: 'search: a whole reference', path: () => `/api/v1/transactions?q=${ref(1 + Math.floor(Math.random() * total))}` },
      { name: 'search: a user id', path: () => `/api/v1/transactions?q=user_${Math.floor(Math.random() * (total / 5))}` },
      { name: 'search: an email', path: () => `/api/v1/transactions?q=Payer${1 + Math.floor(Math.random() * total)}@Example.com` },
      { name: 'search: a phone', path: () => `/api/v1/transactions?q=%2B2547${String(1 + Math.floor(Math.random() * total)).padStart(8, '0')}` },
      { name: 'search: a broad prefix (ref_bench_0)', path: () => '/api/v1/transactions?q=ref_bench_0' },
      { name: 'overview (counts, dead-lettered deliveries, chains)', path: () => '/api/v1/overview' },
    ];
    // Every search finds what it looks for (a sanity check, not timed).
    if (((await get(`/api/v1/transactions?q=${ref(someone)}`)).items ?? []).length !== 1) throw new Error('the reference search found nothing');
    if (((await get(`/api/v1/transactions?q=user_${someone / 5}`)).items ?? []).length === 0) throw new Error('the user search found nothing');

    console.log(
      `transactions: ${total.toLocaleString('en-US')} checkouts and read-model rows, an entitlement event and its delivery per settled one, seeded and analysed in ${seededSeconds.toFixed(1)} s`,
    );
    console.log(`requests: ${requests} per kind, one at a time, after 10 of warm-up; the console as its own process (dist/apps/console), HTTP on loopback`);
    console.log('');
    console.log('| request | p50 (ms) | p99 (ms) | max (ms) | rows |');
    console.log('|---|---:|---:|---:|---:|');
    let worstP99 = 0;
    for (const kind of kinds) {
      for (let i = 0; i < 10; i++) await get(kind.path());
      const times: number[] = [];
      let rows = 0;
      for (let i = 0; i < requests; i++) {
        const started = performance.now();
        const body = await get(kind.path());
        times.push(performance.now() - started);
        rows = body.items?.length ?? rows;
      }
      times.sort((a, b) => a - b);
      const p99 = percentile(times, 99);
      if (!kind.name.startsWith('overview')) worstP99 = Math.max(worstP99, p99);
      console.log(
        `| ${kind.name} | ${percentile(times, 50).toFixed(1)} | ${p99.toFixed(1)} | ${times.at(-1)!.toFixed(1)} | ${kind.name.startsWith('overview') ? '-' : rows} |`,
      );
    }
    // The baseline, in the same run: the first page's query alone, straight from a pg client (no
    // HTTP, no session check, no JSON): what the console's answers are measured against.
    const bare: number[] = [];
    for (let i = 0; i < requests + 10; i++) {
      const started = performance.now();
      await pool.query(
        `SELECT t.reference, t.provider, t.state, t.entitlement_status, t.amount_minor, t.currency, c.user_id, c.customer_email, t.updated_at
           FROM read_model.transaction_status t LEFT JOIN ingestion.checkouts c ON c.reference = t.reference
          ORDER BY t.updated_at DESC, t.reference DESC LIMIT 51`,
      );
      if (i >= 10) bare.push(performance.now() - started);
    }
    bare.sort((a, b) => a - b);
    console.log(
      `| baseline: the first page's query alone, from a pg client | ${percentile(bare, 50).toFixed(1)} | ${percentile(bare, 99).toFixed(1)} | ${bare.at(-1)!.toFixed(1)} | 51 |`,
    );
    // The overview's new read, alone: the dead-lettered deliveries, on the dispatcher's partial index.
    const failed: number[] = [];
    for (let i = 0; i < requests + 10; i++) {
      const started = performance.now();
      await pool.query("SELECT count(*)::bigint AS n FROM dispatcher.deliveries WHERE state = 'failed'");
      if (i >= 10) failed.push(performance.now() - started);
    }
    failed.sort((a, b) => a - b);
    console.log(
      `| baseline: the overview's failed-deliveries count alone, from a pg client | ${percentile(failed, 50).toFixed(1)} | ${percentile(failed, 99).toFixed(1)} | ${failed.at(-1)!.toFixed(1)} | 1 |`,
    );
    console.log('');
    console.log(
      `goal: list and search p99 ≤ 100 ms over ${total.toLocaleString('en-US')} transactions: ${worstP99 <= 100 ? 'met' : 'NOT met'} (worst p99 ${worstP99.toFixed(1)} ms)`,
    );
  } finally {
    await app?.stop();
    await pool.end();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

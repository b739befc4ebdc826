import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createPool } from '@settle/platform';
import { ROOT, infra } from '@settle/testing';
import { profileMarkdown, summariseCpuProfiles, type CpuProfile } from '../support/cpuprofile.js';
import { summariseProfile } from '../support/live-profile.js';
import { fmt } from '../support/table.js';
import { parseOptions, type Options } from './options.js';
import { machineInfo, phaseTable, soakText, spreadOf, spreadTable } from './report.js';
import { RunReport, runOnce } from './run.js';

// The end-to-end benchmark, one concern per file: options.ts (the command line), checkouts.ts (the
// load: prepared checkouts and the webhook client), watches.ts (following each checkout to the
// ledger, the topic and the customer's kit), monitor.ts (lag, backlogs, PostgreSQL, CPU and memory
// samples), measures.ts (percentiles, processes), phase.ts (one offered rate or burst), run.ts (one
// run: stack, idle, phases), report.ts (tables), and this file (the entry point and the JSON).
/*
 * End-to-end throughput, of the stack as `./settle up` starts it: signed Paystack
 * `charge.success` webhooks for registered, paid checkouts, sent to the real ingestion app at
 * fixed offered rates (open loop) and as a burst, followed through the whole stack to the ledger
 * (the projector's `TransactionSettled` append), to `SettlementRecorded` on the settlements
 * topic, and through the dispatcher to the customer's backend: the example customer backend
 * (examples/customer-backend, the receiver kit from its packed tarball on a PostgreSQL database of
 * its own) is the dispatcher's endpoint, and the time its kit recorded each checkout's entitlement
 * event, which is when it applied the access, ends the path. The bare Kafka round trip
 * (bench/support/kafka-roundtrip.ts) is measured in the same run as the floor.
 *
 * The apps run with the settings `./settle up` gives them (their own defaults: the dispatcher's
 * retry schedule and poll, the providers' time-outs; `SETTLE_ENV=development`; `LOG_LEVEL=info`),
 * the console among them, except the sweeper's inactivity window: an hour instead of 45 s, so
 * that it does not verify the checkouts prepared for a phase before their webhooks are sent (it
 * still follows every event). What differs from `./settle up` besides: each run has a fresh
 * database and topic prefix on the local infrastructure, and the benchmark's own observers
 * (a consumer of the settlements topic, polls of the ledger and of the kit's table). With
 * `--ledger-only`, neither the customer backend nor the console runs: the dispatcher delivers
 * nothing and the path ends at the ledger and the topic, as this benchmark measured before.
 *
 * `npm run bench -- e2e [--rates=100,250,500,1000,2000] [--seconds=20] [--burst=2000]
 *   [--warmup=10] [--warmup-rate=<first rate>] [--runs=1] [--json=docs/benchmarks/e2e.json] [--soak=0] [--soak-rate=500]
 *   [--profile=<app>|all] [--hops] [--drain-timeout=120] [--drain-max=3600] [--stats-flush=11]
 *   [--idle=60] [--idle-quiet=65]
 *   [--connections=256] [--burst-concurrency=64] [--burst-hold=<app>] [--prepare-concurrency=32] [--log-level=info]
 *   [--ledger-only] [--disabled-endpoints=0] [--set [app:]KEY=VALUE ...]`
 *
 * After the stack starts, an unreported warm-up phase (`--warmup` seconds at `--warmup-rate`, by default the first rate)
 * compiles the hot paths of the apps and of the Kafka and registry JVMs; then, once the stack has
 * been quiet `--idle-quiet` seconds (the once-a-minute jobs have caught up with the warm-up), the
 * idle stack's PostgreSQL work and CPU are measured for `--idle` seconds (a minute holds one run of
 * each once-a-minute job), the background every phase runs on.
 *
 * Per phase (one offered rate for `--seconds`, then the burst):
 *
 * 1. Preparation, not measured: `rate × seconds` checkouts (`--burst` for the burst),
 *    `--prepare-concurrency` at a time, each created in the provider sandbox with its own webhook dropped, paid there, and
 *    registered with ingestion (Paystack, 250 000 NGN, access period P1M); the webhook body the
 *    sandbox would have sent (its exact shape, from the paid transaction) is built and signed
 *    (hex HMAC-SHA512 of the raw body, the Paystack secret key). The phase starts once the
 *    verifier holds every registration (`verifier.transactions`), every consumer group has
 *    caught up and every outbox is published.
 * 2. Load: the webhooks are sent on an open-loop timetable (one every 1/rate s, whatever the
 *    answers; an undici Agent with `--connections` keep-alive connections), or for the burst as
 *    fast as `--burst-concurrency` requests in flight allow. Answers other than 2xx (and socket
 *    errors) are errors, counted and reported.
 * 3. Per checkout, from its webhook's 2xx answer: to its ledger settlement (`recorded_at` of its
 *    `TransactionSettled` event in `ledger.events`, which the projector stamps inside the
 *    appending transaction, shortly before its commit), to the arrival of its `SettlementRecorded` at
 *    this benchmark's own consumer of the settlements topic, and to its access applied by the
 *    customer backend's receiver kit (`received_at` of its entitlement event in the kit's
 *    `settle_receiver.events`: the kit's clock when it recorded the event and, in the same
 *    statement, applied the access). The drain waits until every accepted webhook has all three,
 *    giving up only after `--drain-timeout` seconds without progress (or `--drain-max` in all): a
 *    stack slower than the offered rate shows up as lag and drain time, not as a failure. Then
 *    it waits until the kit has run the business logic of every event (its processor, after the
 *    200), so that the phase's CPU includes it.
 *    With `--hops`, the same path is split into hops (bench/support/hop-watch.ts, a consumer of the
 *    transaction-events and consensus-results topics): 2xx → the webhook on transaction-events
 *    (the record's producer timestamp: ingestion's relay sent it), → verified (the settled
 *    `ConsensusResult`'s `occurred_at`: the verifier consumed it, asked the provider and
 *    decided), → the result on consensus-results (the verifier's commit and relay), → the
 *    ledger (the projector), → the `SettlementRecorded` arrival; each hop's own p50 / p99 / max.
 * 4. Sampled every second: consumer lag of each of the stack's consumer groups
 *    (`<topicPrefix>-<app>`: committed offsets against the partitions' high watermarks, over
 *    the topics each member subscribed), outbox backlog of every schema with an `outbox` table
 *    (unpublished rows, or all rows where the table has no `published_at`), and each app's RSS.
 * 5. CPU per settled checkout of every process (/proc: each app, the customer backend,
 *    PostgreSQL's processes for the stack's database and, apart, for the customer backend's, the
 *    Kafka broker, the schema registry, this process), from the first
 *    webhook to the end of the drain; PostgreSQL work per settled checkout from
 *    `pg_stat_database` (commits, blocks hit + read) and `pg_stat_wal` (WAL bytes, cluster-wide)
 *    between snapshots taken `--stats-flush` seconds after the system went quiet (PostgreSQL
 *    publishes a backend's counters up to 10 s late), without this benchmark's own queries, and
 *    also net of the idle stack's background rate, measured once per run.
 * 6. Exactly once: every reference whose webhook was accepted has exactly one
 *    `TransactionSettled` in the ledger and at least one `SettlementRecorded` on the topic, all
 *    copies with the same event id (a relay may publish a message twice; those are counted as
 *    duplicate deliveries), exactly one entitlement event at the customer backend's kit, and its
 *    business logic run exactly once (the example's `entitlement_runs`). Anything else ends the benchmark with an error, after the figures
 *    are printed and written.
 * 7. Baseline: the bare Kafka round trip of the same number of messages, of the mean size of the
 *    phase's `SettlementRecorded` messages, at the same offered rate (or as a burst), on fresh
 *    topics with the partition count of Settle's settlements topic; every Settle throughput is
 *    also given as a ratio to it.
 *
 * `--burst-hold=<app>` stops that app (SIGSTOP) while the burst is sent and resumes it once every
 * webhook is answered: it comes back to the whole burst as its backlog, as after an outage, and
 * the phase measures the drain (its latencies include the hold) and each app's peak RSS under it.
 *
 * `--soak=<seconds>` adds a long phase at `--soak-rate` whose checkouts are prepared while it
 * runs, `--soak-lead` (30) seconds ahead of the timetable; it reports per-minute latency percentiles and each
 * app's RSS every 10 s, with the drift from the first to the last minute.
 *
 * `--profile=all` profiles every app (the console included, the customer backend not) and prints
 * each app's busy time by library (the innermost package on the stack, `summariseProfile`).
 *
 * `--profile=<app>`: the app is started with `NODE_OPTIONS='--cpu-prof --cpu-prof-dir=<tmp>'`
 * (startStack's per-app `env`); V8 writes its profile when the process exits, which it does
 * cleanly on the SIGTERM of `stack.stop()` (a SIGKILL, after 10 s, would lose it). The same can
 * be done by hand for any run of the stack:
 * `startStack({ ..., env: { verifier: { NODE_OPTIONS: '--cpu-prof --cpu-prof-dir=/tmp/prof' } } })`,
 * then open the `.cpuprofile` in Chrome DevTools or summarise it with
 * bench/support/cpuprofile.ts. The top 25 functions by self time are printed and written to
 * `<app>.cpuprofile.md` next to the JSON (`docs/benchmarks/` by default). Profiling slows the app: figures of a profiled run
 * are not comparable with an unprofiled one.
 */

/**
 * The end-to-end benchmark: webhooks in at fixed offered rates and as a burst, settlements out
 * in the ledger and on the settlements topic, against the bare Kafka round trip; per phase
 * throughput, latency percentiles, consumer lag, outbox backlog, CPU, RSS and PostgreSQL work
 * per checkout, and an exactly-once check. See the file's header for the arguments.
 *
 * @throws Error (after printing and writing the figures) when the exactly-once check fails.
 */
/**
 * `--profile=all`: each app's busy CPU time by the library whose call led to it (the innermost
 * package or Settle's own code on the stack: pg's socket writes count for pg; `summariseProfile`),
 * as a share of the app's busy samples over its whole life (start, warm-up, preparation, phases),
 * the 14 largest libraries over all apps as rows.
 */
function librariesByApp(runs: readonly RunReport[]): string {
  const shares = new Map<string, Map<string, number>>();
  for (const run of runs)
    for (const [app, pid] of Object.entries(run.apps)) {
      const file = run.profileFiles.find((f) => f.includes(`.${pid}.`));
      if (!file) continue;
      const summary = summariseProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
      const busy = Math.max(1, summary.totalMs - summary.idleMs);
      shares.set(app, new Map(summary.libraries.map(([library, ms]) => [library, (100 * ms) / busy])));
    }
  if (shares.size === 0) return 'profile: no .cpuprofile was written (an app must exit on SIGTERM within 10 s for V8 to write it)';
  const apps = [...shares.keys()];
  const totals = new Map<string, number>();
  for (const byLibrary of shares.values()) for (const [library, pct] of byLibrary) totals.set(library, (totals.get(library) ?? 0) + pct);
  const rows = [...totals].sort((a, b) => b[1] - a[1]).slice(0, 14);
  const cell = (app: string, library: string) => `${fmt(shares.get(app)?.get(library) ?? 0, 0)} %`;
  return [
    'CPU profile of every app, share of its busy time by library (`--profile=all`; the profiler slows the apps: other figures of this run are not comparable):',
    `| library | ${apps.join(' | ')} |`,
    `|---|${apps.map(() => '---:').join('|')}|`,
    ...rows.map(([library]) => `| ${library} | ${apps.map((app) => cell(app, library)).join(' | ')} |`),
  ].join('\n');
}

/** What `--set` gave the apps, for the report's first line ('' for the defaults). */
function settingsText(options: Options): string {
  const pairs = (env: Record<string, string>) =>
    Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
  const parts = Object.keys(options.appEnv).length > 0 ? [`every app with ${pairs(options.appEnv)}`] : [];
  for (const [app, env] of Object.entries(options.appEnvByApp)) parts.push(`${app} with ${pairs(env)}`);
  if (options.disabledEndpoints > 0) parts.push(`${options.disabledEndpoints} disabled endpoints beside the customer's`);
  return parts.map((p) => `; ${p}`).join('');
}

export async function e2eBenchmark(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const log = (line: string) => console.log(line);
  const started = new Date();
  const info = machineInfo();
  let postgresVersion: string | null = null;
  {
    const admin = createPool(infra.benchAdminDatabaseUrl, 1);
    try {
      postgresVersion = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version ?? null;
    } finally {
      await admin.end();
    }
  }
  log(
    `load: signed Paystack charge.success webhooks (the sandbox's own body) for registered, paid checkouts; open loop at ${options.rates.map((r) => `${r}/s`).join(', ') || 'no fixed rate'} ` +
      `for ${options.seconds} s each (${options.connections} keep-alive connections)${options.burst ? `, then a burst of ${options.burst} (${options.burstConcurrency} in flight)` : ''}` +
      `${options.soakSeconds ? `, then a soak at ${options.soakRate}/s for ${options.soakSeconds} s` : ''}; ${options.runs} run(s); PostgreSQL ${postgresVersion}, kafkajs ${String(info.kafkajs)}` +
      settingsText(options),
  );
  const runs: RunReport[] = [];
  const jsonPath = resolve(ROOT, options.json);
  const write = () => {
    const spread = spreadOf(runs);
    mkdirSync(dirname(jsonPath), { recursive: true });
    writeFileSync(
      jsonPath,
      `${JSON.stringify(
        {
          benchmark: 'e2e',
          date: started.toISOString(),
          finished: new Date().toISOString(),
          ...info,
          postgres: postgresVersion,
          options,
          runs,
          spread,
        },
        (_key, value: unknown) => (typeof value === 'number' && !Number.isFinite(value) ? null : value),
        2,
      )}\n`,
    );
  };
  let failure: string | null = null;
  const profileFiles: string[] = [];
  for (let run = 1; run <= options.runs && !failure; run++) {
    const report = await runOnce(run, options, log);
    runs.push(report);
    profileFiles.push(...report.profileFiles);
    console.log('');
    console.log(`run ${run} of ${options.runs} (${report.database}, ${report.settlementPartitions} partitions per topic):`);
    console.log(phaseTable(report));
    for (const phase of report.phases) if (phase.soak) console.log(`\n${soakText(phase)}`);
    const bg = report.pgBackground;
    if (bg) {
      console.log(
        `\nPostgreSQL per checkout: between snapshots ${options.statsFlushS} s after quiet, without this benchmark's own queries; "net" also subtracts the idle stack's ` +
          `${fmt(bg.commitsPerSecond, 1)} commits/s, ${fmt(bg.blocksPerSecond)} blocks/s and ${fmt(bg.walBytesPerSecond)} WAL bytes/s (WAL is cluster-wide).`,
      );
    }
    failure = report.failure;
    write();
  }
  if (runs.length > 1) {
    console.log('');
    console.log(spreadTable(spreadOf(runs), runs.length));
  }
  console.log(`\nwritten to ${jsonPath}`);

  if (options.profile === 'all') console.log(`\n${librariesByApp(runs)}`);
  else if (options.profile) {
    if (profileFiles.length === 0) {
      console.log(`\nprofile: no .cpuprofile was written by ${options.profile} (it must exit on SIGTERM within 10 s for V8 to write it)`);
    } else {
      const summary = summariseCpuProfiles(profileFiles, 25);
      const md = profileMarkdown(`CPU profile of ${options.profile} under the e2e benchmark`, summary, [
        `Written by \`npm run bench -- e2e ${args.join(' ')}\` on ${started.toISOString()} (git ${String((info.git as { commit: string | null }).commit)}).`,
        `The app ran with \`NODE_OPTIONS='--cpu-prof'\` for the whole run, preparation and drains included; self time by function, compiled JavaScript locations (dist/), no source maps.`,
        `Raw profiles: ${profileFiles.join(', ')}.`,
      ]);
      const mdPath = resolve(ROOT, dirname(options.json), `${options.profile}.cpuprofile.md`);
      mkdirSync(dirname(mdPath), { recursive: true });
      writeFileSync(mdPath, md);
      console.log(`\n${md}`);
      console.log(`written to ${mdPath}`);
    }
  }
  if (failure) throw new Error(failure);
}

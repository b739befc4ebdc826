import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { infra, uniqueTopicPrefix, startStack, type RunningStack } from '@settle/testing';
import { startBaseline, type BaselineProcess } from './support/baseline-process.js';
import { profiled, summariseProfile } from './support/live-profile.js';
import { chargeSuccessBody } from './support/paystack-charge.js';
import { childPids, cpuDelta, infraGroups, percentile, snapshot, type CpuDelta, type Groups } from './support/proc.js';
import { fmt, table } from './support/table.js';
import { signedWebhookLoad, type LoadResult } from './support/webhook-load.js';

/*
 * Webhook ingest: sustained autocannon load of valid, signed, all-different Paystack
 * `charge.success` webhooks against the real ingestion app (Nest on Fastify, inbox + outbox
 * in one PostgreSQL transaction, outbox relay to Kafka with the idempotent acks=all
 * producer), compared in the same run with a bare node:http server doing the signature check
 * and the Kafka produce itself (bench/ingest-baseline.ts). Columns: the ingestion app with the
 * whole stack running (the verifier and sweeper consume every event it publishes, on the same
 * two cores), the ingestion app with those consumers paused, and the baseline. CPU per request
 * comes from /proc/<pid>/stat of each server process; a last, shorter load runs under the V8
 * profiler to show where the ingestion process's time goes. The parts: the webhook bodies
 * (support/paystack-charge.ts), the load (support/webhook-load.ts), the baseline's process
 * (support/baseline-process.ts) and the profiler (support/live-profile.ts).
 *
 * `npm run bench -- ingest [seconds=30] [--connections=32] [--warmup=5] [--profile=10|0]
 *   [--profile-connections=8] [--no-paused] [--log-level=info] [--baseline-produce=batch|send]`
 */

const GOAL = { rps: 3_000, p99Ms: 25, ratio: 0.8 };
const WEBHOOK_PATH = '/v1/webhooks/paystack';
const INGESTION_MAIN = 'dist/apps/ingestion/src/main.js';
// bench/ (sources) or dist/bench/ (compiled): the baseline always runs compiled.
const BASELINE_MAIN = fileURLToPath(new URL(import.meta.url.includes('/dist/') ? './ingest-baseline.js' : '../dist/bench/ingest-baseline.js', import.meta.url));

interface Options {
  seconds: number;
  connections: number;
  warmupSeconds: number;
  profileSeconds: number;
  logLevel: string;
  baselineProduce: 'batch' | 'send';
  /** Also measure ingestion with the verifier, sweeper and ledger projector paused. */
  pausedPhase: boolean;
  /** Connections of the profiled load: fewer than the measured load, so the machine is not saturated and samples are mostly on-CPU time. */
  profileConnections: number;
}

function parseOptions(args: string[]): Options {
  const options: Options = {
    seconds: 30,
    connections: 32,
    warmupSeconds: 5,
    profileSeconds: 10,
    logLevel: 'info',
    baselineProduce: 'batch',
    pausedPhase: true,
    profileConnections: 8,
  };
  for (const arg of args) {
    const [key, value] = arg.startsWith('--') ? (arg.slice(2).split('=', 2) as [string, string | undefined]) : ['seconds', arg];
    const number = () => {
      const n = Number(value);
      if (!Number.isFinite(n) || n < 0) throw new Error(`--${key} needs a non-negative number, got ${value}`);
      return n;
    };
    if (key === 'seconds') options.seconds = number();
    else if (key === 'connections' || key === 'c') options.connections = Math.max(1, Math.round(number()));
    else if (key === 'warmup') options.warmupSeconds = number();
    else if (key === 'profile') options.profileSeconds = value === undefined ? 10 : number();
    else if (key === 'no-profile') options.profileSeconds = 0;
    else if (key === 'log-level' && value) options.logLevel = value;
    else if (key === 'no-paused') options.pausedPhase = false;
    else if (key === 'profile-connections') options.profileConnections = Math.max(1, Math.round(number()));
    else if (key === 'baseline-produce' && (value === 'batch' || value === 'send')) options.baselineProduce = value;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (options.seconds < 1) throw new Error('the load must last at least 1 s');
  return options;
}

function errorsText(r: LoadResult): string {
  const statuses = [...r.statuses].filter(([s]) => s < 200 || s >= 300).map(([s, c]) => `${c}×${s}`);
  const codes = [...r.errorCodes].map(([code, c]) => `${c}×${code}`);
  return [...statuses, ...codes].join(', ') || 'none';
}

/** Reads until two reads 250 ms apart agree: requests still in flight when a load stopped have landed. */
async function settled<T>(read: () => Promise<T>, key: (value: T) => number): Promise<T> {
  let last = await read();
  for (let i = 0; i < 40; i++) {
    await new Promise((r) => setTimeout(r, 250));
    const now = await read();
    if (key(now) === key(last)) return now;
    last = now;
  }
  return last;
}

interface IngestionPhase {
  load: LoadResult;
  /** CPU from the load's start until the outbox was empty again. */
  untilPublished: CpuDelta;
  stored: number;
  pendingAtEnd: number;
  drainSeconds: number;
}

/**
 * Webhook ingest throughput, latency and CPU per request through the real ingestion app, and
 * the same load against the bare baseline, in one run. See the file's header for arguments.
 */
export async function ingestBenchmark(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const sample = chargeSuccessBody('bench-sample-0000000000', 123_456);
  console.log(
    `load: autocannon in this process, ${options.connections} keep-alive connections × 1 request in flight (closed loop), ` +
      `${options.seconds} s measured per column after ${options.warmupSeconds} s of warm-up per server, on ${cpus().length} cores shared with every server, PostgreSQL, Kafka and the registry`,
  );
  console.log(
    `body: Paystack charge.success, ${Buffer.byteLength(sample)} bytes; every request a new event (fresh reference, id, timestamps), HMAC-SHA512 signed as it is built`,
  );
  console.log(
    'checkouts: not registered (a webhook for an unknown reference is verified, stored in inbox + outbox and published to Kafka all the same; the verifier then skips it)',
  );
  console.log(`ingestion: the real app from dist/ (startStack, LOG_LEVEL=${options.logLevel}), outbox relay with the idempotent acks=all producer`);
  console.log(
    `baseline: bare node:http (bench/ingest-baseline.ts), same signature check, same ProviderWebhookReceived Avro record, idempotent acks=all produce before 200 ` +
      `(${options.baselineProduce === 'batch' ? 'records of concurrent requests coalesced into one sendBatch' : 'one producer.send per request'})`,
  );

  const stack: RunningStack = await startStack({ inactivityMs: 3_600_000, logLevel: options.logLevel, adminDatabaseUrl: infra.benchAdminDatabaseUrl });
  let baseline: BaselineProcess | null = null;
  let stopped: number[] = [];
  try {
    const [ingestionPid] = childPids(INGESTION_MAIN);
    if (!ingestionPid) throw new Error(`no child process runs ${INGESTION_MAIN}`);
    const otherApps = childPids('dist/apps/').filter((pid) => pid !== ingestionPid);
    const consumers = ['verifier', 'sweeper', 'ledger-projector'].flatMap((app) => childPids(`dist/apps/${app}/src/main.js`));
    const baselinePrefix = uniqueTopicPrefix('bench-baseline');
    baseline = await startBaseline(BASELINE_MAIN, {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: infra.registryUrl,
      SETTLE_TOPIC_PREFIX: baselinePrefix,
      PAYSTACK_SECRET_KEY: stack.paystackSecret,
      BASELINE_PRODUCE: options.baselineProduce,
    });
    const infraCpu = infraGroups(new URL(stack.databaseUrl).pathname.slice(1));
    const groupsOf = (serverPid: number): Groups => [['server', () => [serverPid]], ['other Settle apps', () => otherApps], ...infraCpu];
    const runTag = randomBytes(3).toString('hex');
    const run = (url: string, serverPid: number, seconds: number, prefix: string, connections = options.connections) =>
      signedWebhookLoad({
        url,
        path: WEBHOOK_PATH,
        secret: stack.paystackSecret,
        connections,
        seconds,
        referencePrefix: `${prefix}-${runTag}`,
        groups: groupsOf(serverPid),
      });

    // Baseline first: it leaves no backlog behind (nothing consumes its topic), whereas the
    // stack's verifier and sweeper go on consuming what ingestion published.
    if (options.warmupSeconds > 0) await run(baseline.url, baseline.pid, options.warmupSeconds, 'bw');
    const statsBefore = await settled(baseline.stats, (st) => st.received!);
    const base = await run(baseline.url, baseline.pid, options.seconds, 'bb');
    const statsAfter = await settled(baseline.stats, (st) => st.received!);
    const baselineProduced = statsAfter.produced! - statsBefore.produced!;
    const baselineBatches = statsAfter.produceBatches! - statsBefore.produceBatches!;

    const counts = async () =>
      (
        await stack.db.query<{ inbox: number; pending: number }>(
          `SELECT (SELECT count(*)::int FROM ingestion.webhook_inbox) AS inbox,
                  (SELECT count(*)::int FROM ingestion.outbox) AS pending`,
        )
      ).rows[0]!;
    const ingestionPhase = async (seconds: number, prefix: string): Promise<IngestionPhase> => {
      const before = await settled(counts, (c) => c.inbox);
      const start = snapshot(groupsOf(ingestionPid));
      const result = await run(stack.ingestionUrl, ingestionPid, seconds, prefix);
      const atEnd = await counts();
      const drainStart = performance.now();
      let now = atEnd;
      while (now.pending > 0 && performance.now() - drainStart < 120_000) {
        await new Promise((r) => setTimeout(r, 20));
        now = await counts();
      }
      const untilPublished = cpuDelta(start, snapshot(groupsOf(ingestionPid)));
      const drainSeconds = (performance.now() - drainStart) / 1000;
      const after = await settled(counts, (c) => c.inbox);
      return {
        load: result,
        untilPublished,
        stored: after.inbox - before.inbox,
        pendingAtEnd: atEnd.pending,
        drainSeconds,
      };
    };

    if (options.warmupSeconds > 0) await run(stack.ingestionUrl, ingestionPid, options.warmupSeconds, 'sw');
    const full = await ingestionPhase(options.seconds, 'sf');
    let alone: IngestionPhase | null = null;
    if (options.pausedPhase) {
      // The same load with the verifier, sweeper and ledger projector stopped (SIGSTOP, resumed
      // before the stack stops): ingestion, PostgreSQL and Kafka alone, as for the baseline.
      for (const pid of consumers) process.kill(pid, 'SIGSTOP');
      stopped = consumers;
      alone = await ingestionPhase(options.seconds, 'sp');
    }

    // Where the ingestion process's time goes: a separate, shorter, profiled load.
    let profileText = '';
    if (options.profileSeconds > 0) {
      const profiledRun = await profiled(ingestionPid, INGESTION_MAIN, () =>
        run(stack.ingestionUrl, ingestionPid, options.profileSeconds, 'sc', options.profileConnections),
      );
      if (!profiledRun.profile) profileText = `profile: ${profiledRun.note}`;
      else {
        const file = join(tmpdir(), `settle-ingest-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`);
        writeFileSync(file, JSON.stringify(profiledRun.profile));
        const r = profiledRun.result;
        const s = summariseProfile(profiledRun.profile);
        const busy = s.totalMs - s.idleMs;
        const serverCpuMs = r.cpu.groups.get('server') ?? 0;
        const cpuPerRequestUs = (serverCpuMs * 1000) / Math.max(1, r.ok);
        const share = (ms: number) => `${fmt((100 * ms) / busy, 1)} %`;
        const approx = (ms: number) => fmt((ms / busy) * cpuPerRequestUs, 0);
        const cores = (ms: number, x: LoadResult) => fmt(ms / x.cpu.wallMs, 2);
        profileText = [
          `profile: the ingestion process under the V8 sampling profiler (inspector opened with SIGUSR1, 500 µs interval, main thread), ` +
            `${options.profileSeconds} s at ${options.profileConnections} connections${stopped.length ? ', consumers still paused' : ''}: ${fmt(r.ok / r.seconds)} req/s, ` +
            `${fmt(cpuPerRequestUs)} µs CPU per request from /proc (machine ${cores(r.cpu.machineBusyMs, r)} cores busy). ` +
            `Samples count wall-clock time while the main thread is not idle (${fmt(busy)} ms here against ${fmt(serverCpuMs)} ms of process CPU from /proc, all threads): ` +
            `a thread preempted in a syscall, say a socket write that wakes PostgreSQL, is charged to that call. "≈ µs/req" spreads the /proc CPU by share. Saved to ${file}`,
          '',
          table(
            ['self time by kind (native code charged to its JS caller)', 'share', '≈ µs/req'],
            s.kinds.slice(0, 14).map(([k, ms]) => [k, share(ms), approx(ms)]),
          ),
          '',
          table(
            ['self time by the library that asked for it', 'share', '≈ µs/req'],
            s.libraries.slice(0, 14).map(([k, ms]) => [k, share(ms), approx(ms)]),
          ),
          '',
          table(
            ['top functions (self time) [kind ← library]', 'share', '≈ µs/req'],
            s.functions.slice(0, 16).map(([fn, ms]) => [fn, share(ms), approx(ms)]),
          ),
        ].join('\n');
      }
    }

    const rps = (r: LoadResult) => r.ok / r.seconds;
    const perRequest = (ms: number, r: LoadResult) => fmt((ms * 1000) / Math.max(1, r.ok));
    const group = (r: LoadResult, name: string) => r.cpu.groups.get(name) ?? 0;
    const cores = (ms: number, r: LoadResult) => fmt(ms / r.cpu.wallMs, 2);
    const accounted = (r: LoadResult) => [...r.cpu.groups.values()].reduce((a, b) => a + b, 0) + r.cpu.loadGeneratorMs;
    const columns: Array<[string, LoadResult, IngestionPhase | null]> = [
      ['ingestion, full stack', full.load, full],
      ...(alone ? [['ingestion, consumers paused', alone.load, alone] as [string, LoadResult, IngestionPhase]] : []),
      [`baseline (${options.baselineProduce})`, base, null],
    ];
    const row = (label: string, f: (r: LoadResult, phase: IngestionPhase | null) => string): string[] => [label, ...columns.map(([, r, p]) => f(r, p))];
    const rows: string[][] = [
      row('requests answered 2xx', (r) => fmt(r.ok)),
      row('throughput (2xx/s)', (r) => fmt(rps(r))),
      row('latency p50 (ms)', (r) => fmt(percentile(r.latencies, 50), 2)),
      row('latency p99 (ms)', (r) => fmt(percentile(r.latencies, 99), 2)),
      row('latency p99.9 (ms)', (r) => fmt(percentile(r.latencies, 99.9), 2)),
      row('latency max (ms)', (r) => fmt(r.latencies.at(-1) ?? Number.NaN, 2)),
      row('errors: non-2xx', (r) => fmt(r.non2xx)),
      row('errors: socket (of which timeouts)', (r) => `${fmt(r.socketErrors)} (${fmt(r.timeouts)})`),
      row('server CPU per request (µs)', (r) => perRequest(group(r, 'server'), r)),
      row('… counted until the outbox is published (µs)', (r, p) =>
        p ? perRequest(p.untilPublished.groups.get('server') ?? 0, r) : perRequest(group(r, 'server'), r),
      ),
      row('server process busy (cores)', (r) => cores(group(r, 'server'), r)),
      row('CPU per request, load generator (µs)', (r) => perRequest(r.cpu.loadGeneratorMs, r)),
      row('CPU per request, other Settle apps (µs)', (r) => perRequest(group(r, 'other Settle apps'), r)),
      ...infraCpu.map(([name]) => row(`CPU per request, ${name} (µs)`, (r) => perRequest(group(r, name), r))),
      row('CPU per request, rest of the machine (µs)', (r) => perRequest(r.cpu.machineBusyMs - accounted(r), r)),
      row('CPU per request, whole machine (µs)', (r) => perRequest(r.cpu.machineBusyMs, r)),
      row('… of which kernel irq + softirq (µs)', (r) => perRequest(r.cpu.interruptsMs, r)),
      row('machine busy (cores)', (r) => `${cores(r.cpu.machineBusyMs, r)} / ${cpus().length}`),
    ];
    console.log('');
    console.log(table(['', ...columns.map(([title]) => title)], rows));
    console.log('');
    for (const [title, r, p] of columns) {
      if (!p) continue;
      console.log(
        `${title}: ${fmt(p.stored)} new inbox rows for ${fmt(r.ok)} 2xx ` +
          `(${p.stored >= r.ok && p.stored <= r.ok + options.connections ? `every request a distinct event; ${fmt(p.stored - r.ok)} more were in flight when the load stopped` : 'MISMATCH: duplicates or losses'}); ` +
          (p.pendingAtEnd > 0
            ? `${fmt(p.pendingAtEnd)} outbox rows unpublished when the load stopped, all published to Kafka ${fmt(p.drainSeconds, 2)} s later`
            : 'every outbox row already published to Kafka when the load stopped'),
      );
    }
    console.log(
      `baseline: ${fmt(baselineProduced)} records acknowledged by Kafka for ${fmt(base.ok)} 2xx (${fmt(baselineProduced - base.ok)} more in flight when the load stopped), ` +
        `in ${fmt(baselineBatches)} produce requests (${fmt(baselineProduced / Math.max(1, baselineBatches), 1)} records each)`,
    );
    console.log(`errors: ${columns.map(([title, r]) => `${title}: ${errorsText(r)}`).join('; ')}`);
    console.log('');
    const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
    for (const [title, r, p] of columns) {
      if (!p) continue;
      const p99 = percentile(r.latencies, 99);
      const ratio = rps(r) / rps(base);
      console.log(
        `goal, ${title}: ≥ ${fmt(GOAL.rps)} req/s ${verdict(rps(r) >= GOAL.rps)} (${fmt(rps(r))}); ` +
          `p99 ≤ ${GOAL.p99Ms} ms ${verdict(p99 <= GOAL.p99Ms)} (${fmt(p99, 2)}); ≥ ${GOAL.ratio} × baseline ${verdict(ratio >= GOAL.ratio)} (${fmt(ratio, 3)})`,
      );
    }
    if (profileText) console.log(`\n${profileText}`);
  } finally {
    for (const pid of stopped) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // already gone
      }
    }
    await baseline?.stop();
    await stack.stop();
  }
}

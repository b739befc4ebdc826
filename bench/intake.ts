import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { AvroCodec, createKafka, createProducer, topicNames, type RegisterCheckoutV1 } from '@settle/messaging';
import { createLogger, createPool, type Logger } from '@settle/platform';
import { infra, ROOT, startStack, type RunningStack, type StackApp } from '@settle/testing';
import type { Admin, Producer } from 'kafkajs';
import { appProcesses, median } from './e2e/measures.js';
import { Sampler, StackMonitor, type Sample } from './e2e/monitor.js';
import { machineInfo } from './e2e/report.js';
import { Db } from './e2e/watches.js';
import { CommandResultWatch, sendRegisterCheckouts, type CommandResults, type CommandSends } from './support/checkout-commands.js';
import { KafkaRoundTrip } from './support/kafka-roundtrip.js';
import { profiled, summariseProfile } from './support/live-profile.js';
import { sleep } from './support/open-loop.js';
import { cpuDelta, infraGroups, percentile, snapshot, type CpuDelta, type Groups } from './support/proc.js';
import { registrationLoad, type RegistrationLoadResult } from './support/registration-load.js';
import { fmt, table } from './support/table.js';

/*
 * Intake: checkout registrations per second through the two ways in (docs/api.md, "Two ways
 * in"), in one run, on one stack:
 *
 * - HTTP: `POST /v1/checkouts` at saturation, autocannon in this process, `--connections`
 *   keep-alive connections with one request in flight each (closed loop), `--count` requests,
 *   each a new checkout; a registration is done when its 202 came back. Rate: 202s over the time
 *   from just before the first request to just after the last answer.
 * - Kafka: `--count` `RegisterCheckout` commands produced to `<prefix>.checkout-commands.v1` as an
 *   upstream producer would (Avro with the schema ingestion registered, keyed by reference,
 *   `settle-event-type` and `settle-producer` headers; kafkajs `sendBatch` of `--batch` commands
 *   with acks=all on the idempotent producer, the next batch once the last one is acknowledged,
 *   each batch encoded just before it is sent); a registration is done when its `accepted`
 *   `CheckoutCommandResult` arrives on `<prefix>.checkout-results.v1` at this benchmark's own
 *   consumer (a group of its own). Rate: accepted results over the time from the first send to
 *   the last result; latency from the send of the command's batch to its result's arrival, split
 *   into hops by the result's `occurred_at` (ingestion's batch started) and its record timestamp
 *   (ingestion's relay produced it).
 * - Ceiling: the bare Kafka round trip of as many records of the commands' mean size
 *   (bench/support/kafka-roundtrip.ts: produce to a scratch topic A, a consumer of A produces to
 *   B, a consumer of B records the arrival; the same client settings, all three in this process),
 *   on as many partitions as the commands topic, as a burst: what the Kafka path would carry if
 *   ingestion cost nothing.
 *
 * The stack, by default (`--stack=up`), runs as `./settle up` runs it, as the e2e benchmark
 * starts it: the seven apps as their own processes with their own settings (`SETTLE_ENV=
 * development`, `LOG_LEVEL=info`), the console and the example customer backend, on a fresh
 * database and topic prefix of the local infrastructure; the sweeper's inactivity window is an
 * hour (not 45 s) so that it does not verify the benchmark's never-paid checkouts while the run
 * goes on. The verifier and the sweeper consume every `CheckoutRegistered` ingestion publishes,
 * on the same cores. `--stack=ingestion` runs ingestion alone (its outbox relay and its commands
 * consumer are in its process). `--ingestion-env=K=V,...` sets ingestion's variables (its
 * consumer loop reads the worker tuning: WORKER_FETCH_MIN_BYTES, WORKER_FETCH_MAX_WAIT_MS,
 * WORKER_PARTITIONS_CONCURRENCY, DATABASE_POOL_SIZE).
 *
 * Per run: a warm-up of `--warmup` registrations each way (not reported), then the two paths
 * (HTTP first on odd runs, Kafka first on even ones), each from an idle stack, then the ceiling.
 * CPU per registration of every process from /proc (each app, the customer backend, PostgreSQL's
 * processes for the stack's database, the Kafka broker, the schema registry, this process: the
 * load generator and its observers), over the rate's window and, apart, until the stack is idle
 * again (ingestion's outbox published and every consumer group caught up: the downstream work of
 * each registration included). Checked: every registration stored once in `ingestion.checkouts`.
 *
 * The target: the Kafka path at least 3 × the HTTP path. When a run misses it (`--profile=auto`)
 * or with `--profile=on`, one more Kafka pass of `--profile-count` commands runs with ingestion
 * under the V8 sampling profiler (inspector opened with SIGUSR1), and where its time goes is
 * printed and written.
 *
 * `npm run bench -- intake [--count=20000] [--runs=1] [--connections=64] [--batch=500]
 *   [--warmup=2000] [--stack=up|ingestion] [--ingestion-env=K=V,...] [--profile=auto|on|off]
 *   [--profile-count=<count>] [--log-level=info] [--drain-timeout=120]
 *   [--json=docs/benchmarks/intake.json]`
 */

const TARGET_RATIO = 3;
const INGESTION_MAIN = 'dist/apps/ingestion/src/main.js';
/** The `settle-producer` header of every command: recorded as `kafka:<it>` with each registration. */
const PRODUCER_ID = 'bench-intake';
const LOAD_GENERATOR = 'load generator and observers (this process)';
/** Ingestion's consumer-loop tuning when `--ingestion-env` leaves it: its defaults (libs/config, ingestion schema). */
const INGESTION_DEFAULTS: Record<string, string> = {
  WORKER_FETCH_MIN_BYTES: '1',
  WORKER_FETCH_MAX_WAIT_MS: '5000',
  WORKER_PARTITIONS_CONCURRENCY: '6',
  DATABASE_POOL_SIZE: '20',
};

interface Options {
  count: number;
  runs: number;
  connections: number;
  batch: number;
  warmup: number;
  stack: 'up' | 'ingestion';
  ingestionEnv: Record<string, string>;
  profile: 'auto' | 'on' | 'off';
  profileCount: number;
  logLevel: string;
  drainTimeoutS: number;
  json: string;
}

function parseOptions(args: string[]): Options {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      count: { type: 'string', default: '20000' },
      runs: { type: 'string', default: '1' },
      connections: { type: 'string', default: '64' },
      batch: { type: 'string', default: '500' },
      warmup: { type: 'string', default: '2000' },
      stack: { type: 'string', default: 'up' },
      'ingestion-env': { type: 'string', default: '' },
      profile: { type: 'string', default: 'auto' },
      'profile-count': { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
      'drain-timeout': { type: 'string', default: '120' },
      json: { type: 'string', default: 'docs/benchmarks/intake.json' },
    },
  });
  const num = (name: keyof typeof values, min: number): number => {
    const n = Number(values[name]);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} needs a number ≥ ${min}, got ${String(values[name])}`);
    return Math.round(n);
  };
  const stack = String(values.stack);
  if (stack !== 'up' && stack !== 'ingestion') throw new Error(`--stack needs up or ingestion, got ${stack}`);
  const profile = String(values.profile);
  if (profile !== 'auto' && profile !== 'on' && profile !== 'off') throw new Error(`--profile needs auto, on or off, got ${profile}`);
  const ingestionEnv: Record<string, string> = {};
  for (const pair of String(values['ingestion-env'])
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`--ingestion-env needs KEY=VALUE pairs separated by commas, got ${pair}`);
    ingestionEnv[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const count = num('count', 1);
  return {
    count,
    runs: num('runs', 1),
    connections: num('connections', 1),
    batch: num('batch', 1),
    warmup: num('warmup', 0),
    stack,
    ingestionEnv,
    profile,
    profileCount: values['profile-count'] === undefined ? count : num('profile-count', 1),
    logLevel: String(values['log-level']),
    drainTimeoutS: num('drain-timeout', 1),
    json: String(values.json),
  };
}

// ---------------------------------------------------------------------------------------------
// Measures.

/** p50 / p99 / max, ms. */
interface Latency {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

function latencyOf(values: Iterable<number>): Latency {
  const sorted = Float64Array.from(values).sort();
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN };
}

/** CPU of one window, per registration. */
interface Cpu {
  seconds: number;
  /** CPU ms per registration by process group, with the load generator, the rest of the machine and the whole machine. */
  msPerRegistration: Record<string, number>;
  machineBusyCores: number;
}

function cpuOf(delta: CpuDelta, registrations: number): Cpu {
  const per = (ms: number) => ms / Math.max(1, registrations);
  const msPerRegistration: Record<string, number> = {};
  let accounted = delta.loadGeneratorMs;
  for (const [group, ms] of delta.groups) {
    msPerRegistration[group] = per(ms);
    accounted += ms;
  }
  msPerRegistration[LOAD_GENERATOR] = per(delta.loadGeneratorMs);
  msPerRegistration['rest of the machine'] = per(delta.machineBusyMs - accounted);
  msPerRegistration['whole machine'] = per(delta.machineBusyMs);
  return { seconds: delta.wallMs / 1000, msPerRegistration, machineBusyCores: delta.machineBusyMs / Math.max(1, delta.wallMs) };
}

/** The queues along the path, sampled every second: ingestion's consumer lag on the commands topic and its outbox backlog. */
interface Queues {
  ingestionLagMax: number;
  ingestionOutboxMax: number;
  /** Largest lag of any other consumer group of the stack, and which. */
  otherLagMax: number;
  otherLagGroup: string | null;
  /** The per-second samples: seconds since the start, ingestion's lag, ingestion's outbox, the other groups' lag. */
  series: Array<[t: number, ingestionLag: number | null, ingestionOutbox: number | null, otherLag: number | null]>;
}

function queuesOf(samples: Sample[]): Queues {
  const queues: Queues = { ingestionLagMax: 0, ingestionOutboxMax: 0, otherLagMax: 0, otherLagGroup: null, series: [] };
  for (const s of samples) {
    const ingestionLag = s.lag ? (s.lag.byGroup.ingestion ?? 0) : null;
    const outbox = s.backlog ? (s.backlog.bySchema.ingestion ?? 0) : null;
    let other: number | null = null;
    if (s.lag) {
      other = 0;
      for (const [group, lag] of Object.entries(s.lag.byGroup)) {
        if (group === 'ingestion') continue;
        other += lag;
        if (lag > queues.otherLagMax) {
          queues.otherLagMax = lag;
          queues.otherLagGroup = group;
        }
      }
    }
    queues.ingestionLagMax = Math.max(queues.ingestionLagMax, ingestionLag ?? 0);
    queues.ingestionOutboxMax = Math.max(queues.ingestionOutboxMax, outbox ?? 0);
    queues.series.push([Math.round(s.t * 10) / 10, ingestionLag, outbox, other]);
  }
  return queues;
}

/** One way in, measured. */
interface PathReport {
  count: number;
  /** Registrations done: 202s, or `accepted` results. */
  done: number;
  errors: Record<string, number>;
  /** The rate's window: first request or send → last 202 or result, seconds. */
  seconds: number;
  perSecond: number;
  /** Request → 202, or send → result, ms. */
  latencyMs: Latency;
  /** CPU from the first request or send to the last 202 or result. */
  cpu: Cpu;
  /** CPU from the first request or send until the stack was idle again. */
  cpuUntilIdle: Cpu;
  /** From the last 202 or result until the stack was idle (its outbox published, its consumers caught up), seconds; null when it did not get there. */
  idleAfterSeconds: number | null;
  /** Rows of `ingestion.checkouts` this path registered. */
  stored: number;
  queues: Queues;
}

interface KafkaDetail {
  produceRequests: number;
  /** First send → last acknowledgement, seconds. */
  sendSeconds: number;
  commandBytes: number;
  /** Batches ingestion handled (distinct partition and `occurred_at` of the results) and their mean size. */
  ingestionBatches: number;
  commandsPerBatch: number;
  /** Seconds from the first send: ingestion began its last batch; its relay produced the last result. */
  lastBatchStartedS: number;
  lastResultOnTopicS: number;
  duplicates: number;
  hops: Record<string, Latency>;
}

interface CeilingReport {
  count: number;
  received: number;
  duplicates: number;
  payloadBytes: number;
  partitions: number;
  produceRequests: number;
  seconds: number;
  perSecond: number;
  latencyMs: Latency;
  cpu: Cpu;
}

interface ProfileReport {
  note: string;
  count: number;
  perSecond: number | null;
  file: string | null;
  /** The ingestion process's CPU per command from /proc over the profiled pass, µs. */
  ingestionCpuPerCommandUs: number | null;
  busyMs: number | null;
  kinds: Array<[string, number]>;
  libraries: Array<[string, number]>;
  functions: Array<[string, number]>;
}

interface RunReport {
  run: number;
  database: string;
  topicPrefix: string;
  apps: Record<string, number>;
  commandPartitions: number;
  order: Array<'http' | 'kafka'>;
  http: PathReport | null;
  kafka: (PathReport & { detail: KafkaDetail }) | null;
  ceiling: CeilingReport | null;
  ratios: { kafkaOverHttp: number; kafkaOverCeiling: number; httpOverCeiling: number };
  targetMet: boolean;
  profile: ProfileReport | null;
  failure: string | null;
}

// ---------------------------------------------------------------------------------------------
// One run.

interface Ctx {
  options: Options;
  stack: RunningStack;
  apiKey: string;
  apps: Map<string, number>;
  groups: Groups;
  monitor: StackMonitor;
  kafkaAdmin: Admin;
  producer: Producer;
  codec: AvroCodec;
  results: CommandResultWatch;
  commandsTopic: string;
  tag: string;
  log: (line: string) => void;
}

function assertAlive(stack: RunningStack): void {
  const [first] = stack.exited();
  if (first)
    throw new Error(
      `app ${first.app} exited (code ${first.code}, signal ${first.signal}) during the benchmark; its log ends:\n${stack.logs(first.app).slice(-3000)}`,
    );
}

/**
 * Waits until every consumer group of the stack has caught up and every outbox is published;
 * gives up after `--drain-timeout` seconds without progress.
 *
 * @returns the seconds waited, or null when it gave up.
 */
async function waitForIdle(ctx: Ctx): Promise<number | null> {
  const start = performance.now();
  let progressAt = start;
  let last = Number.POSITIVE_INFINITY;
  for (;;) {
    assertAlive(ctx.stack);
    const [lag, backlog] = await Promise.all([
      ctx.monitor
        .lag()
        .then((l) => l.total)
        .catch(() => null),
      ctx.monitor
        .backlog()
        .then((b) => b.total)
        .catch(() => null),
    ]);
    if (lag === 0 && backlog === 0) return (performance.now() - start) / 1000;
    const remaining = (lag ?? last) + (backlog ?? 0);
    if (remaining < last) {
      last = remaining;
      progressAt = performance.now();
    } else if (performance.now() - progressAt > ctx.options.drainTimeoutS * 1000) {
      ctx.log(`  not idle after ${fmt((performance.now() - start) / 1000)} s (consumer lag ${fmt(lag)}, outbox backlog ${fmt(backlog)}); going on`);
      return null;
    }
    await sleep(200);
  }
}

/** The registration of checkout `reference`, as `POST /v1/checkouts` takes it. */
function registrationBody(reference: string, n: number) {
  return {
    provider: 'paystack',
    reference,
    amount: 250_000 + (n % 1_000) * 100,
    currency: 'NGN',
    user_id: `user_${reference}`,
    customer: { email: `bench.${reference}@example.com` },
    entitlement: 'pro',
    access_period: 'P1M',
  };
}

/** The same registration as a `RegisterCheckout` command (its `occurred_at` set when it is sent). */
function registerCommand(reference: string, n: number): RegisterCheckoutV1 {
  const body = registrationBody(reference, n);
  const eventId = randomUUID();
  return { event_id: eventId, occurred_at: 0, correlation_id: eventId, ...body, customer: { email: body.customer.email, phone: null } };
}

async function storedCount(stack: RunningStack, prefix: string): Promise<number> {
  const { rows } = await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ingestion.checkouts WHERE reference LIKE $1`, [`${prefix}%`]);
  return rows[0]?.n ?? 0;
}

function httpErrors(r: RegistrationLoadResult): Record<string, number> {
  const errors: Record<string, number> = {};
  for (const [status, n] of r.statuses) if (status !== 202) errors[`HTTP ${status}`] = n;
  for (const [code, n] of r.errorCodes) errors[code] = n;
  if (r.timeouts > 0) errors.timeouts = r.timeouts;
  return errors;
}

/** `count` registrations through `POST /v1/checkouts`, then the wait for an idle stack. */
async function httpPhase(ctx: Ctx, count: number, label: string): Promise<PathReport> {
  const prefix = `in_${ctx.tag}_${label}_`;
  const t0 = performance.now();
  const sampler = new Sampler(ctx.monitor, ctx.apps, t0, 5_000);
  const start = snapshot(ctx.groups);
  const load = await registrationLoad({
    url: ctx.stack.ingestionUrl,
    apiKey: ctx.apiKey,
    count,
    connections: ctx.options.connections,
    body: (n) => registrationBody(`${prefix}${n}`, n),
    groups: ctx.groups,
  });
  const idleAfterSeconds = await waitForIdle(ctx);
  const untilIdle = cpuDelta(start, snapshot(ctx.groups));
  const samples = await sampler.stop();
  return {
    count,
    done: load.accepted,
    errors: httpErrors(load),
    seconds: load.seconds,
    perSecond: load.accepted / load.seconds,
    latencyMs: latencyOf(load.latencies),
    cpu: cpuOf(load.cpu, load.accepted),
    cpuUntilIdle: cpuOf(untilIdle, load.accepted),
    idleAfterSeconds,
    stored: await storedCount(ctx.stack, prefix),
    queues: queuesOf(samples),
  };
}

function hopsOf(sends: CommandSends, r: CommandResults): Record<string, Latency> {
  const hop = (f: (i: number) => number) => {
    const values: number[] = [];
    for (let i = 0; i < r.arrivedAt.length; i++) if (!Number.isNaN(r.arrivedAt[i]!)) values.push(f(i));
    return latencyOf(values);
  };
  return {
    'send → acknowledged by Kafka (acks=all)': hop((i) => sends.ackAt[i]! - sends.sendAt[i]!),
    "send → ingestion's batch started (result's occurred_at)": hop((i) => r.decidedAt[i]! - sends.sendAt[i]!),
    "batch started → result produced by ingestion's relay (record timestamp)": hop((i) => r.onTopicAt[i]! - r.decidedAt[i]!),
    'result produced → arrived at this consumer': hop((i) => r.arrivedAt[i]! - r.onTopicAt[i]!),
    'send → result arrived': hop((i) => r.arrivedAt[i]! - sends.sendAt[i]!),
  };
}

/** `count` `RegisterCheckout` commands through the commands topic, answered on the results topic, then the wait for an idle stack. */
async function kafkaPhase(ctx: Ctx, count: number, label: string): Promise<PathReport & { detail: KafkaDetail }> {
  const prefix = `in_${ctx.tag}_${label}_`;
  const commands = Array.from({ length: count }, (_, n) => registerCommand(`${prefix}${n}`, n));
  ctx.results.expect(commands.map((c) => c.event_id));
  const t0 = performance.now();
  const sampler = new Sampler(ctx.monitor, ctx.apps, t0, 5_000);
  const start = snapshot(ctx.groups);
  const sends = await sendRegisterCheckouts({
    producer: ctx.producer,
    codec: ctx.codec,
    topic: ctx.commandsTopic,
    producerId: PRODUCER_ID,
    commands,
    batchSize: ctx.options.batch,
  });
  const complete = await ctx.results.waitForAll(ctx.options.drainTimeoutS * 1000, () => assertAlive(ctx.stack));
  const atLast = snapshot(ctx.groups);
  const idleAfterSeconds = await waitForIdle(ctx);
  const untilIdle = cpuDelta(start, snapshot(ctx.groups));
  const samples = await sampler.stop();
  const r = ctx.results.results;
  let lastArrival = sends.startedAt;
  let lastBatchStarted = sends.startedAt;
  let lastOnTopic = sends.startedAt;
  const batches = new Set<string>();
  for (let i = 0; i < count; i++) {
    if (Number.isNaN(r.arrivedAt[i]!)) continue;
    lastArrival = Math.max(lastArrival, r.arrivedAt[i]!);
    lastBatchStarted = Math.max(lastBatchStarted, r.decidedAt[i]!);
    lastOnTopic = Math.max(lastOnTopic, r.onTopicAt[i]!);
    batches.add(`${r.partition[i]}:${r.decidedAt[i]}`);
  }
  const errors: Record<string, number> = { ...r.otherOutcomes };
  if (!complete && r.accepted < count) errors['no result'] = count - r.accepted - Object.values(r.otherOutcomes).reduce((a, b) => a + b, 0);
  const firstSend = sends.sendAt[0] ?? sends.startedAt;
  const seconds = (lastArrival - firstSend) / 1000;
  const hops = hopsOf(sends, r);
  // The rate's window for the CPU: from just before the first send to the last result.
  const window = cpuDelta(start, atLast);
  return {
    count,
    done: r.accepted,
    errors,
    seconds,
    perSecond: r.accepted / seconds,
    latencyMs: hops['send → result arrived']!,
    cpu: cpuOf(window, r.accepted),
    cpuUntilIdle: cpuOf(untilIdle, r.accepted),
    idleAfterSeconds,
    stored: await storedCount(ctx.stack, prefix),
    queues: queuesOf(samples),
    detail: {
      produceRequests: sends.requests,
      sendSeconds: (sends.endedAt - firstSend) / 1000,
      commandBytes: sends.valueBytes / count,
      ingestionBatches: batches.size,
      commandsPerBatch: r.accepted / Math.max(1, batches.size),
      lastBatchStartedS: (lastBatchStarted - firstSend) / 1000,
      lastResultOnTopicS: (lastOnTopic - firstSend) / 1000,
      duplicates: r.duplicates,
      hops,
    },
  };
}

/** The bare round trip of `count` records of `payloadBytes` on `partitions` partitions, as a burst. */
async function ceilingPhase(ctx: Ctx, count: number, payloadBytes: number, partitions: number, logger: Logger): Promise<CeilingReport> {
  const rt = await KafkaRoundTrip.start({ brokers: infra.kafkaBrokers, partitions, payloadBytes, logger });
  try {
    await rt.run(Math.min(count, 1_000), Number.POSITIVE_INFINITY);
    const start = snapshot(ctx.groups);
    const r = await rt.run(count, Number.POSITIVE_INFINITY, ctx.options.drainTimeoutS * 1000);
    const cpu = cpuDelta(start, snapshot(ctx.groups));
    return {
      count,
      received: r.received,
      duplicates: r.duplicates,
      payloadBytes,
      partitions,
      produceRequests: r.produceRequests,
      seconds: r.seconds,
      perSecond: r.throughput,
      latencyMs: { count: r.received, p50: r.p50Ms, p99: r.p99Ms, max: r.maxMs },
      cpu: cpuOf(cpu, r.received),
    };
  } finally {
    await rt.stop();
  }
}

/** One more Kafka pass with ingestion under the V8 sampling profiler. */
async function profilePhase(ctx: Ctx, count: number): Promise<ProfileReport> {
  const pid = ctx.apps.get('ingestion')!;
  const run = await profiled(pid, INGESTION_MAIN, () => kafkaPhase(ctx, count, 'p'));
  if (!run.profile) {
    return {
      note: run.note,
      count,
      perSecond: run.result.perSecond,
      file: null,
      ingestionCpuPerCommandUs: null,
      busyMs: null,
      kinds: [],
      libraries: [],
      functions: [],
    };
  }
  const file = join(tmpdir(), `settle-intake-ingestion-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`);
  writeFileSync(file, JSON.stringify(run.profile));
  const s = summariseProfile(run.profile);
  const cpuMs = (run.result.cpu.msPerRegistration.ingestion ?? Number.NaN) * run.result.done;
  return {
    note: `${count} commands with ingestion under the V8 sampling profiler (inspector opened with SIGUSR1, 500 µs interval, main thread), from the first send to the last result`,
    count,
    perSecond: run.result.perSecond,
    file,
    ingestionCpuPerCommandUs: (cpuMs * 1000) / Math.max(1, run.result.done),
    busyMs: s.totalMs - s.idleMs,
    kinds: s.kinds.slice(0, 14),
    libraries: s.libraries.slice(0, 14),
    functions: s.functions.slice(0, 20),
  };
}

async function runOnce(run: number, options: Options, log: (line: string) => void, profileWanted: (met: boolean) => boolean): Promise<RunReport> {
  const full = options.stack === 'up';
  const stack = await startStack({
    inactivityMs: 3_600_000,
    settings: 'up',
    logLevel: options.logLevel,
    adminDatabaseUrl: infra.benchAdminDatabaseUrl,
    ...(full ? { customerBackend: {}, console: {} } : { apps: ['ingestion'] as StackApp[] }),
    env: { ingestion: options.ingestionEnv },
  });
  const database = new URL(stack.databaseUrl).pathname.slice(1);
  const logger = createLogger('bench-intake', 'warn');
  const topics = topicNames(stack.topicPrefix);
  const kafka = createKafka('bench-intake', infra.kafkaBrokers, logger);
  const kafkaAdmin = kafka.admin();
  const codec = AvroCodec.connect(infra.registryUrl, topics);
  let producer: Producer | null = null;
  let results: CommandResultWatch | null = null;
  const report: RunReport = {
    run,
    database,
    topicPrefix: stack.topicPrefix,
    apps: {},
    commandPartitions: 0,
    order: run % 2 === 1 ? ['http', 'kafka'] : ['kafka', 'http'],
    http: null,
    kafka: null,
    ceiling: null,
    ratios: { kafkaOverHttp: Number.NaN, kafkaOverCeiling: Number.NaN, httpOverCeiling: Number.NaN },
    targetMet: false,
    profile: null,
    failure: null,
  };
  try {
    await kafkaAdmin.connect();
    // Ingestion registered the commands' schemas at its boot; this finds the same id.
    await codec.registerAll(['RegisterCheckout']);
    producer = await createProducer(kafka);
    results = await CommandResultWatch.start(kafka, topics.checkoutResults, codec, `bench-intake-results-${stack.topicPrefix}`);
    const apps = appProcesses();
    if (stack.customer) apps.set('customer backend (receiver kit)', stack.customer.pid);
    report.apps = Object.fromEntries(apps);
    if (!apps.get('ingestion')) throw new Error(`no child process runs ${INGESTION_MAIN}`);
    const metadata = await kafkaAdmin.fetchTopicMetadata({ topics: [topics.checkoutCommands] });
    report.commandPartitions = metadata.topics[0]?.partitions.length ?? 0;
    const ctx: Ctx = {
      options,
      stack,
      apiKey: stack.secretValues().apiKey!,
      apps,
      groups: [
        ...[...apps].map(([app, pid]): [string, () => number[]] => [app, () => [pid]]),
        ...infraGroups(database, infra.benchAdminDatabaseUrl, stack.customer?.databaseName),
      ],
      monitor: new StackMonitor(kafkaAdmin, new Db(stack.db), stack.topicPrefix, topics),
      kafkaAdmin,
      producer,
      codec,
      results,
      commandsTopic: topics.checkoutCommands,
      tag: randomBytes(3).toString('hex'),
      log,
    };
    log(
      `run ${run}: stack up (database ${database}, topic prefix ${stack.topicPrefix}, ${report.commandPartitions} partitions on the commands topic, apps ${[
        ...apps,
      ]
        .map(([a, p]) => `${a}=${p}`)
        .join(' ')})`,
    );
    if (options.warmup > 0) {
      // Not reported: JIT compilation in the apps and the JVMs, connection pools, page cache.
      const w = Math.max(options.warmup, options.connections);
      const h = await httpPhase(ctx, w, 'wh');
      const k = await kafkaPhase(ctx, options.warmup, 'wk');
      log(`  warm-up: ${fmt(h.done)} over HTTP (${fmt(h.perSecond)}/s), ${fmt(k.done)} over Kafka (${fmt(k.perSecond)}/s); not reported`);
    }
    for (const path of report.order) {
      if (path === 'http') {
        log(`  HTTP: ${fmt(options.count)} registrations, ${options.connections} connections …`);
        report.http = await httpPhase(ctx, options.count, 'h');
        log(
          `  HTTP: ${fmt(report.http.done)} answered 202 in ${fmt(report.http.seconds, 2)} s, ${fmt(report.http.perSecond)}/s; p99 ${fmt(report.http.latencyMs.p99)} ms; idle again ${fmt(report.http.idleAfterSeconds, 1)} s after`,
        );
      } else {
        log(`  Kafka: ${fmt(options.count)} RegisterCheckout commands in batches of ${options.batch} …`);
        report.kafka = await kafkaPhase(ctx, options.count, 'k');
        log(
          `  Kafka: ${fmt(report.kafka.done)} accepted results in ${fmt(report.kafka.seconds, 2)} s, ${fmt(report.kafka.perSecond)}/s; p99 ${fmt(report.kafka.latencyMs.p99)} ms; idle again ${fmt(report.kafka.idleAfterSeconds, 1)} s after`,
        );
      }
    }
    const http = report.http!;
    const kafkaPath = report.kafka!;
    log(`  ceiling: the bare Kafka round trip of ${fmt(options.count)} records …`);
    report.ceiling = await ceilingPhase(ctx, options.count, Math.max(1, Math.round(kafkaPath.detail.commandBytes)), report.commandPartitions, logger);
    report.ratios = {
      kafkaOverHttp: kafkaPath.perSecond / http.perSecond,
      kafkaOverCeiling: kafkaPath.perSecond / report.ceiling.perSecond,
      httpOverCeiling: http.perSecond / report.ceiling.perSecond,
    };
    report.targetMet = report.ratios.kafkaOverHttp >= TARGET_RATIO;
    const failures: string[] = [];
    if (kafkaPath.done < kafkaPath.count)
      failures.push(`${fmt(kafkaPath.count - kafkaPath.done)} commands got no accepted result (${JSON.stringify(kafkaPath.errors)})`);
    if (kafkaPath.stored !== kafkaPath.count) failures.push(`${fmt(kafkaPath.stored)} checkouts stored for ${fmt(kafkaPath.count)} commands`);
    if (http.stored < http.done) failures.push(`${fmt(http.stored)} checkouts stored for ${fmt(http.done)} answers 202`);
    if (failures.length > 0) report.failure = failures.join('; ');
    if (profileWanted(report.targetMet) && !report.failure) {
      log(`  profile: ${fmt(options.profileCount)} more commands with ingestion under the profiler …`);
      report.profile = await profilePhase(ctx, options.profileCount);
    }
    return report;
  } finally {
    await results?.stop().catch(() => undefined);
    await producer?.disconnect().catch(() => undefined);
    await kafkaAdmin.disconnect().catch(() => undefined);
    await stack.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Report.

function runTable(r: RunReport): string {
  const http = r.http!;
  const kafka = r.kafka!;
  const ceiling = r.ceiling!;
  const lat = (l: Latency) => `${fmt(l.p50)} / ${fmt(l.p99)} / ${fmt(l.max)}`;
  const errors = (e: Record<string, number>) =>
    Object.entries(e)
      .map(([k, n]) => `${fmt(n)}×${k}`)
      .join(', ') || 'none';
  const groups = [...new Set([...Object.keys(http.cpu.msPerRegistration), ...Object.keys(kafka.cpu.msPerRegistration)])];
  const cpuCell = (p: PathReport, group: string) => `${fmt(p.cpu.msPerRegistration[group], 3)} / ${fmt(p.cpuUntilIdle.msPerRegistration[group], 3)}`;
  const rows: string[][] = [
    ['registrations', fmt(http.count), fmt(kafka.count), `${fmt(ceiling.count)} records`],
    ['done (202 / accepted result / arrived)', fmt(http.done), fmt(kafka.done), fmt(ceiling.received)],
    ['errors', errors(http.errors), errors(kafka.errors), ceiling.received < ceiling.count ? `${fmt(ceiling.count - ceiling.received)} lost` : 'none'],
    ['stored in ingestion.checkouts', fmt(http.stored), fmt(kafka.stored), 'n/a'],
    ['window: first request or send → last 202 or result (s)', fmt(http.seconds, 2), fmt(kafka.seconds, 2), fmt(ceiling.seconds, 2)],
    ['registrations/s', fmt(http.perSecond), fmt(kafka.perSecond), fmt(ceiling.perSecond)],
    ['÷ HTTP', '1', fmt(r.ratios.kafkaOverHttp, 2), fmt(ceiling.perSecond / http.perSecond, 2)],
    ['÷ ceiling', fmt(r.ratios.httpOverCeiling, 3), fmt(r.ratios.kafkaOverCeiling, 3), '1'],
    ['latency p50 / p99 / max (ms)', lat(http.latencyMs), lat(kafka.latencyMs), lat(ceiling.latencyMs)],
    ['stack idle again after the window (s)', fmt(http.idleAfterSeconds, 1), fmt(kafka.idleAfterSeconds, 1), 'n/a'],
    ["ingestion's commands lag, max (msgs)", fmt(http.queues.ingestionLagMax), fmt(kafka.queues.ingestionLagMax), 'n/a'],
    ["ingestion's outbox backlog, max (rows)", fmt(http.queues.ingestionOutboxMax), fmt(kafka.queues.ingestionOutboxMax), 'n/a'],
    [
      'other consumer groups, max lag (group)',
      `${fmt(http.queues.otherLagMax)}${http.queues.otherLagGroup ? ` (${http.queues.otherLagGroup})` : ''}`,
      `${fmt(kafka.queues.otherLagMax)}${kafka.queues.otherLagGroup ? ` (${kafka.queues.otherLagGroup})` : ''}`,
      'n/a',
    ],
    ...groups.map((g) => [
      `CPU per registration, ${g} (ms): window / until idle`,
      cpuCell(http, g),
      cpuCell(kafka, g),
      fmt(ceiling.cpu.msPerRegistration[g], 3),
    ]),
    [
      'machine busy (cores): window / until idle',
      `${fmt(http.cpu.machineBusyCores, 2)} / ${fmt(http.cpuUntilIdle.machineBusyCores, 2)}`,
      `${fmt(kafka.cpu.machineBusyCores, 2)} / ${fmt(kafka.cpuUntilIdle.machineBusyCores, 2)}`,
      fmt(ceiling.cpu.machineBusyCores, 2),
    ],
  ];
  return table(['', 'HTTP: POST /v1/checkouts', 'Kafka: commands → results', 'ceiling: bare round trip'], rows);
}

function kafkaDetailText(r: RunReport): string {
  const k = r.kafka!;
  const d = k.detail;
  return [
    `Kafka path: ${fmt(d.produceRequests)} sendBatch calls of up to ${fmt(r.kafka!.count / Math.max(1, d.produceRequests), 0)} commands (${fmt(d.commandBytes)} bytes each), ` +
      `all acknowledged ${fmt(d.sendSeconds, 2)} s after the first send; ingestion handled them in ${fmt(d.ingestionBatches)} batches (${fmt(d.commandsPerBatch, 1)} commands each), ` +
      `began its last batch ${fmt(d.lastBatchStartedS, 2)} s after the first send, its relay produced the last result at ${fmt(d.lastResultOnTopicS, 2)} s, the last result arrived at ${fmt(k.seconds, 2)} s; ` +
      `${fmt(d.duplicates)} duplicate results.`,
    '',
    table(
      ['hop (ms)', 'p50', 'p99', 'max'],
      Object.entries(d.hops).map(([hop, l]) => [hop, fmt(l.p50), fmt(l.p99), fmt(l.max)]),
    ),
    '',
    `Queues during the Kafka path, per second (s: ingestion's lag on the commands topic / its outbox backlog / other groups' lag): ${k.queues.series
      .map(([t, lag, outbox, other]) => `${fmt(t, 0)}: ${fmt(lag)}/${fmt(outbox)}/${fmt(other)}`)
      .join(', ')}`,
  ].join('\n');
}

function profileText(p: ProfileReport): string {
  if (!p.file) return `profile: ${p.note}`;
  const busy = p.busyMs ?? 1;
  const share = (ms: number) => `${fmt((100 * ms) / busy, 1)} %`;
  const approx = (ms: number) => fmt((ms / busy) * (p.ingestionCpuPerCommandUs ?? Number.NaN), 1);
  return [
    `profile: ${p.note}: ${fmt(p.perSecond)} commands/s under the profiler, ${fmt(p.ingestionCpuPerCommandUs, 1)} µs of ingestion CPU per command from /proc. ` +
      `Samples count wall-clock time while the main thread is not idle; "≈ µs/cmd" spreads the /proc CPU by share. Saved to ${p.file}`,
    '',
    table(
      ['self time by kind (native code charged to its JS caller)', 'share', '≈ µs/cmd'],
      p.kinds.map(([k, ms]) => [k, share(ms), approx(ms)]),
    ),
    '',
    table(
      ['self time by the library that asked for it', 'share', '≈ µs/cmd'],
      p.libraries.map(([k, ms]) => [k, share(ms), approx(ms)]),
    ),
    '',
    table(
      ['top functions (self time) [kind ← library]', 'share', '≈ µs/cmd'],
      p.functions.map(([fn, ms]) => [fn, share(ms), approx(ms)]),
    ),
  ].join('\n');
}

/**
 * The intake benchmark: checkout registrations per second through `POST /v1/checkouts` and
 * through the checkout commands topic (answered on the results topic), on one stack in one run,
 * against the bare Kafka round trip of as many records; CPU per registration of every process,
 * the Kafka path's hops, and a profile of ingestion when the Kafka path is under 3 × the HTTP
 * path. Writes `--json` (docs/benchmarks/intake.json by default). See the file's header for the
 * arguments.
 *
 * @throws Error (after printing and writing the figures) when a command got no accepted result
 *   or a registration was not stored exactly once.
 */
export async function intakeBenchmark(args: string[]): Promise<void> {
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
  const tuning = { ...INGESTION_DEFAULTS, ...options.ingestionEnv };
  log(
    `stack: ${options.stack === 'up' ? "as `./settle up` runs it (seven apps, the console, the example customer backend; the sweeper's inactivity window an hour)" : 'ingestion alone (its relay and commands consumer in its process)'}, ` +
      `LOG_LEVEL=${options.logLevel}; ingestion's consumer tuning ${Object.entries(tuning)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
  );
  log(
    `load: ${fmt(options.count)} registrations each way; HTTP: autocannon in this process, ${options.connections} keep-alive connections × 1 request in flight (closed loop); ` +
      `Kafka: sendBatch of ${options.batch} commands, acks=all, idempotent producer, one batch in flight; ceiling: the bare round trip of ${fmt(options.count)} records; ` +
      `${options.runs} run(s) on ${cpus().length} cores shared with every process; PostgreSQL ${postgresVersion}, kafkajs ${String(info.kafkajs)}`,
  );
  const runs: RunReport[] = [];
  const jsonPath = resolve(ROOT, options.json);
  const summary = () => {
    const pick = (f: (r: RunReport) => number) => {
      const values = runs.map(f).filter(Number.isFinite);
      return values.length ? { min: Math.min(...values), median: median(values), max: Math.max(...values), values } : null;
    };
    return {
      httpPerSecond: pick((r) => r.http?.perSecond ?? Number.NaN),
      kafkaPerSecond: pick((r) => r.kafka?.perSecond ?? Number.NaN),
      ceilingPerSecond: pick((r) => r.ceiling?.perSecond ?? Number.NaN),
      kafkaOverHttp: pick((r) => r.ratios.kafkaOverHttp),
      kafkaOverCeiling: pick((r) => r.ratios.kafkaOverCeiling),
      kafkaP99Ms: pick((r) => r.kafka?.latencyMs.p99 ?? Number.NaN),
      httpP99Ms: pick((r) => r.http?.latencyMs.p99 ?? Number.NaN),
    };
  };
  const write = () => {
    mkdirSync(dirname(jsonPath), { recursive: true });
    writeFileSync(
      jsonPath,
      `${JSON.stringify(
        {
          benchmark: 'intake',
          date: started.toISOString(),
          finished: new Date().toISOString(),
          ...info,
          postgres: postgresVersion,
          options,
          ingestionTuning: tuning,
          target: `Kafka path ≥ ${TARGET_RATIO} × HTTP path (registrations/s)`,
          summary: summary(),
          runs,
        },
        (_key, value: unknown) => (typeof value === 'number' && !Number.isFinite(value) ? null : value),
        2,
      )}\n`,
    );
  };
  let failure: string | null = null;
  let profiledOnce = false;
  const profileWanted = (met: boolean) => !profiledOnce && (options.profile === 'on' || (options.profile === 'auto' && !met));
  for (let run = 1; run <= options.runs && !failure; run++) {
    const report = await runOnce(run, options, log, profileWanted);
    if (report.profile) profiledOnce = true;
    runs.push(report);
    failure = report.failure;
    write();
    console.log('');
    console.log(`run ${run} of ${options.runs} (${report.database}; order ${report.order.join(' then ')}, then the ceiling):`);
    console.log(runTable(report));
    console.log('');
    console.log(kafkaDetailText(report));
    console.log('');
    console.log(
      `target: Kafka ≥ ${TARGET_RATIO} × HTTP: ${report.targetMet ? 'met' : 'NOT met'} (${fmt(report.kafka!.perSecond)} against ${fmt(report.http!.perSecond)} registrations/s: ${fmt(report.ratios.kafkaOverHttp, 2)} ×)`,
    );
    if (report.profile) console.log(`\n${profileText(report.profile)}`);
  }
  if (runs.length > 1) {
    const s = summary();
    const cell = (x: { min: number; median: number; max: number } | null, digits = 0) =>
      x ? `${fmt(x.min, digits)} / ${fmt(x.median, digits)} / ${fmt(x.max, digits)}` : 'n/a';
    console.log('');
    console.log(
      table(
        [`min / median / max over ${runs.length} runs`, ''],
        [
          ['HTTP registrations/s', cell(s.httpPerSecond)],
          ['Kafka registrations/s', cell(s.kafkaPerSecond)],
          ['ceiling records/s', cell(s.ceilingPerSecond)],
          ['Kafka ÷ HTTP', cell(s.kafkaOverHttp, 2)],
          ['Kafka ÷ ceiling', cell(s.kafkaOverCeiling, 3)],
          ['HTTP p99 (ms)', cell(s.httpP99Ms)],
          ['Kafka send → result p99 (ms)', cell(s.kafkaP99Ms)],
        ],
      ),
    );
  }
  console.log(`\nwritten to ${jsonPath}`);
  if (failure) throw new Error(failure);
}

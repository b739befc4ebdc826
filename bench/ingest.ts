import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { infra, uniqueTopicPrefix } from '../scripts/harness/infra.js';
import { startStack, type RunningStack } from '../scripts/harness/stack.js';
import { childPids, cpuDelta, infraGroups, percentile, snapshot, type CpuDelta, type Groups } from './support/proc.js';

/*
 * Webhook ingest: sustained autocannon load of valid, signed, all-different Paystack
 * `charge.success` webhooks against the real ingestion app (Nest on Fastify, inbox + outbox
 * in one PostgreSQL transaction, outbox relay to Kafka with the idempotent acks=all
 * producer), compared in the same run with a bare node:http server doing the signature check
 * and the Kafka produce itself (bench/ingest-baseline.ts). Columns: the ingestion app with the
 * whole stack running (the verifier and sweeper consume every event it publishes, on the same
 * two cores), the ingestion app with those consumers paused, and the baseline. CPU per request
 * comes from /proc/<pid>/stat of each server process; a last, shorter load runs under the V8
 * profiler to show where the ingestion process's time goes.
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

// ---------------------------------------------------------------------------------------------
// The webhook bodies: a realistic Paystack charge.success, a different event every time.

const FIRST = ['Adaeze', 'Chinedu', 'Funmilayo', 'Ibrahim', 'Kemi', 'Tunde', 'Ngozi', 'Emeka'];
const LAST = ['Okafor', 'Adeyemi', 'Balogun', 'Eze', 'Mohammed', 'Nwosu', 'Olawale', 'Bello'];
const BANKS = ['Guaranty Trust Bank', 'Access Bank', 'Zenith Bank', 'First Bank of Nigeria'];

/** A Paystack `charge.success` event (shape of Paystack's documented payload), ~1.7 KB. */
function chargeSuccessBody(reference: string, n: number): string {
  const first = FIRST[n % FIRST.length]!;
  const last = LAST[(n >>> 3) % LAST.length]!;
  const customerId = 4_100_000 + (n % 900_000);
  const amount = 50_000 + (n % 997) * 500;
  const paidAt = new Date(Date.now() - 1_500);
  const createdAt = new Date(paidAt.getTime() - 41_000);
  const email = `${first}.${last}${n % 1000}@example.com`.toLowerCase();
  const last4 = String(1000 + (n % 9000));
  const code = (n * 2_654_435_761).toString(36).slice(-10).padStart(10, '0');
  return JSON.stringify({
    event: 'charge.success',
    data: {
      id: 3_900_000_000 + n,
      domain: 'live',
      status: 'success',
      reference,
      receipt_number: null,
      amount,
      message: null,
      gateway_response: 'Approved by Financial Institution',
      paid_at: paidAt.toISOString(),
      created_at: createdAt.toISOString(),
      channel: 'card',
      currency: 'NGN',
      ip_address: `102.89.${n % 250}.${(n >>> 8) % 250}`,
      metadata: {
        user_id: `user_${customerId}`,
        plan: 'pro-monthly',
        cart_id: `cart_${code}`,
        referrer: 'https://app.example.com/billing/checkout?plan=pro-monthly',
        custom_fields: [
          { display_name: 'Invoice ID', variable_name: 'invoice_id', value: `INV-2026-${String(n).padStart(8, '0')}` },
          { display_name: 'Seats', variable_name: 'seats', value: String(1 + (n % 25)) },
        ],
      },
      log: {
        start_time: Math.floor(createdAt.getTime() / 1000),
        time_spent: 41,
        attempts: 1,
        errors: 0,
        success: true,
        mobile: false,
        input: [],
        history: [
          { type: 'action', message: 'Attempted to pay with card', time: 38 },
          { type: 'success', message: 'Successfully paid with card', time: 41 },
        ],
      },
      fees: Math.min(200_000, Math.round(amount * 0.015) + 10_000),
      fees_split: null,
      authorization: {
        authorization_code: `AUTH_${code}`,
        bin: '408408',
        last4,
        exp_month: String(1 + (n % 12)).padStart(2, '0'),
        exp_year: String(2027 + (n % 5)),
        channel: 'card',
        card_type: 'visa DEBIT',
        bank: BANKS[n % BANKS.length],
        country_code: 'NG',
        brand: 'visa',
        reusable: true,
        signature: `SIG_${code}${last4}`,
        account_name: null,
        receiver_bank_account_number: null,
        receiver_bank: null,
      },
      customer: {
        id: customerId,
        first_name: first,
        last_name: last,
        email,
        customer_code: `CUS_${code}`,
        phone: `+23480${String(10_000_000 + (n % 89_999_999))}`,
        metadata: null,
        risk_action: 'default',
        international_format_phone: null,
      },
      plan: {},
      subaccount: {},
      split: {},
      order_id: null,
      paidAt: paidAt.toISOString(),
      createdAt: createdAt.toISOString(),
      requested_amount: amount,
      pos_transaction_data: null,
      source: { type: 'web', source: 'checkout', entry_point: 'request_inline', identifier: null },
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Load.

interface LoadResult {
  seconds: number;
  ok: number;
  non2xx: number;
  statuses: Map<number, number>;
  socketErrors: number;
  timeouts: number;
  errorCodes: Map<string, number>;
  /** 2xx latencies in ms, sorted (autocannon's own histogram keeps whole milliseconds). */
  latencies: Float64Array;
  cpu: CpuDelta;
}

/**
 * Closed-loop load: `connections` keep-alive connections, one request in flight each, for
 * `seconds`. Every request is a new event: `setupRequest` builds a body with a fresh
 * reference and signs it. CPU of `groups` is read just before the first and just after the
 * last request.
 */
async function load(options: {
  url: string;
  secret: string;
  seconds: number;
  connections: number;
  referencePrefix: string;
  groups: Groups;
}): Promise<LoadResult> {
  let n = 0;
  const setupRequest = (request: autocannon.Request): autocannon.Request => {
    n += 1;
    const body = Buffer.from(chargeSuccessBody(`${options.referencePrefix}-${n.toString(36)}`, n));
    request.body = body;
    request.headers = {
      ...request.headers,
      'content-type': 'application/json',
      'x-paystack-signature': createHmac('sha512', options.secret).update(body).digest('hex'),
    };
    return request;
  };
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const errorCodes = new Map<string, number>();
  let socketErrors = 0;
  const before = snapshot(options.groups);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        pipelining: 1,
        duration: options.seconds,
        timeout: 10,
        requests: [{ method: 'POST', path: WEBHOOK_PATH, setupRequest }],
      },
      (error, res) => (error ? reject(error as Error) : resolve(res)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
    instance.on('reqError', (error: { code?: string; message?: string }) => {
      socketErrors += 1;
      const code = error?.code ?? error?.message ?? 'unknown';
      errorCodes.set(code, (errorCodes.get(code) ?? 0) + 1);
    });
  });
  const cpu = cpuDelta(before, snapshot(options.groups));
  let ok = 0;
  let non2xx = 0;
  for (const [status, count] of statuses) {
    if (status >= 200 && status < 300) ok += count;
    else non2xx += count;
  }
  return {
    seconds: cpu.wallMs / 1000,
    ok,
    non2xx,
    statuses,
    socketErrors: Math.max(socketErrors, result.errors),
    timeouts: result.timeouts,
    errorCodes,
    latencies: Float64Array.from(latencies).sort(),
    cpu,
  };
}

// ---------------------------------------------------------------------------------------------
// The baseline server, as a child process.

async function startBaseline(
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; pid: number; child: ChildProcess; stats(): Promise<Record<string, number>>; stop(): Promise<void> }> {
  if (!existsSync(BASELINE_MAIN)) throw new Error(`${BASELINE_MAIN} is missing: run "npm run build" (scripts/local/bench.sh does)`);
  const child = spawn(process.execPath, [BASELINE_MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`baseline not ready after 60 s:\n${stderr}`)), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.includes('"ready"'));
      if (line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`baseline exited with ${code}:\n${stderr}`));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    pid: child.pid!,
    child,
    stats: async () => (await (await fetch(`${url}/stats`)).json()) as Record<string, number>,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// CPU profile of a running child, through the inspector it opens on SIGUSR1.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Runs `work` while the V8 sampling profiler runs in process `pid` (same as `node --cpu-prof`,
 * started late: SIGUSR1 opens the child's inspector on 127.0.0.1:9229, closed again after).
 */
async function profiled<T>(pid: number, urlPart: string, work: () => Promise<T>): Promise<{ result: T; profile: CpuProfile | null; note: string }> {
  if (await portOpen(9229)) return { result: await work(), profile: null, note: 'skipped: 127.0.0.1:9229 is already in use' };
  process.kill(pid, 'SIGUSR1');
  let target: { url: string; webSocketDebuggerUrl: string } | undefined;
  for (let i = 0; i < 50 && !target; i++) {
    await new Promise((r) => setTimeout(r, 100));
    try {
      const list = (await (await fetch('http://127.0.0.1:9229/json/list')).json()) as Array<{ url: string; webSocketDebuggerUrl: string }>;
      target = list.find((t) => t.url.includes(urlPart));
    } catch {
      // not listening yet
    }
  }
  if (!target) return { result: await work(), profile: null, note: 'skipped: the inspector did not open' };
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new Error('inspector websocket failed')), { once: true });
  });
  let nextId = 0;
  const pending = new Map<number, (value: unknown) => void>();
  ws.addEventListener('message', (event: MessageEvent) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  });
  const call = <R>(method: string, params: object = {}): Promise<R> =>
    new Promise<R>((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve as (value: unknown) => void);
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call('Profiler.enable');
    await call('Profiler.setSamplingInterval', { interval: 500 });
    await call('Profiler.start');
    const result = await work();
    const { profile } = await call<{ profile: CpuProfile }>('Profiler.stop');
    return { result, profile, note: '' };
  } finally {
    await call('Runtime.evaluate', { expression: "setTimeout(() => process.getBuiltinModule('node:inspector').close(), 50); 0" }).catch(() => undefined);
    ws.close();
  }
}

/** Who owns a script: an npm package, a part of Node, or Settle's own code ('' for native code). */
function ownerOf(url: string): string {
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + 14).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (url.startsWith('node:')) {
    const m = url.slice(5);
    if (/stream_base_commons|^net$|internal\/net/.test(m)) return 'node: socket I/O';
    if (/^fs$|internal\/fs/.test(m)) return 'node: fs';
    if (/crypto/.test(m)) return 'node: crypto';
    if (/http/.test(m)) return 'node: http';
    if (/streams/.test(m)) return 'node: streams';
    if (/timers/.test(m)) return 'node: timers';
    if (/task_queues|async_hooks|promise/.test(m)) return 'node: promises, ticks';
    if (/buffer/.test(m)) return 'node: buffer';
    if (/events/.test(m)) return 'node: events';
    return 'node: other';
  }
  if (url.includes('/dist/apps/')) return 'settle apps';
  if (url.includes('/dist/libs/')) return 'settle libs';
  return url ? 'other' : '';
}

/** A library or Settle's code, as opposed to Node itself or native code. */
const isLibrary = (owner: string) => owner !== '' && !owner.startsWith('node:');

/**
 * Self time three ways: by kind (native code charged to its JavaScript caller's part of Node
 * or package), by the library whose call led to it (the innermost frame of a package or of
 * Settle's code: pg's socket writes count for pg, pino's file writes for pino), and by
 * function.
 */
function summariseProfile(profile: CpuProfile): {
  totalMs: number;
  idleMs: number;
  kinds: Array<[string, number]>;
  libraries: Array<[string, number]>;
  functions: Array<[string, number]>;
} {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0;
    selfUs.set(profile.samples[i]!, (selfUs.get(profile.samples[i]!) ?? 0) + Math.max(0, dt));
  }
  const kinds = new Map<string, number>();
  const libraries = new Map<string, number>();
  const functions = new Map<string, number>();
  const add = (m: Map<string, number>, key: string, us: number) => m.set(key, (m.get(key) ?? 0) + us);
  let idle = 0;
  let total = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    total += us;
    const name = node.callFrame.functionName || '(anonymous)';
    if (name === '(idle)') {
      idle += us;
      continue;
    }
    // Up the stack: the first frame with a script gives the kind, the first library frame the library.
    let kind = ownerOf(node.callFrame.url);
    let library = isLibrary(kind) ? kind : '';
    for (let cursor = parent.get(id); cursor !== undefined && !library; cursor = parent.get(cursor)) {
      const owner = ownerOf(byId.get(cursor)!.callFrame.url);
      if (!kind) kind = owner;
      if (isLibrary(owner)) library = owner;
    }
    if (!kind) kind = name.startsWith('(') ? name : 'native, no JS caller';
    if (kind === 'node: streams' && /^write|^writev$/.test(name) && !node.callFrame.url) kind = 'node: socket I/O';
    add(kinds, kind, us);
    add(libraries, library || (name.startsWith('(') ? name : `${kind} (no library on the stack)`), us);
    const file = node.callFrame.url
      ? `${node.callFrame.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*\/dist\//, '')}:${node.callFrame.lineNumber + 1}`
      : 'native';
    add(functions, `${name}  ${file}  [${kind}${library && library !== kind ? ` ← ${library}` : ''}]`, us);
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / 1000] as [string, number]);
  return { totalMs: total / 1000, idleMs: idle / 1000, kinds: sorted(kinds), libraries: sorted(libraries), functions: sorted(functions) };
}

// ---------------------------------------------------------------------------------------------
// Report.

const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a';

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...rows.map(line)].join('\n');
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
  let baseline: Awaited<ReturnType<typeof startBaseline>> | null = null;
  let stopped: number[] = [];
  try {
    const [ingestionPid] = childPids(INGESTION_MAIN);
    if (!ingestionPid) throw new Error(`no child process runs ${INGESTION_MAIN}`);
    const otherApps = childPids('dist/apps/').filter((pid) => pid !== ingestionPid);
    const consumers = ['verifier', 'sweeper', 'ledger-projector'].flatMap((app) => childPids(`dist/apps/${app}/src/main.js`));
    const baselinePrefix = uniqueTopicPrefix('bench-baseline');
    baseline = await startBaseline({
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
      load({ url, secret: stack.paystackSecret, connections, seconds, referencePrefix: `${prefix}-${runTag}`, groups: groupsOf(serverPid) });

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

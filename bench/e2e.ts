import { execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { TransactionEvent } from '@settle/domain';
import { AvroCodec, createKafka, HEADERS, headerText, topicNames, type Topics } from '@settle/messaging';
import { createLogger, createPool, type Logger } from '@settle/platform';
import { AssignerProtocol, type Admin, type Consumer, type Kafka } from 'kafkajs';
import type pg from 'pg';
import { Agent, request } from 'undici';
import type { SandboxTransaction } from '../apps/provider-sandbox/src/sandbox.core.js';
import { ROOT, infra, startStack, type RunningStack, type StackApp } from '@settle/testing';
import { profileMarkdown, summariseCpuProfiles } from './support/cpuprofile.js';
import { HopWatch } from './support/hop-watch.js';
import { joinedWithin } from './support/kafka-join.js';
import { KafkaRoundTrip, type RoundTripResult } from './support/kafka-roundtrip.js';
import { closedPool, openLoop, sleep, wallNow } from './support/open-loop.js';
import { cpuDelta, findPids, infraGroups, percentile, snapshot, type CpuDelta, type CpuSnapshot, type Groups } from './support/proc.js';
import { fmt, table } from './support/table.js';

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
 *   [--warmup=10] [--runs=1] [--json=docs/benchmarks/e2e.json] [--soak=0] [--soak-rate=500]
 *   [--profile=<app>] [--hops] [--drain-timeout=120] [--drain-max=3600] [--stats-flush=11]
 *   [--connections=256] [--burst-concurrency=64] [--prepare-concurrency=32] [--log-level=info]
 *   [--ledger-only]`
 *
 * After the stack starts, an unreported warm-up phase (`--warmup` seconds at the first rate)
 * compiles the hot paths of the apps and of the Kafka and registry JVMs; then the idle stack's
 * PostgreSQL work and CPU are measured for 10 s, the background every phase runs on.
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
 * `--soak=<seconds>` adds a long phase at `--soak-rate` whose checkouts are prepared while it
 * runs, `--soak-lead` (30) seconds ahead of the timetable; it reports per-minute latency percentiles and each
 * app's RSS every 10 s, with the drift from the first to the last minute.
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

/** The ledger event of a settled checkout (the decider's event, appended by the projector). */
const SETTLED: Extract<TransactionEvent['type'], 'TransactionSettled'> = 'TransactionSettled';
const WEBHOOK_PATH = '/v1/webhooks/paystack';
const APP_SCRIPT = /\/dist\/apps\/([^/]+)\/src\/main\.js/;
const AMOUNT_MINOR = 250_000;
const CURRENCY = 'NGN';

// ---------------------------------------------------------------------------------------------
// Options.

interface Options {
  rates: number[];
  seconds: number;
  warmupSeconds: number;
  burst: number;
  burstConcurrency: number;
  runs: number;
  json: string;
  soakSeconds: number;
  soakRate: number;
  soakLeadSeconds: number;
  profile: string | null;
  /** Split the path into hops (HopWatch): a diagnostic, off by default (its consumer costs the load generator about 0.1 ms of CPU per checkout). */
  hops: boolean;
  drainTimeoutS: number;
  drainMaxS: number;
  statsFlushS: number;
  connections: number;
  prepareConcurrency: number;
  logLevel: string;
  /**
   * `--ledger-only`: no customer endpoint and no console, the measure ends at the ledger and
   * the settlements topic (the benchmark as it was before delivery was measured). By default the
   * stack runs as `./settle up` starts it: the seven apps with their own settings, the example
   * customer backend (the receiver kit on PostgreSQL) registered as the dispatcher's endpoint.
   */
  ledgerOnly: boolean;
}

function parseOptions(args: string[]): Options {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      rates: { type: 'string', default: '100,250,500,1000,2000' },
      seconds: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '10' },
      burst: { type: 'string', default: '2000' },
      'burst-concurrency': { type: 'string', default: '64' },
      runs: { type: 'string', default: '1' },
      json: { type: 'string', default: 'docs/benchmarks/e2e.json' },
      soak: { type: 'string', default: '0' },
      'soak-rate': { type: 'string', default: '500' },
      'soak-lead': { type: 'string', default: '30' },
      profile: { type: 'string' },
      hops: { type: 'boolean', default: false },
      'drain-timeout': { type: 'string', default: '120' },
      'drain-max': { type: 'string', default: '3600' },
      'stats-flush': { type: 'string', default: '11' },
      connections: { type: 'string', default: '256' },
      'prepare-concurrency': { type: 'string', default: '32' },
      'log-level': { type: 'string', default: 'info' },
      'ledger-only': { type: 'boolean', default: false },
    },
  });
  const num = (name: keyof typeof values, min: number): number => {
    const n = Number(values[name]);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} needs a number ≥ ${min}, got ${String(values[name])}`);
    return n;
  };
  const rates = String(values.rates)
    .split(',')
    .filter((r) => r.trim() !== '')
    .map((r) => {
      const n = Number(r);
      if (!Number.isFinite(n) || n <= 0) throw new Error(`--rates needs positive numbers, got ${r}`);
      return n;
    });
  const profile = values.profile ?? null;
  if (profile !== null) {
    const apps = existsSync(join(ROOT, 'dist/apps')) ? readdirSync(join(ROOT, 'dist/apps')) : [];
    if (!apps.includes(profile)) throw new Error(`--profile needs one of the apps (${apps.join(', ')}), got ${profile}`);
  }
  const options: Options = {
    rates,
    seconds: num('seconds', 1),
    warmupSeconds: num('warmup', 0),
    burst: Math.round(num('burst', 0)),
    burstConcurrency: Math.round(num('burst-concurrency', 1)),
    runs: Math.round(num('runs', 1)),
    json: String(values.json),
    soakSeconds: num('soak', 0),
    soakRate: num('soak-rate', 1),
    soakLeadSeconds: num('soak-lead', 1),
    profile,
    hops: values.hops === true,
    drainTimeoutS: num('drain-timeout', 1),
    drainMaxS: num('drain-max', 1),
    statsFlushS: num('stats-flush', 0),
    connections: Math.round(num('connections', 1)),
    prepareConcurrency: Math.round(num('prepare-concurrency', 1)),
    logLevel: String(values['log-level']),
    ledgerOnly: values['ledger-only'] === true,
  };
  if (options.rates.length === 0 && options.burst === 0 && options.soakSeconds === 0) throw new Error('nothing to measure: no rates, no burst, no soak');
  return options;
}

// ---------------------------------------------------------------------------------------------
// Small helpers.

const sortedOf = (values: Iterable<number>) => Float64Array.from(values).sort();

/** The hops of a settlement's path, in order (see the phase report's `settlement.hops`). */
const HOPS = [
  '2xx → webhook on topic',
  'webhook on topic → verified',
  'verified → result on topic',
  'result on topic → ledger',
  'ledger → settlement arrival',
] as const;

interface Percentiles {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

function percentilesOf(sorted: Float64Array): Percentiles {
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN };
}

/** Resident set size of a process now (VmRSS), MiB; 0 when it is gone. */
function rssMiB(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** The stack's app processes (children of this process running `dist/apps/<app>/src/main.js`), by app. */
function appProcesses(): Map<string, number> {
  const pids = new Map<string, number>();
  findPids((pid, fields, cmdline) => {
    if (fields[1] !== String(process.pid)) return false;
    const app = APP_SCRIPT.exec(cmdline())?.[1];
    if (app) pids.set(app, pid);
    return Boolean(app);
  });
  return new Map([...pids].sort(([a], [b]) => a.localeCompare(b)));
}

function median(values: number[]): number {
  const s = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

// ---------------------------------------------------------------------------------------------
// Checkouts: prepared in the sandbox and registered with ingestion; the webhook built and signed.

/** A checkout ready for its webhook. */
interface PreparedCheckout {
  reference: string;
  body: Buffer;
  signature: string;
}

/** The sandbox's transaction as its control API answers `pay`. */
type PaidTransaction = Pick<SandboxTransaction, 'id' | 'reference' | 'amount' | 'currency' | 'email' | 'phone' | 'paidAt'>;

/**
 * The `charge.success` body the sandbox sends for a paid transaction, field for field
 * (`PaystackSimulator.data(tx, 'success')` in apps/provider-sandbox/src/paystack.sandbox.ts).
 */
function sandboxChargeSuccess(tx: PaidTransaction): string {
  return JSON.stringify({
    event: 'charge.success',
    data: {
      id: tx.id,
      domain: 'test',
      status: 'success',
      reference: tx.reference,
      amount: tx.amount,
      requested_amount: tx.amount,
      currency: tx.currency,
      gateway_response: 'Successful',
      paid_at: tx.paidAt,
      channel: 'card',
      fees: Math.round(tx.amount * 0.015),
      customer: { email: tx.email, phone: tx.phone, customer_code: `CUS_${tx.id}` },
      metadata: null,
    },
  });
}

/**
 * Creates the transaction in the sandbox with its own webhook dropped, pays it, registers the
 * checkout with ingestion, and builds and signs the webhook the sandbox would have sent.
 *
 * @throws Error when the sandbox or ingestion refuses.
 */
async function prepareCheckout(stack: RunningStack, reference: string): Promise<PreparedCheckout> {
  const email = `bench.${reference}@example.com`;
  const created = await stack.sandbox.create({ reference, amount: AMOUNT_MINOR, currency: CURRENCY, email, behaviour: { webhook: 'drop' } });
  if (created.status !== 201) throw new Error(`sandbox create ${reference} answered ${created.status}`);
  const paid = await stack.sandbox.pay(reference);
  if (paid.status !== 200) throw new Error(`sandbox pay ${reference} answered ${paid.status}`);
  const registered = await stack.ingestion.register({
    provider: 'paystack',
    reference,
    amount: AMOUNT_MINOR,
    currency: CURRENCY,
    user_id: `user_${reference}`,
    customer: { email },
    entitlement: 'pro',
    access_period: 'P1M',
  });
  if (registered.status !== 202) throw new Error(`registration of ${reference} answered ${registered.status}`);
  const body = Buffer.from(sandboxChargeSuccess(paid.body as unknown as PaidTransaction));
  return { reference, body, signature: createHmac('sha512', stack.paystackSecret).update(body).digest('hex') };
}

/** Where a phase's checkouts come from: all prepared beforehand, or prepared while it runs. */
interface CheckoutSource {
  count: number;
  reference(i: number): string;
  /** The prepared checkout `i` (waits for it when it is not ready yet). */
  get(i: number): PreparedCheckout | Promise<PreparedCheckout>;
  /** Checkout `i` was sent: its preparation may be forgotten. */
  release(i: number): void;
}

/** Prepares every checkout first, `concurrency` at a time. */
async function preparedUpfront(stack: RunningStack, references: string[], concurrency: number): Promise<CheckoutSource> {
  const prepared: Array<PreparedCheckout | undefined> = new Array(references.length);
  await closedPool(references.length, concurrency, async (i) => {
    prepared[i] = await prepareCheckout(stack, references[i]!);
  });
  return {
    count: references.length,
    reference: (i) => references[i]!,
    get: (i) => prepared[i]!,
    release: (i) => {
      prepared[i] = undefined;
    },
  };
}

/**
 * A rolling buffer for long phases: `concurrency` workers prepare checkouts in order, staying
 * at most `lead` checkouts ahead of the last one sent, so preparation runs alongside the load
 * rather than all upfront.
 */
class RollingCheckouts implements CheckoutSource {
  private readonly pending = new Map<
    number,
    { promise: Promise<PreparedCheckout>; value?: PreparedCheckout; resolve: (c: PreparedCheckout) => void; reject: (e: unknown) => void }
  >();
  private next = 0;
  private sent = 0;
  private stopped = false;
  private workers: Promise<void>[] = [];
  /** Checkouts prepared so far. */
  preparedCount = 0;
  failures = 0;

  constructor(
    private readonly stack: RunningStack,
    private readonly references: string[],
    private readonly lead: number,
    private readonly concurrency: number,
  ) {}

  get count(): number {
    return this.references.length;
  }

  reference(i: number): string {
    return this.references[i]!;
  }

  private slot(i: number) {
    let slot = this.pending.get(i);
    if (!slot) {
      let resolve!: (c: PreparedCheckout) => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<PreparedCheckout>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      promise.catch(() => undefined);
      slot = { promise, resolve, reject };
      this.pending.set(i, slot);
    }
    return slot;
  }

  start(): void {
    this.workers = Array.from({ length: this.concurrency }, async () => {
      while (!this.stopped && this.next < this.references.length) {
        if (this.next - this.sent >= this.lead) {
          await sleep(50);
          continue;
        }
        const i = this.next++;
        const slot = this.slot(i);
        try {
          slot.value = await prepareCheckout(this.stack, this.references[i]!);
          slot.resolve(slot.value);
          this.preparedCount += 1;
        } catch (error) {
          this.failures += 1;
          slot.reject(error);
        }
      }
    });
  }

  /** The checkout when it is prepared, else the promise of it. */
  get(i: number): PreparedCheckout | Promise<PreparedCheckout> {
    this.sent = Math.max(this.sent, i + 1);
    const slot = this.slot(i);
    return slot.value ?? slot.promise;
  }

  release(i: number): void {
    this.pending.delete(i);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.workers);
  }
}

// ---------------------------------------------------------------------------------------------
// Webhooks.

/** What happened to one webhook. */
interface Sent {
  /** performance.now() it was due (the burst: when it was started). */
  dueAt: number;
  /** Wall clock of its answer, ms (NaN until answered). */
  answeredAt: number;
  status: number | null;
  error: string | null;
  /** Not prepared when it fell due (soak only). */
  late: boolean;
}

/** Posts signed webhooks to ingestion over keep-alive connections. */
class WebhookClient {
  readonly agent: Agent;

  constructor(
    private readonly url: string,
    connections: number,
  ) {
    this.agent = new Agent({ connections, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 60_000, bodyTimeout: 60_000 });
  }

  /** Sends one webhook and fills in `sent` (answer time, status or error). */
  async send(checkout: PreparedCheckout, sent: Sent): Promise<void> {
    try {
      const response = await request(`${this.url}${WEBHOOK_PATH}`, {
        method: 'POST',
        dispatcher: this.agent,
        headers: { 'content-type': 'application/json', 'x-paystack-signature': checkout.signature },
        body: checkout.body,
      });
      await response.body.dump();
      sent.answeredAt = wallNow();
      sent.status = response.statusCode;
    } catch (error) {
      sent.answeredAt = wallNow();
      sent.error = (error as { code?: string }).code ?? (error as Error).message ?? 'unknown';
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Observers: the ledger, the settlements topic, consumer lag, outbox backlog, PostgreSQL stats.

/** Counts the benchmark's own queries on the stack's database (they are PostgreSQL work too). */
class Db {
  queries = 0;
  constructor(readonly pool: pg.Pool) {}
  async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    this.queries += 1;
    return this.pool.query<R>(sql, params);
  }
}

/**
 * A reader of a table that polls it every `intervalMs` in the background (`start`), or at once
 * (`poll`, which joins a read in progress rather than racing it), until `stop`. A failed read is
 * kept in `error` and the next poll tries again.
 */
abstract class Follower {
  private running = false;
  private loop: Promise<void> | null = null;
  private current: Promise<void> | null = null;
  error: unknown = null;

  constructor(private readonly intervalMs: number) {}

  start(): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        try {
          await this.poll();
        } catch (error) {
          this.error = error;
        }
        await sleep(this.intervalMs);
      }
    })();
  }

  /** Reads what is new since the last poll. */
  poll(): Promise<void> {
    this.current ??= this.read().finally(() => {
      this.current = null;
    });
    return this.current;
  }

  protected abstract read(): Promise<void>;

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

/**
 * Follows `ledger.events` by position (gapless and in commit order, so nothing is missed):
 * the first `TransactionSettled` of each reference with its `recorded_at`, how many it saw,
 * and any other outcome recorded on a transaction stream.
 */
class LedgerWatch extends Follower {
  readonly settled = new Map<string, { at: number; count: number }>();
  readonly otherOutcomes = new Map<string, string[]>();
  private position = '0';

  constructor(private readonly db: Db) {
    super(200);
  }

  protected async read(): Promise<void> {
    for (;;) {
      const { rows } = await this.db.query<{ position: string; event_type: string; tx: boolean; reference: string | null; at: number }>(
        `SELECT position::text AS position, event_type, starts_with(stream_id, 'transaction-') AS tx, data->>'reference' AS reference,
                (extract(epoch FROM recorded_at) * 1000)::float8 AS at
           FROM ledger.events WHERE position > $1::bigint ORDER BY position LIMIT 10000`,
        [this.position],
      );
      for (const row of rows) {
        if (!row.tx || !row.reference) continue;
        if (row.event_type === SETTLED) {
          const seen = this.settled.get(row.reference);
          if (seen) seen.count += 1;
          else this.settled.set(row.reference, { at: row.at, count: 1 });
        } else {
          const list = this.otherOutcomes.get(row.reference) ?? [];
          list.push(row.event_type);
          this.otherOutcomes.set(row.reference, list);
        }
      }
      if (rows.length > 0) this.position = rows.at(-1)!.position;
      if (rows.length < 10000) return;
    }
  }
}

/** One reference's `SettlementRecorded` messages as this benchmark's consumer received them. */
interface TopicArrival {
  /** Wall clock of the first arrival, ms. */
  at: number;
  copies: number;
  eventIds: Set<string>;
}

/**
 * A consumer of the settlements topic in a group of its own (outside the stack's prefix, so it
 * is never counted as the stack's lag), from the beginning: each `SettlementRecorded` decoded
 * with the registry codec, its first arrival, copies and event ids recorded by reference.
 */
class SettlementWatch {
  readonly byReference = new Map<string, TopicArrival>();
  messages = 0;
  bytes = 0;
  undecodable = 0;

  private constructor(private readonly consumer: Consumer) {}

  /** @throws when the consumer does not join its group within 60 s. */
  static async start(kafka: Kafka, topic: string, codec: AvroCodec, groupId: string): Promise<SettlementWatch> {
    const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false, sessionTimeout: 30_000, heartbeatInterval: 3_000 });
    const watch = new SettlementWatch(consumer);
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      partitionsConsumedConcurrently: 6,
      eachBatch: async ({ batch }) => {
        const at = wallNow();
        for (const message of batch.messages) {
          if (headerText(message.headers, HEADERS.eventType) !== 'SettlementRecorded') continue;
          watch.messages += 1;
          watch.bytes += message.value?.length ?? 0;
          let reference = message.key?.toString() ?? '';
          let eventId = `undecodable:${batch.partition}:${message.offset}`;
          try {
            const decoded = await codec.decode(message.value, message.headers);
            if (decoded.type === 'SettlementRecorded') {
              reference = decoded.payload.reference;
              eventId = decoded.payload.event_id;
            }
          } catch {
            watch.undecodable += 1;
          }
          const seen = watch.byReference.get(reference);
          if (seen) {
            seen.copies += 1;
            seen.eventIds.add(eventId);
          } else watch.byReference.set(reference, { at, copies: 1, eventIds: new Set([eventId]) });
        }
      },
    });
    await joinedWithin(joined, 'the settlement consumer');
    return watch;
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}

/** One reference's entitlement event as the receiver kit recorded it. */
interface KitArrival {
  /** When the kit recorded it and applied its access (one statement), wall clock ms. */
  at: number;
  eventIds: Set<string>;
}

/**
 * Follows the example customer backend's database: its receiver kit's `settle_receiver.events`,
 * where the kit records each entitlement event in the same statement that applies its access
 * (the kit's README, rule 4), stamped with the kit's clock (`received_at`). Per reference (the
 * event's `reference`): the first record's time and every event id. Rows are read in pages by
 * `received_at` from five seconds before the last one seen, so that a record committed after a
 * later one is still found; ids already seen are skipped.
 */
class KitWatch extends Follower {
  readonly byReference = new Map<string, KitArrival>();
  private readonly seen = new Set<string>();
  private since = 0;

  constructor(private readonly db: pg.Pool) {
    super(500);
  }

  protected async read(): Promise<void> {
    const { rows } = await this.db.query<{ event_id: string; reference: string | null; at: number }>(
      `SELECT event_id, payload->>'reference' AS reference, (extract(epoch FROM received_at) * 1000)::float8 AS at
         FROM settle_receiver.events WHERE received_at >= to_timestamp($1 / 1000.0) ORDER BY received_at`,
      [Math.max(0, this.since - 5_000)],
    );
    for (const row of rows) {
      this.since = Math.max(this.since, row.at);
      if (this.seen.has(row.event_id) || !row.reference) continue;
      this.seen.add(row.event_id);
      const arrival = this.byReference.get(row.reference);
      if (arrival) arrival.eventIds.add(row.event_id);
      else this.byReference.set(row.reference, { at: row.at, eventIds: new Set([row.event_id]) });
    }
  }

  /** Events the kit recorded and has not processed yet (its business logic still to run). */
  async unprocessed(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM settle_receiver.events WHERE state IN ('pending', 'processing')`);
    return rows[0]!.n;
  }

  /** How many events' business logic ran a number of times other than once, among these event ids. */
  async notRunOnce(eventIds: string[]): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM unnest($1::text[]) AS e(event_id)
        WHERE (SELECT count(*) FROM entitlement_runs r WHERE r.event_id = e.event_id) <> 1`,
      [eventIds],
    );
    return rows[0]!.n;
  }
}

/** Consumer lag of the stack's groups, messages. */
interface LagSample {
  total: number;
  byGroup: Record<string, number>;
}

/** Unpublished outbox rows by schema. */
interface BacklogSample {
  total: number;
  bySchema: Record<string, number>;
}

/**
 * Consumer lag and outbox backlog of one stack. Lag: each group named `<topicPrefix>-…`
 * (admin `listGroups`), over the topics its members subscribed (their join metadata), the sum
 * over partitions of the high watermark minus the committed offset (the low watermark when
 * nothing is committed yet). Backlog: every schema with an `outbox` table, rediscovered every
 * 10 s from information_schema.
 */
class StackMonitor {
  private readonly subscriptions = new Map<string, string[]>();
  private outboxes: Array<{ schema: string; unpublishedOnly: boolean }> = [];
  private outboxesAt = -Infinity;

  constructor(
    private readonly admin: Admin,
    private readonly db: Db,
    private readonly topicPrefix: string,
    private readonly topics: Topics,
  ) {}

  async lag(): Promise<LagSample> {
    const { groups } = await this.admin.listGroups();
    const ids = groups.map((g) => g.groupId).filter((id) => id.startsWith(`${this.topicPrefix}-`));
    const unknown = ids.filter((id) => !this.subscriptions.has(id));
    if (unknown.length > 0) {
      const described = await this.admin.describeGroups(unknown);
      for (const group of described.groups) {
        const topics = new Set<string>();
        for (const member of group.members) {
          try {
            for (const topic of AssignerProtocol.MemberMetadata.decode(member.memberMetadata)?.topics ?? []) topics.add(topic);
          } catch {
            // not the consumer protocol's metadata: fall back to the committed topics
          }
        }
        if (topics.size > 0) this.subscriptions.set(group.groupId, [...topics]);
      }
    }
    const watermarks = new Map<string, Map<number, { high: number; low: number }>>();
    const watermarksOf = async (topic: string) => {
      let w = watermarks.get(topic);
      if (!w) {
        const offsets = await this.admin.fetchTopicOffsets(topic);
        w = new Map(offsets.map((o) => [o.partition, { high: Number(o.high), low: Number(o.low) }]));
        watermarks.set(topic, w);
      }
      return w;
    };
    const byGroup: Record<string, number> = {};
    let total = 0;
    for (const groupId of ids) {
      const subscribed = this.subscriptions.get(groupId);
      const committed = await this.admin.fetchOffsets({ groupId, topics: subscribed ?? Object.values(this.topics) });
      let lag = 0;
      for (const { topic, partitions } of committed) {
        // Without known subscriptions, a topic with nothing committed is taken as not consumed.
        if (!subscribed && partitions.every((p) => Number(p.offset) < 0)) continue;
        const w = await watermarksOf(topic);
        for (const p of partitions) {
          const mark = w.get(p.partition);
          if (!mark) continue;
          const offset = Number(p.offset);
          lag += Math.max(0, mark.high - (offset >= 0 ? offset : mark.low));
        }
      }
      byGroup[groupId.slice(this.topicPrefix.length + 1)] = lag;
      total += lag;
    }
    return { total, byGroup };
  }

  async backlog(): Promise<BacklogSample> {
    if (performance.now() - this.outboxesAt > 10_000) {
      const { rows } = await this.db.query<{ schema: string; unpublished_only: boolean }>(
        `SELECT table_schema AS schema, bool_or(column_name = 'published_at') AS unpublished_only
           FROM information_schema.columns WHERE table_name = 'outbox' GROUP BY table_schema ORDER BY table_schema`,
      );
      this.outboxes = rows.map((r) => ({ schema: r.schema, unpublishedOnly: r.unpublished_only }));
      this.outboxesAt = performance.now();
    }
    if (this.outboxes.length === 0) return { total: 0, bySchema: {} };
    const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
    const sql = this.outboxes
      .map(
        (o) =>
          `SELECT ${`'${o.schema.replaceAll("'", "''")}'`}::text AS schema, count(*)::int AS n FROM ${quote(o.schema)}.outbox${o.unpublishedOnly ? ' WHERE published_at IS NULL' : ''}`,
      )
      .join(' UNION ALL ');
    const { rows } = await this.db.query<{ schema: string; n: number }>(sql);
    const bySchema = Object.fromEntries(rows.map((r) => [r.schema, r.n]));
    return { total: rows.reduce((a, r) => a + r.n, 0), bySchema };
  }
}

/** PostgreSQL counters of the stack's database (`pg_stat_database`) and the cluster's WAL (`pg_stat_wal`). */
interface PgStats {
  at: number;
  /** `pg_postmaster_start_time()`: a change means the server restarted in between. */
  serverStartedAt: string;
  xactCommit: number;
  blocks: number;
  walBytes: number | null;
  /** The benchmark's own queries on the stack's database so far. */
  ownQueries: number;
}

async function pgStats(admin: pg.Pool, database: string, db: Db): Promise<PgStats> {
  const ownQueries = db.queries;
  const { rows } = await admin.query<{ xact_commit: string; blocks: string; started: string }>(
    'SELECT xact_commit::text, (blks_hit + blks_read)::text AS blocks, pg_postmaster_start_time()::text AS started FROM pg_stat_database WHERE datname = $1',
    [database],
  );
  let walBytes: number | null = null;
  try {
    walBytes = Number((await admin.query<{ wal_bytes: string }>('SELECT wal_bytes::text FROM pg_stat_wal')).rows[0]?.wal_bytes ?? Number.NaN);
  } catch {
    walBytes = null; // before PostgreSQL 14
  }
  return {
    at: performance.now(),
    serverStartedAt: rows[0]?.started ?? '',
    xactCommit: Number(rows[0]?.xact_commit ?? Number.NaN),
    blocks: Number(rows[0]?.blocks ?? Number.NaN),
    walBytes,
    ownQueries,
  };
}

/** Per-second PostgreSQL work of the stack while idle (relay polls, sweeper ticks, this benchmark's pollers). */
interface PgBackground {
  seconds: number;
  commitsPerSecond: number;
  blocksPerSecond: number;
  walBytesPerSecond: number | null;
  /** CPU of each process group of the idle stack over the same window, cores. */
  idleCores: Record<string, number>;
}

/** One sample of the stack every second. */
interface Sample {
  /** Seconds since the phase's first webhook. */
  t: number;
  lag: LagSample | null;
  backlog: BacklogSample | null;
  /** RSS by app, MiB (on the RSS schedule only). */
  rss: Record<string, number> | null;
}

/** Samples lag and backlog every second and RSS every `rssEveryMs`, until stopped. */
class Sampler {
  readonly samples: Sample[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(monitor: StackMonitor, apps: Map<string, number>, t0: number, rssEveryMs: number) {
    this.loop = (async () => {
      let next = performance.now();
      let lastRss = -Infinity;
      while (this.running) {
        const now = performance.now();
        let rss: Record<string, number> | null = null;
        if (now - lastRss >= rssEveryMs - 5) {
          lastRss = now;
          rss = Object.fromEntries([...apps].map(([app, pid]) => [app, rssMiB(pid)]));
        }
        const [lag, backlog] = await Promise.all([monitor.lag().catch(() => null), monitor.backlog().catch(() => null)]);
        this.samples.push({ t: (now - t0) / 1000, lag, backlog, rss });
        next += 1000;
        while (this.running && performance.now() < next) await sleep(Math.min(100, next - performance.now()));
      }
    })();
  }

  async stop(): Promise<Sample[]> {
    this.running = false;
    await this.loop;
    return this.samples;
  }
}

// ---------------------------------------------------------------------------------------------
// One phase.

/** A phase's load: a fixed offered rate, a burst, or the soak. */
interface PhaseSpec {
  name: string;
  kind: 'rate' | 'burst' | 'soak';
  /** Webhooks per second (Infinity for the burst). */
  offeredRate: number;
  count: number;
}

/** Everything one phase measured. */
interface PhaseReport {
  name: string;
  kind: PhaseSpec['kind'];
  offeredRate: number | null;
  checkouts: number;
  idle: { reached: boolean; waitedSeconds: number; lagAtStart: number | null; backlogAtStart: number | null };
  /** Infrastructure restarted during the phase (by someone else): its CPU and PostgreSQL figures are then unreliable. */
  disturbances: string[];
  load: {
    seconds: number;
    achievedSendRate: number;
    sendLatenessP99Ms: number;
    accepted: number;
    errors: number;
    statuses: Record<string, number>;
    errorCodes: Record<string, number>;
    /** From the webhook's due time (the burst: its start) to its answer, ms. */
    answer: Percentiles;
    notPreparedInTime: number;
  };
  settlement: {
    settled: number;
    onTopic: number;
    /** Settled checkouts per second, from the first webhook to the last ledger settlement. */
    sustainedPerSecond: number;
    /** Settlements per second on the topic, from the first webhook to the last arrival. */
    topicPerSecond: number;
    firstWebhookToLastSettlementSeconds: number;
    /** Webhook 2xx → ledger `recorded_at`, ms. */
    ledgerLatency: Percentiles;
    /** Webhook 2xx → `SettlementRecorded` arrival at this benchmark's consumer, ms. */
    topicLatency: Percentiles;
    /** Checkouts whose entitlement event the customer backend's receiver kit recorded (and applied); `null` with `--ledger-only`. */
    delivered: number | null;
    /** Applied by the kit per second, from the first webhook to the last record; `null` with `--ledger-only`. */
    deliveredPerSecond: number | null;
    /** Webhook 2xx → the kit's record of the entitlement event, which applies the access, ms (empty with `--ledger-only`). */
    kitLatency: Percentiles;
    /** After the drain, seconds until the kit had run the business logic of every event (`null` with `--ledger-only`). */
    businessLogicCaughtUpSeconds: number | null;
    /**
     * With `--hops` (else empty), the same path split into its hops (HopWatch), each hop's own percentiles, ms: webhook 2xx →
     * on transaction-events (ingestion's relay), → verified (verifier: consume, provider call,
     * decision), → on consensus-results (verifier's commit and relay), → ledger (projector), →
     * `SettlementRecorded` arrival (projector's relay, this benchmark's consumer).
     */
    hops: Record<string, Percentiles>;
    drainSeconds: number;
    drained: boolean;
  };
  exactlyOnce: {
    passed: boolean;
    checked: number;
    ledgerMissing: number;
    ledgerMultiple: number;
    topicMissing: number;
    topicConflictingEventIds: number;
    duplicateDeliveries: number;
    otherOutcomes: Record<string, number>;
    erroredButSettled: number;
    /** Accepted webhooks whose entitlement event never reached the kit, or reached it under more than one event id; business logic not run exactly once (0 with `--ledger-only`). */
    kitMissing: number;
    kitMultiple: number;
    runsNotOnce: number;
    examples: string[];
  };
  consumerLag: { max: number; maxByGroup: Record<string, number>; atLoadEnd: number | null };
  outboxBacklog: { max: number; maxBySchema: Record<string, number>; atLoadEnd: number | null };
  cpu: { wallSeconds: number; msPerCheckout: Record<string, number>; machineBusyCores: number };
  peakRssMiB: Record<string, number>;
  postgres: {
    seconds: number;
    ownQueries: number;
    commitsPerCheckout: number;
    blocksPerCheckout: number;
    walBytesPerCheckout: number | null;
    net: { commitsPerCheckout: number; blocksPerCheckout: number; walBytesPerCheckout: number | null };
  };
  baseline: (Omit<RoundTripResult, 'latencies'> & { payloadBytes: number; ratio: number }) | null;
  soak?: SoakFigures;
  samples: Sample[];
}

/** What only the soak reports. */
interface SoakFigures {
  leadSeconds: number;
  preparationFailures: number;
  rssEvery10s: Array<{ t: number; rss: Record<string, number> }>;
  /** Mean RSS of the last minute of load against the first, %, by app. */
  rssDriftPct: Record<string, number>;
  perMinute: Array<{ minute: number; webhooks: number; settled: number; ledgerLatency: Percentiles; topicLatency: Percentiles }>;
}

/** What a run shares between its phases. */
interface RunContext {
  options: Options;
  stack: RunningStack;
  database: string;
  db: Db;
  admin: pg.Pool;
  kafkaAdmin: Admin;
  monitor: StackMonitor;
  ledger: LedgerWatch;
  settlements: SettlementWatch;
  /** The customer backend's receiver kit; `null` with `--ledger-only`. */
  kit: KitWatch | null;
  /** `null` unless `--hops`. */
  hops: HopWatch | null;
  webhooks: WebhookClient;
  apps: Map<string, number>;
  /** CPU of every process now; the infrastructure's processes looked up afresh (a restarted broker has a new pid). */
  snapshot: () => CpuSnapshot;
  background: PgBackground | null;
  /** Checkouts registered so far in this stack. */
  registered: number;
  settlementPartitions: number;
  log: (line: string) => void;
}

function assertAlive(ctx: RunContext): void {
  const exited = ctx.stack.exited();
  if (exited.length > 0) {
    const [first] = exited;
    throw new Error(
      `app ${first!.app} exited (code ${first!.code}, signal ${first!.signal}) during the benchmark; its log ends:\n${ctx.stack.logs(first!.app).slice(-3000)}`,
    );
  }
}

/** Waits until the verifier holds `ctx.registered` checkouts; gives up after the drain timeout without progress. */
async function waitForRegistrations(ctx: RunContext): Promise<void> {
  let last = -1;
  let progressAt = performance.now();
  for (;;) {
    assertAlive(ctx);
    const { rows } = await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM verifier.transactions');
    const n = rows[0]!.n;
    if (n >= ctx.registered) return;
    if (n !== last) {
      last = n;
      progressAt = performance.now();
    } else if (performance.now() - progressAt > ctx.options.drainTimeoutS * 1000) {
      throw new Error(`the verifier holds ${n} of ${ctx.registered} registered checkouts and made no progress for ${ctx.options.drainTimeoutS} s`);
    }
    await sleep(250);
  }
}

/** Waits until every group caught up and every outbox is published (or the drain timeout passes without progress). */
async function waitForIdle(ctx: RunContext): Promise<PhaseReport['idle']> {
  const start = performance.now();
  let progressAt = start;
  let last = Number.POSITIVE_INFINITY;
  let lag: number | null = null;
  let backlog: number | null = null;
  for (;;) {
    assertAlive(ctx);
    [lag, backlog] = await Promise.all([
      ctx.monitor
        .lag()
        .then((l) => l.total)
        .catch(() => null),
      ctx.monitor
        .backlog()
        .then((b) => b.total)
        .catch(() => null),
    ]);
    if (lag === 0 && backlog === 0) return { reached: true, waitedSeconds: (performance.now() - start) / 1000, lagAtStart: 0, backlogAtStart: 0 };
    const remaining = (lag ?? last) + (backlog ?? 0);
    if (remaining < last) {
      last = remaining;
      progressAt = performance.now();
    } else if (performance.now() - progressAt > ctx.options.drainTimeoutS * 1000) {
      ctx.log(`  not idle after ${fmt((performance.now() - start) / 1000)} s (consumer lag ${fmt(lag)}, outbox backlog ${fmt(backlog)}); measuring anyway`);
      return { reached: false, waitedSeconds: (performance.now() - start) / 1000, lagAtStart: lag, backlogAtStart: backlog };
    }
    await sleep(250);
  }
}

/**
 * Runs one phase: waits for the stack to be idle, sends the webhooks, waits for the drain,
 * checks exactly-once and measures everything of {@link PhaseReport}.
 *
 * @throws Error when an app exits meanwhile.
 */
async function runPhase(
  ctx: RunContext,
  spec: PhaseSpec,
  source: CheckoutSource,
  { soak, flushStats }: { soak: { lead: number; rolling: RollingCheckouts } | null; flushStats: boolean },
): Promise<PhaseReport> {
  const { options } = ctx;
  const idle = soak ? { reached: true, waitedSeconds: 0, lagAtStart: null, backlogAtStart: null } : await waitForIdle(ctx);
  if (!soak && flushStats && options.statsFlushS > 0) await sleep(options.statsFlushS * 1000);
  const pg0 = await pgStats(ctx.admin, ctx.database, ctx.db);
  const cpu0 = ctx.snapshot();
  const t0 = performance.now();
  const sampler = new Sampler(ctx.monitor, ctx.apps, t0, spec.kind === 'soak' ? 10_000 : 1_000);
  const sent: Sent[] = Array.from({ length: source.count }, () => ({ dueAt: Number.NaN, answeredAt: Number.NaN, status: null, error: null, late: false }));
  const firstWall = wallNow();
  const inFlight: Promise<void>[] = [];
  let schedule: { startedAt: number; endedAt: number; lateness: Float64Array };
  const fire = (i: number, due: number) => {
    sent[i]!.dueAt = due;
    const checkout = source.get(i);
    const go = (c: PreparedCheckout) => ctx.webhooks.send(c, sent[i]!).finally(() => source.release(i));
    if (checkout instanceof Promise) {
      // Not prepared when it fell due (the soak's preparation fell behind): sent once it is.
      sent[i]!.late = true;
      inFlight.push(
        checkout.then(go, (error: unknown) => {
          sent[i]!.answeredAt = wallNow();
          sent[i]!.error = `preparation failed: ${(error as Error).message}`;
          source.release(i);
        }),
      );
    } else inFlight.push(go(checkout));
  };
  if (spec.kind === 'burst') {
    const startedAt = performance.now();
    await closedPool(source.count, options.burstConcurrency, async (i) => {
      sent[i]!.dueAt = performance.now();
      const c = source.get(i) as PreparedCheckout;
      await ctx.webhooks.send(c, sent[i]!);
      source.release(i);
    });
    schedule = { startedAt, endedAt: performance.now(), lateness: new Float64Array(0) };
  } else {
    schedule = await openLoop(source.count, spec.offeredRate, fire);
  }
  await Promise.all(inFlight);
  const loadEnd = performance.now();
  if (soak) await soak.rolling.stop();

  // The drain: every accepted webhook settled in the ledger and seen on the topic.
  const accepted: number[] = [];
  sent.forEach((s, i) => {
    if (s.status !== null && s.status >= 200 && s.status < 300) accepted.push(i);
  });
  const progress = () => {
    let ledger = 0;
    let topic = 0;
    let kit = 0;
    for (const i of accepted) {
      const reference = source.reference(i);
      if (ctx.ledger.settled.has(reference)) ledger += 1;
      if (ctx.settlements.byReference.has(reference)) topic += 1;
      if (ctx.kit?.byReference.has(reference)) kit += 1;
    }
    return { ledger, topic, kit: ctx.kit ? kit : accepted.length };
  };
  let drained = false;
  let lastDone = -1;
  let progressAt = performance.now();
  for (;;) {
    assertAlive(ctx);
    await ctx.ledger.poll().catch(() => undefined);
    await ctx.kit?.poll().catch(() => undefined);
    const p = progress();
    if (p.ledger === accepted.length && p.topic === accepted.length && p.kit === accepted.length) {
      drained = true;
      break;
    }
    if (p.ledger + p.topic + p.kit !== lastDone) {
      lastDone = p.ledger + p.topic + p.kit;
      progressAt = performance.now();
    } else if (performance.now() - progressAt > options.drainTimeoutS * 1000) break;
    if (performance.now() - loadEnd > options.drainMaxS * 1000) break;
    await sleep(250);
  }
  const drainEnd = performance.now();
  // The kit's business logic runs after its 200 (and the access): its CPU belongs to the phase too.
  let businessLogicCaughtUpSeconds: number | null = null;
  if (ctx.kit) {
    let left = Number.POSITIVE_INFINITY;
    let movedAt = performance.now();
    for (;;) {
      assertAlive(ctx);
      const n = await ctx.kit.unprocessed();
      if (n === 0) {
        businessLogicCaughtUpSeconds = (performance.now() - drainEnd) / 1000;
        break;
      }
      if (n < left) {
        left = n;
        movedAt = performance.now();
      } else if (performance.now() - movedAt > options.drainTimeoutS * 1000) break;
      await sleep(250);
    }
  }
  const cpu1 = ctx.snapshot();
  const samples = await sampler.stop();
  if (flushStats && options.statsFlushS > 0) await sleep(options.statsFlushS * 1000);
  const pg1 = await pgStats(ctx.admin, ctx.database, ctx.db);

  // Exactly once, from the ledger itself (not the follower) and from the topic.
  const references = Array.from({ length: source.count }, (_, i) => source.reference(i));
  const ledgerCounts = new Map<string, number>();
  const otherOutcomes: Record<string, number> = {};
  for (let from = 0; from < references.length; from += 20_000) {
    const chunk = references.slice(from, from + 20_000);
    const { rows } = await ctx.db.query<{ reference: string; event_type: string; n: number }>(
      `SELECT data->>'reference' AS reference, event_type, count(*)::int AS n FROM ledger.events
        WHERE stream_id = ANY($1::text[]) GROUP BY 1, 2`,
      [chunk.map((r) => `transaction-${r}`)],
    );
    for (const row of rows) {
      if (row.event_type === SETTLED) ledgerCounts.set(row.reference, (ledgerCounts.get(row.reference) ?? 0) + row.n);
      else otherOutcomes[row.event_type] = (otherOutcomes[row.event_type] ?? 0) + row.n;
    }
  }
  const acceptedSet = new Set(accepted);
  let ledgerMissing = 0;
  let ledgerMultiple = 0;
  let topicMissing = 0;
  let topicConflictingEventIds = 0;
  let duplicateDeliveries = 0;
  let erroredButSettled = 0;
  const examples: string[] = [];
  const example = (text: string) => {
    if (examples.length < 10) examples.push(text);
  };
  references.forEach((reference, i) => {
    const n = ledgerCounts.get(reference) ?? 0;
    const arrival = ctx.settlements.byReference.get(reference);
    if (arrival) {
      duplicateDeliveries += arrival.copies - 1;
      if (arrival.eventIds.size > 1) {
        topicConflictingEventIds += 1;
        example(`${reference}: ${arrival.eventIds.size} different SettlementRecorded event ids on the topic`);
      }
    }
    if (n > 1) {
      ledgerMultiple += 1;
      example(`${reference}: ${n} ledger settlements`);
    }
    if (!acceptedSet.has(i)) {
      if (n === 1) erroredButSettled += 1;
      return;
    }
    if (n === 0) {
      ledgerMissing += 1;
      example(`${reference}: no ledger settlement`);
    }
    if (!arrival) {
      topicMissing += 1;
      example(`${reference}: no SettlementRecorded on the topic`);
    }
  });
  let kitMissing = 0;
  let kitMultiple = 0;
  let runsNotOnce = 0;
  if (ctx.kit) {
    const kitEventIds: string[] = [];
    for (const i of accepted) {
      const reference = source.reference(i);
      const arrival = ctx.kit.byReference.get(reference);
      if (!arrival) {
        kitMissing += 1;
        example(`${reference}: no entitlement event at the customer backend's kit`);
      } else {
        kitEventIds.push(...arrival.eventIds);
        if (arrival.eventIds.size > 1) {
          kitMultiple += 1;
          example(`${reference}: ${arrival.eventIds.size} entitlement events at the kit`);
        }
      }
    }
    runsNotOnce = await ctx.kit.notRunOnce(kitEventIds);
    if (runsNotOnce > 0) example(`${runsNotOnce} entitlement events whose business logic did not run exactly once`);
  }
  const passed =
    ledgerMissing === 0 &&
    ledgerMultiple === 0 &&
    topicMissing === 0 &&
    topicConflictingEventIds === 0 &&
    kitMissing === 0 &&
    kitMultiple === 0 &&
    runsNotOnce === 0;

  // Latencies.
  const ledgerLatencies: number[] = [];
  const topicLatencies: number[] = [];
  const hopLatencies: Record<string, number[]> = Object.fromEntries(HOPS.map((h) => [h, []]));
  const kitLatencies: number[] = [];
  let lastDelivery = Number.NaN;
  let delivered = 0;
  let lastSettlement = Number.NaN;
  let lastArrival = Number.NaN;
  let settled = 0;
  let onTopic = 0;
  for (const i of accepted) {
    const reference = source.reference(i);
    const answeredAt = sent[i]!.answeredAt;
    const s = ctx.ledger.settled.get(reference);
    if (s) {
      settled += 1;
      ledgerLatencies.push(s.at - answeredAt);
      lastSettlement = Number.isNaN(lastSettlement) ? s.at : Math.max(lastSettlement, s.at);
    }
    const a = ctx.settlements.byReference.get(reference);
    if (a) {
      onTopic += 1;
      topicLatencies.push(a.at - answeredAt);
      lastArrival = Number.isNaN(lastArrival) ? a.at : Math.max(lastArrival, a.at);
    }
    const k = ctx.kit?.byReference.get(reference);
    if (k) {
      delivered += 1;
      kitLatencies.push(k.at - answeredAt);
      lastDelivery = Number.isNaN(lastDelivery) ? k.at : Math.max(lastDelivery, k.at);
    }
    const h = ctx.hops?.byReference.get(reference);
    const marks = [answeredAt, h?.webhookOnTopic, h?.verified, h?.resultOnTopic, s?.at, a?.at];
    HOPS.forEach((hop, k) => {
      const [from, to] = [marks[k], marks[k + 1]];
      if (from !== undefined && to !== undefined) hopLatencies[hop]!.push(to - from);
    });
  }

  // Sampled series.
  const loadEndT = (loadEnd - t0) / 1000;
  const lagSamples = samples.filter((s) => s.lag);
  const backlogSamples = samples.filter((s) => s.backlog);
  const maxBy = (records: Array<Record<string, number>>) => {
    const out: Record<string, number> = {};
    for (const r of records) for (const [k, v] of Object.entries(r)) out[k] = Math.max(out[k] ?? 0, v);
    return out;
  };
  const atLoadEnd = <T>(list: Sample[], pick: (s: Sample) => T | null): T | null => {
    const s = list.find((x) => x.t >= loadEndT) ?? list.at(-1);
    return s ? pick(s) : null;
  };
  const rssSamples = samples.filter((s) => s.rss);
  const peakRssMiB = maxBy(rssSamples.map((s) => s.rss!));

  // Someone else's restart of the infrastructure meanwhile (pids of the broker and registry, the server's start time).
  const disturbances: string[] = [];
  if (pg0.serverStartedAt !== pg1.serverStartedAt) disturbances.push(`PostgreSQL restarted (${pg0.serverStartedAt} → ${pg1.serverStartedAt})`);
  for (const name of ['Kafka broker', 'schema registry']) {
    const before = [...(cpu0.groups.get(name)?.keys() ?? [])].join(',');
    const after = [...(cpu1.groups.get(name)?.keys() ?? [])].join(',');
    if (before !== after) disturbances.push(`${name} restarted (pid ${before || 'none'} → ${after || 'none'})`);
  }

  // CPU per settled checkout.
  const cpu: CpuDelta = cpuDelta(cpu0, cpu1);
  const per = (ms: number) => ms / Math.max(1, settled);
  const msPerCheckout: Record<string, number> = {};
  let accounted = cpu.loadGeneratorMs;
  for (const [group, ms] of cpu.groups) {
    msPerCheckout[group] = per(ms);
    accounted += ms;
  }
  msPerCheckout['load generator and observers (this process)'] = per(cpu.loadGeneratorMs);
  msPerCheckout['rest of the machine'] = per(cpu.machineBusyMs - accounted);
  msPerCheckout['whole machine'] = per(cpu.machineBusyMs);

  // PostgreSQL per settled checkout.
  const pgSeconds = (pg1.at - pg0.at) / 1000;
  const ownQueries = pg1.ownQueries - pg0.ownQueries;
  const commits = pg1.xactCommit - pg0.xactCommit - ownQueries;
  const blocks = pg1.blocks - pg0.blocks;
  const wal = pg1.walBytes !== null && pg0.walBytes !== null ? pg1.walBytes - pg0.walBytes : null;
  const bg = ctx.background;
  const net = {
    commitsPerCheckout: bg ? per(commits - bg.commitsPerSecond * pgSeconds) : Number.NaN,
    blocksPerCheckout: bg ? per(blocks - bg.blocksPerSecond * pgSeconds) : Number.NaN,
    walBytesPerCheckout: bg && wal !== null && bg.walBytesPerSecond !== null ? per(wal - bg.walBytesPerSecond * pgSeconds) : null,
  };

  const statuses: Record<string, number> = {};
  const errorCodes: Record<string, number> = {};
  for (const s of sent) {
    if (s.status !== null) statuses[String(s.status)] = (statuses[String(s.status)] ?? 0) + 1;
    if (s.error !== null) errorCodes[s.error] = (errorCodes[s.error] ?? 0) + 1;
  }
  const answerLatencies = sent.filter((s) => Number.isFinite(s.answeredAt)).map((s) => s.answeredAt - (performance.timeOrigin + s.dueAt));
  const loadSeconds = (schedule.endedAt - schedule.startedAt) / 1000;
  const report: PhaseReport = {
    name: spec.name,
    kind: spec.kind,
    offeredRate: Number.isFinite(spec.offeredRate) ? spec.offeredRate : null,
    checkouts: source.count,
    idle,
    disturbances,
    load: {
      seconds: loadSeconds,
      achievedSendRate: source.count / Math.max(loadSeconds, 1e-9),
      sendLatenessP99Ms: percentile(sortedOf(schedule.lateness), 99),
      accepted: accepted.length,
      errors: source.count - accepted.length,
      statuses,
      errorCodes,
      answer: percentilesOf(sortedOf(answerLatencies)),
      notPreparedInTime: sent.filter((s) => s.late).length,
    },
    settlement: {
      settled,
      onTopic,
      sustainedPerSecond: settled / Math.max((lastSettlement - firstWall) / 1000, 1e-9),
      topicPerSecond: onTopic / Math.max((lastArrival - firstWall) / 1000, 1e-9),
      firstWebhookToLastSettlementSeconds: (lastSettlement - firstWall) / 1000,
      ledgerLatency: percentilesOf(sortedOf(ledgerLatencies)),
      topicLatency: percentilesOf(sortedOf(topicLatencies)),
      delivered: ctx.kit ? delivered : null,
      deliveredPerSecond: ctx.kit ? delivered / Math.max((lastDelivery - firstWall) / 1000, 1e-9) : null,
      kitLatency: percentilesOf(sortedOf(kitLatencies)),
      businessLogicCaughtUpSeconds,
      hops: ctx.hops ? Object.fromEntries(HOPS.map((hop) => [hop, percentilesOf(sortedOf(hopLatencies[hop]!))])) : {},
      drainSeconds: (drainEnd - loadEnd) / 1000,
      drained,
    },
    exactlyOnce: {
      passed,
      checked: accepted.length,
      ledgerMissing,
      ledgerMultiple,
      topicMissing,
      topicConflictingEventIds,
      duplicateDeliveries,
      otherOutcomes,
      erroredButSettled,
      kitMissing,
      kitMultiple,
      runsNotOnce,
      examples,
    },
    consumerLag: {
      max: Math.max(0, ...lagSamples.map((s) => s.lag!.total)),
      maxByGroup: maxBy(lagSamples.map((s) => s.lag!.byGroup)),
      atLoadEnd: atLoadEnd(lagSamples, (s) => s.lag!.total),
    },
    outboxBacklog: {
      max: Math.max(0, ...backlogSamples.map((s) => s.backlog!.total)),
      maxBySchema: maxBy(backlogSamples.map((s) => s.backlog!.bySchema)),
      atLoadEnd: atLoadEnd(backlogSamples, (s) => s.backlog!.total),
    },
    cpu: { wallSeconds: cpu.wallMs / 1000, msPerCheckout, machineBusyCores: cpu.machineBusyMs / cpu.wallMs },
    peakRssMiB,
    postgres: {
      seconds: pgSeconds,
      ownQueries,
      commitsPerCheckout: per(commits),
      blocksPerCheckout: per(blocks),
      walBytesPerCheckout: wal === null ? null : per(wal),
      net,
    },
    baseline: null,
    samples,
  };

  if (soak) {
    const minuteOf = (i: number) => Math.floor((sent[i]!.dueAt - schedule.startedAt) / 60_000);
    const minutes = new Map<number, { webhooks: number; ledger: number[]; topic: number[] }>();
    for (let i = 0; i < sent.length; i++) {
      const m = minutes.get(minuteOf(i)) ?? { webhooks: 0, ledger: [], topic: [] };
      m.webhooks += 1;
      const reference = source.reference(i);
      const s = ctx.ledger.settled.get(reference);
      const a = ctx.settlements.byReference.get(reference);
      if (acceptedSet.has(i) && s) m.ledger.push(s.at - sent[i]!.answeredAt);
      if (acceptedSet.has(i) && a) m.topic.push(a.at - sent[i]!.answeredAt);
      minutes.set(minuteOf(i), m);
    }
    const rssEvery10s = rssSamples.map((s) => ({ t: s.t, rss: s.rss! }));
    const meanIn = (from: number, to: number) => {
      const window = rssEvery10s.filter((s) => s.t >= from && s.t < to);
      const out: Record<string, number> = {};
      for (const app of ctx.apps.keys()) out[app] = window.reduce((a, s) => a + (s.rss[app] ?? 0), 0) / Math.max(1, window.length);
      return out;
    };
    const first = meanIn(0, 60);
    const last = meanIn(Math.max(0, loadEndT - 60), loadEndT + 1e-9);
    report.soak = {
      leadSeconds: soak.lead / spec.offeredRate,
      preparationFailures: soak.rolling.failures,
      rssEvery10s,
      rssDriftPct: Object.fromEntries(
        [...ctx.apps.keys()].map((app) => [app, (100 * ((last[app] ?? 0) - (first[app] ?? 0))) / Math.max(1e-9, first[app] ?? 0)]),
      ),
      perMinute: [...minutes]
        .sort(([a], [b]) => a - b)
        .map(([minute, m]) => ({
          minute,
          webhooks: m.webhooks,
          settled: m.ledger.length,
          ledgerLatency: percentilesOf(sortedOf(m.ledger)),
          topicLatency: percentilesOf(sortedOf(m.topic)),
        })),
    };
  }
  return report;
}

// ---------------------------------------------------------------------------------------------
// One run: a stack, the phases, the baselines, the soak.

/** One run of every phase on a fresh stack. */
interface RunReport {
  run: number;
  topicPrefix: string;
  database: string;
  apps: Record<string, number>;
  settlementPartitions: number;
  pgBackground: PgBackground | null;
  phases: PhaseReport[];
  failure: string | null;
  profileFiles: string[];
}

async function measureBackground(ctx: RunContext, seconds: number): Promise<PgBackground> {
  await waitForIdle(ctx);
  if (ctx.options.statsFlushS > 0) await sleep(ctx.options.statsFlushS * 1000);
  const a = await pgStats(ctx.admin, ctx.database, ctx.db);
  const cpuA = ctx.snapshot();
  await sleep(seconds * 1000);
  const cpuB = ctx.snapshot();
  const b = await pgStats(ctx.admin, ctx.database, ctx.db);
  const s = (b.at - a.at) / 1000;
  const cpu = cpuDelta(cpuA, cpuB);
  const idleCores: Record<string, number> = Object.fromEntries([...cpu.groups].map(([group, ms]) => [group, ms / cpu.wallMs]));
  idleCores['load generator and observers (this process)'] = cpu.loadGeneratorMs / cpu.wallMs;
  idleCores['whole machine'] = cpu.machineBusyMs / cpu.wallMs;
  return {
    idleCores,
    seconds: s,
    commitsPerSecond: (b.xactCommit - a.xactCommit - (b.ownQueries - a.ownQueries)) / s,
    blocksPerSecond: (b.blocks - a.blocks) / s,
    walBytesPerSecond: a.walBytes !== null && b.walBytes !== null ? (b.walBytes - a.walBytes) / s : null,
  };
}

async function runOnce(run: number, options: Options, log: (line: string) => void): Promise<RunReport> {
  const profileDir = options.profile ? mkdtempSync(join(tmpdir(), `settle-e2e-${options.profile}-prof-`)) : null;
  // As `./settle up` starts it (docs/benchmarks.md, "e2e"): the apps' own settings, the
  // console, and the example customer backend registered as the dispatcher's endpoint;
  // `--ledger-only` leaves the last two out. One setting differs: the sweeper's inactivity
  // window is an hour instead of 45 s, or it would verify the checkouts prepared for a phase
  // (minutes of preparation at 1,000/s) before their webhooks are sent, and the phase would
  // measure the sweeper instead of the webhook path. It still follows every event.
  const stack = await startStack({
    inactivityMs: 3_600_000,
    settings: 'up',
    logLevel: options.logLevel,
    adminDatabaseUrl: infra.benchAdminDatabaseUrl,
    ...(options.ledgerOnly ? {} : { customerBackend: {}, console: {} }),
    ...(profileDir && options.profile
      ? {
          env: {
            [options.profile as StackApp]: { NODE_OPTIONS: `${process.env.SETTLE_APP_NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${profileDir}`.trim() },
          },
        }
      : {}),
  });
  const database = new URL(stack.databaseUrl).pathname.slice(1);
  const logger: Logger = createLogger('bench-e2e', 'warn');
  const topics = topicNames(stack.topicPrefix);
  const kafka = createKafka('bench-e2e', infra.kafkaBrokers, logger);
  const kafkaAdmin = kafka.admin();
  const admin = createPool(infra.benchAdminDatabaseUrl, 2);
  const db = new Db(stack.db);
  const ledger = new LedgerWatch(db);
  const kit = stack.customer ? new KitWatch(stack.customer.db) : null;
  const webhooks = new WebhookClient(stack.ingestionUrl, options.connections);
  let settlements: SettlementWatch | null = null;
  let hops: HopWatch | null = null;
  const report: RunReport = {
    run,
    topicPrefix: stack.topicPrefix,
    database,
    apps: {},
    settlementPartitions: 0,
    pgBackground: null,
    phases: [],
    failure: null,
    profileFiles: [],
  };
  try {
    await kafkaAdmin.connect();
    const apps = appProcesses();
    if (stack.customer) apps.set('customer backend (receiver kit)', stack.customer.pid);
    report.apps = Object.fromEntries(apps);
    const metadata = await kafkaAdmin.fetchTopicMetadata({ topics: [topics.settlements] });
    const settlementPartitions = metadata.topics[0]?.partitions.length ?? 0;
    report.settlementPartitions = settlementPartitions;
    settlements = await SettlementWatch.start(kafka, topics.settlements, AvroCodec.connect(infra.registryUrl, topics), `bench-e2e-${stack.topicPrefix}`);
    if (options.hops) hops = await HopWatch.start(kafka, topics, AvroCodec.connect(infra.registryUrl, topics), `bench-e2e-hops-${stack.topicPrefix}`);
    ledger.start();
    kit?.start();
    const appGroups: Groups = [...apps].map(([app, pid]): [string, () => number[]] => [app, () => [pid]]);
    const ctx: RunContext = {
      options,
      stack,
      database,
      db,
      admin,
      kafkaAdmin,
      monitor: new StackMonitor(kafkaAdmin, db, stack.topicPrefix, topics),
      ledger,
      settlements,
      kit,
      hops,
      webhooks,
      apps,
      snapshot: () => snapshot([...appGroups, ...infraGroups(database, infra.benchAdminDatabaseUrl, stack.customer?.databaseName)]),
      background: null,
      registered: 0,
      settlementPartitions,
      log,
    };
    log(`run ${run}: stack up (database ${database}, topic prefix ${stack.topicPrefix}, apps ${[...apps].map(([a, p]) => `${a}=${p}`).join(' ')})`);
    const tag = randomBytes(3).toString('hex');
    if (options.warmupSeconds > 0) {
      // Not reported: JIT compilation in the apps and the JVMs, connection pools, page cache.
      const rate = options.rates[0] ?? options.soakRate;
      const spec: PhaseSpec = { name: 'warm-up', kind: 'rate', offeredRate: rate, count: Math.max(1, Math.round(rate * options.warmupSeconds)) };
      const source = await preparedUpfront(
        stack,
        Array.from({ length: spec.count }, (_, i) => `e2e_${tag}_w_${i}`),
        options.prepareConcurrency,
      );
      ctx.registered += spec.count;
      await waitForRegistrations(ctx);
      const warm = await runPhase(ctx, spec, source, { soak: null, flushStats: false });
      log(`  warm-up: ${fmt(spec.count)} webhooks at ${fmt(rate)}/s, ${fmt(warm.settlement.settled)} settled (not reported)`);
      if (!warm.exactlyOnce.passed) {
        report.failure = exactlyOnceFailure(warm);
        return report;
      }
    }
    ctx.background = await measureBackground(ctx, 10);
    report.pgBackground = ctx.background;
    log(
      `  idle stack: ${fmt(ctx.background.commitsPerSecond, 1)} commits/s, ${fmt(ctx.background.blocksPerSecond)} blocks/s, ` +
        `${fmt(ctx.background.walBytesPerSecond)} WAL bytes/s (cluster-wide) over ${fmt(ctx.background.seconds, 1)} s; cores busy: ` +
        Object.entries(ctx.background.idleCores)
          .map(([group, cores]) => `${group} ${fmt(cores, 3)}`)
          .join(', '),
    );

    const specs: PhaseSpec[] = [
      ...options.rates.map((rate): PhaseSpec => ({
        name: `${fmt(rate)}/s`,
        kind: 'rate',
        offeredRate: rate,
        count: Math.max(1, Math.round(rate * options.seconds)),
      })),
      ...(options.burst > 0
        ? [{ name: `burst ${fmt(options.burst)}`, kind: 'burst', offeredRate: Number.POSITIVE_INFINITY, count: options.burst } as PhaseSpec]
        : []),
    ];
    for (const [p, spec] of specs.entries()) {
      const references = Array.from({ length: spec.count }, (_, i) => `e2e_${tag}_${p}_${i}`);
      const prepStart = performance.now();
      log(`  ${spec.name}: preparing ${fmt(spec.count)} checkouts (${options.prepareConcurrency} in flight) …`);
      const source = await preparedUpfront(stack, references, options.prepareConcurrency);
      ctx.registered += spec.count;
      await waitForRegistrations(ctx);
      log(`  ${spec.name}: prepared and registered with the verifier in ${fmt((performance.now() - prepStart) / 1000, 1)} s; measuring …`);
      const phase = await runPhase(ctx, spec, source, { soak: null, flushStats: true });
      // The baseline: the same number of messages, of the phase's mean SettlementRecorded size, same schedule.
      const payloadBytes = Math.max(1, Math.round(settlements.bytes / Math.max(1, settlements.messages)));
      const rt = await KafkaRoundTrip.start({ brokers: infra.kafkaBrokers, partitions: settlementPartitions, payloadBytes, logger });
      try {
        await rt.run(200, Number.POSITIVE_INFINITY);
        const { latencies: _latencies, ...base } = await rt.run(spec.count, spec.offeredRate);
        phase.baseline = { ...base, payloadBytes, ratio: phase.settlement.sustainedPerSecond / base.throughput };
      } finally {
        await rt.stop();
      }
      report.phases.push(phase);
      log(
        `  ${spec.name}: ${fmt(phase.settlement.settled)} settled, ${fmt(phase.settlement.sustainedPerSecond, 1)}/s sustained ` +
          `(baseline ${fmt(phase.baseline.throughput, 1)}/s), ledger p99 ${fmt(phase.settlement.ledgerLatency.p99)} ms, drain ${fmt(phase.settlement.drainSeconds, 1)} s, ` +
          `exactly once: ${phase.exactlyOnce.passed ? 'yes' : 'NO'}`,
      );
      if (!phase.exactlyOnce.passed) {
        report.failure = exactlyOnceFailure(phase);
        return report;
      }
    }

    if (options.soakSeconds > 0) {
      const spec: PhaseSpec = {
        name: `soak ${fmt(options.soakRate)}/s × ${fmt(options.soakSeconds)} s`,
        kind: 'soak',
        offeredRate: options.soakRate,
        count: Math.round(options.soakRate * options.soakSeconds),
      };
      const references = Array.from({ length: spec.count }, (_, i) => `e2e_${tag}_soak_${i}`);
      const lead = Math.max(1, Math.round(options.soakRate * options.soakLeadSeconds));
      const rolling = new RollingCheckouts(stack, references, lead, options.prepareConcurrency);
      log(
        `  ${spec.name}: preparing the first ${fmt(Math.min(lead, spec.count))} checkouts (${fmt(options.soakLeadSeconds)} s ahead), the rest while it runs …`,
      );
      await waitForIdle(ctx);
      if (options.statsFlushS > 0) await sleep(options.statsFlushS * 1000);
      rolling.start();
      while (rolling.preparedCount + rolling.failures < Math.min(lead, spec.count)) {
        assertAlive(ctx);
        await sleep(100);
      }
      const registeredBefore = ctx.registered;
      ctx.registered = registeredBefore + rolling.preparedCount;
      await waitForRegistrations(ctx);
      const phase = await runPhase(ctx, spec, rolling, { soak: { lead, rolling }, flushStats: true });
      ctx.registered = registeredBefore + rolling.preparedCount;
      report.phases.push(phase);
      log(
        `  ${spec.name}: ${fmt(phase.settlement.settled)} settled, ${fmt(phase.settlement.sustainedPerSecond, 1)}/s sustained, exactly once: ${phase.exactlyOnce.passed ? 'yes' : 'NO'}`,
      );
      if (!phase.exactlyOnce.passed) report.failure = exactlyOnceFailure(phase);
    }
    return report;
  } finally {
    await ledger.stop();
    await kit?.stop();
    await settlements?.stop().catch(() => undefined);
    await hops?.stop().catch(() => undefined);
    await kafkaAdmin.disconnect().catch(() => undefined);
    await webhooks.close().catch(() => undefined);
    await admin.end().catch(() => undefined);
    await stack.stop();
    if (profileDir)
      report.profileFiles = readdirSync(profileDir)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => join(profileDir, f));
  }
}

function exactlyOnceFailure(phase: PhaseReport): string {
  const e = phase.exactlyOnce;
  return (
    `exactly-once check failed in phase ${phase.name}: ${e.ledgerMissing} accepted webhooks without a ledger settlement, ${e.ledgerMultiple} references with more than one, ` +
    `${e.topicMissing} without SettlementRecorded on the topic, ${e.topicConflictingEventIds} with different event ids on the topic, ` +
    `${e.kitMissing} without their entitlement event at the customer backend's kit, ${e.kitMultiple} with more than one there, ${e.runsNotOnce} events whose business logic did not run once` +
    `${phase.settlement.drained ? '' : ` (the drain gave up after ${fmt(phase.settlement.drainSeconds, 1)} s)`}; e.g. ${e.examples.join('; ')}`
  );
}

// ---------------------------------------------------------------------------------------------
// Report.

function phaseTable(run: RunReport): string {
  const phases = run.phases;
  const apps = Object.keys(run.apps);
  const cpuKeys = [...new Set(phases.flatMap((p) => Object.keys(p.cpu.msPerCheckout)))];
  const row = (label: string, f: (p: PhaseReport) => string): string[] => [label, ...phases.map(f)];
  const lat = (x: Percentiles) => `${fmt(x.p50)} / ${fmt(x.p99)} / ${fmt(x.max)}`;
  const rows: string[][] = [
    row('offered rate (webhooks/s)', (p) => (p.offeredRate === null ? `burst, ${p.checkouts} at once` : fmt(p.offeredRate))),
    row('checkouts', (p) => fmt(p.checkouts)),
    row('sent in (s); achieved send rate (/s)', (p) => `${fmt(p.load.seconds, 1)}; ${fmt(p.load.achievedSendRate)}`),
    row('send lateness p99 (ms)', (p) => fmt(p.load.sendLatenessP99Ms, 1)),
    row('webhooks accepted 2xx / errors', (p) => `${fmt(p.load.accepted)} / ${fmt(p.load.errors)}`),
    row('webhook answer p50 / p99 / max (ms)', (p) => lat(p.load.answer)),
    row('settled in the ledger / on the topic', (p) => `${fmt(p.settlement.settled)} / ${fmt(p.settlement.onTopic)}`),
    row('sustained settled/s', (p) => fmt(p.settlement.sustainedPerSecond, 1)),
    row('SettlementRecorded/s on the topic', (p) => fmt(p.settlement.topicPerSecond, 1)),
    row('baseline Kafka round trip (msgs/s)', (p) => fmt(p.baseline?.throughput, 1)),
    row('ratio settled/s ÷ baseline', (p) => fmt(p.baseline?.ratio, 3)),
    row('2xx → ledger settlement p50 / p99 / max (ms)', (p) => lat(p.settlement.ledgerLatency)),
    row('2xx → SettlementRecorded p50 / p99 / max (ms)', (p) => lat(p.settlement.topicLatency)),
    ...(phases.some((p) => p.settlement.delivered !== null)
      ? [
          row('applied by the customer backend (receiver kit)', (p) => fmt(p.settlement.delivered)),
          row('… applied per second', (p) => fmt(p.settlement.deliveredPerSecond, 1)),
          row('2xx → access applied by the kit p50 / p99 / max (ms)', (p) => lat(p.settlement.kitLatency)),
          row("… the kit's business logic caught up after the drain (s)", (p) => fmt(p.settlement.businessLogicCaughtUpSeconds, 1)),
        ]
      : []),
    ...(phases.some((p) => p.settlement.hops?.[HOPS[0]])
      ? HOPS.map((hop) => row(`… hop ${hop} p50 / p99 / max (ms)`, (p) => (p.settlement.hops?.[hop] ? lat(p.settlement.hops[hop]) : 'n/a')))
      : []),
    row('baseline send → arrival p50 / p99 / max (ms)', (p) =>
      p.baseline ? `${fmt(p.baseline.p50Ms, 1)} / ${fmt(p.baseline.p99Ms, 1)} / ${fmt(p.baseline.maxMs, 1)}` : 'n/a',
    ),
    row('first webhook → last settlement (s)', (p) => fmt(p.settlement.firstWebhookToLastSettlementSeconds, 1)),
    row('drain after the last answer (s)', (p) => `${fmt(p.settlement.drainSeconds, 1)}${p.settlement.drained ? '' : ' (gave up)'}`),
    row('consumer lag max / at load end (msgs)', (p) => `${fmt(p.consumerLag.max)} / ${fmt(p.consumerLag.atLoadEnd)}`),
    row('… group with the most lag', (p) => {
      const [group, lag] = Object.entries(p.consumerLag.maxByGroup).sort((a, b) => b[1] - a[1])[0] ?? ['n/a', 0];
      return lag > 0 ? `${group} (${fmt(lag)})` : 'none';
    }),
    row('outbox backlog max / at load end (rows)', (p) => `${fmt(p.outboxBacklog.max)} / ${fmt(p.outboxBacklog.atLoadEnd)}`),
    row('infrastructure restarted meanwhile', (p) => (p.disturbances.length > 0 ? `YES: ${p.disturbances.join('; ')}` : 'no')),
    row('exactly once (ledger 1 each, topic ≥ 1 same id; kit 1 event each, its logic run once)', (p) =>
      p.exactlyOnce.passed ? `yes (${fmt(p.exactlyOnce.checked)})` : 'NO',
    ),
    row('duplicate deliveries on the topic', (p) => fmt(p.exactlyOnce.duplicateDeliveries)),
    row(
      'other ledger outcomes',
      (p) =>
        Object.entries(p.exactlyOnce.otherOutcomes)
          .map(([k, v]) => `${v}×${k}`)
          .join(', ') || 'none',
    ),
    ...cpuKeys.map((k) => row(`CPU per checkout, ${k} (ms)`, (p) => fmt(p.cpu.msPerCheckout[k], 2))),
    row('machine busy (cores)', (p) => fmt(p.cpu.machineBusyCores, 2)),
    ...apps.map((app) => row(`peak RSS, ${app} (MiB)`, (p) => fmt(p.peakRssMiB[app], 0))),
    row('PostgreSQL commits per checkout (net of idle)', (p) => `${fmt(p.postgres.commitsPerCheckout, 1)} (${fmt(p.postgres.net.commitsPerCheckout, 1)})`),
    row('PostgreSQL blocks hit+read per checkout (net)', (p) => `${fmt(p.postgres.blocksPerCheckout)} (${fmt(p.postgres.net.blocksPerCheckout)})`),
    row('WAL bytes per checkout (net)', (p) => `${fmt(p.postgres.walBytesPerCheckout)} (${fmt(p.postgres.net.walBytesPerCheckout)})`),
  ];
  return table(['', ...phases.map((p) => p.name)], rows);
}

function soakText(phase: PhaseReport): string {
  const s = phase.soak!;
  const lines = [
    `soak (${phase.name}): checkouts prepared ${fmt(s.leadSeconds)} s ahead while it ran (its CPU and PostgreSQL figures include that preparation); ` +
      `${fmt(phase.load.notPreparedInTime)} webhooks waited for their preparation; ${fmt(s.preparationFailures)} preparations failed`,
    table(
      ['minute', 'webhooks', 'settled', '2xx → ledger p50 / p99 (ms)', '2xx → topic p50 / p99 (ms)'],
      s.perMinute.map((m) => [
        String(m.minute + 1),
        fmt(m.webhooks),
        fmt(m.settled),
        `${fmt(m.ledgerLatency.p50)} / ${fmt(m.ledgerLatency.p99)}`,
        `${fmt(m.topicLatency.p50)} / ${fmt(m.topicLatency.p99)}`,
      ]),
    ),
    table(
      ['app', 'RSS drift, last minute vs first (%)', 'peak RSS (MiB)'],
      Object.entries(s.rssDriftPct).map(([app, drift]) => [app, fmt(drift, 1), fmt(phase.peakRssMiB[app])]),
    ),
  ];
  return lines.join('\n\n');
}

/** Key figures whose spread over runs is reported. */
const KEY_FIGURES: Array<[string, (p: PhaseReport) => number | null | undefined]> = [
  ['sustained settled/s', (p) => p.settlement.sustainedPerSecond],
  ['baseline msgs/s', (p) => p.baseline?.throughput],
  ['ratio to baseline', (p) => p.baseline?.ratio],
  ['2xx → ledger p50 (ms)', (p) => p.settlement.ledgerLatency.p50],
  ['2xx → ledger p99 (ms)', (p) => p.settlement.ledgerLatency.p99],
  ['2xx → topic p50 (ms)', (p) => p.settlement.topicLatency.p50],
  ['2xx → topic p99 (ms)', (p) => p.settlement.topicLatency.p99],
  ['consumer lag max', (p) => p.consumerLag.max],
  ['CPU per checkout, whole machine (ms)', (p) => p.cpu.msPerCheckout['whole machine']],
  ['PostgreSQL commits per checkout', (p) => p.postgres.commitsPerCheckout],
];

type Spread = Record<string, Record<string, { min: number; median: number; max: number; values: number[] }>>;

function spreadOf(runs: RunReport[]): Spread {
  const spread: Spread = {};
  const names = [...new Set(runs.flatMap((r) => r.phases.map((p) => p.name)))];
  for (const name of names) {
    spread[name] = {};
    for (const [figure, pick] of KEY_FIGURES) {
      const values = runs
        .flatMap((r) => r.phases.filter((p) => p.name === name).map((p) => pick(p)))
        .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
      if (values.length === 0) continue;
      spread[name][figure] = { min: Math.min(...values), median: median(values), max: Math.max(...values), values };
    }
  }
  return spread;
}

function spreadTable(spread: Spread, runs: number): string {
  const names = Object.keys(spread);
  return table(
    [`min / median / max over ${runs} runs`, ...names],
    KEY_FIGURES.map(([figure]) => [
      figure,
      ...names.map((n) => {
        const s = spread[n]![figure];
        const digits = s && s.max < 10 ? 2 : 0;
        return s ? `${fmt(s.min, digits)} / ${fmt(s.median, digits)} / ${fmt(s.max, digits)}` : 'n/a';
      }),
    ]),
  );
}

function machineInfo(): Record<string, unknown> {
  const git = (args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return null;
    }
  };
  let kafkajs: string | null = null;
  try {
    kafkajs = (JSON.parse(readFileSync(join(ROOT, 'node_modules/kafkajs/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    kafkajs = null;
  }
  const status = git(['status', '--porcelain']);
  return {
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? null, memoryGiB: totalmem() / 2 ** 30, kernel: release() },
    node: process.version,
    kafkajs,
    git: { commit: git(['rev-parse', 'HEAD']), uncommittedFiles: status === null ? null : status.split('\n').filter(Boolean).length },
  };
}

/**
 * The end-to-end benchmark: webhooks in at fixed offered rates and as a burst, settlements out
 * in the ledger and on the settlements topic, against the bare Kafka round trip; per phase
 * throughput, latency percentiles, consumer lag, outbox backlog, CPU, RSS and PostgreSQL work
 * per checkout, and an exactly-once check. See the file's header for the arguments.
 *
 * @throws Error (after printing and writing the figures) when the exactly-once check fails.
 */
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
      `${options.soakSeconds ? `, then a soak at ${options.soakRate}/s for ${options.soakSeconds} s` : ''}; ${options.runs} run(s); PostgreSQL ${postgresVersion}, kafkajs ${String(info.kafkajs)}`,
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

  if (options.profile) {
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

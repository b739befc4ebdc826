import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { LEDGER_MIGRATIONS } from '@settle/ledger';
import { connectMessaging, Outbox, OutboxRelay, type EntitlementGrantedV1 } from '@settle/messaging';
import { createLogger, createPool, inTransaction, migrateSchema } from '@settle/platform';
import { generateMasterKey } from '@settle/vault';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import { DispatcherClient, waitUntil } from '../scripts/ops/clients.js';
import { spawnApp, startEndpointProcess, type EndpointProcess, startFaultProxy, createTestDatabase, infra, uniqueTopicPrefix, freePort } from '@settle/testing';
import { startCustomerBackend } from './support/customer-backend.js';
import { kitAccessPhases } from './kit-access.js';
import { childPids, cpuDelta, infraGroups, peakRssMiB, percentile, snapshot, type Groups } from './support/proc.js';

/** CPU milliseconds the machine offers in `wallMs`, every core counted. */
const capacity = (wallMs: number) => Math.max(1, wallMs * availableParallelism());
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** What one phase measured at the fast endpoint. */
interface PhaseResult {
  name: string;
  events: number;
  seconds: number;
  /** Deliveries answered 2xx per second at the receiver, from the first commit to the last arrival. */
  rate: number;
  p50: number;
  p99: number;
  max: number;
  dispatcherCpuMsPerDelivery: number;
  /** Share of the machine's CPU (every core) that was busy during the phase, 0 to 1. */
  machineBusy: number;
  /** Share of the machine's CPU (every core) each group of processes used during the phase, 0 to 1, by group name. */
  split: Map<string, number>;
}

/**
 * Deliveries to customer endpoints, measured from outside (docs/benchmarks.md, "delivery"):
 * grants are committed to the ledger's outbox by this process (as the projector commits them),
 * published by the real outbox relay to Kafka, recorded and delivered by the dispatcher app
 * (its own process) to an endpoint process answering 200 at once. Latency is from the grant's
 * commit to the endpoint's 200. Phases: a burst, then rounds of a steady offered rate: alone,
 * beside a second healthy endpoint, and beside a second endpoint blackholed by a TCP fault proxy
 * (each second endpoint registered for its phase, deleted after it). Baseline in the same run: signed POSTs
 * made directly to the same endpoint (the HTTP hop alone).
 *
 * Then the receiver kit's own answer time: signed events (all different) posted at fixed
 * rates to the example customer backend (the kit with its PostgreSQL store, installed from its
 * packed tarball, its processor applying every event meanwhile) and, as the baseline, to a
 * fresh bare endpoint process.
 *
 * Arguments: `--burst <n>` (default 20000), `--rate <per second>` (500), `--seconds <s>` (20),
 * `--rounds <n>` (3: rounds of the fast endpoint alone, beside a healthy endpoint and beside a
 * blackholed one, in rotating order),
 * `--kit-rates <list>` (100,250,500), `--kit-seconds <s>` (15), `--only deliveries|kit`.
 *
 * Last, the time from the kit's 200 to the access being visible, under a slow business logic and
 * a backlog, for the PostgreSQL and the Redis store (`kit-access.ts`): `--kit-backlog <n>` (400),
 * `--kit-measured <n>` (200).
 */
export async function deliveryBenchmark(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      burst: { type: 'string' },
      rate: { type: 'string' },
      seconds: { type: 'string' },
      'kit-rates': { type: 'string' },
      'kit-seconds': { type: 'string' },
      only: { type: 'string' },
      rounds: { type: 'string' },
      'kit-backlog': { type: 'string' },
      'kit-measured': { type: 'string' },
    },
  });
  if (values.only !== 'kit')
    await deliveries(Number(values.burst ?? 20_000), Number(values.rate ?? 500), Number(values.seconds ?? 20), Number(values.rounds ?? 3));
  if (values.only !== 'deliveries') {
    await kitPhases((values['kit-rates'] ?? '100,250,500').split(',').map(Number), Number(values['kit-seconds'] ?? 15));
    await kitAccessPhases({ backlog: Number(values['kit-backlog'] ?? 400), measured: Number(values['kit-measured'] ?? 200), handlerMs: 2000 });
  }
}

/** The dispatcher phases (see {@link deliveryBenchmark}). */
async function deliveries(burst: number, rate: number, seconds: number, rounds: number): Promise<void> {
  const database = await createTestDatabase('settle_bench_delivery', infra.benchAdminDatabaseUrl);
  const dir = mkdtempSync(join(tmpdir(), 'settle-bench-delivery-'));
  const pool = createPool(database.url, 4);
  const logger = createLogger('bench-delivery', 'warn');
  const prefix = uniqueTopicPrefix('bench-delivery');
  const cleanups: Array<() => Promise<void>> = [];
  try {
    await migrateSchema(pool, LEDGER_MIGRATIONS);
    const { topics, codec, producer } = await connectMessaging({
      clientId: 'bench-delivery',
      brokers: infra.kafkaBrokers,
      topicPrefix: prefix,
      registryUrl: infra.registryUrl,
      produces: ['EntitlementGranted'],
      logger,
    });
    cleanups.push(() => producer.disconnect());
    const outbox = new Outbox('ledger', topics, codec);
    const relay = new OutboxRelay(pool, 'ledger', producer, codec, logger, { pollIntervalMs: 250, batchSize: 2_000 });
    relay.start();
    cleanups.push(() => relay.stop());

    const fast = await startEndpointProcess({ secrets: [] });
    cleanups.push(() => fast.stop('SIGTERM'));
    const adminKey = `sk_admin_${randomBytes(24).toString('hex')}`;
    const port = await freePort();
    const dispatcher = await spawnApp(
      'dispatcher',
      {
        PATH: process.env.PATH,
        SETTLE_ENV: 'test',
        LOG_LEVEL: 'warn',
        KAFKAJS_NO_PARTITIONER_WARNING: '1',
        KAFKA_BROKERS: infra.kafkaBrokers.join(','),
        SCHEMA_REGISTRY_URL: infra.registryUrl,
        DATABASE_URL: database.url,
        SETTLE_TOPIC_PREFIX: prefix,
        DISPATCHER_PORT: String(port),
        SETTLE_ADMIN_API_KEY_SHA256: createHash('sha256').update(adminKey).digest('hex'),
        SETTLE_VAULT_MASTER_KEYS: `v1:${generateMasterKey().toString('base64')}`,
      },
      dir,
    );
    cleanups.push(() => dispatcher.stop());
    const admin = new DispatcherClient(`http://127.0.0.1:${port}`, adminKey);
    const created = await admin.createEndpoint({ url: fast.url });
    if (created.status !== 201) throw new Error(`endpoint registration answered ${created.status}`);

    const committed = new Map<string, number>();
    let n = 0;
    /** Commits `count` grants to the ledger outbox in one transaction, as the projector does. */
    const commit = async (count: number) => {
      const grants: EntitlementGrantedV1[] = Array.from({ length: count }, () => {
        n += 1;
        const at = Date.now();
        return {
          event_id: randomUUID(),
          occurred_at: at,
          correlation_id: randomUUID(),
          reference: `ref_bench_${n}`,
          event: 'subscription_started',
          user_id: `user-${n}`,
          entitlement: 'pro',
          expires_at: new Date(at + 30 * 86_400_000).toISOString(),
          previous_expires_at: null,
          starts_at: new Date(at).toISOString(),
          settled_at: new Date(at).toISOString(),
          access_period: 'P30D',
          ledger_stream: `entitlement-user-${n}:pro`,
          ledger_revision: 0,
          ledger_position: n,
          ledger_stream_hash: null,
        };
      });
      await inTransaction(pool, (client) =>
        outbox.enqueue(
          client,
          grants.map((payload) => ({ type: 'EntitlementGranted', key: payload.user_id, payload })),
        ),
      );
      const at = Date.now();
      for (const g of grants) committed.set(g.event_id, at);
      relay.wake();
      return grants.map((g) => g.event_id);
    };

    // CPU by group of processes: the dispatcher, PostgreSQL (its shared processes and this
    // database's backends), Kafka, the registry and the endpoint processes; this process (it
    // commits the grants, relays the outbox and runs the fault proxy) is the load generator.
    const groups: Groups = [
      ['dispatcher', () => [dispatcher.pid]],
      ...infraGroups(new URL(database.url).pathname.slice(1)),
      ['endpoints', () => childPids('endpoint-server')],
    ];
    const measure = async (name: string, write: () => Promise<string[]>, endpoint: EndpointProcess): Promise<PhaseResult> => {
      const before = (await endpoint.stats()).answered;
      const start = snapshot(groups);
      const ids = await write();
      await waitUntil(`${name}: every delivery`, 600_000, async () => ((await endpoint.stats()).answered >= before + ids.length ? true : undefined), 100);
      const cpu = cpuDelta(start, snapshot(groups));
      const wanted = new Set(ids);
      const arrivals = new Map<string, number>();
      let doubled = 0;
      for (const r of await endpoint.received()) {
        if (!r.eventId || !wanted.has(r.eventId) || r.answered >= 300) continue;
        if (arrivals.has(r.eventId)) doubled += 1;
        arrivals.set(r.eventId, r.at);
      }
      if (arrivals.size !== ids.length || doubled > 0) throw new Error(`${name}: ${ids.length} events, ${arrivals.size} delivered, ${doubled} delivered twice`);
      const latencies = ids.map((id) => arrivals.get(id)! - committed.get(id)!).sort((a, b) => a - b);
      const first = Math.min(...ids.map((id) => committed.get(id)!));
      const last = Math.max(...arrivals.values());
      return {
        name,
        events: ids.length,
        seconds: (last - first) / 1000,
        rate: ids.length / ((last - first) / 1000),
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: latencies.at(-1)!,
        dispatcherCpuMsPerDelivery: (cpu.groups.get('dispatcher') ?? 0) / ids.length,
        machineBusy: cpu.machineBusyMs / capacity(cpu.wallMs),
        split: new Map([...cpu.groups, ['benchmark process', cpu.loadGeneratorMs] as const].map(([group, ms]) => [group, ms / capacity(cpu.wallMs)])),
      };
    };

    const steady = async () => {
      const ids: string[] = [];
      const tickMs = 20;
      const perTick = (rate * tickMs) / 1000;
      const started = performance.now();
      let owed = 0;
      while (performance.now() - started < seconds * 1000) {
        owed += perTick;
        const count = Math.floor(owed);
        owed -= count;
        if (count > 0) ids.push(...(await commit(count)));
        const next = started + Math.ceil((performance.now() - started) / tickMs) * tickMs;
        await sleep(Math.max(0, next - performance.now()));
      }
      return ids;
    };

    // Baseline: the same endpoint, signed POSTs made directly (no Kafka, no database).
    const agent = new Agent({ connections: 64 });
    const signer = new Webhook(created.body.secret);
    const baselineCount = burst;
    const baselineStart = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < baselineCount) {
          const i = next++;
          const id = randomUUID();
          const body = JSON.stringify({ event_id: id, event: 'subscription_started', user_id: `baseline-${i}` });
          const answer = await request(fast.url, {
            method: 'POST',
            dispatcher: agent,
            headers: {
              'content-type': 'application/json',
              'webhook-id': id,
              'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
              'webhook-signature': signer.sign(id, new Date(), body),
            },
            body,
          });
          await answer.body.dump();
        }
      }),
    );
    const baselineRate = baselineCount / ((performance.now() - baselineStart) / 1000);
    await agent.close();

    await sleep(2_000); // the dispatcher's consumer joined and idles
    const results: PhaseResult[] = [];
    results.push(
      await measure(
        `burst of ${burst}`,
        async () => {
          const ids: string[] = [];
          for (let i = 0; i < burst; i += 500) ids.push(...(await commit(Math.min(500, burst - i))));
          return ids;
        },
        fast,
      ),
    );
    // Three phases per round, their order rotating from round to round (so a slow drift of the
    // machine favours none): the fast endpoint alone; beside a second, healthy endpoint (the
    // control: what recording every event for two endpoints costs); beside a blackholed one.
    // VACUUM ANALYZE runs before each phase, so that each starts from tables as clean as the one
    // before it whatever autovacuum did meanwhile (the benchmarks' own cluster runs autovacuum, as
    // production does; the machine's PostgreSQL, which the tests use, runs with it off).
    const blackhole = await startFaultProxy(fast.port, { kind: 'blackhole' });
    cleanups.push(() => blackhole.close());
    const healthy = await startEndpointProcess({ secrets: [] });
    cleanups.push(() => healthy.stop('SIGTERM'));
    const maintain = () => pool.query('VACUUM ANALYZE dispatcher.deliveries, dispatcher.attempts, dispatcher.events, ledger.outbox');
    type Kind = 'alone' | 'healthy' | 'blackholed';
    const phase = async (round: number, kind: Kind): Promise<PhaseResult> => {
      await maintain();
      const name = `round ${round}: ${rate}/s for ${seconds} s${kind === 'alone' ? '' : kind === 'healthy' ? ', beside a healthy endpoint' : ', beside a blackholed endpoint'}`;
      if (kind === 'alone') return measure(name, steady, fast);
      const url = kind === 'healthy' ? `${healthy.url.replace('/webhook/settle', '')}/second` : `http://127.0.0.1:${blackhole.port}/webhook/settle`;
      const second = await admin.createEndpoint({ url });
      if (second.status !== 201) throw new Error(`second endpoint registration answered ${second.status}`);
      const measured = await measure(name, steady, fast);
      const removed = await admin.deleteEndpoint(second.body.id);
      if (removed.status !== 204) throw new Error(`second endpoint deletion answered ${removed.status}`);
      return measured;
    };
    const ORDERS: Kind[][] = [
      ['alone', 'healthy', 'blackholed'],
      ['blackholed', 'alone', 'healthy'],
      ['healthy', 'blackholed', 'alone'],
    ];
    const rows: Array<Record<Kind, PhaseResult>> = [];
    for (let round = 1; round <= rounds; round++) {
      const measured = {} as Record<Kind, PhaseResult>;
      for (const kind of ORDERS[(round - 1) % ORDERS.length]!) {
        measured[kind] = await phase(round, kind);
        results.push(measured[kind]);
      }
      rows.push(measured);
    }

    const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
    console.log(`baseline (signed POSTs straight to the endpoint, 64 connections): ${baselineRate.toFixed(0)} requests/s`);
    console.log('| phase | events | deliveries/s | ratio to baseline | p50 ms | p99 ms | max ms | dispatcher CPU ms/delivery | machine CPU busy |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const r of results) {
      console.log(
        `| ${r.name} | ${r.events} | ${r.rate.toFixed(0)} | ${(r.rate / baselineRate).toFixed(3)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.max)} | ${r.dispatcherCpuMsPerDelivery.toFixed(2)} | ${(r.machineBusy * 100).toFixed(0)} % |`,
      );
    }
    const pct = (x: number | undefined) => `${((x ?? 0) * 100).toFixed(0)} %`;
    const names = [...results[0]!.split.keys()];
    console.log(
      `\nwhere the CPU went (share of all ${availableParallelism()} cores; the benchmark process commits the grants, relays the outbox and runs the fault proxy):`,
    );
    console.log(`| phase | ${names.join(' | ')} | machine busy |`);
    console.log(`|---|${names.map(() => '---|').join('')}---|`);
    for (const r of results) console.log(`| ${r.name} | ${names.map((n) => pct(r.split.get(n))).join(' | ')} | ${pct(r.machineBusy)} |`);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const p99 = (kind: Kind) => median(rows.map((r) => r[kind].p99));
    const change = (a: number, b: number) => `${b >= a ? '+' : ''}${(((b - a) / a) * 100).toFixed(1)} %`;
    console.log(
      `fast endpoint median p99 over ${rounds} rounds: alone ${fmt(p99('alone'))} ms, beside a healthy endpoint ${fmt(p99('healthy'))} ms (${change(p99('alone'), p99('healthy'))}), ` +
        `beside a blackholed endpoint ${fmt(p99('blackholed'))} ms (${change(p99('alone'), p99('blackholed'))} against alone, ${change(p99('healthy'), p99('blackholed'))} against the healthy neighbour)`,
    );
    console.log(`dispatcher peak RSS: ${peakRssMiB(dispatcher.pid).toFixed(0)} MiB; every event delivered exactly once to the fast endpoint`);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await pool.end();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What an answer-time run measured (client side, loopback included), and the kit's own time (server side) when known. */
interface AnswerTimes {
  sent: number;
  ok: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  server?: { p50_ms: number; p99_ms: number; p999_ms: number; max_ms: number; answered: number };
}

/**
 * Posts signed, all-different entitlement events to `url` for `seconds`, open loop at `rate`
 * per second, evenly spaced (a burst-free arrival: the n-th request is due at n / rate s), over
 * up to 32 keep-alive connections. Each latency runs from the request's due time to the end of
 * its answer, so a receiver that falls behind is charged for the wait (no coordinated omission).
 * The first `warmupSeconds` of requests (connections opening, code warming up) are not counted.
 */
async function answerTime(
  url: string,
  secret: string,
  rate: number,
  seconds: number,
  afterWarmup: () => Promise<void> = async () => undefined,
  warmupSeconds = 2,
): Promise<AnswerTimes> {
  const signer = new Webhook(secret);
  const agent = new Agent({ connections: 32, keepAliveTimeout: 30_000 });
  const latencies: number[] = [];
  const warmup = Math.round(rate * warmupSeconds);
  const total = warmup + Math.round(rate * seconds);
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  let warmedUp = false;
  const post = async (n: number, due: number) => {
    const id = randomUUID();
    const at = new Date();
    const body = JSON.stringify({
      event_id: id,
      event: n % 2 === 0 ? 'subscription_renewed' : 'subscription_started',
      entitlement: 'pro',
      user_id: `user-kit-${n % 1000}`,
      expires_at: new Date(at.getTime() + n * 1000).toISOString(),
      reference: `ref_kit_${n}`,
      settled_at: at.toISOString(),
      access_period: 'P1M',
    });
    const answer = await request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signer.sign(id, at, body),
      },
      body,
    });
    await answer.body.dump();
    if (answer.statusCode === 200 && n >= warmup) latencies.push(performance.now() - due);
  };
  while (sent < total) {
    if (!warmedUp && sent >= warmup) {
      warmedUp = true;
      await afterWarmup();
    }
    const now = performance.now();
    while (sent < total && started + (sent * 1000) / rate <= now) {
      const work = post(sent, started + (sent * 1000) / rate).finally(() => inFlight.delete(work));
      inFlight.add(work);
      sent += 1;
    }
    await sleep(Math.max(0, Math.min(1, started + (sent * 1000) / rate - performance.now())));
  }
  await Promise.allSettled([...inFlight]);
  await agent.close();
  latencies.sort((a, b) => a - b);
  return {
    sent: sent - warmup,
    ok: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    p999: percentile(latencies, 99.9),
    max: latencies.at(-1) ?? Number.NaN,
  };
}

/** The example customer backend (the kit, PostgreSQL store) with a database of its own, under load. */
async function kitAnswerTime(dir: string, secret: string, rate: number, seconds: number): Promise<AnswerTimes> {
  const backend = await startCustomerBackend(dir, secret);
  try {
    const stats = `${backend.url}/stats/answers`;
    const measured = await answerTime(`${backend.url}/webhook/settle`, secret, rate, seconds, async () => {
      await fetch(stats, { method: 'DELETE' });
    });
    return { ...measured, server: (await (await fetch(stats)).json()) as NonNullable<AnswerTimes['server']> };
  } finally {
    await backend.stop();
  }
}

/** The receiver kit's answer time at each rate, beside a bare endpoint process at the same rate. */
async function kitPhases(rates: readonly number[], seconds: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'settle-bench-kit-'));
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  console.log(
    `\nreceiver answer time, signed events (every one new) for ${seconds} s per rate, evenly spaced open-loop load, from each request's due time to its answer`,
  );
  console.log("| receiver | events/s offered | answered 200 | p50 ms | p99 ms | p99.9 ms | max ms | the kit's own time p50 / p99 / p99.9 ms |");
  console.log('|---|---|---|---|---|---|---|---|');
  try {
    for (const rate of rates) {
      const kit = await kitAnswerTime(dir, secret, rate, seconds);
      const bare = await startEndpointProcess({ secrets: [] });
      const baseline = await answerTime(bare.url, secret, rate, seconds).finally(() => bare.stop('SIGTERM'));
      for (const [name, r] of [
        ['receiver kit, PostgreSQL store (example customer backend)', kit],
        ['bare endpoint process (baseline)', baseline],
      ] as const) {
        const own = r.server ? `${r.server.p50_ms.toFixed(2)} / ${r.server.p99_ms.toFixed(2)} / ${r.server.p999_ms.toFixed(2)}` : 'n/a';
        console.log(
          `| ${name} | ${rate} | ${r.ok}/${r.sent} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.p999.toFixed(2)} | ${r.max.toFixed(2)} | ${own} |`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

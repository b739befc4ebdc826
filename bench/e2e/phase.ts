import { performance } from 'node:perf_hooks';
import type { Admin } from 'kafkajs';
import type pg from 'pg';
import type { RunningStack } from '@settle/testing';
import { HopWatch } from '../support/hop-watch.js';
import type { RoundTripResult } from '../support/kafka-roundtrip.js';
import { closedPool, openLoop, sleep, wallNow } from '../support/open-loop.js';
import { cpuDelta, percentile, type CpuDelta, type CpuSnapshot } from '../support/proc.js';
import { fmt } from '../support/table.js';
import { CheckoutSource, PreparedCheckout, RollingCheckouts, Sent, WebhookClient } from './checkouts.js';
import { CPU_FIGURES, HOPS, Percentiles, percentilesOf } from './measures.js';
import { PgBackground, Sample, Sampler, StackMonitor, pgStats } from './monitor.js';
import { Options, sortedOf, SETTLED } from './options.js';
import { Db, KitWatch, LedgerWatch, SettlementWatch } from './watches.js';

/** A phase's load: a fixed offered rate, a burst, or the soak. */
export interface PhaseSpec {
  name: string;
  kind: 'rate' | 'burst' | 'soak';
  /** Webhooks per second (Infinity for the burst). */
  offeredRate: number;
  count: number;
}

/** Everything one phase measured. */
export interface PhaseReport {
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
export interface SoakFigures {
  leadSeconds: number;
  preparationFailures: number;
  rssEvery10s: Array<{ t: number; rss: Record<string, number> }>;
  /** Mean RSS of the last minute of load against the first, %, by app. */
  rssDriftPct: Record<string, number>;
  perMinute: Array<{ minute: number; webhooks: number; settled: number; ledgerLatency: Percentiles; topicLatency: Percentiles }>;
}

/** What a run shares between its phases. */
export interface RunContext {
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

export function assertAlive(ctx: RunContext): void {
  const exited = ctx.stack.exited();
  if (exited.length > 0) {
    const [first] = exited;
    throw new Error(
      `app ${first!.app} exited (code ${first!.code}, signal ${first!.signal}) during the benchmark; its log ends:\n${ctx.stack.logs(first!.app).slice(-3000)}`,
    );
  }
}

/** Waits until the verifier holds `ctx.registered` checkouts; gives up after the drain timeout without progress. */
export async function waitForRegistrations(ctx: RunContext): Promise<void> {
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
export async function waitForIdle(ctx: RunContext): Promise<PhaseReport['idle']> {
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
export async function runPhase(
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
    // `--burst-hold`: the app comes back to the whole burst as its backlog.
    const held = options.burstHold === null ? undefined : ctx.apps.get(options.burstHold);
    if (held !== undefined) process.kill(held, 'SIGSTOP');
    try {
      await closedPool(source.count, options.burstConcurrency, async (i) => {
        sent[i]!.dueAt = performance.now();
        const c = source.get(i) as PreparedCheckout;
        await ctx.webhooks.send(c, sent[i]!);
        source.release(i);
      });
    } finally {
      if (held !== undefined) process.kill(held, 'SIGCONT');
    }
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
  msPerCheckout[CPU_FIGURES.loadGenerator] = per(cpu.loadGeneratorMs);
  msPerCheckout[CPU_FIGURES.rest] = per(cpu.machineBusyMs - accounted);
  msPerCheckout[CPU_FIGURES.wholeMachine] = per(cpu.machineBusyMs);

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

export function exactlyOnceFailure(phase: PhaseReport): string {
  const e = phase.exactlyOnce;
  return (
    `exactly-once check failed in phase ${phase.name}: ${e.ledgerMissing} accepted webhooks without a ledger settlement, ${e.ledgerMultiple} references with more than one, ` +
    `${e.topicMissing} without SettlementRecorded on the topic, ${e.topicConflictingEventIds} with different event ids on the topic, ` +
    `${e.kitMissing} without their entitlement event at the customer backend's kit, ${e.kitMultiple} with more than one there, ${e.runsNotOnce} events whose business logic did not run once` +
    `${phase.settlement.drained ? '' : ` (the drain gave up after ${fmt(phase.settlement.drainSeconds, 1)} s)`}; e.g. ${e.examples.join('; ')}`
  );
}

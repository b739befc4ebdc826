import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AvroCodec, createKafka, topicNames } from '@settle/messaging';
import { createLogger, createPool, type Logger, type Pool } from '@settle/platform';
import { infra, nodeOptionsOf, STACK_APPS, startStack } from '@settle/testing';
import { HopWatch } from '../support/hop-watch.js';
import { KafkaRoundTrip } from '../support/kafka-roundtrip.js';
import { sleep } from '../support/open-loop.js';
import { cpuDelta, infraGroups, snapshot, type Groups } from '../support/proc.js';
import { fmt } from '../support/table.js';
import { RollingCheckouts, WebhookClient, preparedUpfront } from './checkouts.js';
import { appProcesses, CPU_FIGURES } from './measures.js';
import { PgBackground, StackMonitor, pgStats } from './monitor.js';
import { Options } from './options.js';
import { PhaseReport, PhaseSpec, RunContext, assertAlive, exactlyOnceFailure, runPhase, waitForIdle, waitForRegistrations } from './phase.js';
import { Db, KitWatch, LedgerWatch, SettlementWatch } from './watches.js';

/** One run of every phase on a fresh stack. */
export interface RunReport {
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

/**
 * The idle stack's CPU by process and PostgreSQL's background work: once the stack drained, waits
 * `quietSeconds` (at least `--stats-flush`, for PostgreSQL's counters), then measures `seconds`.
 */
export async function measureBackground(ctx: RunContext, seconds: number, quietSeconds: number): Promise<PgBackground> {
  await waitForIdle(ctx);
  const quiet = Math.max(quietSeconds, ctx.options.statsFlushS);
  if (quiet > 0) await sleep(quiet * 1000);
  const a = await pgStats(ctx.admin, ctx.database, ctx.db);
  const cpuA = ctx.snapshot();
  await sleep(seconds * 1000);
  const cpuB = ctx.snapshot();
  const b = await pgStats(ctx.admin, ctx.database, ctx.db);
  const s = (b.at - a.at) / 1000;
  const cpu = cpuDelta(cpuA, cpuB);
  const idleCores: Record<string, number> = Object.fromEntries([...cpu.groups].map(([group, ms]) => [group, ms / cpu.wallMs]));
  // Issue 31's idle target counts Settle's apps and the customer backend together (under 5 % of
  // one core); the provider sandbox, the provider's stand-in, is counted in too.
  idleCores['every app (Settle, the sandbox, the customer backend)'] = [...ctx.apps.keys()].reduce((sum, app) => sum + (idleCores[app] ?? 0), 0);
  idleCores[CPU_FIGURES.loadGenerator] = cpu.loadGeneratorMs / cpu.wallMs;
  idleCores[CPU_FIGURES.wholeMachine] = cpu.machineBusyMs / cpu.wallMs;
  return {
    idleCores,
    seconds: s,
    commitsPerSecond: (b.xactCommit - a.xactCommit - (b.ownQueries - a.ownQueries)) / s,
    blocksPerSecond: (b.blocks - a.blocks) / s,
    walBytesPerSecond: a.walBytes !== null && b.walBytes !== null ? (b.walBytes - a.walBytes) / s : null,
  };
}

/**
 * Rows of `dispatcher.deliveries` and the row updates PostgreSQL counted on it
 * (`pg_stat_user_tables.n_tup_upd`, read after the phase's statistics flush): a phase's delivery
 * rows and updates per checkout.
 */
async function deliveryRows(db: Pool): Promise<{ rows: number; updates: number }> {
  const { rows } = await db.query<{ rows: number; updates: number }>(
    `SELECT (SELECT count(*)::int FROM dispatcher.deliveries) AS rows,
            COALESCE((SELECT n_tup_upd::int FROM pg_stat_user_tables WHERE schemaname = 'dispatcher' AND relname = 'deliveries'), 0) AS updates`,
  );
  return rows[0]!;
}

/**
 * One app's extra environment (a Settle app or the console): `--set`'s variables, every app's
 * then its own, and the V8 profiler's flags when `--profile` names it (or `all`).
 */
function appEnvOf(options: Options, profileDir: string | null, app: string): NodeJS.ProcessEnv {
  const profiled = profileDir !== null && (options.profile === 'all' || options.profile === app);
  return {
    ...options.appEnv,
    ...options.appEnvByApp[app],
    ...(profiled ? { NODE_OPTIONS: `${nodeOptionsOf(app)} --cpu-prof --cpu-prof-dir=${profileDir}`.trim() } : {}),
  };
}

export async function runOnce(run: number, options: Options, log: (line: string) => void): Promise<RunReport> {
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
    ...(options.ledgerOnly ? {} : { customerBackend: {}, console: { env: appEnvOf(options, profileDir, 'console') } }),
    env: Object.fromEntries(STACK_APPS.map((app) => [app, appEnvOf(options, profileDir, app)])),
  });
  const database = new URL(stack.databaseUrl).pathname.slice(1);
  const logger: Logger = createLogger('bench-e2e', 'warn');
  const topics = topicNames(stack.topicPrefix);
  const kafka = createKafka('bench-e2e', infra.kafkaBrokers, logger);
  const kafkaAdmin = kafka.admin();
  for (let i = 0; i < options.disabledEndpoints; i++) {
    // Never reached: registered, then disabled by an admin at once.
    const registered = await stack.dispatcher.createEndpoint({ url: `http://127.0.0.1:9/disabled-${i}`, description: 'disabled (benchmark)' });
    if (registered.status !== 201) throw new Error(`registering a disabled endpoint answered ${registered.status}`);
    const disabled = await stack.dispatcher.setEnabled(registered.body.id, false);
    if (disabled.status !== 200) throw new Error(`disabling an endpoint answered ${disabled.status}`);
  }
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
    if (stack.customer) apps.set(CPU_FIGURES.customerBackend, stack.customer.pid);
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
      const rate = options.warmupRate ?? options.rates[0] ?? options.soakRate;
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
    ctx.background = await measureBackground(ctx, options.idleSeconds, options.idleQuietSeconds);
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
        ? [
            {
              name: `burst ${fmt(options.burst)}${options.burstHold ? `, ${options.burstHold} held while sent` : ''}`,
              kind: 'burst',
              offeredRate: Number.POSITIVE_INFINITY,
              count: options.burst,
            } as PhaseSpec,
          ]
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
      const rowsBefore = await deliveryRows(stack.db);
      const phase = await runPhase(ctx, spec, source, { soak: null, flushStats: true });
      const rowsAfter = await deliveryRows(stack.db);
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
          `exactly once: ${phase.exactlyOnce.passed ? 'yes' : 'NO'}; per checkout ${fmt((rowsAfter.rows - rowsBefore.rows) / Math.max(1, spec.count), 2)} delivery rows, ` +
          `${fmt((rowsAfter.updates - rowsBefore.updates) / Math.max(1, spec.count), 2)} row updates of dispatcher.deliveries`,
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

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { join } from 'node:path';

import { ROOT } from '@settle/testing';
import { fmt, table } from '../support/table.js';
import { CPU_FIGURES, HOPS, Percentiles, median } from './measures.js';
import { PhaseReport } from './phase.js';
import { RunReport } from './run.js';

// ---------------------------------------------------------------------------------------------
// Report.

export function phaseTable(run: RunReport): string {
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
    row('CPU per checkout by side: Settle / the customer backend and its database / the harness (ms)', (p) => {
      const side = cpuBySide(p.cpu.msPerCheckout);
      return `${fmt(side.settle, 2)} / ${fmt(side.customer, 2)} / ${fmt(side.harness, 2)}`;
    }),
    row('machine busy (cores)', (p) => fmt(p.cpu.machineBusyCores, 2)),
    ...apps.map((app) => row(`peak RSS, ${app} (MiB)`, (p) => fmt(p.peakRssMiB[app], 0))),
    row('PostgreSQL commits per checkout (net of idle)', (p) => `${fmt(p.postgres.commitsPerCheckout, 1)} (${fmt(p.postgres.net.commitsPerCheckout, 1)})`),
    row('PostgreSQL blocks hit+read per checkout (net)', (p) => `${fmt(p.postgres.blocksPerCheckout)} (${fmt(p.postgres.net.blocksPerCheckout)})`),
    row('WAL bytes per checkout (net)', (p) => `${fmt(p.postgres.walBytesPerCheckout)} (${fmt(p.postgres.net.walBytesPerCheckout)})`),
  ];
  return table(['', ...phases.map((p) => p.name)], rows);
}

/** A phase's CPU per checkout by side, milliseconds (see {@link cpuBySide}). */
export interface CpuBySide {
  /** Settle's apps, its PostgreSQL, the Kafka broker and the schema registry. */
  settle: number;
  /** The example customer backend (its receiver kit) and its database. */
  customer: number;
  /** What drives the stack and stands in for the world around it: this process (load generator and observers), the provider sandbox, the rest of the machine. */
  harness: number;
}

/**
 * Splits the whole machine's CPU per checkout (`msPerCheckout` of a phase, milliseconds) into
 * Settle's side, the customer's and the harness's: roughly, what a change to Settle can move, what
 * the receiver kit can, and what neither can (the load generator, the sandbox standing in for the
 * providers, the kernel and other processes: "rest of the machine"). Settle's side is the whole
 * machine less the other two, so the three add up to it. The split is by process, so two kinds of
 * work sit on the other side of where they belong: the broker's and PostgreSQL's work for the
 * harness's observers (their fetches, the lag monitor's admin requests, the polls of the ledger)
 * counts as Settle's, and the kernel's work for Settle's own sockets and disk flushes as the
 * harness's ("rest of the machine"). Issue 31's CPU targets count the whole machine, load
 * generator included.
 *
 * @throws Error when `msPerCheckout` has no whole-machine figure.
 */
export function cpuBySide(msPerCheckout: Record<string, number>): CpuBySide {
  const of = (...keys: string[]) => keys.reduce((sum, key) => sum + (msPerCheckout[key] ?? 0), 0);
  const whole = msPerCheckout[CPU_FIGURES.wholeMachine];
  if (whole === undefined) throw new Error(`no "${CPU_FIGURES.wholeMachine}" among the CPU figures: ${Object.keys(msPerCheckout).join(', ')}`);
  const customer = of(CPU_FIGURES.customerBackend, CPU_FIGURES.customerDatabase);
  const harness = of(CPU_FIGURES.loadGenerator, CPU_FIGURES.providerSandbox, CPU_FIGURES.rest);
  return { settle: whole - customer - harness, customer, harness };
}

export function soakText(phase: PhaseReport): string {
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
export const KEY_FIGURES: Array<[string, (p: PhaseReport) => number | null | undefined]> = [
  ['sustained settled/s', (p) => p.settlement.sustainedPerSecond],
  ['baseline msgs/s', (p) => p.baseline?.throughput],
  ['ratio to baseline', (p) => p.baseline?.ratio],
  ['2xx → ledger p50 (ms)', (p) => p.settlement.ledgerLatency.p50],
  ['2xx → ledger p99 (ms)', (p) => p.settlement.ledgerLatency.p99],
  ['2xx → topic p50 (ms)', (p) => p.settlement.topicLatency.p50],
  ['2xx → topic p99 (ms)', (p) => p.settlement.topicLatency.p99],
  ['consumer lag max', (p) => p.consumerLag.max],
  ['CPU per checkout, whole machine (ms)', (p) => p.cpu.msPerCheckout[CPU_FIGURES.wholeMachine]],
  ['PostgreSQL commits per checkout', (p) => p.postgres.commitsPerCheckout],
];

export type Spread = Record<string, Record<string, { min: number; median: number; max: number; values: number[] }>>;

export function spreadOf(runs: RunReport[]): Spread {
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

export function spreadTable(spread: Spread, runs: number): string {
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

export function machineInfo(): Record<string, unknown> {
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

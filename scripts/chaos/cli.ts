/**
 * `npm run chaos [-- --long] [-- --scenarios=a,b] [-- --count=n] [-- --mixed-minutes=m]`: the
 * chaos suite from the command line (docs/reliability.md, "Chaos suite"; scripts/local/chaos.sh
 * provisions and builds first). It starts a stack on a broker, a PostgreSQL cluster and a schema
 * registry of its own, runs every scenario and prints each one's invariant table; exit status 1
 * when any invariant failed.
 *
 * The short run is what the end-to-end test runs (52 checkouts per scenario). `--long` runs each
 * scenario with 20 000 checkouts (at 100 per second) and its fault repeated every few seconds
 * while the load runs (at most 10 times), then a mixed run (`mixed` in `--scenarios`): a random
 * fault every 5 to 10 s for 10 minutes under a steady load, and one invariant check once it is
 * quiet.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChaosBed } from './bed.js';
import { FAULTS, type Fault } from './faults.js';
import { runScenario, type ScenarioReport } from './run.js';

/** Where a failed scenario's logs, every instance's, are kept (one folder per scenario). */
const LOGS_DIR = join(tmpdir(), 'settle-chaos-logs');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

/**
 * A fault that injects a random mixable fault every 5 to 10 s until the load has started every
 * checkout or `minutes` passed (at most `minutes * 12` faults).
 */
function mixedFault(minutes: number): Fault {
  const mixable = FAULTS.filter((f) => f.mixable);
  return {
    id: 'mixed',
    injected: `a random fault every 5 to 10 s for ${minutes} minutes (${mixable.map((f) => f.id).join(', ')})`,
    mixable: false,
    async inject(bed, context) {
      const end = Date.now() + minutes * 60_000;
      for (let i = 0; i < minutes * 12 && Date.now() < end && context.load.started() < context.load.total; i++) {
        const fault = mixable[Math.floor(Math.random() * mixable.length)]!;
        console.log(`  mixed: ${fault.id}`);
        await fault.inject(bed, context);
        await sleep(5_000 + Math.random() * 5_000);
      }
    },
  };
}

async function main(): Promise<void> {
  const long = process.argv.includes('--long');
  const only = option('scenarios')?.split(',').filter(Boolean);
  const count = Number(option('count') ?? (long ? 20_000 : 52));
  const rate = long ? 100 : 10;
  const mixedMinutes = Number(option('mixed-minutes') ?? 10);
  const faults = only ? FAULTS.filter((f) => only.includes(f.id)) : [...FAULTS];
  const started = Date.now();
  console.log(`Chaos ${long ? 'long' : 'short'} run: ${faults.length} scenarios, ${count} checkouts each at ${rate}/s`);
  const bed = await startChaosBed({ logLevel: 'info' });
  // Interrupted (Ctrl-C, a CI job's SIGTERM): the bed's broker, cluster, registry and apps are
  // stopped before exiting, never left running as orphans.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.log(`\n${signal}: stopping the bed`);
      void bed.close().finally(() => process.exit(130));
    });
  }
  console.log(`Stack up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const reports: ScenarioReport[] = [];
  try {
    for (const fault of faults) {
      const report = await runScenario(bed, fault, {
        count,
        ratePerSecond: rate,
        long,
        repeats: 10,
        quietTimeoutMs: long ? 900_000 : 120_000,
        log: (line) => console.log(line),
        keepLogsIn: LOGS_DIR,
      });
      reports.push(report);
      console.log(`\n${report.table}\n`);
      if (!report.ok) console.log(`  every instance's log: ${join(LOGS_DIR, report.id)}`);
      for (const error of report.errors.slice(0, 5)) console.log(`  ${error}`);
    }
    if (long && (!only || only.includes('mixed'))) {
      // The faults start once a third of the load started, so the load lasts half as long again as the faults.
      const report = await runScenario(bed, mixedFault(mixedMinutes), {
        count: Math.round(mixedMinutes * 1.5 * 60 * 20),
        ratePerSecond: 20,
        quietTimeoutMs: 900_000,
        log: (line) => console.log(line),
        keepLogsIn: LOGS_DIR,
      });
      reports.push(report);
      console.log(`\n${report.table}\n`);
    }
  } finally {
    await bed.close();
  }
  console.log('Summary');
  for (const r of reports) {
    const recovery = r.recoveryMs === null ? 'none' : `${(r.recoveryMs / 1000).toFixed(1)} s`;
    console.log(
      `  ${r.ok ? 'ok    ' : 'FAILED'} ${r.id.padEnd(22)} ${String(r.checkouts).padStart(6)} checkouts  recovery ${recovery.padStart(7)}  ${(r.elapsedMs / 1000).toFixed(1)} s`,
    );
  }
  console.log(`Elapsed: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exitCode = reports.every((r) => r.ok) ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

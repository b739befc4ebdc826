import type { TransactionEvent } from '@settle/domain';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, STACK_APPS } from '@settle/testing';

export const WEBHOOK_PATH = '/v1/webhooks/paystack';
export const APP_SCRIPT = /\/dist\/apps\/([^/]+)\/src\/main\.js/;
export const AMOUNT_MINOR = 250_000;
export const CURRENCY = 'NGN';

// ---------------------------------------------------------------------------------------------
// Options.

export interface Options {
  rates: number[];
  seconds: number;
  warmupSeconds: number;
  /**
   * `--warmup-rate`: the warm-up's offered rate, per second (default the first rate). The JVMs'
   * compilers keep working for minutes after the stack starts: a phase at 50/s right after a short
   * warm-up at that rate measures them too (docs/benchmarks.md, "Offset commits, lingers, and what
   * a batch costs"). A warm-up at a higher rate compiles the hot paths before the first phase.
   */
  warmupRate: number | null;
  burst: number;
  burstConcurrency: number;
  /**
   * `--burst-hold=<app>` (default none): the app is stopped (SIGSTOP) while the burst's webhooks
   * are sent and resumed (SIGCONT) once every one is answered, so that it comes back to a backlog
   * of the whole burst, as after an outage of that app: what draining such a backlog costs, and
   * how much memory it takes (the ten-minute soak's verifier, 86,874 behind, reached 321 MiB).
   * The group evicts the stopped member after its session time-out and takes it back on resume.
   */
  burstHold: string | null;
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
  /**
   * The idle stack's window (`--idle`, seconds, default 60): long enough to hold one run of every
   * job that runs once a minute (the console's check of the hash chains, the projector's
   * checkpoint), as an idle stack in production runs them.
   */
  idleSeconds: number;
  /**
   * Quiet before the idle window (`--idle-quiet`, seconds after the warm-up drained, default 65):
   * the once-a-minute jobs first catch up with the warm-up's events, which is the warm-up's
   * work, not the idle stack's.
   */
  idleQuietSeconds: number;
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
  /**
   * `--disabled-endpoints=N` (default 0): N more endpoints registered with the dispatcher for
   * every kind and disabled by an admin before the phases, beside the customer's: what a
   * disabled endpoint costs each checkout (docs/delivery.md, "Disabled endpoints").
   */
  disabledEndpoints: number;
  /**
   * `--set KEY=VALUE` (repeatable): an environment variable given to every Settle app of the
   * stack over its own settings, to measure a lever (a linger, a poll) without a rebuild. The
   * report names them; a run without `--set` measures the defaults.
   */
  appEnv: Record<string, string>;
  /**
   * `--set <app>:KEY=VALUE` (repeatable): the same for one app only (`ingestion`, `verifier`, …,
   * `console`), over `appEnv`: a lever of one stage, as ingestion's relay linger.
   */
  appEnvByApp: Record<string, Record<string, string>>;
}

export function parseOptions(args: string[]): Options {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      rates: { type: 'string', default: '100,250,500,1000,2000' },
      seconds: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '10' },
      'warmup-rate': { type: 'string' },
      burst: { type: 'string', default: '2000' },
      'burst-concurrency': { type: 'string', default: '64' },
      'burst-hold': { type: 'string' },
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
      idle: { type: 'string', default: '60' },
      'idle-quiet': { type: 'string', default: '65' },
      connections: { type: 'string', default: '256' },
      'prepare-concurrency': { type: 'string', default: '32' },
      'log-level': { type: 'string', default: 'info' },
      'ledger-only': { type: 'boolean', default: false },
      'disabled-endpoints': { type: 'string', default: '0' },
      set: { type: 'string', multiple: true, default: [] },
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
  const appEnv: Record<string, string> = {};
  const appEnvByApp: Record<string, Record<string, string>> = {};
  const settable = [...STACK_APPS, 'console'];
  for (const pair of values.set ?? []) {
    const match = /^(?:([a-z][a-z-]*):)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(pair);
    if (!match) throw new Error(`--set needs [app:]KEY=VALUE with an upper-case variable name, got ${pair}`);
    const [, app, key, value] = match as unknown as [string, string | undefined, string, string];
    if (app === undefined) appEnv[key] = value;
    else if (!settable.includes(app)) throw new Error(`--set ${app}:… needs one of ${settable.join(', ')}`);
    else appEnvByApp[app] = { ...appEnvByApp[app], [key]: value };
  }
  const burstHold = values['burst-hold'] ?? null;
  if (burstHold !== null && !settable.includes(burstHold)) throw new Error(`--burst-hold needs one of ${settable.join(', ')}, got ${burstHold}`);
  const profile = values.profile ?? null;
  if (profile !== null && profile !== 'all') {
    const apps = existsSync(join(ROOT, 'dist/apps')) ? readdirSync(join(ROOT, 'dist/apps')) : [];
    if (!apps.includes(profile)) throw new Error(`--profile needs one of the apps (${apps.join(', ')}), got ${profile}`);
  }
  const options: Options = {
    rates,
    seconds: num('seconds', 1),
    warmupSeconds: num('warmup', 0),
    warmupRate: values['warmup-rate'] === undefined ? null : num('warmup-rate', 1),
    burst: Math.round(num('burst', 0)),
    burstConcurrency: Math.round(num('burst-concurrency', 1)),
    burstHold,
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
    idleSeconds: num('idle', 1),
    idleQuietSeconds: num('idle-quiet', 0),
    connections: Math.round(num('connections', 1)),
    prepareConcurrency: Math.round(num('prepare-concurrency', 1)),
    logLevel: String(values['log-level']),
    ledgerOnly: values['ledger-only'] === true,
    disabledEndpoints: Math.round(num('disabled-endpoints', 0)),
    appEnv,
    appEnvByApp,
  };
  if (options.rates.length === 0 && options.burst === 0 && options.soakSeconds === 0) throw new Error('nothing to measure: no rates, no burst, no soak');
  return options;
}

// ---------------------------------------------------------------------------------------------
// Small helpers.

export const sortedOf = (values: Iterable<number>) => Float64Array.from(values).sort();

/** The ledger event of a settled checkout (the decider's event, appended by the projector). */
export const SETTLED: Extract<TransactionEvent['type'], 'TransactionSettled'> = 'TransactionSettled';

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { infra } from '@settle/testing';

/*
 * CPU and memory accounting of the benchmarks' processes, from /proc (Linux): per process, per
 * group of processes looked up again at each snapshot, and for the whole machine.
 */

export const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Fields of /proc/<pid>/stat after the `(comm)` field: index 0 is field 3 (state). */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU time (user + system, every thread) a process has used so far, in ms. */
export function processCpuMs(pid: number): number {
  const f = statFields(pid);
  if (!f) return 0;
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS; // utime (14) + stime (15)
}

function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** Every process whose stat and command line pass `match`. */
export function findPids(match: (pid: number, fields: string[], cmdline: () => string) => boolean): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const fields = statFields(pid);
    if (fields && match(pid, fields, () => cmdlineOf(pid))) pids.push(pid);
  }
  return pids;
}

/** Children of this process whose command line contains `needle`. */
export function childPids(needle: string): number[] {
  return findPids((_pid, f, cmdline) => f[1] === String(process.pid) && cmdline().includes(needle)); // ppid, field 4
}

/**
 * Whole-machine CPU time from /proc/stat, ms: busy (all but idle and iowait), and the part of
 * it spent in interrupts (irq + softirq: loopback TCP is largely softirq work; depending on the
 * kernel's accounting it may also be in the interrupted processes' system time, so it is only
 * shown as a part of the whole).
 */
export function machineCpuMs(): { busy: number; interrupts: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const v = line.trim().split(/\s+/).slice(1, 9).map(Number); // user nice system idle iowait irq softirq steal
  const total = v.reduce((a, b) => a + b, 0);
  const ms = (ticks: number) => (ticks * 1000) / CLOCK_TICKS;
  return { busy: ms(total - v[3]! - v[4]!), interrupts: ms(v[5]! + v[6]!) };
}

/** Processes whose CPU is accounted separately, looked up again at each snapshot. */
export type Groups = Array<[name: string, pids: () => number[]]>;

/** The process listening on 127.0.0.1:`port` (from /proc/net/tcp{,6} and the processes' sockets), if any. */
export function listenerPid(port: number): number | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/); // sl local remote st … uid timeout inode
      if (f[3] === '0A' && f[1]?.endsWith(`:${hexPort}`) && f[9]) inodes.add(`socket:[${f[9]}]`);
    }
  }
  if (inodes.size === 0) return undefined;
  return findPids((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`));
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  })[0];
}

/** The CPU group of the customer backend's database's backends ({@link infraGroups} with `customerDatabase`). */
export const CUSTOMER_DATABASE_GROUP = "PostgreSQL, the customer backend's database";

/**
 * The infrastructure's processes: PostgreSQL's shared processes (postmaster, WAL writer,
 * checkpointer, …, which also serve other databases) and its backends and autovacuum workers for
 * `database` only, the Kafka broker and the schema registry this run uses (found by their
 * listening ports). PostgreSQL's are those of the server `adminDatabaseUrl` names (default the
 * benchmarks', `infra.benchAdminDatabaseUrl`): its postmaster, found by its port, and the
 * postmaster's children; every local `postgres` process when no local server listens there.
 * With `customerDatabase`, the backends of that database (the example customer backend's) form a
 * group of their own.
 */
export function infraGroups(database: string, adminDatabaseUrl: string = infra.benchAdminDatabaseUrl, customerDatabase?: string): Groups {
  // Process titles: `postgres: [<cluster_name>: ]<user> <database> <host>(<port>) <activity>` for a
  // client backend, `postgres: [<cluster_name>: ]autovacuum worker <database>` for a vacuum.
  const clientBackend = /^postgres: (?:[^:]+: )?\S+ (\S+) (\d{1,3}(\.\d{1,3}){3}\(\d+\)|\[local\])/;
  const autovacuumWorker = /^postgres: (?:[^:]+: )?autovacuum worker (\S+)/;
  const port = (address: string) => Number(/:(\d+)(\/|$)/.exec(address)?.[1] ?? 0);
  const kafka = listenerPid(port(infra.kafkaBrokers[0]!));
  const registry = listenerPid(port(infra.registryUrl.replace(/^https?:\/\//, '')));
  const server = new URL(adminDatabaseUrl);
  const postmaster = ['127.0.0.1', 'localhost', '[::1]', ''].includes(server.hostname) ? listenerPid(Number(server.port || 5432)) : undefined;
  return [
    [
      'PostgreSQL',
      () =>
        findPids((pid, f, cmdline) => {
          if (commOf(pid) !== 'postgres') return false;
          if (postmaster !== undefined && pid !== postmaster && f[1] !== String(postmaster)) return false; // ppid, field 4
          const title = cmdline();
          const owner = clientBackend.exec(title)?.[1] ?? autovacuumWorker.exec(title)?.[1];
          return owner === undefined || owner === database;
        }),
    ],
    ...(customerDatabase
      ? ([
          [
            CUSTOMER_DATABASE_GROUP,
            () =>
              findPids((pid, f, cmdline) => {
                if (commOf(pid) !== 'postgres') return false;
                if (postmaster !== undefined && f[1] !== String(postmaster)) return false;
                const title = cmdline();
                return (clientBackend.exec(title)?.[1] ?? autovacuumWorker.exec(title)?.[1]) === customerDatabase;
              }),
          ],
        ] as Groups)
      : []),
    ['Kafka broker', () => (kafka ? [kafka] : [])],
    ['schema registry', () => (registry ? [registry] : [])],
  ];
}

export interface CpuSnapshot {
  at: number;
  /** CPU ms per group, per pid. */
  groups: Map<string, Map<number, number>>;
  loadGenerator: number;
  machine: { busy: number; interrupts: number };
}

export function snapshot(groups: Groups): CpuSnapshot {
  const self = process.cpuUsage();
  return {
    at: performance.now(),
    groups: new Map(groups.map(([name, pids]) => [name, new Map(pids().map((pid) => [pid, processCpuMs(pid)]))])),
    loadGenerator: (self.user + self.system) / 1000,
    machine: machineCpuMs(),
  };
}

export interface CpuDelta {
  wallMs: number;
  /** CPU ms per group (a process that started in between counts from zero). */
  groups: Map<string, number>;
  loadGeneratorMs: number;
  machineBusyMs: number;
  interruptsMs: number;
}

export function cpuDelta(a: CpuSnapshot, b: CpuSnapshot): CpuDelta {
  const groups = new Map<string, number>();
  for (const [name, after] of b.groups) {
    const before = a.groups.get(name);
    let ms = 0;
    for (const [pid, cpu] of after) ms += cpu - (before?.get(pid) ?? 0);
    groups.set(name, ms);
  }
  return {
    wallMs: b.at - a.at,
    groups,
    loadGeneratorMs: b.loadGenerator - a.loadGenerator,
    machineBusyMs: b.machine.busy - a.machine.busy,
    interruptsMs: b.machine.interrupts - a.machine.interrupts,
  };
}

/** Peak resident memory of a process (VmHWM), MiB; 0 when the process is gone. */
export function peakRssMiB(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmHWM:'));
    return Number(line?.match(/(\d+)/)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** The `p`th percentile (0 to 100) of ascending `sorted` values, by nearest rank; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

import { readFileSync } from 'node:fs';
import { CUSTOMER_DATABASE_GROUP, findPids, percentile } from '../support/proc.js';
import { APP_SCRIPT } from './options.js';

/**
 * Names of the CPU figures of a phase (`cpu.msPerCheckout`) and of the idle stack that are not one
 * app's: the customer backend and its database, this process, what no process accounts for, and
 * the sum. Shared by the figures' producers and {@link cpuBySide}'s split, so a rename moves both.
 */
export const CPU_FIGURES = {
  customerBackend: 'customer backend (receiver kit)',
  customerDatabase: CUSTOMER_DATABASE_GROUP,
  providerSandbox: 'provider-sandbox',
  loadGenerator: 'load generator and observers (this process)',
  rest: 'rest of the machine',
  wholeMachine: 'whole machine',
} as const;

/** The hops of a settlement's path, in order (see the phase report's `settlement.hops`). */
export const HOPS = [
  '2xx → webhook on topic',
  'webhook on topic → verified',
  'verified → result on topic',
  'result on topic → ledger',
  'ledger → settlement arrival',
] as const;

export interface Percentiles {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export function percentilesOf(sorted: Float64Array): Percentiles {
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN };
}

/** Resident set size of a process now (VmRSS), MiB; 0 when it is gone. */
export function rssMiB(pid: number): number {
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
export function appProcesses(): Map<string, number> {
  const pids = new Map<string, number>();
  findPids((pid, fields, cmdline) => {
    if (fields[1] !== String(process.pid)) return false;
    const app = APP_SCRIPT.exec(cmdline())?.[1];
    if (app) pids.set(app, pid);
    return Boolean(app);
  });
  return new Map([...pids].sort(([a], [b]) => a.localeCompare(b)));
}

export function median(values: number[]): number {
  const s = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

// ---------------------------------------------------------------------------------------------
// Checkouts: prepared in the sandbox and registered with ingestion; the webhook built and signed.

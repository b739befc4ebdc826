/**
 * The chaos suite's short run (docs/reliability.md, "Chaos suite"): one stack on a broker and a
 * PostgreSQL cluster of its own, every scenario in turn with its own checkouts (a steady load
 * mixing every sandbox outcome) and its own fault injected mid-load; once the system is quiet,
 * the invariant table is printed and every invariant must hold. `SETTLE_CHAOS_SCENARIOS`
 * (comma-separated ids) runs some of them; the long run is `npm run chaos -- --long`.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChaosBed, type ChaosBed } from '../../scripts/chaos/bed.js';
import { FAULTS } from '../../scripts/chaos/faults.js';
import { runScenario } from '../../scripts/chaos/run.js';

/** Checkouts per scenario and their rate: the load lasts about 5 s. */
const COUNT = 52;
const RATE_PER_SECOND = 10;

/** Longest wait for quiet after the load, milliseconds. */
const QUIET_TIMEOUT_MS = 90_000;

/**
 * How long one scenario may take before the test gives up on it, milliseconds. Every wait in a
 * scenario is bounded (an app's restart 90 s, quiet {@link QUIET_TIMEOUT_MS}, reading the topics
 * 30 s), and on a machine slowed by other work their sum passes the project's 240 s: the test
 * waits for the scenario's own report (its invariant table, the stack's logs kept) instead of
 * cutting it off with a bare time-out and leaving it running under the next scenario.
 */
const SCENARIO_TIMEOUT_MS = 480_000;

const only = process.env.SETTLE_CHAOS_SCENARIOS?.split(',').filter(Boolean);
const faults = only ? FAULTS.filter((f) => only.includes(f.id)) : FAULTS;

let bed: ChaosBed;

beforeAll(async () => {
  bed = await startChaosBed();
});

afterAll(async () => {
  await bed?.close();
});

describe('chaos: one fault at a time under a checkout load', () => {
  it.each(faults.map((f) => [f.id, f] as const))(
    '%s: every invariant holds once the system is quiet',
    async (_id, fault) => {
      const report = await runScenario(bed, fault, {
        count: COUNT,
        ratePerSecond: RATE_PER_SECOND,
        quietTimeoutMs: QUIET_TIMEOUT_MS,
        keepLogsIn: join(tmpdir(), 'settle-chaos-logs'),
      });
      console.info(`${report.table}\n`);
      expect(report.errors).toEqual([]);
      expect(report.results.filter((r) => !r.ok)).toEqual([]);
    },
    SCENARIO_TIMEOUT_MS,
  );
});

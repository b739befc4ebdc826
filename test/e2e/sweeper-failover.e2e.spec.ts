/**
 * The sweeper as a fault-tolerant stream processor (docs/spec.md, sections 1 and 8), on the real
 * broker and PostgreSQL: two sweeper processes in one consumer group; one is killed with
 * SIGKILL while transactions are pending, the survivor takes over its partitions and every
 * orphan still gets exactly one verification request within the inactivity window plus the
 * rebalance time; then both are killed, and after a restart nothing that fell due meanwhile
 * is lost.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../../scripts/ops/clients.js';
import { startSweeperBed, type SweeperBed, type SweeperProcess } from '@settle/testing';

const INACTIVITY_MS = 4_000;
const SESSION_TIMEOUT_MS = 6_000;
/** Time the group needs to notice a dead member and hand its partitions over, plus the survivor's rejoin. */
const REBALANCE_ALLOWANCE_MS = SESSION_TIMEOUT_MS + 6_000;

let bed: SweeperBed;

beforeAll(async () => {
  bed = await startSweeperBed({
    SWEEPER_INACTIVITY_MS: String(INACTIVITY_MS),
    SWEEPER_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
    // No second request inside the test: the first re-check would come 10 minutes later.
    SWEEPER_RECHECK_INITIAL_DELAY_MS: '600000',
    SWEEPER_TICK_MS: '250',
  });
}, 60_000);

afterAll(async () => {
  await bed?.close();
});

const references = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `ref_${tag}_${i}_${randomUUID().slice(0, 8)}`);

/** Waits until the store has a watch for every reference (the sweepers consumed them). */
async function stored(refs: readonly string[]): Promise<void> {
  await waitUntil('the sweepers to store every watch', 30_000, async () => {
    const { rows } = await bed.db.query<{ n: string }>('SELECT count(*) AS n FROM sweeper.watch_state WHERE reference = ANY($1)', [refs]);
    return Number(rows[0]!.n) === refs.length ? true : undefined;
  });
}

/** Waits until the six partitions are owned by exactly the given processes, each owning some. */
async function ownedBy(processes: readonly SweeperProcess[]): Promise<Map<number, string>> {
  let owners = new Map<number, string>();
  await waitUntil(`partitions to be owned by ${processes.map((p) => p.name).join(' and ')}`, 60_000, async () => {
    owners = await bed.owners();
    const holders = new Set(owners.values());
    const pids = processes.map((p) => `-${p.pid}-`);
    const ok = owners.size === 6 && [...holders].every((o) => pids.some((pid) => o.includes(pid))) && holders.size === processes.length;
    return ok ? true : undefined;
  });
  return owners;
}

function requestsFor(refs: readonly string[]) {
  const wanted = new Set(refs);
  return bed.requests.filter((r) => wanted.has(r.reference));
}

describe('sweeper failover (two instances, one consumer group)', () => {
  it("a SIGKILLed sweeper's orphans are requested exactly once by the survivor, within the window plus the rebalance", async () => {
    const a = await bed.start('a');
    const b = await bed.start('b');
    const owners = await ownedBy([a, b]);
    const ofA = [...owners].filter(([, o]) => o.includes(`-${a.pid}-`)).map(([p]) => p);
    expect(ofA.length).toBeGreaterThan(0);

    const refs = references(60, 'failover');
    const registeredAt = Date.now();
    await bed.register(refs, registeredAt);
    await stored(refs);
    const { rows: onA } = await bed.db.query<{ n: string }>('SELECT count(*) AS n FROM sweeper.watch_state WHERE reference = ANY($1) AND partition = ANY($2)', [
      refs,
      ofA,
    ]);
    expect(Number(onA[0]!.n)).toBeGreaterThan(0);
    // Killed before anything is due: the survivor must fire a's timers.
    expect(Date.now() - registeredAt).toBeLessThan(INACTIVITY_MS);
    await a.kill();

    await waitUntil('every orphan to be requested', INACTIVITY_MS + REBALANCE_ALLOWANCE_MS + 15_000, async () =>
      new Set(requestsFor(refs).map((r) => r.reference)).size === refs.length ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // room for a duplicate to show up
    const seen = requestsFor(refs);
    expect(seen).toHaveLength(refs.length);
    expect(new Set(seen.map((r) => r.reference)).size).toBe(refs.length);
    expect(seen.every((r) => r.trigger === 'sweeper_orphaned')).toBe(true);
    const dueAt = registeredAt + INACTIVITY_MS;
    for (const r of seen) {
      expect(r.publishedAt).toBeGreaterThan(dueAt);
      expect(r.publishedAt).toBeLessThanOrEqual(dueAt + REBALANCE_ALLOWANCE_MS);
    }
    // The survivor now owns every partition, under a newer epoch.
    await ownedBy([b]);
    expect(b.logs()).toMatch(/partitions claimed/);
  }, 90_000);

  it('after both are killed, a restart requests everything that fell due meanwhile, once', async () => {
    const earlier = bed.requests.length;
    const c = await bed.start('c');

    const refs = references(40, 'restart');
    const registeredAt = Date.now();
    await bed.register(refs, registeredAt);
    await stored(refs);
    // Kill every sweeper (b from the first test, and c) before anything is due.
    await bed.killAll();
    expect(Date.now() - registeredAt).toBeLessThan(INACTIVITY_MS);
    // Everything falls due while no sweeper runs.
    await new Promise((resolve) => setTimeout(resolve, INACTIVITY_MS + 1_000));
    expect(requestsFor(refs)).toHaveLength(0);

    const d = await bed.start('d');
    const e = await bed.start('e');
    await waitUntil('every watch that fell due to be requested', REBALANCE_ALLOWANCE_MS + 30_000, async () =>
      new Set(requestsFor(refs).map((r) => r.reference)).size === refs.length ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(requestsFor(refs)).toHaveLength(refs.length);
    // The first test's orphans were not asked about again (their next re-check is 10 minutes away).
    expect(bed.requests.slice(earlier).filter((r) => r.reference.startsWith('ref_failover_'))).toEqual([]);
    await ownedBy([d, e]);
    expect(c.child.signalCode).toBe('SIGKILL');
  }, 120_000);
});

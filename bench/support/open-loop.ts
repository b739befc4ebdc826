import { performance } from 'node:perf_hooks';

/*
 * Load schedules shared by the benchmarks: an open-loop scheduler (work started on a fixed
 * timetable whatever the answers) and a closed pool (a bounded number of items in flight).
 */

/** Wall-clock time in milliseconds with sub-millisecond resolution (comparable with timestamps other processes record). */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** What {@link openLoop} did: when it started and how late each start was against its timetable. */
export interface OpenLoopRun {
  /** `performance.now()` of the first start. */
  startedAt: number;
  /** `performance.now()` of the last start. */
  endedAt: number;
  /** Lateness of each start behind its due time, ms (index = item). */
  lateness: Float64Array;
}

/**
 * Open loop: calls `fire(i, dueAt)` for `i` = 0 … `count - 1` at `start + i / ratePerSecond`
 * (`performance.now()` clock), never waiting for earlier items to finish: `fire` must start
 * its work and return. A timer tick fires every item that has fallen due, so a late tick
 * catches up rather than shifting the timetable. `ratePerSecond = Infinity` fires everything
 * at once.
 */
export async function openLoop(count: number, ratePerSecond: number, fire: (i: number, dueAt: number) => void): Promise<OpenLoopRun> {
  const lateness = new Float64Array(count);
  const intervalMs = Number.isFinite(ratePerSecond) && ratePerSecond > 0 ? 1000 / ratePerSecond : 0;
  const start = performance.now();
  let i = 0;
  while (i < count) {
    const now = performance.now();
    while (i < count && start + i * intervalMs <= now) {
      const due = start + i * intervalMs;
      lateness[i] = now - due;
      fire(i, due);
      i += 1;
    }
    if (i < count) await sleep(start + i * intervalMs - performance.now());
  }
  return { startedAt: start, endedAt: performance.now(), lateness };
}

/** Runs `work(i)` for `i` = 0 … `count - 1` with at most `concurrency` in flight (closed loop). */
export async function closedPool(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

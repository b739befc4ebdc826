/**
 * The sweep timer's schedule (sweep-timer.ts): an idle sweeper looks once a tick, and a watch
 * armed after a look is swept when it falls due because the batch that armed it tells the timer.
 * Fake timers; the sweep and the next-due read are stubs that count calls.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '@settle/platform';
import { FAILED_SWEEP_RETRY_MS, SweepTimer } from '../src/sweep-timer.js';

const TICK_MS = 30_000;
const logger = createLogger('sweep-timer', 'fatal');

function timer(options: { nextDueAt?: () => number | null; sweep?: () => Promise<{ published: number; maxLagMs: number }> } = {}) {
  const sweeps: number[] = [];
  const t = new SweepTimer({
    sweep: async () => {
      sweeps.push(Date.now());
      return options.sweep ? options.sweep() : { published: 0, maxLagMs: 0 };
    },
    nextDueAt: async () => options.nextDueAt?.() ?? null,
    tick: { intervalMs: TICK_MS, batchSize: 100 },
    clock: () => Date.now(),
    logger,
  });
  return { t, sweeps };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_800_000_000_000 });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('SweepTimer', () => {
  it('looks at start, then once a tick while nothing is armed', async () => {
    const { t, sweeps } = timer();
    t.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(sweeps).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(TICK_MS - 1);
    expect(sweeps).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sweeps).toHaveLength(2);
    await t.stop();
  });

  it('sweeps 1 ms after a due time it is told, long before the tick', async () => {
    const { t, sweeps } = timer();
    t.start();
    await vi.advanceTimersByTimeAsync(0);
    const due = Date.now() + 2_000;
    t.dueBy(due);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(sweeps).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sweeps).toEqual([expect.any(Number), due + 1]);
    await t.stop();
  });

  it('keeps its earlier time when told a later one', async () => {
    let next: number | null = null;
    const { t, sweeps } = timer({ nextDueAt: () => next });
    next = Date.now() + 1_000;
    t.start();
    await vi.advanceTimersByTimeAsync(0);
    t.dueBy(Date.now() + 5_000);
    next = null;
    await vi.advanceTimersByTimeAsync(1_001);
    expect(sweeps).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sweeps).toHaveLength(2); // the later due time was already swept by then
    await t.stop();
  });

  it('keeps a due time told while a sweep is under way for the schedule after it', async () => {
    let release: () => void = () => undefined;
    let first = true;
    const { t, sweeps } = timer({
      sweep: () =>
        first
          ? new Promise((resolve) => {
              first = false;
              release = () => resolve({ published: 0, maxLagMs: 0 });
            })
          : Promise.resolve({ published: 0, maxLagMs: 0 }),
    });
    t.start();
    await vi.advanceTimersByTimeAsync(0);
    const due = Date.now() + 500;
    t.dueBy(due);
    release();
    await vi.advanceTimersByTimeAsync(501);
    expect(sweeps).toEqual([expect.any(Number), due + 1]);
    await t.stop();
  });

  it('sweeps at once when woken (partitions just claimed)', async () => {
    const { t, sweeps } = timer();
    t.start();
    await vi.advanceTimersByTimeAsync(10);
    t.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(sweeps).toHaveLength(2);
    await t.stop();
  });

  it('tries a failed sweep again after FAILED_SWEEP_RETRY_MS, not after the tick', async () => {
    let fail = true;
    const { t, sweeps } = timer({
      sweep: async () => {
        if (fail) throw new Error('database unavailable');
        return { published: 0, maxLagMs: 0 };
      },
    });
    t.start();
    await vi.advanceTimersByTimeAsync(0);
    fail = false;
    await vi.advanceTimersByTimeAsync(FAILED_SWEEP_RETRY_MS);
    expect(sweeps).toHaveLength(2);
    await t.stop();
  });

  it('is told nothing once stopped', async () => {
    const { t, sweeps } = timer();
    t.start();
    await vi.advanceTimersByTimeAsync(0);
    await t.stop();
    t.dueBy(Date.now() + 10);
    await vi.advanceTimersByTimeAsync(TICK_MS * 2);
    expect(sweeps).toHaveLength(1);
  });
});

import type { Logger } from '@settle/platform';
import type { SweepResult } from './due-sweep.js';

/** What the timer drives. */
export interface SweepTimerDeps {
  /** Runs one sweep. */
  sweep: () => Promise<SweepResult>;
  /** Earliest due time (epoch ms) of the owned watches, or `null` when none is armed. */
  nextDueAt: () => Promise<number | null>;
  /** Longest pause between sweeps, milliseconds, and the batch size of a sweep. */
  tick: { intervalMs: number; batchSize: number };
  /** epoch ms. */
  clock: () => number;
  logger: Logger;
}

/** After a failed sweep (the database unavailable), the next try comes this soon, milliseconds (or at the tick, if shorter). */
export const FAILED_SWEEP_RETRY_MS = 1_000;

/**
 * The due-watch scan loop: sweeps right away, then again at once while a sweep fills its
 * batch, else when the earliest owned watch falls due, at most `tick.intervalMs` later. Watches
 * armed after that look (a batch of activity, a new claim of partitions) are told with
 * {@link SweepTimer.dueBy} and {@link SweepTimer.wake}, so the tick bounds only what nobody
 * told: an idle sweeper looks once a tick, not once a second (docs/architecture.md, "Timers").
 * A failed sweep (database down) is logged and tried again after {@link FAILED_SWEEP_RETRY_MS}.
 */
export class SweepTimer {
  private timer: NodeJS.Timeout | null = null;
  /** When the armed timer fires, epoch ms (`null` while none is armed). */
  private firesAt: number | null = null;
  /** A sweep and its next-due read are under way: a due time told now is kept in `told`. */
  private looking = false;
  /** The earliest due time told while `looking`, epoch ms. */
  private told: number | null = null;
  private running = false;
  private sweeping: Promise<void> | null = null;

  constructor(private readonly deps: SweepTimerDeps) {}

  /** Starts sweeping. */
  start(): void {
    this.running = true;
    this.schedule(0);
  }

  /** Stops sweeping; resolves once a sweep in progress finished. */
  async stop(): Promise<void> {
    this.running = false;
    this.disarm();
    await this.sweeping;
  }

  /**
   * A watch of an owned partition falls due at `atMs` (epoch ms), committed after the last look:
   * the timer fires by then (1 ms after: due is strict). Told during a sweep, it is kept for the
   * sweep's own scheduling. Does nothing when stopped or when the timer fires earlier anyway.
   */
  dueBy(atMs: number): void {
    if (!this.running) return;
    if (this.looking) {
      this.told = Math.min(this.told ?? atMs, atMs);
      return;
    }
    if (this.firesAt !== null && this.firesAt <= atMs + 1) return;
    this.disarm();
    this.schedule(Math.max(0, atMs + 1 - this.deps.clock()));
  }

  /** Sweep as soon as possible (partitions were just claimed: their watches are new to this instance). */
  wake(): void {
    this.dueBy(this.deps.clock() - 1);
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.firesAt = null;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.firesAt = this.deps.clock() + delayMs;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.firesAt = null;
      this.sweeping = this.loop().finally(() => {
        this.sweeping = null;
      });
    }, delayMs);
  }

  private async loop(): Promise<void> {
    const { intervalMs, batchSize } = this.deps.tick;
    let delay = intervalMs;
    this.looking = true;
    try {
      const { published, maxLagMs } = await this.deps.sweep();
      if (published > 0) this.deps.logger.info({ published, maxLagMs }, 'verification requests written');
      if (published >= batchSize) {
        delay = 0;
      } else {
        const next = await this.deps.nextDueAt();
        // isDue is strict ("more than 45 s"): wake 1 ms after the due time.
        if (next !== null) delay = Math.max(0, Math.min(intervalMs, next + 1 - this.deps.clock()));
      }
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'sweep failed; retrying');
      delay = Math.min(intervalMs, FAILED_SWEEP_RETRY_MS);
    }
    this.looking = false;
    if (this.told !== null) delay = Math.max(0, Math.min(delay, this.told + 1 - this.deps.clock()));
    this.told = null;
    this.schedule(delay);
  }
}

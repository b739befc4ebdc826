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

/**
 * The due-watch scan loop: sweeps right away, then again at once while a sweep fills its
 * batch, else when the earliest owned watch falls due, at most `tick.intervalMs` later. A
 * failed sweep (database down) is logged and tried again at the next tick.
 */
export class SweepTimer {
  private timer: NodeJS.Timeout | null = null;
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
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.sweeping;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.sweeping = this.loop().finally(() => {
        this.sweeping = null;
      });
    }, delayMs);
  }

  private async loop(): Promise<void> {
    const { intervalMs, batchSize } = this.deps.tick;
    let delay = intervalMs;
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
      this.deps.logger.warn({ err: error }, 'sweep failed; retrying next tick');
    }
    this.schedule(delay);
  }
}

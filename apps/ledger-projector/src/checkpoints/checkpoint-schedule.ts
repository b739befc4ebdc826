import { setTimeout as sleep } from 'node:timers/promises';
import { isSettleError } from '@settle/domain';
import type { LedgerCheckpointer } from '@settle/ledger';
import type { Logger } from '@settle/platform';
import type { ProjectorMetrics } from '../projector.metrics.js';

/**
 * The projector's checkpoint schedule (docs/ledger.md, "Checkpoints"): every `intervalMs` it asks
 * the {@link LedgerCheckpointer} for a checkpoint (made only when anything but checkpoints was
 * appended since the last), then brings the checkpoint sink up to date. A failure of either is
 * logged and counted and tried again at the next tick; neither ever stops the projection: the
 * ledger keeps taking appends while the sink is down, and `settle_ledger_checkpoint_sink_up` says so.
 */
export class CheckpointSchedule {
  private readonly abort = new AbortController();
  private running: Promise<void> | null = null;

  constructor(
    private readonly checkpointer: LedgerCheckpointer,
    private readonly intervalMs: number,
    private readonly metrics: ProjectorMetrics,
    private readonly logger: Logger,
  ) {}

  /** Starts ticking: the first tick runs after one interval (the boot's catch-up goes first). */
  start(): void {
    this.running ??= this.loop();
  }

  /** Stops after the tick in hand, if any. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  /** One tick: a checkpoint when due, then the sink. Never throws. */
  async tick(): Promise<void> {
    try {
      const outcome = await this.checkpointer.checkpoint();
      this.metrics.checkpointRuns.inc({ outcome: outcome.status });
      const latest = outcome.status === 'made' ? outcome.checkpoint : outcome.status === 'nothing_new' ? outcome.last : null;
      if (latest) {
        this.metrics.checkpointSize.set(latest.size);
        this.metrics.checkpointTimestamp.set(Date.parse(latest.at) / 1000);
      }
      if (outcome.status === 'made') {
        const { size, root, key } = outcome.checkpoint;
        this.logger.info({ size, root, key }, 'ledger checkpoint signed');
      }
    } catch (error) {
      this.metrics.checkpointRuns.inc({ outcome: 'failed' });
      this.logger.error({ err: error, code: isSettleError(error) ? error.code : undefined }, 'ledger checkpoint failed; trying again at the next tick');
    }
    try {
      const { written } = await this.checkpointer.publish();
      this.metrics.sinkUp.set(1);
      if (written > 0) this.logger.info({ written }, 'ledger checkpoints written to the sink');
    } catch (error) {
      this.metrics.sinkUp.set(0);
      this.logger.error(
        { err: error, code: isSettleError(error) ? error.code : undefined },
        'the checkpoint sink is down: checkpoints are made and published on Kafka, and written to the sink once it is back',
      );
    }
  }

  private async loop(): Promise<void> {
    const { signal } = this.abort;
    while (!signal.aborted) {
      try {
        await sleep(this.intervalMs, undefined, { signal, ref: false });
      } catch {
        return;
      }
      await this.tick();
    }
  }
}

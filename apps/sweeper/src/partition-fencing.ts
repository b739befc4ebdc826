import { SettleError, type ErrorKind } from '@settle/domain';
import type { Assignment } from '@settle/messaging';
import type { Logger } from '@settle/platform';
import type { SweeperMetrics } from './sweeper.metrics.js';
import type { Claim, WatchStore } from './watch.store.js';

/** Pause before claiming again a fenced partition of this member's assignment, milliseconds. */
const RECLAIM_DELAY_MS = 1_000;

/**
 * The partition a batch write was refused for: another instance claimed it since, or this one
 * has not claimed it yet. Not a broken rule: the partition's new owner handles its messages, so
 * the consumer loop gives the batch up (`abandonBatchWhen`) instead of dead-lettering it; kind
 * `unavailable` (retrying may succeed, for the owner).
 */
export class PartitionFencedError extends SettleError {
  readonly code = 'SWEEPER.PARTITION_FENCED';
  readonly kind: ErrorKind = 'unavailable';

  /** @param partition - the partition (of both co-partitioned topics) this instance does not own. */
  constructor(readonly partition: number) {
    super(`partition ${partition} is not owned by this sweeper (fenced, or not claimed yet)`);
    this.name = 'PartitionFencedError';
  }
}

/**
 * Which partitions this sweeper instance acts for. Ownership follows the consumer group: on
 * each assignment the instance claims its partitions in the store (a fencing epoch per
 * partition), and every write, a batch of activity or a sweep, checks those epochs in its own
 * transaction (`WatchStore.fence`), so each partition's timers have one owner at a time.
 */
export class PartitionOwnership {
  /** Claimed partitions and their epochs. */
  private readonly claims = new Map<number, number>();
  /** Partitions of the current assignment, claimed or not. */
  private assigned = new Set<number>();
  /** Pending re-claims of fenced partitions of the current assignment. */
  private readonly reclaimTimers = new Set<NodeJS.Timeout>();
  private claiming: Promise<void> = Promise.resolve();
  private generation = 0;

  /**
   * @param onClaimed - called after each claim the store granted (an assignment's, or a re-claim):
   *   the sweeper looks for due watches at once, since the partitions' watches are new to it.
   */
  constructor(
    private readonly store: Pick<WatchStore, 'claim'>,
    private readonly logger: Logger,
    private readonly metrics: SweeperMetrics,
    private readonly onClaimed: () => void = () => undefined,
  ) {}

  /** Partitions whose claim this instance holds, ascending. */
  owned(): number[] {
    return [...this.claims.keys()].sort((a, b) => a - b);
  }

  /** Resolves once the claims of the latest assignment were made (or superseded). */
  settled(): Promise<void> {
    return this.claiming;
  }

  /** The claims held, of `partitions` only when given. */
  claimList(partitions?: readonly number[]): Claim[] {
    return [...this.claims].filter(([partition]) => !partitions || partitions.includes(partition)).map(([partition, epoch]) => ({ partition, epoch }));
  }

  /**
   * A new assignment from the group coordinator: drops every earlier claim at once and
   * claims the assigned partitions (retrying until the store answers or a newer assignment
   * supersedes this one).
   */
  onAssignment(assignment: Assignment): void {
    const generation = ++this.generation;
    this.forget();
    const partitions = [...new Set(Object.values(assignment).flat())].sort((a, b) => a - b);
    this.assigned = new Set(partitions);
    this.claiming = this.claiming.then(() => this.claim(generation, partitions));
  }

  /** The group is rebalancing or this member stops: act for no partition until the next assignment. */
  onRevocation(): void {
    this.generation++;
    this.forget();
    this.assigned = new Set();
  }

  /** Cancels pending re-claims (the sweeper stops). */
  stop(): void {
    for (const timer of this.reclaimTimers) clearTimeout(timer);
    this.reclaimTimers.clear();
  }

  private forget(): void {
    this.claims.clear();
    this.stop();
    this.metrics.ownedPartitions.set(0);
  }

  private async claim(generation: number, partitions: number[]): Promise<void> {
    for (let attempt = 0; generation === this.generation; attempt++) {
      try {
        const claims = await this.store.claim(partitions);
        if (generation !== this.generation) return;
        for (const c of claims) this.claims.set(c.partition, c.epoch);
        this.metrics.ownedPartitions.set(this.claims.size);
        this.logger.info({ partitions, epochs: claims.map((c) => c.epoch) }, 'partitions claimed; their timers restored from the store');
        this.onClaimed();
        return;
      } catch (error) {
        this.logger.warn({ err: error, attempt }, 'claiming partitions failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 200 * 2 ** attempt)));
      }
    }
  }

  /**
   * Stops acting for partitions whose claim was overtaken (`claims` checked, `held` the ones
   * the store still granted). One still in this member's current assignment is claimed again
   * after a pause: the overtaking claim may have been a stale one (delayed behind a lock, from
   * a member whose assignment has since changed). If it was not, the other member is as sure of
   * its assignment as this one, which lasts only until one of them learns of the rebalance;
   * meanwhile the epochs keep each timer to one owner at a time.
   */
  dropFenced(claims: readonly Claim[], held: readonly number[]): void {
    const reclaim: number[] = [];
    for (const c of claims) {
      if (!held.includes(c.partition) && this.claims.get(c.partition) === c.epoch) {
        this.claims.delete(c.partition);
        this.metrics.ownedPartitions.set(this.claims.size);
        this.logger.warn({ partition: c.partition, epoch: c.epoch }, 'partition claimed by another sweeper; stopped acting for it');
        if (this.assigned.has(c.partition)) reclaim.push(c.partition);
      }
    }
    if (reclaim.length === 0) return;
    const generation = this.generation;
    const timer = setTimeout(() => {
      this.reclaimTimers.delete(timer);
      if (generation !== this.generation) return;
      this.logger.warn({ partitions: reclaim }, 'claiming again partitions of this assignment');
      this.claiming = this.claiming.then(() => this.claim(generation, reclaim));
    }, RECLAIM_DELAY_MS);
    timer.unref();
    this.reclaimTimers.add(timer);
  }
}

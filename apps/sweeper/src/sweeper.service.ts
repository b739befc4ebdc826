import type { RecoveryPolicy } from '@settle/domain';
import type { Assignment, BatchItem, Outbox, OutboxRelay } from '@settle/messaging';
import { PeriodicMeasurement, type Logger, type Pool } from '@settle/platform';
import { applyActivity } from './activity-intake.js';
import { sweepDue, type SweepResult } from './due-sweep.js';
import { PartitionOwnership } from './partition-fencing.js';
import { OVERDUE_AFTER_MS, SweeperMetrics } from './sweeper.metrics.js';
import { SweepTimer } from './sweep-timer.js';
import type { WatchStore } from './watch.store.js';

export type { SweepResult } from './due-sweep.js';

/** How often the due and overdue watches of the owned partitions are counted, milliseconds. */
export const DUE_COUNT_INTERVAL_MS = 5_000;

/** What the sweeper needs around it. */
export interface SweeperDeps {
  pool: Pool;
  store: WatchStore;
  outbox: Outbox;
  relay: Pick<OutboxRelay, 'wake'>;
  policy: RecoveryPolicy;
  tick: { intervalMs: number; batchSize: number };
  logger: Logger;
  /** epoch ms; injected so tests drive a fake clock. */
  clock?: () => number;
  metrics?: SweeperMetrics;
}

/**
 * The sweeper, a stream processor over the transaction-events and consensus-results streams
 * (co-partitioned by reference). It folds every transaction's activity into a durable watch
 * of the partition it belongs to (`activity-intake.ts`), and for the partitions it owns
 * publishes a `VerificationRequested` for each watch that falls due (`due-sweep.ts`, driven by
 * `sweep-timer.ts`; docs/spec.md, sections 1 and 8): no activity for more than 45 s, a
 * completed checkout with no webhook after 45 s, and held-in-review re-checks on the backoff
 * schedule until the limit asks for manual review.
 *
 * Ownership follows the consumer group (`partition-fencing.ts`): on each assignment the
 * instance claims its partitions in the store (a fencing epoch), and every write, a batch of
 * activity or a sweep, checks the epoch in the same transaction. Requests leave through the
 * transactional outbox with the watch re-armed, so a request is published if and only if its
 * re-arm committed.
 *
 * Every {@link DUE_COUNT_INTERVAL_MS} it counts its partitions' due and overdue watches for the
 * `settle_sweeper_watches_due` and `settle_sweeper_watches_overdue` gauges.
 */
export class SweeperService {
  private readonly ownership: PartitionOwnership;
  private readonly timer: SweepTimer;
  private readonly dueCount: PeriodicMeasurement;
  /** One batch (or merged batches) at a time: both topics' batches of a partition touch the same watches. */
  private applying: Promise<unknown> = Promise.resolve();
  private readonly clock: () => number;
  private readonly metrics: SweeperMetrics;

  constructor(private readonly deps: SweeperDeps) {
    this.clock = deps.clock ?? Date.now;
    this.metrics = deps.metrics ?? new SweeperMetrics();
    this.ownership = new PartitionOwnership(deps.store, deps.logger, this.metrics, () => this.timer.wake());
    this.timer = new SweepTimer({
      sweep: () => this.sweep(),
      nextDueAt: () => deps.store.nextDueAt(this.ownedPartitions()),
      tick: deps.tick,
      clock: this.clock,
      logger: deps.logger,
    });
    this.dueCount = new PeriodicMeasurement(() => this.countDue(), DUE_COUNT_INTERVAL_MS, deps.logger, 'sweeper due watches');
  }

  /** Partitions whose claim this instance holds, ascending. */
  ownedPartitions(): number[] {
    return this.ownership.owned();
  }

  /**
   * A new assignment from the group coordinator: drops every earlier claim at once and
   * claims the assigned partitions (retrying until the store answers or a newer assignment
   * supersedes this one). Batches and sweeps wait for the claim.
   */
  onAssignment(assignment: Assignment): void {
    this.ownership.onAssignment(assignment);
  }

  /** The group is rebalancing or this member stops: act for no partition until the next assignment. */
  onRevocation(): void {
    this.ownership.onRevocation();
  }

  /**
   * Folds batches of activity into their partitions' watches, in one transaction fenced by the
   * epochs of every partition they come from: one partition's batch, or the batches of one
   * fetch merged (group commit across partitions, `groupCommitAcrossPartitions`). Calls run
   * one at a time: both topics' batches of a partition touch the same watches. Resolves once
   * committed, after telling the sweep timer the earliest due time written; the consumer loop
   * then commits the offsets.
   *
   * @returns items that can never be applied (an activity time that is not a number), and the
   *   items of every partition this instance does not (or no longer) own, each with a
   *   PartitionFencedError: the loop gives those partitions' batches up, their owner re-reads
   *   them, and the other partitions' items are committed.
   * @throws PartitionFencedError when it owns none of them (the batch is given up likewise).
   */
  async handleBatch(items: readonly BatchItem[]): Promise<Array<{ index: number; error: unknown }>> {
    const run = this.applying
      .catch(() => undefined)
      .then(async () => {
        const { rejected, earliestDueAt } = await applyActivity(this.deps, this.ownership, items);
        // Committed: the sweep timer fires by the earliest watch armed, however long its tick.
        if (earliestDueAt !== null) this.timer.dueBy(earliestDueAt);
        return rejected;
      });
    this.applying = run;
    return run;
  }

  /**
   * One sweep: for the owned partitions, fires up to a batch of due watches, writing their
   * verification requests to the outbox and the re-armed watches in one fenced transaction.
   */
  async sweep(): Promise<SweepResult> {
    await this.ownership.settled();
    const { pool, store, outbox, relay, policy, logger } = this.deps;
    return sweepDue({ pool, store, outbox, relay, policy, logger, batchSize: this.deps.tick.batchSize, metrics: this.metrics }, this.ownership, this.clock());
  }

  /**
   * Sets the due and overdue gauges from the owned partitions' watches at this moment (both 0
   * while it owns none).
   *
   * @throws the database's error (the gauges keep their values).
   */
  async countDue(): Promise<void> {
    const now = this.clock();
    const { due, overdue } = await this.deps.store.countDue(this.ownedPartitions(), now, now - OVERDUE_AFTER_MS);
    this.metrics.watchesDue.set(due);
    this.metrics.watchesOverdue.set(overdue);
  }

  /**
   * Starts sweeping: right away, then whenever the earliest owned watch falls due, as read after
   * each sweep or told by a batch of activity or a new claim (and at least once a tick); and the
   * due counts.
   */
  start(): void {
    this.timer.start();
    this.dueCount.start();
  }

  /** Stops sweeping and counting; resolves once a sweep in progress finished. */
  async stop(): Promise<void> {
    this.ownership.stop();
    await this.dueCount.stop();
    await this.timer.stop();
  }
}

import { DomainError, fire, observe, type Activity, type RecoveryPolicy } from '@settle/domain';
import type { Assignment, BatchItem, Outbox, OutboxRelay, TypedEvent, VerificationRequestedV1 } from '@settle/messaging';
import { deterministicId, inTransaction, type Logger, type Pool } from '@settle/platform';
import { SweeperMetrics } from './sweeper.metrics.js';
import type { Claim, StoredWatch, WatchStore } from './watch.store.js';

/** Maps a message to the activity it stands for, or `null` when it is not activity. */
export function activityOf(event: TypedEvent): { activity: Activity; correlationId: string } | null {
  const at = event.payload.occurred_at;
  const correlationId = event.payload.correlation_id;
  switch (event.type) {
    case 'CheckoutRegistered':
      return { activity: { kind: 'registered', at }, correlationId };
    case 'CheckoutCompleted':
      return { activity: { kind: 'completed', at }, correlationId };
    case 'ProviderWebhookReceived':
      return { activity: { kind: 'webhook_received', at }, correlationId };
    case 'VerificationRequested':
      return { activity: { kind: 'verification_requested', at, bySweeper: event.payload.requested_by === REQUESTED_BY }, correlationId };
    case 'ConsensusResult': {
      const status = event.payload.state_after;
      return { activity: { kind: 'outcome', at, status, changed: event.payload.state_before !== status }, correlationId };
    }
    default:
      return null;
  }
}

/** Pause before claiming again a fenced partition of this member's assignment, milliseconds. */
const RECLAIM_DELAY_MS = 1_000;

/** `requested_by` of the sweeper's own verification requests. */
export const REQUESTED_BY = 'sweeper';

/** The partition a batch write was refused for: another instance claimed it since. */
export class PartitionFencedError extends Error {
  constructor(readonly partition: number) {
    super(`partition ${partition} is not owned by this sweeper (fenced, or not claimed yet)`);
    this.name = 'PartitionFencedError';
  }
}

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

/** Result of one sweep. */
export interface SweepResult {
  /** Verification requests written to the outbox. */
  published: number;
  /** Largest delay between a watch falling due and its request, milliseconds. */
  maxLagMs: number;
}

/**
 * The sweeper, a stream processor over the transaction-events and consensus-results streams
 * (co-partitioned by reference). It folds every transaction's activity into a durable watch
 * of the partition it belongs to, and for the partitions it owns publishes a
 * `VerificationRequested` for each watch that falls due (spec sections 1 and 8): no activity
 * for more than 45 s, a completed checkout with no webhook after 45 s, and held-in-review
 * re-checks on the backoff schedule until the limit asks for manual review.
 *
 * Ownership follows the consumer group: on each assignment the instance claims its partitions
 * in the store (a fencing epoch), and every write, a batch of activity or a sweep, checks the
 * epoch in the same transaction. Requests leave through the transactional outbox with the
 * watch re-armed, so a request is published if and only if its re-arm committed.
 */
export class SweeperService {
  private readonly claims = new Map<number, number>();
  /** Partitions of the current assignment, claimed or not. */
  private assigned = new Set<number>();
  /** Pending re-claims of fenced partitions of the current assignment. */
  private readonly reclaimTimers = new Set<NodeJS.Timeout>();
  private claiming: Promise<void> = Promise.resolve();
  private generation = 0;
  /** One batch (or merged batches) at a time: both topics' batches of a partition touch the same watches. */
  private applying: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private sweeping: Promise<void> | null = null;
  private readonly clock: () => number;
  private readonly metrics: SweeperMetrics;

  constructor(private readonly deps: SweeperDeps) {
    this.clock = deps.clock ?? Date.now;
    this.metrics = deps.metrics ?? new SweeperMetrics();
  }

  /** Partitions whose claim this instance holds, ascending. */
  ownedPartitions(): number[] {
    return [...this.claims.keys()].sort((a, b) => a - b);
  }

  /**
   * A new assignment from the group coordinator: drops every earlier claim at once and
   * claims the assigned partitions (retrying until the store answers or a newer assignment
   * supersedes this one). Batches and sweeps wait for the claim.
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

  private forget(): void {
    this.claims.clear();
    for (const timer of this.reclaimTimers) clearTimeout(timer);
    this.reclaimTimers.clear();
    this.metrics.ownedPartitions.set(0);
  }

  private async claim(generation: number, partitions: number[]): Promise<void> {
    for (let attempt = 0; generation === this.generation; attempt++) {
      try {
        const claims = await this.deps.store.claim(partitions);
        if (generation !== this.generation) return;
        for (const c of claims) this.claims.set(c.partition, c.epoch);
        this.metrics.ownedPartitions.set(this.claims.size);
        this.deps.logger.info({ partitions, epochs: claims.map((c) => c.epoch) }, 'partitions claimed; their timers restored from the store');
        return;
      } catch (error) {
        this.deps.logger.warn({ err: error, attempt }, 'claiming partitions failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 200 * 2 ** attempt)));
      }
    }
  }

  private claimList(partitions?: readonly number[]): Claim[] {
    return [...this.claims].filter(([partition]) => !partitions || partitions.includes(partition)).map(([partition, epoch]) => ({ partition, epoch }));
  }

  /**
   * Stops acting for partitions whose claim was overtaken. One still in this member's current
   * assignment is claimed again after a pause: the overtaking claim may have been a stale one
   * (delayed behind a lock, from a member whose assignment has since changed). If it was not,
   * the other member is as sure of its assignment as this one, which lasts only until one of
   * them learns of the rebalance; meanwhile the epochs keep each timer to one owner at a time.
   */
  private dropFenced(claims: readonly Claim[], held: readonly number[]): void {
    const reclaim: number[] = [];
    for (const c of claims) {
      if (!held.includes(c.partition) && this.claims.get(c.partition) === c.epoch) {
        this.claims.delete(c.partition);
        this.metrics.ownedPartitions.set(this.claims.size);
        this.deps.logger.warn({ partition: c.partition, epoch: c.epoch }, 'partition claimed by another sweeper; stopped acting for it');
        if (this.assigned.has(c.partition)) reclaim.push(c.partition);
      }
    }
    if (reclaim.length === 0) return;
    const generation = this.generation;
    const timer = setTimeout(() => {
      this.reclaimTimers.delete(timer);
      if (generation !== this.generation) return;
      this.deps.logger.warn({ partitions: reclaim }, 'claiming again partitions of this assignment');
      this.claiming = this.claiming.then(() => this.claim(generation, reclaim));
    }, RECLAIM_DELAY_MS);
    timer.unref();
    this.reclaimTimers.add(timer);
  }

  /**
   * Folds batches of activity into their partitions' watches, in one transaction fenced by the
   * epochs of every partition they come from: one partition's batch, or the batches of one
   * fetch merged (group commit across partitions, `groupCommitAcrossPartitions`). Calls run
   * one at a time: both topics' batches of a partition touch the same watches. Resolves once
   * committed; the consumer loop then commits the offsets.
   *
   * @returns items that can never be applied (an activity time that is not a number), and the
   *   items of every partition this instance does not (or no longer) own, each with a
   *   PartitionFencedError: the loop gives those partitions' batches up, their owner re-reads
   *   them, and the other partitions' items are committed.
   * @throws PartitionFencedError when it owns none of them (the batch is given up likewise).
   */
  async handleBatch(items: readonly BatchItem[]): Promise<Array<{ index: number; error: unknown }>> {
    const run = this.applying.catch(() => undefined).then(() => this.applyBatch(items));
    this.applying = run;
    return run;
  }

  private async applyBatch(items: readonly BatchItem[]): Promise<Array<{ index: number; error: unknown }>> {
    await this.claiming;
    const partitions = [...new Set(items.map((item) => item.context.partition))].sort((a, b) => a - b);
    const claims = this.claimList(partitions);
    const seen = items.map((item) => ({ item, found: activityOf(item.event) }));
    if (!seen.some((s) => s.found)) return [];
    if (claims.length === 0) throw new PartitionFencedError(partitions[0]!);
    const { held, rejected } = await inTransaction(this.deps.pool, async (client) => {
      const held = new Set(await this.deps.store.fence(client, claims));
      this.dropFenced(claims, [...held]);
      if (held.size === 0) throw new PartitionFencedError(partitions[0]!);
      const mine = seen.filter((s) => held.has(s.item.context.partition));
      const references = [...new Set(mine.filter((s) => s.found).map((s) => s.item.event.payload.reference))];
      const stored = await this.deps.store.lock(client, references);
      const changed = new Map<string, StoredWatch>();
      const rejected: Array<{ index: number; error: unknown }> = [];
      for (const [index, { item, found }] of seen.entries()) {
        if (!found || !held.has(item.context.partition)) continue;
        const reference = item.event.payload.reference;
        const current = changed.get(reference) ?? stored.get(reference) ?? null;
        try {
          const watch = observe(current?.watch ?? null, reference, found.activity, this.deps.policy);
          changed.set(reference, { watch, partition: item.context.partition, correlationId: current?.correlationId ?? found.correlationId });
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          rejected.push({ index, error });
        }
      }
      await this.deps.store.save(client, [...changed.values()]);
      return { held, rejected };
    });
    for (const [index, { item }] of seen.entries()) {
      if (!held.has(item.context.partition)) rejected.push({ index, error: new PartitionFencedError(item.context.partition) });
    }
    return rejected;
  }

  /**
   * One sweep: for the owned partitions, fires up to a batch of due watches, writing their
   * verification requests to the outbox and the re-armed watches in one fenced transaction.
   */
  async sweep(): Promise<SweepResult> {
    await this.claiming;
    const claims = this.claimList();
    if (claims.length === 0) return { published: 0, maxLagMs: 0 };
    const now = this.clock();
    const result = await inTransaction(this.deps.pool, async (client) => {
      const held = await this.deps.store.fence(client, claims);
      this.dropFenced(claims, held);
      const due = await this.deps.store.lockDue(client, held, now, this.deps.tick.batchSize);
      if (due.length === 0) return { published: 0, maxLagMs: 0, messages: [] };
      const fired: StoredWatch[] = [];
      const messages = [];
      let maxLagMs = 0;
      for (const stored of due) {
        const { request, watch } = fire(stored.watch, now, this.deps.policy);
        fired.push({ ...stored, watch });
        maxLagMs = Math.max(maxLagMs, now - request.dueAt);
        const payload: VerificationRequestedV1 = {
          // The same watch, due time and check give the same id: a re-sent request is
          // de-duplicated downstream.
          event_id: deterministicId('VerificationRequested', REQUESTED_BY, watch.reference, request.dueAt, request.check),
          occurred_at: now,
          correlation_id: stored.correlationId ?? watch.reference,
          reference: watch.reference,
          trigger: request.trigger,
          requested_by: REQUESTED_BY,
        };
        messages.push({ type: 'VerificationRequested' as const, payload, dueAt: request.dueAt });
        const fields = { reference: watch.reference, trigger: request.trigger, check: request.check, lagMs: now - request.dueAt, nextDueAt: watch.dueAt };
        if (request.final) this.deps.logger.warn(fields, 're-check limit reached: final verification requested; unresolved means manual review');
        else this.deps.logger.debug(fields, 'transaction due; verification requested');
      }
      await this.deps.outbox.enqueue(client, messages);
      await this.deps.store.save(client, fired);
      return { published: due.length, maxLagMs, messages };
    });
    // Counted once committed: a rolled-back sweep requested nothing.
    for (const m of result.messages ?? []) {
      this.metrics.requests.inc({ trigger: m.payload.trigger });
      this.metrics.detectionLag.observe(now - m.dueAt);
    }
    if (result.published > 0) this.deps.relay.wake();
    return { published: result.published, maxLagMs: result.maxLagMs };
  }

  /** Starts sweeping: right away, then whenever the earliest owned watch falls due (at most every tick interval). */
  start(): void {
    this.running = true;
    this.schedule(0);
  }

  /** Stops sweeping; resolves once a sweep in progress finished. */
  async stop(): Promise<void> {
    this.running = false;
    for (const timer of this.reclaimTimers) clearTimeout(timer);
    this.reclaimTimers.clear();
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
      const { published, maxLagMs } = await this.sweep();
      if (published > 0) this.deps.logger.info({ published, maxLagMs }, 'verification requests written');
      if (published >= batchSize) {
        delay = 0;
      } else {
        const next = await this.deps.store.nextDueAt(this.ownedPartitions());
        // isDue is strict ("more than 45 s"): wake 1 ms after the due time.
        if (next !== null) delay = Math.max(0, Math.min(intervalMs, next + 1 - this.clock()));
      }
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'sweep failed; retrying next tick');
    }
    this.schedule(delay);
  }
}

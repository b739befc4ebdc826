import type { Offsets } from 'kafkajs';

/** Sends an OffsetCommit for these offsets (kafkajs's `commitOffsetsIfNecessary(offsets)` of a batch). */
export type CommitOffsets = (offsets: Offsets) => Promise<void>;
/** The resolved offsets not committed yet (kafkajs's `uncommittedOffsets` of a batch). */
export type UncommittedOffsets = () => Offsets;

/** Options of {@link offsetCommitter}. */
export interface OffsetCommitterOptions {
  /**
   * Least time between two offset commits of the loop while batches keep coming, milliseconds.
   * 0 commits after every batch (the batches of one fetch still together). Default
   * {@link DEFAULT_OFFSET_COMMIT_INTERVAL_MS}.
   */
  intervalMs?: number;
  /** Called when a commit sent by the timer failed (the offsets stay uncommitted; the next commit carries them). */
  onTimerError?: (error: unknown) => void;
  /** Monotonic milliseconds; injected for tests. */
  clock?: () => number;
}

/**
 * The consumer loops' offset commit interval, milliseconds: 1 s. Kafka's own consumers commit
 * every 5 s by default (`auto.commit.interval.ms`); a second bounds what a crash or a rebalance
 * hands over again (each handler is idempotent: inboxes, event ids) and keeps the OffsetCommit
 * requests, each a write to `__consumer_offsets`, to one a second per loop whatever the rate.
 */
export const DEFAULT_OFFSET_COMMIT_INTERVAL_MS = 1_000;

/** A loop's offset commits (see {@link offsetCommitter}). */
export interface OffsetCommitter {
  /**
   * Called once a batch's offsets are resolved (its work durable). Commits now when the
   * interval has passed since the last commit, or `now` is set (the loop is stopping), sharing
   * one OffsetCommit with the batches that finish in the same turn of the event loop; otherwise
   * arms one timer for the rest of the interval and resolves at once.
   *
   * @throws the commit's error when it commits now (the caller's batch fails as before).
   */
  afterBatch(commit: CommitOffsets, uncommitted: UncommittedOffsets, now?: boolean): Promise<void>;
  /** Commits what is resolved and not committed yet, now (before the loop stops, when the group rebalances). */
  flush(): Promise<void>;
  /**
   * Disarms the timer and forgets the last batch's commit functions (the consumer stopped or
   * crashed: its client is gone, and a commit through it would only reconnect it for nothing).
   * The next batch, of a restarted consumer, arms it again.
   */
  close(): void;
}

/**
 * Offset commits on an interval instead of after every batch. kafkajs commits after every
 * partition's batch (`autoCommit`), one OffsetCommit request, and one append to the broker's
 * `__consumer_offsets`, per fetch and group: at 100 checkouts/s, where batches hold one or two
 * messages, dozens a second per loop. A committed offset only bounds what is handed over again
 * after a crash or a rebalance, and every handler de-duplicates what comes again, so the loop
 * commits at most once per `intervalMs` while busy, then once more when the interval ends (a
 * timer, armed only while resolved offsets wait, so an idle loop has none), on a rebalance and
 * before it stops. Nothing is acknowledged before it is durable: an offset is resolved only after
 * its batch's transaction committed, and only resolved offsets are committed. Commits go one at a
 * time, in order, so an older set never lands after a newer one.
 */
export function offsetCommitter(options: OffsetCommitterOptions = {}): OffsetCommitter {
  const intervalMs = options.intervalMs ?? DEFAULT_OFFSET_COMMIT_INTERVAL_MS;
  const clock = options.clock ?? (() => performance.now());
  let lastCommitAt = -Infinity;
  let latest: { commit: CommitOffsets; uncommitted: UncommittedOffsets } | null = null;
  let timer: NodeJS.Timeout | null = null;
  let chain: Promise<void> = Promise.resolve();
  let shared: Promise<void> | null = null;

  const disarm = () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  // One at a time, in order: each reads the uncommitted offsets when its turn comes.
  const commitPending = (): Promise<void> => {
    const next = chain.then(async () => {
      if (!latest) return;
      const offsets = latest.uncommitted();
      lastCommitAt = clock();
      if (offsets.topics.length > 0) await latest.commit(offsets);
    });
    chain = next.catch(() => undefined);
    return next;
  };
  // The batches finishing in one turn of the event loop share one commit.
  const commitTogether = (): Promise<void> =>
    (shared ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      shared = null;
      return commitPending();
    }));

  return {
    afterBatch(commit, uncommitted, now = false) {
      latest = { commit, uncommitted };
      if (now || intervalMs === 0 || clock() - lastCommitAt >= intervalMs) {
        disarm();
        return commitTogether();
      }
      if (!timer) {
        timer = setTimeout(
          () => {
            timer = null;
            commitPending().catch((error: unknown) => options.onTimerError?.(error));
          },
          Math.max(0, lastCommitAt + intervalMs - clock()),
        );
        timer.unref();
      }
      return Promise.resolve();
    },
    flush() {
      disarm();
      return commitPending();
    },
    close() {
      disarm();
      latest = null;
    },
  };
}

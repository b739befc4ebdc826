import type { BatchHandler, BatchItem } from './handler.js';

/** A partition's batch waiting for the next merged call. */
interface Waiting {
  items: readonly BatchItem[];
  resolve: (failed: ReadonlyArray<{ index: number; error: unknown }>) => void;
  reject: (error: unknown) => void;
}

/** Options of {@link groupCommitAcrossPartitions}. */
export interface GroupCommitOptions {
  /** Most messages in one merged call; batches beyond it wait for the next call. Default 2 000. */
  maxItems?: number;
  /** Called after each merged call with how many partition batches and messages it held (metrics, logs). */
  onCall?: (call: { batches: number; items: number }) => void;
}

/**
 * Group commit across partitions: the batches that the consumer loop hands over at the same
 * time (kafkajs fetches every assigned partition of a broker in one request, then hands each
 * partition's batch to a worker, up to `partitionsConsumedConcurrently` at once, and fetches
 * again only when all are done) are merged into one call of `handler`, so one fetch costs one
 * database transaction instead of one per partition. The batches that arrive before the
 * event loop's next turn (`setImmediate`) form one call; a batch arriving later (a retry, a
 * slow decode) forms another, run alongside.
 *
 * The merged items keep each partition's offset order (partitions follow each other in
 * arrival order), which keeps the order of every message key: a key lives in one partition.
 * Each caller gets back the failures of its own items (indexes into its own batch); when the
 * merged call throws (a transient failure), every caller of it rejects with that error and
 * retries its batch, which the handlers' de-duplication (inbox, event ids) makes harmless.
 *
 * For handlers that accept messages of several partitions in one call: the verifier, the
 * projector and the dispatcher, whose work does not depend on the partition, and the sweeper,
 * which fences every partition of a merged call in its one transaction (its `handleBatch`).
 *
 * @param handler - the batch handler; it must accept messages of several partitions at once.
 */
export function groupCommitAcrossPartitions(handler: BatchHandler, options: GroupCommitOptions = {}): BatchHandler {
  const maxItems = options.maxItems ?? 2_000;
  let queue: Waiting[] = [];
  let scheduled = false;

  const run = async (group: readonly Waiting[]): Promise<void> => {
    const starts: number[] = [];
    const merged: BatchItem[] = [];
    for (const waiting of group) {
      starts.push(merged.length);
      merged.push(...waiting.items);
    }
    try {
      const failed = await handler(merged);
      options.onCall?.({ batches: group.length, items: merged.length });
      group.forEach((waiting, g) => {
        const start = starts[g]!;
        const end = start + waiting.items.length;
        waiting.resolve(failed.filter((f) => f.index >= start && f.index < end).map((f) => ({ index: f.index - start, error: f.error })));
      });
    } catch (error) {
      for (const waiting of group) waiting.reject(error);
    }
  };

  const flush = (): void => {
    scheduled = false;
    while (queue.length > 0) {
      // One call holds whole batches only, up to maxItems messages (at least one batch).
      let count = 0;
      let taken = 0;
      while (taken < queue.length && (taken === 0 || count + queue[taken]!.items.length <= maxItems)) {
        count += queue[taken]!.items.length;
        taken += 1;
      }
      void run(queue.slice(0, taken));
      queue = queue.slice(taken);
    }
  };

  return (items) =>
    new Promise((resolve, reject) => {
      queue.push({ items, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}

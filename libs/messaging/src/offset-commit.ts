import type { Offsets } from 'kafkajs';

/**
 * One OffsetCommit for the batches that finish together. kafkajs commits the resolved offsets
 * after every partition's batch, and the batches of one fetch finish together (the more so
 * with group commit): concurrent commits would each send the same offsets in an OffsetCommit
 * request of their own. With the function returned, the batches finishing in one turn of the
 * event loop commit once, together (the uncommitted offsets read on the next turn); kafkajs
 * then finds nothing left to commit.
 *
 * @returns `commitTogether(commit, uncommitted)`, called by each batch with its
 *   `commitOffsetsIfNecessary` and `uncommittedOffsets`; resolves once the shared commit did.
 */
export function sharedOffsetCommit(): (commit: (offsets: Offsets) => Promise<void>, uncommitted: () => Offsets) => Promise<void> {
  let sharedCommit: Promise<void> | null = null;
  return (commit, uncommitted) => {
    sharedCommit ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      sharedCommit = null;
      const offsets = uncommitted();
      return offsets.topics.length > 0 ? commit(offsets) : undefined;
    });
    return sharedCommit;
  };
}

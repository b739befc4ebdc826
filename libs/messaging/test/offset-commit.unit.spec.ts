import { setTimeout as sleep } from 'node:timers/promises';
import type { Offsets } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { offsetCommitter } from '../src/offset-commit.js';

const offsets = (partitions: number[], offset = '1'): Offsets => ({
  topics: [{ topic: 't', partitions: partitions.map((partition) => ({ partition, offset })) }],
});

/** A kafkajs-like group: offsets resolved by batches, committed by OffsetCommit requests (recorded); uncommitted are those resolved beyond the committed. */
function group(...delaysMs: number[]) {
  let resolved: Offsets = { topics: [] };
  let committed = '';
  let sent = 0;
  const commits: Offsets[] = [];
  return {
    commits,
    resolve(o: Offsets) {
      resolved = o;
    },
    uncommitted: (): Offsets => (JSON.stringify(resolved) === committed ? { topics: [] } : resolved),
    commit: async (o: Offsets) => {
      // The n-th commit sent takes delaysMs[n] (the last one given for every later commit).
      const delayMs = delaysMs[Math.min(sent++, delaysMs.length - 1)] ?? 0;
      if (delayMs > 0) await sleep(delayMs);
      commits.push(o);
      committed = JSON.stringify(o);
    },
  };
}

describe('offsetCommitter', () => {
  it('commits the batches that finish in one turn of the event loop once, with the offsets uncommitted then', async () => {
    const committer = offsetCommitter({ intervalMs: 0 });
    const g = group();
    g.resolve(offsets([0]));
    const first = committer.afterBatch(g.commit, g.uncommitted);
    g.resolve(offsets([0, 1, 2]));
    const second = committer.afterBatch(g.commit, g.uncommitted);
    await Promise.all([first, second]);
    expect(g.commits).toEqual([offsets([0, 1, 2])]);

    g.resolve(offsets([4]));
    await committer.afterBatch(g.commit, g.uncommitted);
    expect(g.commits).toEqual([offsets([0, 1, 2]), offsets([4])]);
  });

  it('commits at most once per interval while batches keep coming, then once when the interval ends, and arms nothing while idle', async () => {
    let now = 0;
    const committer = offsetCommitter({ intervalMs: 40, clock: () => now });
    const g = group();
    g.resolve(offsets([0], '10'));
    await committer.afterBatch(g.commit, g.uncommitted);
    expect(g.commits).toEqual([offsets([0], '10')]); // the first batch after a quiet spell commits at once

    now = 10;
    g.resolve(offsets([0], '11'));
    await committer.afterBatch(g.commit, g.uncommitted);
    now = 20;
    g.resolve(offsets([0, 1], '12'));
    await committer.afterBatch(g.commit, g.uncommitted);
    expect(g.commits).toHaveLength(1); // within the interval: resolved, not committed

    now = 40;
    await sleep(80); // the timer armed at 10 fires after the rest of the interval
    expect(g.commits).toEqual([offsets([0], '10'), offsets([0, 1], '12')]);

    await sleep(80);
    expect(g.commits).toHaveLength(2); // nothing resolved since: no further commit, no timer
  });

  it('commits at once when the loop stops (now), and flushes what waits for the timer', async () => {
    let now = 0;
    const committer = offsetCommitter({ intervalMs: 10_000, clock: () => now });
    const g = group();
    g.resolve(offsets([0], '1'));
    await committer.afterBatch(g.commit, g.uncommitted);
    now = 5;
    g.resolve(offsets([0], '2'));
    await committer.afterBatch(g.commit, g.uncommitted, true);
    expect(g.commits.map((c) => c.topics[0]!.partitions[0]!.offset)).toEqual(['1', '2']);

    now = 6;
    g.resolve(offsets([0], '3'));
    await committer.afterBatch(g.commit, g.uncommitted);
    expect(g.commits).toHaveLength(2);
    await committer.flush();
    expect(g.commits.map((c) => c.topics[0]!.partitions[0]!.offset)).toEqual(['1', '2', '3']);
    committer.close();
  });

  it('sends commits one at a time, in order: a slow commit is never overtaken by a later one', async () => {
    const committer = offsetCommitter({ intervalMs: 0 });
    // The first commit is slow and the second quick: sent at once, the second would land first.
    const g = group(30, 0);
    g.resolve(offsets([0], '1'));
    const first = committer.afterBatch(g.commit, g.uncommitted);
    await sleep(5); // the first commit is in flight
    g.resolve(offsets([0], '2'));
    const flushed = committer.flush();
    await Promise.all([first, flushed]);
    expect(g.commits.map((c) => c.topics[0]!.partitions[0]!.offset)).toEqual(['1', '2']);
  });

  it('sends nothing when nothing is left to commit', async () => {
    const committer = offsetCommitter({ intervalMs: 0 });
    let called = false;
    await committer.afterBatch(
      () => {
        called = true;
        return Promise.resolve();
      },
      () => ({ topics: [] }),
    );
    await committer.flush();
    expect(called).toBe(false);
  });

  it('reports a failed timer commit and carries its offsets in the next commit', async () => {
    let now = 0;
    const errors: unknown[] = [];
    const committer = offsetCommitter({ intervalMs: 20, clock: () => now, onTimerError: (error) => errors.push(error) });
    const g = group();
    g.resolve(offsets([0], '1'));
    await committer.afterBatch(g.commit, g.uncommitted);
    let fail = true;
    const flaky = (o: Offsets) => (fail ? Promise.reject(new Error('coordinator moved')) : g.commit(o));
    now = 5;
    g.resolve(offsets([0], '2'));
    await committer.afterBatch(flaky, g.uncommitted);
    await sleep(60);
    expect(errors).toHaveLength(1);
    fail = false;
    await committer.flush();
    expect(g.commits.map((c) => c.topics[0]!.partitions[0]!.offset)).toEqual(['1', '2']);
  });
});

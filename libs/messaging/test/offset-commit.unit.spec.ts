import type { Offsets } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { sharedOffsetCommit } from '../src/offset-commit.js';

const offsets = (partitions: number[]): Offsets => ({ topics: [{ topic: 't', partitions: partitions.map((partition) => ({ partition, offset: '1' })) }] });

describe('sharedOffsetCommit', () => {
  it('commits the batches that finish in one turn of the event loop once, with the offsets uncommitted then', async () => {
    const commitTogether = sharedOffsetCommit();
    const commits: Offsets[] = [];
    const commit = (o: Offsets) => {
      commits.push(o);
      return Promise.resolve();
    };
    let uncommitted = offsets([0]);
    const first = commitTogether(commit, () => uncommitted);
    uncommitted = offsets([0, 1, 2]);
    const second = commitTogether(commit, () => uncommitted);
    await Promise.all([first, second]);
    expect(commits).toEqual([offsets([0, 1, 2])]);

    await commitTogether(commit, () => offsets([4]));
    expect(commits).toEqual([offsets([0, 1, 2]), offsets([4])]);
  });

  it('sends nothing when nothing is left to commit', async () => {
    const commitTogether = sharedOffsetCommit();
    let called = false;
    await commitTogether(
      () => {
        called = true;
        return Promise.resolve();
      },
      () => ({ topics: [] }),
    );
    expect(called).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { groupCommitAcrossPartitions, type BatchItem, type TypedEvent } from '@settle/messaging';

/** A batch of `n` messages of one partition, offsets from 0. */
function batch(partition: number, n: number): BatchItem[] {
  return Array.from({ length: n }, (_, i) => ({
    event: { type: 'CheckoutCompleted', payload: { event_id: `p${partition}-${i}`, reference: `ref-${partition}` } } as unknown as TypedEvent,
    context: { topic: 't', partition, offset: String(i), key: `ref-${partition}`, timestamp: 0, headers: {} },
  }));
}

const idOf = (item: BatchItem) => item.event.payload.event_id;

describe('group commit across partitions', () => {
  it('merges the batches handed over in one turn into one call, each partition in offset order', async () => {
    const calls: string[][] = [];
    const handler = groupCommitAcrossPartitions(async (items) => {
      calls.push(items.map(idOf));
      return [];
    });
    const results = await Promise.all([handler(batch(0, 2)), handler(batch(3, 1)), handler(batch(5, 3))]);
    expect(calls).toEqual([['p0-0', 'p0-1', 'p3-0', 'p5-0', 'p5-1', 'p5-2']]);
    expect(results).toEqual([[], [], []]);
  });

  it('gives each caller the failures of its own messages, indexed into its own batch', async () => {
    const permanent = new Error('cannot be processed');
    const handler = groupCommitAcrossPartitions(async (items) =>
      items.flatMap((item, index) => (['p0-1', 'p1-0', 'p1-2'].includes(idOf(item)) ? [{ index, error: permanent }] : [])),
    );
    const [first, second, third] = await Promise.all([handler(batch(0, 2)), handler(batch(1, 3)), handler(batch(2, 1))]);
    expect(first).toEqual([{ index: 1, error: permanent }]);
    expect(second).toEqual([
      { index: 0, error: permanent },
      { index: 2, error: permanent },
    ]);
    expect(third).toEqual([]);
  });

  it('rejects every caller of a call that throws, so each retries its own batch', async () => {
    const down = new Error('database unavailable');
    let attempts = 0;
    const handler = groupCommitAcrossPartitions(async () => {
      attempts += 1;
      throw down;
    });
    const settled = await Promise.allSettled([handler(batch(0, 1)), handler(batch(1, 1))]);
    expect(attempts).toBe(1);
    expect(settled).toEqual([
      { status: 'rejected', reason: down },
      { status: 'rejected', reason: down },
    ]);
  });

  it('puts a batch handed over in a later turn into a call of its own', async () => {
    const calls: string[][] = [];
    const handler = groupCommitAcrossPartitions(async (items) => {
      calls.push(items.map(idOf));
      return [];
    });
    const early = handler(batch(0, 1));
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([early, handler(batch(1, 1))]);
    expect(calls).toEqual([['p0-0'], ['p1-0']]);
  });

  it('splits at maxItems on batch boundaries, never inside a batch', async () => {
    const calls: string[][] = [];
    const sizes: Array<{ batches: number; items: number }> = [];
    const handler = groupCommitAcrossPartitions(
      async (items) => {
        calls.push(items.map(idOf));
        return [];
      },
      { maxItems: 3, onCall: (call) => sizes.push(call) },
    );
    await Promise.all([handler(batch(0, 1)), handler(batch(1, 2)), handler(batch(2, 4)), handler(batch(3, 1))]);
    expect(calls).toEqual([['p0-0', 'p1-0', 'p1-1'], ['p2-0', 'p2-1', 'p2-2', 'p2-3'], ['p3-0']]);
    expect(sizes).toEqual([
      { batches: 2, items: 3 },
      { batches: 1, items: 4 },
      { batches: 1, items: 1 },
    ]);
  });
});

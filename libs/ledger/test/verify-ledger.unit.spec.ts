/**
 * `verifyLedger` from a checkpoint over an in-memory ledger: streams that began before the
 * checkpoint continue from their stored hash, and a stream that begins after it (its first
 * events on one page) is checked from the genesis hash, not seeded.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GENESIS_HASH, InMemoryLedger, verifyLedger, type VerifiableLedger } from '@settle/ledger';

/** The in-memory ledger with the head and stored stream hashes a whole-ledger verification reads. */
class VerifiableMemoryLedger extends InMemoryLedger implements VerifiableLedger {
  async head(): Promise<{ position: number; globalHash: string }> {
    const last = (await this.readAll(0, Number.MAX_SAFE_INTEGER)).at(-1);
    return { position: last?.position ?? 0, globalHash: last?.globalHash ?? GENESIS_HASH };
  }

  async streamHashesAt(pairs: ReadonlyArray<{ streamId: string; revision: number }>): Promise<Map<string, { revision: number; hash: string | null }>> {
    const found = new Map<string, { revision: number; hash: string | null }>();
    for (const { streamId, revision } of pairs) {
      const event = (await this.readStream(streamId))[revision];
      if (event) found.set(streamId, { revision, hash: event.streamHash });
    }
    return found;
  }
}

const event = () => ({ eventId: randomUUID(), type: 'TransactionSettled', data: { amount_minor: 100 }, metadata: { correlationId: 'c', causationId: 'c' } });

describe('verifyLedger from a checkpoint', () => {
  it('checks a stream that begins after the checkpoint from its first event, and continues the ones that began before', async () => {
    const ledger = new VerifiableMemoryLedger();
    await ledger.append('transaction-ref_a', [event()], 'any'); // 1
    await ledger.append('transaction-ref_a', [event()], 'any'); // 2: the checkpoint
    await ledger.append('admin-transaction-ref_a', [event()], 'any'); // 3: a new stream, revision 0
    await ledger.append('admin-transaction-ref_a', [event()], 'any'); // 4: revision 1, on the same page
    await ledger.append('transaction-ref_a', [event()], 'any'); // 5: revision 2, began before the checkpoint
    expect(await verifyLedger(ledger, { from: 2 })).toMatchObject({ checked: 3, last: 5, broken: null });
    expect(await verifyLedger(ledger)).toMatchObject({ checked: 5, last: 5, broken: null });
  });
});

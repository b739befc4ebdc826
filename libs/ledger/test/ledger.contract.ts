import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ChainVerifier,
  DuplicateEventIdError,
  WrongExpectedRevisionError,
  type LedgerEventInput,
  type LedgerStore,
  type RecordedLedgerEvent,
} from '@settle/ledger';

const event = (type = 'TransactionSettled', eventId = randomUUID()): LedgerEventInput => ({
  eventId,
  type,
  data: { amount_minor: 500_000, currency: 'NGN' },
  metadata: { correlationId: 'corr-1', causationId: 'cause-1' },
});

/**
 * The ledger port's contract. Every store (PostgreSQL, in-memory, and KurrentDB where one
 * is configured) must pass it.
 */
export function ledgerContract(
  name: string,
  makeStore: () => LedgerStore,
  options: { globalChain: boolean; uniqueEventIds: boolean } = { globalChain: true, uniqueEventIds: true },
): void {
  describe(`ledger contract: ${name}`, () => {
    const stream = () => `transaction-ref_${randomUUID().slice(0, 8)}`;

    it('appends to a new stream at revision 0 and reads it back in order', async () => {
      const store = makeStore();
      const s = stream();
      const first = event('PaymentHeldInReview');
      const second = event('TransactionSettled');
      expect((await store.append(s, [first], 'no_stream')).nextExpectedRevision).toBe(0);
      expect((await store.append(s, [second], 0)).nextExpectedRevision).toBe(1);
      const read = await store.readStream(s);
      expect(read.map((e) => [e.eventId, e.type, e.revision])).toEqual([
        [first.eventId, 'PaymentHeldInReview', 0],
        [second.eventId, 'TransactionSettled', 1],
      ]);
      expect(read[0]!.data).toEqual(first.data);
      expect(read[0]!.metadata).toEqual(first.metadata);
      expect(read[1]!.position).toBeGreaterThan(read[0]!.position);
    });

    it('refuses an append at a stale or wrong expected revision', async () => {
      const store = makeStore();
      const s = stream();
      await store.append(s, [event()], 'no_stream');
      await expect(store.append(s, [event()], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(store.append(s, [event()], 5)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(store.append(stream(), [event()], 0)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      expect(await store.readStream(s)).toHaveLength(1);
    });

    it('stores a redelivered event once (same id, same expected revision)', async () => {
      const store = makeStore();
      const s = stream();
      const e = event();
      const first = await store.append(s, [e], 'no_stream');
      const again = await store.append(s, [e], 'no_stream');
      expect(first.duplicate).toBe(false);
      expect(again).toEqual({ nextExpectedRevision: 0, positions: first.positions, duplicate: true });
      expect(await store.readStream(s)).toHaveLength(1);
    });

    // KurrentDB de-duplicates event ids within a stream only (docs/ledger.md): not run there.
    it.runIf(options.uniqueEventIds)('refuses an event id that is stored in another stream (stores that keep ids unique ledger-wide)', async () => {
      const store = makeStore();
      const e = event();
      await store.append(stream(), [e], 'no_stream');
      await expect(store.append(stream(), [e], 'no_stream')).rejects.toBeInstanceOf(DuplicateEventIdError);
    });

    it('reads all streams in global order from a position', async () => {
      const store = makeStore();
      const [a, b] = [stream(), stream()];
      await store.append(a, [event('A1')], 'no_stream');
      await store.append(b, [event('B1')], 'no_stream');
      await store.append(a, [event('A2')], 0);
      const mine = (await store.readAll(0, 1_000_000)).filter((e) => e.streamId === a || e.streamId === b);
      expect(mine.map((e) => e.type)).toEqual(['A1', 'B1', 'A2']);
      const after = await store.readAll(mine[0]!.position, 1_000_000);
      expect(after.some((e) => e.eventId === mine[0]!.eventId)).toBe(false);
      expect(after.filter((e) => e.streamId === a || e.streamId === b).map((e) => e.type)).toEqual(['B1', 'A2']);
    });

    it('reads an unknown stream as empty', async () => {
      expect(await makeStore().readStream(stream())).toEqual([]);
    });

    it('chains every event to the previous one of its stream (and globally), verifiably', async () => {
      const store = makeStore();
      const s = stream();
      await store.append(s, [event('PaymentHeldInReview'), event('ManualReviewRequired')], 'no_stream');
      await store.append(s, [event('TransactionSettled')], 1);
      const read = await store.readStream(s);
      expect(read.map((e) => e.streamHash)).toEqual(read.map(() => expect.stringMatching(/^[0-9a-f]{64}$/)));
      expect(new Set(read.map((e) => e.streamHash)).size).toBe(3);
      const verifier = new ChainVerifier({ checkGlobal: options.globalChain });
      for (let after = 0, page: RecordedLedgerEvent[]; (page = await store.readAll(after, 500)).length > 0; after = page.at(-1)!.position) {
        for (const e of page) expect(verifier.check(e)).toBeNull();
      }
      expect(verifier.checked).toBeGreaterThanOrEqual(3);
    });

    it('delivers every event after a checkpoint, then new ones, and resumes from a checkpoint without duplicates', async () => {
      const store = makeStore();
      const s = stream();
      const first = await store.append(s, [event('A1'), event('A2')], 'no_stream');
      const checkpoint = first.positions[0]! - 1;
      const seen: RecordedLedgerEvent[] = [];
      const subscription = store.subscribeToAll(
        checkpoint,
        async (e) => {
          if (e.streamId === s) seen.push(e);
        },
        { pollIntervalMs: 20 },
      );
      await store.append(s, [event('A3')], 1);
      await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(3);
      await subscription.stop();
      expect(seen.map((e) => e.type)).toEqual(['A1', 'A2', 'A3']);
      // Resume after the second event: only the third (and later ones) arrive.
      const resumed: string[] = [];
      const again = store.subscribeToAll(
        seen[1]!.position,
        async (e) => {
          if (e.streamId === s) resumed.push(e.type);
        },
        { pollIntervalMs: 20 },
      );
      await store.append(s, [event('A4')], 2);
      await expect.poll(() => resumed.length, { timeout: 10_000 }).toBe(2);
      await again.stop();
      expect(resumed).toEqual(['A3', 'A4']);
    });

    it('delivers only the events of the streams a prefix names, and resumes after the last one delivered', async () => {
      const store = makeStore();
      // A prefix of this test's own, so events other tests append to a shared store stay out.
      const prefix = `contract${randomUUID().slice(0, 8)}-`;
      const mine = `${prefix}one`;
      const other = stream();
      const first = await store.append(mine, [event('B1')], 'no_stream');
      await store.append(other, [event('X1')], 'no_stream');
      await store.append(`${prefix}two`, [event('B2')], 'no_stream');
      // A stream whose id holds the prefix, but not at its start, is not one of them.
      await store.append(`x${prefix}three`, [event('X2')], 'no_stream');
      const seen: RecordedLedgerEvent[] = [];
      const subscription = store.subscribeToAll(
        first.positions[0]! - 1,
        async (e) => {
          seen.push(e);
        },
        { pollIntervalMs: 20, batchSize: 2, streamPrefix: prefix },
      );
      await store.append(other, [event('X3')], 0);
      await store.append(mine, [event('B3')], 0);
      await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(3);
      await subscription.stop();
      expect(seen.map((e) => [e.streamId, e.type])).toEqual([
        [mine, 'B1'],
        [`${prefix}two`, 'B2'],
        [mine, 'B3'],
      ]);
      // Resuming from the second one delivered gives the third only, not the other streams' events in between.
      const resumed: string[] = [];
      const again = store.subscribeToAll(
        seen[1]!.position,
        async (e) => {
          resumed.push(e.type);
        },
        { pollIntervalMs: 20, streamPrefix: prefix },
      );
      await store.append(`${prefix}two`, [event('B4')], 0);
      await expect.poll(() => resumed.length, { timeout: 10_000 }).toBe(2);
      await again.stop();
      expect(resumed).toEqual(['B3', 'B4']);
    });

    it('ends a subscription whose handler fails, and reports why', async () => {
      const store = makeStore();
      const s = stream();
      const appended = await store.append(s, [event()], 'no_stream');
      const subscription = store.subscribeToAll(appended.positions[0]! - 1, async () => {
        throw new Error('projection failed');
      });
      expect((await subscription.failed).message).toBe('projection failed');
      await subscription.stop();
    });
  });
}

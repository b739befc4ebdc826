import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DuplicateEventIdError, WrongExpectedRevisionError, type LedgerEventInput, type LedgerWriter } from '@settle/ledger';

const event = (eventId = randomUUID()): LedgerEventInput => ({
  eventId,
  type: 'ContractChecked',
  data: { amount_minor: 500_000 },
  metadata: { correlationId: 'corr-1', causationId: 'cause-1' },
});

/**
 * The ledger writer port's contract (what the projector relies on). Every writer (PostgreSQL,
 * the event-store writer over the in-memory store, and over KurrentDB where one is configured)
 * must pass it. Streams of another category than transactions and entitlements, so nothing is
 * projected: the projection has its own tests.
 */
export function ledgerWriterContract(name: string, makeWriter: () => LedgerWriter, options: { uniqueEventIds: boolean } = { uniqueEventIds: true }): void {
  describe(`ledger writer contract: ${name}`, () => {
    const stream = () => `contract-${randomUUID()}`;

    it('appends, then finds the same events a duplicate, and reads them back committed', async () => {
      const writer = makeWriter();
      const s = stream();
      const first = event();
      expect(await writer.session((session) => session.append([{ streamId: s, events: [first], expected: 'no_stream' }]))).toEqual([{ status: 'appended' }]);
      expect(await writer.session((session) => session.append([{ streamId: s, events: [first], expected: 'no_stream' }]))).toEqual([{ status: 'duplicate' }]);
      const read = await writer.session((session) => session.readStreams([s]));
      expect(read.get(s)!.map((e) => [e.eventId, e.revision])).toEqual([[first.eventId, 0]]);
    });

    it('a later append to a stream in the same session follows the earlier one', async () => {
      const writer = makeWriter();
      const s = stream();
      const [a, b] = [event(), event()];
      const outcomes = await writer.session((session) =>
        session.append([
          { streamId: s, events: [a], expected: 'no_stream' },
          { streamId: s, events: [b], expected: 0 },
        ]),
      );
      expect(outcomes).toEqual([{ status: 'appended' }, { status: 'appended' }]);
      const read = await writer.session((session) => session.readStreams([s]));
      expect(read.get(s)!.map((e) => [e.eventId, e.revision])).toEqual([
        [a.eventId, 0],
        [b.eventId, 1],
      ]);
    });

    it('rejects an append at the wrong revision alone: the others of the session are written', async () => {
      const writer = makeWriter();
      const [s, t] = [stream(), stream()];
      const outcomes = await writer.session((session) =>
        session.append([
          { streamId: s, events: [event()], expected: 3 },
          { streamId: t, events: [event()], expected: 'no_stream' },
        ]),
      );
      expect(outcomes[0]).toMatchObject({ status: 'rejected', error: expect.any(WrongExpectedRevisionError) as unknown });
      expect(outcomes[1]).toEqual({ status: 'appended' });
      const read = await writer.session((session) => session.readStreams([s, t]));
      expect([read.get(s)!.length, read.get(t)!.length]).toEqual([0, 1]);
    });

    it.runIf(options.uniqueEventIds)('rejects an event id stored in another stream', async () => {
      const writer = makeWriter();
      const shared = event();
      await writer.session((session) => session.append([{ streamId: stream(), events: [shared], expected: 'no_stream' }]));
      const [outcome] = await writer.session((session) => session.append([{ streamId: stream(), events: [shared], expected: 'no_stream' }]));
      expect(outcome).toMatchObject({ status: 'rejected', error: expect.any(DuplicateEventIdError) as unknown });
    });

    it('reads a stream that does not exist as empty', async () => {
      const writer = makeWriter();
      const s = stream();
      expect((await writer.session((session) => session.readStreams([s]))).get(s)).toEqual([]);
    });

    it("returns the session's value", async () => {
      expect(await makeWriter().session(async () => 42)).toBe(42);
    });
  });
}

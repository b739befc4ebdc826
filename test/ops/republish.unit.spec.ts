/**
 * `settle ledger republish` without I/O: its arguments, the window it selects from pages of the
 * ledger, the records it builds (the projector's own, topic by topic) and its batching.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decideGrant, foldEntitlement, parseAccessPeriod } from '@settle/domain';
import { entitlementLedgerEvent, entitlementStream, outboxMessagesOf, type LedgerEventInput, type RecordedLedgerEvent } from '@settle/ledger';
import { HEADERS, topicNames, type OutgoingRecord } from '@settle/messaging';
import { deterministicId } from '@settle/platform';
import { parseRepublishArgs, recordsOf, republish, RepublishUsageError, selectWindow, type RepublishOptions } from '../../scripts/ops/republish.js';

const topics = topicNames('unit');
const T0 = Date.parse('2026-11-25T10:00:00Z');

function outcome(reference: string): LedgerEventInput {
  return {
    eventId: randomUUID(),
    type: 'TransactionSettled',
    data: {
      reference,
      provider: 'paystack',
      outcome: 'SETTLED_CONSENSUS',
      state: 'SETTLED_CONSENSUS',
      entitlement_status: 'UNLOCKED',
      verdict: 'cleared',
      trigger: 'webhook_received',
      provider_status: null,
      detail: null,
      checks: [],
      expected: { amount_minor: 500_000, currency: 'NGN', user_id: `user-${reference}`, entitlement: 'pro' },
      observed: { amount_minor: null, charged_amount_minor: null, currency: null, provider_transaction_id: null },
      decided_at: T0,
    },
    metadata: { correlationId: `corr-${reference}`, causationId: randomUUID() },
  };
}

function grant(userId: string, reference: string): LedgerEventInput {
  const [g] = decideGrant(
    {
      type: 'GrantEntitlement',
      data: { eventId: randomUUID(), userId, entitlement: 'pro', reference, accessPeriod: parseAccessPeriod('P1M'), settledAt: T0 },
    },
    foldEntitlement([]),
  );
  return entitlementLedgerEvent(g!, { settlementEventId: randomUUID(), correlationId: `corr-${reference}` });
}

/** A ledger of `n` settled transactions, each followed by its grant: positions 1..2n, one second apart. */
function ledger(n: number): RecordedLedgerEvent[] {
  return Array.from({ length: n }, (_, i) => [
    { ...outcome(`ref_${i}`), streamId: `transaction-ref_${i}` },
    { ...grant(`user-ref_${i}`, `ref_${i}`), streamId: entitlementStream(`user-ref_${i}`, 'pro') },
  ])
    .flat()
    .map((e, i) => ({ ...e, revision: 0, position: i + 1, recordedAt: new Date(T0 + i * 1_000), streamHash: 'h', globalHash: 'g' }));
}

const store = (events: RecordedLedgerEvent[]) => ({
  readAll: async (after: number, limit: number) => events.filter((e) => e.position > after).slice(0, limit),
});

const options = (args: string[]): RepublishOptions => parseRepublishArgs(args);

describe('parseRepublishArgs', () => {
  it('reads positions, times, a topic, a dry run and a batch size', () => {
    expect(options(['--since', '120'])).toEqual({
      since: { kind: 'position', position: 120 },
      until: null,
      topics: ['settlements', 'entitlements'],
      dryRun: false,
      batchSize: 500,
    });
    expect(options(['--since', '2026-11-25T10:00:00Z', '--until', '300', '--topic', 'entitlements', '--dry-run', '--batch-size', '50'])).toEqual({
      since: { kind: 'time', at: new Date('2026-11-25T10:00:00Z') },
      until: { kind: 'position', position: 300 },
      topics: ['entitlements'],
      dryRun: true,
      batchSize: 50,
    });
  });

  it.each([
    [[], /--since .* is required/],
    [['--since', 'yesterday'], /--since must be a ledger position .* or an ISO 8601 time/],
    [['--since=-3'], /--since must be/],
    [['--since', '10', '--until', '10'], /--until must come after --since/],
    [['--since', '2026-11-25T10:00:00Z', '--until', '2026-11-25T09:00:00Z'], /--until must come after --since/],
    [['--since', '0', '--topic', 'consensus-results'], /--topic must be settlements or entitlements/],
    [['--since', '0', '--batch-size', '0'], /--batch-size must be/],
    [['--since', '0', '--batch-size', '20000'], /--batch-size must be/],
  ])('refuses %j', (args, message) => {
    expect(() => options(args)).toThrow(RepublishUsageError);
    expect(() => options(args)).toThrow(message);
  });

  it('refuses an unknown option', () => {
    expect(() => options(['--since', '0', '--from', '3'])).toThrow(/Unknown option '--from'/);
  });
});

describe('selectWindow', () => {
  const events = ledger(3); // positions 1..6, recorded T0 .. T0+5 s

  it('opens at a position (inclusive) and closes at the until position (exclusive), across pages', () => {
    const window = { since: { kind: 'position', position: 2 }, until: { kind: 'position', position: 5 } } as const;
    const first = selectWindow(events.slice(0, 3), window, 'before');
    expect(first.events.map((e) => e.position)).toEqual([2, 3]);
    expect(first.state).toBe('inside');
    const second = selectWindow(events.slice(3), window, first.state);
    expect(second.events.map((e) => e.position)).toEqual([4]);
    expect(second.state).toBe('past');
  });

  it('opens at the first event recorded at or after a time and stays open whatever later clocks say', () => {
    const skewed = events.map((e) => (e.position === 5 ? { ...e, recordedAt: new Date(T0) } : e));
    const { events: selected, state } = selectWindow(skewed, { since: { kind: 'time', at: new Date(T0 + 2_500) }, until: null }, 'before');
    expect(selected.map((e) => e.position)).toEqual([4, 5, 6]);
    expect(state).toBe('inside');
  });

  it('closes at the first event recorded at or after the until time', () => {
    const { events: selected, state } = selectWindow(
      events,
      { since: { kind: 'position', position: 0 }, until: { kind: 'time', at: new Date(T0 + 2_000) } },
      'before',
    );
    expect(selected.map((e) => e.position)).toEqual([1, 2]);
    expect(state).toBe('past');
  });

  it('selects nothing once past the window', () => {
    expect(selectWindow(events, { since: { kind: 'position', position: 0 }, until: null }, 'past').events).toEqual([]);
  });
});

describe('recordsOf', () => {
  const events = ledger(2);

  it("builds the projector's records: same event ids, keys, headers and payloads as its outbox messages", () => {
    const records = recordsOf(events, topics, ['settlements', 'entitlements']);
    const messages = outboxMessagesOf(events);
    expect(records.map((r) => r.payload)).toEqual(messages.map((m) => m.payload));
    const [settlement, entitlement] = records as [OutgoingRecord, OutgoingRecord];
    expect(settlement).toMatchObject({ topic: 'unit.settlements.v1', type: 'SettlementRecorded', key: 'ref_0' });
    expect(settlement.payload.event_id).toBe(deterministicId('SettlementRecorded', events[0]!.metadata.causationId));
    expect(settlement.headers).toEqual({
      [HEADERS.eventType]: 'SettlementRecorded',
      [HEADERS.correlationId]: 'corr-ref_0',
      [HEADERS.causationId]: events[0]!.metadata.causationId,
    });
    expect(entitlement).toMatchObject({ topic: 'unit.entitlement-events.v1', type: 'EntitlementGranted', key: 'user-ref_0' });
    expect(entitlement.payload.event_id).toBe(events[1]!.eventId);
    expect(entitlement.headers[HEADERS.causationId]).toBe(events[1]!.metadata.causationId);
  });

  it('keeps only the chosen topic and skips streams that stand for no record', () => {
    const audit = { ...events[0]!, streamId: 'admin-user-u1', type: 'AdminActionRequested', position: 99 };
    expect(recordsOf([...events, audit], topics, ['entitlements']).map((r) => r.key)).toEqual(['user-ref_0', 'user-ref_1']);
    expect(recordsOf([...events, audit], topics, ['settlements']).map((r) => r.key)).toEqual(['ref_0', 'ref_1']);
  });
});

describe('republish', () => {
  const events = ledger(10); // positions 1..20

  it('pages through the window and publishes it in batches, each awaited before reading on', async () => {
    const batches: string[][] = [];
    const reads: number[] = [];
    const result = await republish(
      store(events),
      topics,
      options(['--since', '5', '--until', '17', '--batch-size', '4']),
      async (records) => {
        batches.push(records.map((r) => r.payload.event_id));
      },
      (n) => reads.push(n),
      3,
    );
    // Positions 5..16: 6 settlements and 6 grants, in ledger order.
    const expected = recordsOf(events.slice(4, 16), topics, ['settlements', 'entitlements']).map((r) => r.payload.event_id);
    expect(batches.flat()).toEqual(expected);
    expect(batches.map((b) => b.length)).toEqual([4, 4, 4]);
    expect(result).toEqual({ read: 15, inWindow: 12, published: { 'unit.settlements.v1': 6, 'unit.entitlement-events.v1': 6 }, first: 5, last: 16 });
    expect(reads).toEqual([3, 6, 9, 12, 15]);
  });

  it('publishes the same ids again on a second run (idempotent for a subscriber de-duplicating by event id)', async () => {
    const ids: string[][] = [[], []];
    for (const run of ids) await republish(store(events), topics, options(['--since', '0']), async (r) => void run.push(...r.map((x) => x.payload.event_id)));
    expect(ids[0]).toHaveLength(20);
    expect(ids[1]).toEqual(ids[0]);
  });

  it('counts without publishing on a dry run, and an empty window publishes nothing', async () => {
    let calls = 0;
    const publish = async () => void calls++;
    const dry = await republish(store(events), topics, options(['--since', '0', '--topic', 'settlements', '--dry-run']), publish);
    expect(dry.published).toEqual({ 'unit.settlements.v1': 10 });
    const empty = await republish(store(events), topics, options(['--since', '2030-01-01']), publish);
    expect(empty).toMatchObject({ inWindow: 0, published: {}, first: null, last: null });
    expect(calls).toBe(0);
  });

  it('stops at its last acknowledged batch when a publish fails', async () => {
    const sent: string[] = [];
    let n = 0;
    const failing = async (records: readonly OutgoingRecord[]) => {
      if (++n === 2) throw new Error('broker gone');
      sent.push(...records.map((r) => r.payload.event_id));
    };
    await expect(republish(store(events), topics, options(['--since', '0', '--batch-size', '5']), failing)).rejects.toThrow('broker gone');
    expect(sent).toHaveLength(5);
  });
});

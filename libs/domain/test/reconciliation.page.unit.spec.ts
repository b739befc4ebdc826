/**
 * One page of a reconciliation run (docs/reconciliation.md, "Runs"): scope, the grace period, new
 * exceptions raised once, open ones reported again or resolved, and what the verifier is asked to
 * verify; then the schedule of incremental and daily runs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decidePage, dueRuns, emptyCounts, type OpenException, type PageInput, type PageTransaction, type SettleRecord } from '@settle/domain';

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const HOUR = 3_600_000;

function paid(reference: string, over: Partial<PageTransaction> = {}): PageTransaction {
  return {
    provider: 'paystack',
    reference,
    status: 'succeeded',
    providerStatus: 'success',
    amountMinor: 5_000,
    currency: 'NGN',
    customer: { email: 'ada@example.com' },
    createdAtMs: NOW - HOUR,
    ...over,
  };
}

function record(reference: string, over: Partial<SettleRecord> = {}): SettleRecord {
  return {
    reference,
    status: 'SETTLED_CONSENSUS',
    amountMinor: 5_000,
    currency: 'NGN',
    customer: { email: 'ada@example.com' },
    userId: 'user-1',
    entitlement: 'pro',
    ...over,
  };
}

function input(over: Partial<PageInput>): PageInput {
  return {
    transactions: [],
    marker: { kind: 'reference_prefix', prefix: 'stl_' },
    settle: new Map(),
    open: new Map(),
    duplicates: new Map(),
    knownUnmatched: new Set(),
    nowMs: NOW,
    graceMs: 45_000,
    ...over,
  };
}

describe('decidePage', () => {
  it('counts transactions without the marker as out of scope and compares nothing of them', () => {
    const outcome = decidePage(input({ transactions: [paid('inv_1'), paid('inv_2')] }));
    expect(outcome.counts).toEqual({ ...emptyCounts(), out_of_scope: 2 });
    expect(outcome.raise).toEqual([]);
    expect(outcome.verify).toEqual([]);
  });

  it('leaves an unknown payment inside the grace period to a later run, but classifies a registered one', () => {
    const recent = paid('stl_new', { createdAtMs: NOW - 10_000 });
    const recentRegistered = paid('stl_reg', { createdAtMs: NOW - 10_000 });
    const outcome = decidePage(input({ transactions: [recent, recentRegistered], settle: new Map([['stl_reg', record('stl_reg')]]) }));
    expect(outcome.counts.too_recent).toBe(1);
    expect(outcome.counts.matches).toBe(1);
    expect(outcome.raise).toEqual([]);
  });

  it('raises a new exception with its evidence and asks the verifier about a stuck payment', () => {
    const outcome = decidePage(input({ transactions: [paid('stl_stuck')], settle: new Map([['stl_stuck', record('stl_stuck', { status: 'PENDING' })]]) }));
    expect(outcome.raise).toHaveLength(1);
    expect(outcome.raise[0]).toMatchObject({ reference: 'stl_stuck', class: 'stuck', exception: true });
    expect(outcome.raise[0]!.evidence[0]).toMatchObject({ field: 'status', settle: 'PENDING' });
    expect(outcome.verify).toEqual([expect.objectContaining({ reference: 'stl_stuck', class: 'stuck' })]);
  });

  it('does not ask about a stuck payment whose state is terminal here (declined): an operator decides', () => {
    const outcome = decidePage(input({ transactions: [paid('stl_dec')], settle: new Map([['stl_dec', record('stl_dec', { status: 'FAILED_DECLINED' })]]) }));
    expect(outcome.raise.map((e) => e.class)).toEqual(['stuck']);
    expect(outcome.verify).toEqual([]);
  });

  it('asks about an unknown payment once, and not when it is already an unmatched payment', () => {
    const fresh = decidePage(input({ transactions: [paid('stl_unknown')] }));
    expect(fresh.verify).toEqual([expect.objectContaining({ reference: 'stl_unknown', class: 'unknown_to_settle' })]);
    const known = decidePage(input({ transactions: [paid('stl_unknown')], knownUnmatched: new Set(['stl_unknown']) }));
    expect(known.verify).toEqual([]);
    expect(known.raise.map((e) => e.class)).toEqual(['unknown_to_settle']);
  });

  it('asks the verifier about a settled payment the provider now shows reversed when first raised (its refunds, disputes and reversal are read), not again', () => {
    const transactions = [paid('stl_rev', { status: 'reversed', providerStatus: 'reversed' })];
    const settle = new Map([['stl_rev', record('stl_rev')]]);
    const first = decidePage(input({ transactions, settle }));
    expect(first.raise.map((e) => e.class)).toEqual(['settled_not_successful']);
    expect(first.verify).toEqual([expect.objectContaining({ reference: 'stl_rev', class: 'settled_not_successful' })]);
    const open: OpenException = { exceptionId: 'rex_1', reference: 'stl_rev', class: 'settled_not_successful' };
    expect(decidePage(input({ transactions, settle, open: new Map([['stl_rev', [open]]]) })).verify).toEqual([]);
  });

  it('reports an open exception of the same class again instead of raising it twice', () => {
    const open: OpenException = { exceptionId: 'rex_1', reference: 'stl_rev', class: 'settled_not_successful' };
    const outcome = decidePage(
      input({
        transactions: [paid('stl_rev', { status: 'reversed', providerStatus: 'reversed' })],
        settle: new Map([['stl_rev', record('stl_rev')]]),
        open: new Map([['stl_rev', [open]]]),
      }),
    );
    expect(outcome.raise).toEqual([]);
    expect(outcome.reportedAgain).toEqual([open]);
    expect(outcome.counts.settled_not_successful).toBe(1);
  });

  it('resolves an open exception when the payment now matches, and one that moved to another class', () => {
    const stuck: OpenException = { exceptionId: 'rex_s', reference: 'stl_a', class: 'stuck' };
    const unknown: OpenException = { exceptionId: 'rex_u', reference: 'stl_b', class: 'unknown_to_settle' };
    const outcome = decidePage(
      input({
        transactions: [paid('stl_a'), paid('stl_b', { amountMinor: 4_000 })],
        settle: new Map([
          ['stl_a', record('stl_a')],
          ['stl_b', record('stl_b')],
        ]),
        open: new Map([
          ['stl_a', [stuck]],
          ['stl_b', [unknown]],
        ]),
      }),
    );
    expect(outcome.resolve).toEqual([
      { exception: stuck, now: 'matches' },
      { exception: unknown, now: 'terms_differ' },
    ]);
    expect(outcome.raise.map((e) => [e.reference, e.class])).toEqual([['stl_b', 'terms_differ']]);
  });

  it('flags the later of two payments of a duplicate pair', () => {
    const outcome = decidePage(
      input({
        transactions: [paid('stl_1'), paid('stl_2')],
        settle: new Map([
          ['stl_1', record('stl_1')],
          ['stl_2', record('stl_2')],
        ]),
        duplicates: new Map([['stl_2', 'stl_1']]),
      }),
    );
    expect(outcome.counts.matches).toBe(1);
    expect(outcome.raise.map((e) => [e.reference, e.class, e.evidence[0]?.settle])).toEqual([['stl_2', 'possible_duplicate', 'stl_1']]);
  });

  it('every transaction is counted exactly once, and the same page decided twice raises nothing new the second time', () => {
    const statuses = ['succeeded', 'pending', 'failed', 'reversed'] as const;
    const settleStatuses = ['SETTLED_CONSENSUS', 'PENDING', 'FAILED_DECLINED', null] as const;
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            n: fc.integer({ min: 0, max: 30 }),
            status: fc.constantFrom(...statuses),
            settle: fc.constantFrom(...settleStatuses),
            scoped: fc.boolean(),
          }),
          { maxLength: 40 },
        ),
        (rows) => {
          const transactions = rows.map((r) => paid(`${r.scoped ? 'stl_' : 'inv_'}${r.n}`, { status: r.status }));
          const settle = new Map(rows.flatMap((r) => (r.settle ? [[`stl_${r.n}`, record(`stl_${r.n}`, { status: r.settle })] as const] : [])));
          const first = decidePage(input({ transactions, settle }));
          const distinct = new Set(transactions.filter((t) => t.reference.startsWith('stl_')).map((t) => t.reference)).size;
          const total = Object.values(first.counts).reduce((a, b) => a + b, 0);
          expect(total).toBe(distinct + transactions.filter((t) => !t.reference.startsWith('stl_')).length);
          const open = new Map<string, OpenException[]>();
          first.raise.forEach((e, i) => open.set(e.reference, [{ exceptionId: `rex_${i}`, reference: e.reference, class: e.class }]));
          const second = decidePage(input({ transactions, settle, open }));
          expect(second.raise).toEqual([]);
          expect(second.resolve).toEqual([]);
          expect(second.reportedAgain).toHaveLength(first.raise.length);
        },
      ),
    );
  });
});

describe('dueRuns', () => {
  const settings = { intervalMs: HOUR, overlapMs: 2 * HOUR, daily: true };

  it('starts with an incremental run over the overlap, and no daily run for a day before the first tick', () => {
    const { runs, next } = dueRuns({ incrementalUntilMs: null, dailyThrough: null }, NOW, settings);
    expect(runs).toEqual([{ kind: 'incremental', fromMs: NOW - 2 * HOUR, untilMs: NOW }]);
    expect(next).toEqual({ incrementalUntilMs: NOW, dailyThrough: '2026-11-27' });
  });

  it('runs again once the interval passed, reaching back by the overlap from the stored cursor', () => {
    const early = dueRuns({ incrementalUntilMs: NOW - HOUR + 1, dailyThrough: '2026-11-27' }, NOW, settings);
    expect(early.runs).toEqual([]);
    const due = dueRuns({ incrementalUntilMs: NOW - HOUR, dailyThrough: '2026-11-27' }, NOW, settings);
    expect(due.runs).toEqual([{ kind: 'incremental', fromMs: NOW - 3 * HOUR, untilMs: NOW }]);
  });

  it('creates the daily run over the previous UTC day once, after midnight', () => {
    const afterMidnight = Date.UTC(2026, 10, 29, 0, 5);
    const { runs, next } = dueRuns({ incrementalUntilMs: afterMidnight, dailyThrough: '2026-11-27' }, afterMidnight, settings);
    expect(runs).toEqual([{ kind: 'daily', fromMs: Date.UTC(2026, 10, 28), untilMs: Date.UTC(2026, 10, 29) }]);
    expect(dueRuns(next, afterMidnight + 60_000, settings).runs).toEqual([]);
  });
});

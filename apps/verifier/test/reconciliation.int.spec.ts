/**
 * Reconciliation runs in the verifier (docs/reconciliation.md, "Runs"), against real PostgreSQL
 * and the real outbox, over a paged in-memory provider list: every class counted and every
 * exception raised once with its evidence, the same window twice raising nothing new, a run
 * stopped mid-way resumed from its stored cursor without duplicating anything, a permanent
 * provider failure recorded, resolutions by a later run and by an operator, the live duplicate
 * charge check, and a dry run that records nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderName, ProviderPaymentStatus } from '@settle/domain';
import { AvroCodec, Outbox, topicNames, type BatchItem } from '@settle/messaging';
import { createLogger, createPool, migrateSchema, type Pool } from '@settle/platform';
import { ProviderCallError, type ListedTransaction, type ListWindow, type TransactionLister, type TransactionPage } from '@settle/providers';
import { createTestDatabase, infra, uniqueTopicPrefix } from '@settle/testing';
import { ReconciliationMetrics } from '../src/reconciliation/reconciliation.metrics.js';
import { ReconciliationService, type ReconcilerSettings } from '../src/reconciliation/reconciliation.service.js';
import { VERIFIER_MIGRATIONS } from '../src/schema.js';

let pool: Pool;
let drop: () => Promise<void>;
let outbox: Outbox;

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const HOUR = 3_600_000;
const WINDOW = { fromMs: NOW - 3 * HOUR, untilMs: NOW };

beforeAll(async () => {
  const database = await createTestDatabase('settle_reconcile');
  drop = database.drop;
  pool = createPool(database.url, 6);
  await migrateSchema(pool, VERIFIER_MIGRATIONS);
  const topics = topicNames(uniqueTopicPrefix('reconcile'));
  const codec = AvroCodec.connect(infra.registryUrl, topics);
  await codec.registerAll(['ReconciliationRunRecorded', 'ReconciliationExceptionObserved', 'VerificationRequested']);
  outbox = new Outbox('verifier', topics, codec);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

beforeEach(async () => {
  await pool.query(
    'TRUNCATE verifier.transactions, verifier.unmatched_payments, verifier.reconciliation_runs, verifier.reconciliation_exceptions, verifier.reconciliation_schedule, verifier.outbox',
  );
});

/** A provider's list held in memory, paged by index, that can fail a given page a given way. */
class PagedList implements TransactionLister {
  readonly name: ProviderName = 'paystack';
  calls = 0;
  failAt: { page: number; error: ProviderCallError; times: number } | null = null;
  constructor(
    private readonly transactions: ListedTransaction[],
    private readonly pageSize = 3,
  ) {}

  async listPage(window: ListWindow, cursor: string | null): Promise<TransactionPage> {
    this.calls += 1;
    const page = cursor === null ? 0 : Number(cursor);
    if (this.failAt && this.failAt.page === page && this.failAt.times > 0) {
      this.failAt.times -= 1;
      throw this.failAt.error;
    }
    const inWindow = this.transactions.filter((t) => t.createdAtMs >= window.fromMs && t.createdAtMs < window.untilMs);
    const slice = inWindow.slice(page * this.pageSize, (page + 1) * this.pageSize);
    const last = (page + 1) * this.pageSize >= inWindow.length;
    return { transactions: slice, next: last ? null : String(page + 1), totalPages: Math.ceil(inWindow.length / this.pageSize), rows: slice.length };
  }
}

function listed(reference: string, status: ProviderPaymentStatus = 'succeeded', over: Partial<ListedTransaction> = {}): ListedTransaction {
  return {
    provider: 'paystack',
    reference,
    providerTransactionId: `tx_${reference}`,
    status,
    providerStatus: status === 'succeeded' ? 'success' : status,
    amountMinor: 5_000,
    currency: 'NGN',
    customer: { email: 'ada@example.com' },
    createdAtMs: NOW - HOUR,
    paidAtMs: NOW - HOUR,
    ...over,
  };
}

/** A checkout as the verifier holds it; `settledAt` given for a settled one. */
async function checkout(reference: string, status: string, over: { userId?: string; settledAt?: number; amount?: number } = {}): Promise<void> {
  await pool.query(
    `INSERT INTO verifier.transactions (reference, provider, amount_minor, currency, user_id, customer_email, entitlement, correlation_id, status, entitlement_status, outcomes, settled_at)
     VALUES ($1, 'paystack', $2, 'NGN', $3, 'ada@example.com', 'pro', $4, $5, 'NONE', 1, $6)`,
    [reference, over.amount ?? 5_000, over.userId ?? `user_${reference}`, randomUUID(), status, over.settledAt ?? null],
  );
}

const SETTINGS: ReconcilerSettings = {
  enabled: false,
  tickMs: 60_000,
  intervalMs: HOUR,
  overlapMs: 2 * HOUR,
  daily: false,
  graceMs: 45_000,
  duplicateWindowMs: 600_000,
  scope: { paystack: { kind: 'reference_prefix', prefix: 'stl_' } },
};

function reconciler(list: PagedList, settings: Partial<ReconcilerSettings> = {}): ReconciliationService {
  const listers = new Map<ProviderName, TransactionLister>([['paystack', list]]);
  return new ReconciliationService(
    pool,
    listers,
    outbox,
    { wake() {} },
    createLogger('test', 'silent'),
    new ReconciliationMetrics(),
    { ...SETTINGS, ...settings },
    () => NOW,
  );
}

/** A run request as ingestion publishes it. */
function runRequest(runId: string, dryRun = false): BatchItem {
  return {
    event: {
      type: 'ReconciliationRunRequested',
      payload: {
        event_id: randomUUID(),
        occurred_at: NOW,
        correlation_id: randomUUID(),
        reference: runId,
        provider: 'paystack',
        window_from: WINDOW.fromMs,
        window_until: WINDOW.untilMs,
        dry_run: dryRun,
        requested_by: 'ops@example.com',
      },
    },
  } as unknown as BatchItem;
}

async function outboxOf(type: string): Promise<Array<Record<string, unknown>>> {
  const { rows } = await pool.query<{ payload: Record<string, unknown> }>('SELECT payload FROM verifier.outbox WHERE event_type = $1 ORDER BY id', [type]);
  return rows.map((r) => r.payload);
}

async function run(runId: string): Promise<Record<string, unknown>> {
  const { rows } = await pool.query('SELECT * FROM verifier.reconciliation_runs WHERE run_id = $1', [runId]);
  return rows[0] as Record<string, unknown>;
}

/** The provider's books of the main scenario, and Settle's records beside them. */
async function scenario(): Promise<ListedTransaction[]> {
  await checkout('stl_match', 'SETTLED_CONSENSUS', { settledAt: NOW - 2 * HOUR });
  await checkout('stl_stuck', 'PENDING');
  await checkout('stl_reversed', 'SETTLED_CONSENSUS', { settledAt: NOW - 2 * HOUR });
  await checkout('stl_amount', 'SETTLED_CONSENSUS', { amount: 6_000, settledAt: NOW - 2 * HOUR });
  await checkout('stl_first', 'SETTLED_CONSENSUS', { userId: 'user_twice', settledAt: NOW - HOUR - 60_000 });
  await checkout('stl_second', 'SETTLED_CONSENSUS', { userId: 'user_twice', settledAt: NOW - HOUR });
  await checkout('stl_declined', 'FAILED_DECLINED');
  return [
    listed('stl_match'),
    listed('stl_stuck'),
    listed('stl_reversed', 'reversed'),
    listed('stl_amount'),
    listed('stl_first'),
    listed('stl_second'),
    listed('stl_declined', 'failed'),
    listed('stl_unknown'),
    listed('inv_not_ours'),
    listed('stl_brand_new', 'succeeded', { createdAtMs: NOW - 5_000 }),
  ];
}

describe('a reconciliation run', () => {
  it('pages through the window, counts every class and raises each exception once with its evidence', async () => {
    const list = new PagedList(await scenario());
    const service = reconciler(list);
    await service.handleRequests([runRequest('rcr_one')]);
    await service.tick();

    const stored = await run('rcr_one');
    expect(stored).toMatchObject({ status: 'completed', pages: 4, listed: 10, cursor: null });
    expect(stored.counts).toMatchObject({
      matches: 3,
      stuck: 1,
      settled_not_successful: 1,
      terms_differ: 1,
      possible_duplicate: 1,
      unknown_to_settle: 1,
      out_of_scope: 1,
      too_recent: 1,
    });
    const raised = await outboxOf('ReconciliationExceptionObserved');
    expect(raised.map((e) => [e.reference, e.class]).sort()).toEqual(
      [
        ['stl_amount', 'terms_differ'],
        ['stl_reversed', 'settled_not_successful'],
        ['stl_second', 'possible_duplicate'],
        ['stl_stuck', 'stuck'],
        ['stl_unknown', 'unknown_to_settle'],
      ].sort(),
    );
    expect(raised.find((e) => e.reference === 'stl_amount')!.evidence).toEqual([{ field: 'amount', provider: '5000', settle: '6000' }]);
    expect(raised.find((e) => e.reference === 'stl_second')!.evidence).toEqual([{ field: 'duplicate_of', provider: 'stl_second', settle: 'stl_first' }]);

    // The stuck payment and the unknown one are verified at once; the unknown one is an unmatched
    // payment candidate. The settled one the provider shows reversed is asked about too: the
    // verifier reads its refunds, disputes and reversal (docs/state-machine.md, "The money after settlement").
    const requests = await outboxOf('VerificationRequested');
    expect(requests.map((r) => [r.reference, r.trigger]).sort()).toEqual([
      ['stl_reversed', 'reconciliation'],
      ['stl_stuck', 'reconciliation'],
      ['stl_unknown', 'reconciliation'],
    ]);
    const { rows } = await pool.query("SELECT status FROM verifier.unmatched_payments WHERE reference = 'stl_unknown'");
    expect(rows).toEqual([{ status: 'candidate' }]);

    const records = await outboxOf('ReconciliationRunRecorded');
    expect(records[0]).toMatchObject({ status: 'started', reference: 'rcr_one', started_by: 'ops@example.com', kind: 'on_demand' });
    expect(records.at(-1)).toMatchObject({ status: 'completed', pages: 4, listed: 10, exceptions_raised: 5, out_of_scope: 1, too_recent: 1 });
  });

  it('over the same window again raises nothing new and reports the open exceptions again', async () => {
    const list = new PagedList(await scenario());
    const service = reconciler(list);
    await service.handleRequests([runRequest('rcr_first')]);
    await service.tick();
    const before = (await outboxOf('ReconciliationExceptionObserved')).length;
    await service.handleRequests([runRequest('rcr_again')]);
    await service.tick();
    expect((await outboxOf('ReconciliationExceptionObserved')).length).toBe(before);
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM verifier.reconciliation_exceptions WHERE status = 'open' AND last_run_id = 'rcr_again'");
    expect(rows[0].n).toBe(5);
    expect(await run('rcr_again')).toMatchObject({ status: 'completed', exceptions_raised: 0 });
  });

  it('a request delivered twice records one run', async () => {
    const service = reconciler(new PagedList([]));
    const request = runRequest('rcr_twice');
    await service.handleRequests([request]);
    await service.handleRequests([request]);
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM verifier.reconciliation_runs WHERE run_id = 'rcr_twice'");
    expect(rows[0].n).toBe(1);
  });

  it('stopped by a provider failure mid-run, resumes from its stored cursor and ends as one clean run would', async () => {
    const list = new PagedList(await scenario());
    list.failAt = { page: 2, error: new ProviderCallError('PROVIDER.RATE_LIMITED', true, 'Provider answered 429'), times: 1 };
    let now = NOW;
    const listers = new Map<ProviderName, TransactionLister>([['paystack', list]]);
    const settings = { ...SETTINGS, tickMs: 10_000 };
    const service = new ReconciliationService(
      pool,
      listers,
      outbox,
      { wake() {} },
      createLogger('test', 'silent'),
      new ReconciliationMetrics(),
      settings,
      () => now,
    );
    await service.handleRequests([runRequest('rcr_resume')]);
    await service.tick();
    const halfway = await run('rcr_resume');
    expect(halfway).toMatchObject({ status: 'running', pages: 2, cursor: '2' });
    expect(String(halfway.error)).toContain('PROVIDER.RATE_LIMITED');

    // The released run is runnable again one tick later (still within the newest payment's grace period).
    now += settings.tickMs + 1;
    await service.tick();
    expect(await run('rcr_resume')).toMatchObject({ status: 'completed', pages: 4, listed: 10, exceptions_raised: 5 });
    const raised = await outboxOf('ReconciliationExceptionObserved');
    expect(new Set(raised.map((e) => e.reference)).size).toBe(raised.length);
    expect(raised).toHaveLength(5);
  });

  it('a permanent provider failure fails the run and records why, without a secret', async () => {
    const list = new PagedList([listed('stl_a')]);
    list.failAt = { page: 0, error: new ProviderCallError('PROVIDER.AUTH_REJECTED', false, 'Provider rejected the credentials'), times: 1 };
    const service = reconciler(list);
    await service.handleRequests([runRequest('rcr_denied')]);
    await service.tick();
    expect(await run('rcr_denied')).toMatchObject({ status: 'failed' });
    const records = await outboxOf('ReconciliationRunRecorded');
    expect(records.at(-1)).toMatchObject({ status: 'failed', error: expect.stringContaining('PROVIDER.AUTH_REJECTED') });
  });

  it('resolves an exception when a later run finds the payment matching, and one an operator resolves', async () => {
    const transactions = await scenario();
    const service = reconciler(new PagedList(transactions));
    await service.handleRequests([runRequest('rcr_before')]);
    await service.tick();
    await pool.query("UPDATE verifier.transactions SET status = 'SETTLED_CONSENSUS', settled_at = $1 WHERE reference = 'stl_stuck'", [NOW - 3 * HOUR]);
    await service.handleRequests([runRequest('rcr_after')]);
    await service.tick();
    const resolved = (await outboxOf('ReconciliationExceptionObserved')).filter((e) => e.change === 'resolved');
    expect(resolved).toEqual([expect.objectContaining({ reference: 'stl_stuck', class: 'stuck', resolution: 'matches', run_id: 'rcr_after' })]);

    const { rows } = await pool.query("SELECT exception_id FROM verifier.reconciliation_exceptions WHERE reference = 'stl_reversed' AND status = 'open'");
    const operator = {
      event: {
        type: 'ReconciliationExceptionResolveRequested',
        payload: {
          event_id: randomUUID(),
          occurred_at: NOW,
          correlation_id: randomUUID(),
          reference: 'stl_reversed',
          exception_id: rows[0].exception_id,
          reason: 'refund confirmed with the provider',
          resolved_by: 'lead@example.com',
        },
      },
    } as unknown as BatchItem;
    await service.handleRequests([operator]);
    await service.handleRequests([operator]);
    const byOperator = (await outboxOf('ReconciliationExceptionObserved')).filter((e) => e.resolution === 'operator');
    expect(byOperator).toEqual([
      expect.objectContaining({ reference: 'stl_reversed', resolved_by: 'lead@example.com', resolution_note: 'refund confirmed with the provider' }),
    ]);
  });

  it('a dry run counts and records its run, and raises or asks nothing', async () => {
    const service = reconciler(new PagedList(await scenario()));
    await service.handleRequests([runRequest('rcr_dry', true)]);
    await service.tick();
    expect(await run('rcr_dry')).toMatchObject({ status: 'completed', dry_run: true, exceptions_raised: 0 });
    expect((await run('rcr_dry')).counts).toMatchObject({ stuck: 1, unknown_to_settle: 1 });
    expect(await outboxOf('ReconciliationExceptionObserved')).toEqual([]);
    expect(await outboxOf('VerificationRequested')).toEqual([]);
  });

  it('the schedule creates an incremental run over the overlap on its first tick, and none again before the interval', async () => {
    const service = reconciler(new PagedList([listed('stl_match')]), { enabled: true });
    await checkout('stl_match', 'SETTLED_CONSENSUS', { settledAt: NOW - 2 * HOUR });
    await service.tick();
    await service.tick();
    const { rows } = await pool.query('SELECT kind, window_from, window_until, status, started_by FROM verifier.reconciliation_runs');
    expect(rows).toEqual([{ kind: 'incremental', window_from: NOW - 2 * HOUR, window_until: NOW, status: 'completed', started_by: 'schedule' }]);
  });
});

describe('the live duplicate charge check', () => {
  it('raises a possible duplicate as soon as the second payment of a user for an entitlement settles, once', async () => {
    const service = reconciler(new PagedList([]));
    await checkout('stl_one', 'SETTLED_CONSENSUS', { userId: 'user_live', settledAt: NOW - 120_000 });
    await checkout('stl_two', 'SETTLED_CONSENSUS', { userId: 'user_live', settledAt: NOW });
    await checkout('stl_other', 'SETTLED_CONSENSUS', { userId: 'user_else', settledAt: NOW });
    await service.flagDuplicates(['stl_two', 'stl_other']);
    await service.flagDuplicates(['stl_two']);
    const raised = await outboxOf('ReconciliationExceptionObserved');
    expect(raised).toEqual([
      expect.objectContaining({
        reference: 'stl_two',
        class: 'possible_duplicate',
        run_id: null,
        evidence: [{ field: 'duplicate_of', provider: 'stl_two', settle: 'stl_one' }],
      }),
    ]);
  });
});

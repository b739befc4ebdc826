/**
 * The projector's decisions over the in-memory event store (no database, no broker): what it
 * appends for each consensus result, what it dead-letters, and the grants a settlement causes.
 */
import { describe, expect, it } from 'vitest';
import {
  entitlementStream,
  EventStoreLedgerWriter,
  InMemoryLedger,
  readModelRowsOf,
  reconciliationExceptionStream,
  reconciliationRunStream,
  transactionStream,
  unmatchedPaymentRecordedOf,
  unmatchedPaymentStream,
  type LatestVerificationRow,
} from '@settle/ledger';
import type {
  BatchItem,
  ConsensusResultV1,
  ReconciliationExceptionObservedV1,
  ReconciliationRunRecordedV1,
  UnmatchedPaymentObservedV1,
} from '@settle/messaging';
import { createLogger } from '@settle/platform';
import { ProjectionService } from '../src/projection.service.js';
import { ProjectorMetrics } from '../src/projector.metrics.js';
import { result } from './fixtures.js';

const SETTLE = {
  verdict: 'cleared',
  before: 'PENDING',
  after: 'SETTLED_CONSENSUS',
  ledger: 'TransactionSettled',
  revision: 0,
  entitlement: 'UNLOCKED',
} as const;
const DECLINE = { verdict: 'declined', before: 'PENDING', after: 'FAILED_DECLINED', ledger: 'PaymentDeclined', revision: 0, entitlement: 'LOCKED' } as const;
const NOT_YET = { verdict: 'not_found', before: 'PENDING', after: 'PENDING', ledger: null, revision: 0, entitlement: 'LOCKED' } as const;

function projector() {
  const store = new InMemoryLedger();
  const latest: LatestVerificationRow[] = [];
  const writer = new EventStoreLedgerWriter(store, async (rows) => {
    latest.push(...rows);
  });
  const metrics = new ProjectorMetrics();
  return { store, latest, metrics, service: new ProjectionService(writer, createLogger('projection-unit', 'fatal'), metrics) };
}

/** A histogram's observation count and sum. */
async function observed(histogram: ProjectorMetrics['appendDuration']): Promise<{ count: number; sum: number }> {
  const { name, values } = await histogram.get();
  const pick = (suffix: string) => values.find((v) => v.metricName === `${name}${suffix}`)?.value ?? 0;
  return { count: pick('_count'), sum: pick('_sum') };
}

const batch = (...payloads: ConsensusResultV1[]): BatchItem[] =>
  payloads.map((payload, i) => ({
    event: { type: 'ConsensusResult', payload },
    context: { topic: 't', partition: 0, offset: String(i), key: null, timestamp: 0, headers: {} },
  }));

describe('ledger projector', () => {
  it('appends each outcome to its transaction stream, records every answer, and appends nothing for an answer that changed nothing', async () => {
    const { store, latest, service } = projector();
    const [settled, declined, unchanged] = [result('u_settled', SETTLE), result('u_declined', DECLINE), result('u_unchanged', NOT_YET)];
    expect(await service.handleBatch(batch(settled, declined, unchanged))).toEqual([]);
    expect((await store.readStream(transactionStream('u_settled'))).map((e) => [e.type, e.data.state, e.metadata.causationId])).toEqual([
      ['TransactionSettled', 'SETTLED_CONSENSUS', settled.event_id],
    ]);
    expect((await store.readStream(transactionStream('u_declined'))).map((e) => e.type)).toEqual(['PaymentDeclined']);
    expect(await store.readStream(transactionStream('u_unchanged'))).toEqual([]);
    expect(latest.map((r) => [r.reference, r.verdict])).toEqual([
      ['u_settled', 'cleared'],
      ['u_declined', 'declined'],
      ['u_unchanged', 'not_found'],
    ]);
  });

  it('observes each committed ledger session: its duration in seconds and the results it projected', async () => {
    const { metrics, service } = projector();
    await service.handleBatch(batch(result('m_1', SETTLE), result('m_2', DECLINE), result('m_3', NOT_YET)));
    await service.handleBatch(batch(result('m_4', SETTLE)));
    expect(await observed(metrics.appendBatchSize)).toEqual({ count: 2, sum: 4 });
    const duration = await observed(metrics.appendDuration);
    expect(duration.count).toBe(2);
    expect(duration.sum).toBeGreaterThan(0);
    expect(duration.sum).toBeLessThan(5);
  });

  it('grants the entitlement a settlement bought, once, however often the settlement is redelivered', async () => {
    const { store, service } = projector();
    const settled = result('u_grant', SETTLE);
    await service.handleBatch(batch(settled, settled));
    await service.handleBatch(batch(settled));
    const grants = await store.readStream(entitlementStream(settled.user_id, settled.entitlement));
    expect(grants.map((g) => [g.type, g.data.event, g.data.reference, g.metadata.causationId])).toEqual([
      ['EntitlementGranted', 'subscription_started', 'u_grant', (await store.readStream(transactionStream('u_grant')))[0]!.eventId],
    ]);
    expect(await store.readStream(transactionStream('u_grant'))).toHaveLength(1);
  });

  it('dead-letters a result at a wrong revision, and one naming no outcome type, alone', async () => {
    const { store, service } = projector();
    const stale = { ...result('u_stale', DECLINE), ledger_expected_revision: 4 };
    const nonsense = { ...result('u_nonsense', DECLINE), ledger_event_type: 'PaymentTeleported' };
    const fine = result('u_fine', DECLINE);
    const failed = await service.handleBatch(batch(stale, nonsense, fine));
    expect(failed.map((f) => [f.index, (f.error as { code: string }).code])).toEqual([
      [1, 'LEDGER.UNKNOWN_OUTCOME_TYPE'],
      [0, 'LEDGER.WRONG_EXPECTED_REVISION'],
    ]);
    expect(await store.readStream(transactionStream('u_fine'))).toHaveLength(1);
    expect(await store.readStream(transactionStream('u_stale'))).toEqual([]);
  });
});

describe('ledger projector: payments with no checkout (docs/unmatched-payments.md)', () => {
  /** A payer's email as the verifier seals it (the projector copies it, never opens it). */
  const SEALED_EMAIL = 'sealed:v1:0b8c1f4e-5a2d-4c1b-9e7f-3d6a2b1c0e9f:cGF5ZXJAZXhhbXBsZS5jb20tc2VhbGVkLXRleHQ';
  const observed = (reference: string, observation: UnmatchedPaymentObservedV1['observation'], id: string): UnmatchedPaymentObservedV1 => ({
    event_id: id,
    occurred_at: Date.UTC(2026, 10, 28, 12),
    correlation_id: `corr-${reference}`,
    causation_id: `cause-${id}`,
    reference,
    provider: 'stripe',
    observation,
    verdict: observation === 'matched' ? null : observation === 'recorded' ? 'cleared' : 'clearing',
    provider_status: 'succeeded',
    amount_minor: observation === 'recorded' ? 1_999 : null,
    currency: 'USD',
    // As the verifier publishes them (docs/privacy.md, "Crypto-shredding"): sealed, and masked beside.
    customer_email: SEALED_EMAIL,
    customer_phone: null,
    customer_email_masked: 'p•••@example.com',
    customer_phone_masked: null,
    terms_verified: true,
    provider_transaction_id: reference,
    close_reason: null,
    close_note: null,
    closed_by: null,
  });
  const items = (...payloads: UnmatchedPaymentObservedV1[]): BatchItem[] =>
    payloads.map((payload, i) => ({
      event: { type: 'UnmatchedPaymentObserved', payload },
      context: { topic: 't', partition: 0, offset: String(i), key: null, timestamp: 0, headers: {} },
    }));

  it('records a recorded payment and its later match in the payment’s own stream, hash-chained; nothing for an unresolved answer; a redelivery appends nothing', async () => {
    const { store, service } = projector();
    const ids = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333'];
    const unresolved = observed('pi_unmatched', 'unresolved', ids[0]!);
    const recorded = observed('pi_unmatched', 'recorded', ids[1]!);
    const matched = observed('pi_unmatched', 'matched', ids[2]!);
    expect(await service.handleBatch(items(unresolved, recorded))).toEqual([]);
    expect(await service.handleBatch(items(recorded, matched))).toEqual([]);
    const stream = await store.readStream(unmatchedPaymentStream('pi_unmatched'));
    expect(stream.map((e) => [e.type, e.revision, e.metadata.causationId])).toEqual([
      ['UnmatchedPaymentRecorded', 0, recorded.event_id],
      ['UnmatchedPaymentMatched', 1, matched.event_id],
    ]);
    expect(unmatchedPaymentRecordedOf(stream[0]!)).toMatchObject({
      amount_minor: 1_999,
      currency: 'USD',
      customer_email: SEALED_EMAIL,
      customer_email_masked: 'p•••@example.com',
      customer_phone_masked: null,
      terms_verified: true,
    });
    expect(stream[1]!.data).toMatchObject({ registration_event_id: matched.causation_id });
    // Nothing else: no transaction stream, no grant.
    expect(await store.readStream(transactionStream('pi_unmatched'))).toEqual([]);
  });

  it('records unmatched payments in the same session as the batch’s consensus results', async () => {
    const { store, service } = projector();
    const settled = result('u_with_unmatched', SETTLE);
    const recorded = observed('pi_other', 'recorded', '44444444-4444-4444-8444-444444444444');
    const mixed: BatchItem[] = [...batch(settled), ...items(recorded).map((item) => ({ ...item, context: { ...item.context, offset: '1' } }))];
    expect(await service.handleBatch(mixed)).toEqual([]);
    expect((await store.readStream(transactionStream('u_with_unmatched'))).map((e) => e.type)).toEqual(['TransactionSettled']);
    expect((await store.readStream(unmatchedPaymentStream('pi_other'))).map((e) => e.type)).toEqual(['UnmatchedPaymentRecorded']);
  });
});

describe('ledger projector: an unmatched payment closed by an operator', () => {
  it('records UnmatchedPaymentClosed after the record, with the reason, the note and who closed it', async () => {
    const { store, service } = projector();
    const base = {
      occurred_at: Date.UTC(2026, 10, 28, 12),
      correlation_id: 'corr-closed',
      reference: 'pi_closed',
      provider: 'stripe' as const,
      verdict: null,
      provider_status: 'succeeded',
      amount_minor: 1_999,
      currency: 'USD',
      customer_email: null,
      customer_phone: null,
      customer_email_masked: null,
      customer_phone_masked: null,
      terms_verified: true,
      provider_transaction_id: null,
      close_reason: null,
      close_note: null,
      closed_by: null,
    };
    const items: BatchItem[] = [
      { ...base, event_id: '55555555-5555-4555-8555-555555555555', causation_id: 'c1', observation: 'recorded' as const, verdict: 'cleared' as const },
      {
        ...base,
        event_id: '66666666-6666-4666-8666-666666666666',
        causation_id: 'c2',
        observation: 'closed' as const,
        close_reason: 'refunded_outside_settle' as const,
        close_note: 'refunded by support',
        closed_by: 'ops@example.com',
      },
    ].map((payload, i) => ({
      event: { type: 'UnmatchedPaymentObserved', payload },
      context: { topic: 't', partition: 0, offset: String(i), key: null, timestamp: 0, headers: {} },
    }));
    expect(await service.handleBatch(items)).toEqual([]);
    const stream = await store.readStream(unmatchedPaymentStream('pi_closed'));
    expect(stream.map((e) => e.type)).toEqual(['UnmatchedPaymentRecorded', 'UnmatchedPaymentClosed']);
    expect(stream[1]!.data).toMatchObject({ reason: 'refunded_outside_settle', note: 'refunded by support', closed_by: 'ops@example.com' });
  });
});

describe('ledger projector: reconciliation (docs/reconciliation.md)', () => {
  const at = Date.UTC(2026, 10, 28, 12);
  const context = (i: number) => ({ topic: 't', partition: 0, offset: String(i), key: null, timestamp: 0, headers: {} });
  const run = (id: string, status: ReconciliationRunRecordedV1['status'], pages: number): ReconciliationRunRecordedV1 => ({
    event_id: id,
    occurred_at: at,
    correlation_id: 'corr-run',
    causation_id: 'rcr_1',
    reference: 'rcr_1',
    provider: 'paystack',
    kind: 'on_demand',
    window_from: at - 3_600_000,
    window_until: at,
    dry_run: false,
    started_by: 'ops@example.com',
    status,
    pages,
    total_pages: 2,
    listed: pages * 50,
    out_of_scope: 1,
    too_recent: 0,
    classes: [
      { class: 'matches', count: pages * 48 },
      { class: 'stuck', count: pages },
    ],
    exceptions_raised: pages,
    exceptions_resolved: 0,
    started_at: at,
    finished_at: status === 'completed' ? at : null,
    error: null,
  });
  const exception = (id: string, change: 'raised' | 'resolved'): ReconciliationExceptionObservedV1 => ({
    event_id: id,
    occurred_at: at,
    correlation_id: 'corr-x',
    causation_id: 'rcr_1',
    reference: 'ref_stuck',
    provider: 'paystack',
    exception_id: 'rex_1',
    change,
    class: 'stuck',
    evidence: change === 'raised' ? [{ field: 'status', provider: 'succeeded (success)', settle: 'PENDING' }] : [],
    run_id: 'rcr_1',
    provider_transaction_id: change === 'raised' ? '4099' : null,
    provider_status: change === 'raised' ? 'success' : null,
    amount_minor: change === 'raised' ? 5_000 : null,
    currency: change === 'raised' ? 'NGN' : null,
    resolution: change === 'resolved' ? 'operator' : null,
    resolution_note: change === 'resolved' ? 'refund confirmed' : null,
    resolved_by: change === 'resolved' ? 'lead@example.com' : null,
  });

  it('records each run record in the run’s stream and each exception in its payment’s stream, once', async () => {
    const { store, service } = projector();
    const started = run('55555555-5555-4555-8555-555555555555', 'started', 0);
    const completed = run('66666666-6666-4666-8666-666666666666', 'completed', 2);
    const raised = exception('77777777-7777-4777-8777-777777777777', 'raised');
    const resolved = exception('88888888-8888-4888-8888-888888888888', 'resolved');
    const items: BatchItem[] = [
      { event: { type: 'ReconciliationRunRecorded', payload: started }, context: context(0) },
      { event: { type: 'ReconciliationExceptionObserved', payload: raised }, context: context(1) },
      { event: { type: 'ReconciliationRunRecorded', payload: completed }, context: context(2) },
    ];
    expect(await service.handleBatch(items)).toEqual([]);
    expect(await service.handleBatch([...items, { event: { type: 'ReconciliationExceptionObserved', payload: resolved }, context: context(3) }])).toEqual([]);
    const runs = await store.readStream(reconciliationRunStream('rcr_1'));
    expect(runs.map((e) => [e.type, e.data.pages])).toEqual([
      ['ReconciliationRunStarted', 0],
      ['ReconciliationRunCompleted', 2],
    ]);
    expect(runs[1]!.data).toMatchObject({ classes: { matches: 96, stuck: 2 }, started_by: 'ops@example.com', window_until: new Date(at).toISOString() });
    const exceptions = await store.readStream(reconciliationExceptionStream('ref_stuck'));
    expect(exceptions.map((e) => e.type)).toEqual(['ReconciliationExceptionRaised', 'ReconciliationExceptionResolved']);
    expect(exceptions[0]!.data).toMatchObject({ class: 'stuck', evidence: [{ field: 'status', settle: 'PENDING' }], amount_minor: 5_000 });
    expect(exceptions[1]!.data).toMatchObject({ resolution: 'operator', note: 'refund confirmed', resolved_by: 'lead@example.com' });
    const rows = readModelRowsOf([...runs, ...exceptions]);
    expect(rows.runs.map((r) => r.status)).toEqual(['started', 'completed']);
    expect(rows.exceptions.map((r) => r.kind)).toEqual(['raised', 'resolved']);
  });
});

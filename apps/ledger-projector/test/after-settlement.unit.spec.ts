/**
 * The ledger projector's money after settlement over the in-memory event store (no database, no
 * broker): for each `MoneyMovementsObserved`, what `ProjectionService.handleBatch` appends to the
 * payment's transaction stream (refunds, disputes, rejections) and to the user's entitlement
 * stream (revocations and reinstatements, as the entitlement's access policy says), that
 * redeliveries record nothing twice, and that a payment never settled or never granted loses no
 * access it did not have. The expiry after a revocation is recomputed from the grants still in
 * force (docs/delivery.md, "Access follows the money"). A batch retried after an event-store
 * session failed half-way still revokes what it must.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expiryOfGrants, parseAccessPeriod, type AccessPolicy } from '@settle/domain';
import { entitlementStream, EventStoreLedgerWriter, InMemoryLedger, readModelRowsOf, transactionStream, type RecordedLedgerEvent } from '@settle/ledger';
import type { BatchItem, ConsensusResultV1, MoneyMovementObservationV1, MoneyMovementsObservedV1, TypedEvent } from '@settle/messaging';
import { createLogger } from '@settle/platform';
import { AfterSettlementProjection } from '../src/after-settlement.js';
import { ProjectionService } from '../src/projection.service.js';
import { result } from './fixtures.js';

const SETTLE = {
  verdict: 'cleared',
  before: 'PENDING',
  after: 'SETTLED_CONSENSUS',
  ledger: 'TransactionSettled',
  revision: 0,
  entitlement: 'UNLOCKED',
} as const;
const MISMATCH = {
  verdict: 'cleared',
  before: 'PENDING',
  after: 'STATE_MISMATCH',
  ledger: 'StateMismatchDetected',
  revision: 0,
  entitlement: 'LOCKED',
} as const;
const DECLINE = { verdict: 'declined', before: 'PENDING', after: 'FAILED_DECLINED', ledger: 'PaymentDeclined', revision: 0, entitlement: 'LOCKED' } as const;

const SETTLED_AT = Date.parse('2027-01-10T09:00:00.000Z');
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

function projector(policies: Record<string, Partial<AccessPolicy>> = {}) {
  const store = new InMemoryLedger();
  const writer = new EventStoreLedgerWriter(store, async () => undefined);
  const logger = createLogger('after-settlement-unit', 'fatal');
  const service = new ProjectionService(writer, logger, undefined, new AfterSettlementProjection(logger, policies));
  const txStream = async (reference: string) => store.readStream(transactionStream(reference));
  const accessStream = async (reference: string, user = `user-${reference}`) => store.readStream(entitlementStream(user, 'pro'));
  return { store, service, txStream, accessStream };
}

/**
 * The in-memory event store, whose next append to an entitlement stream fails (a connection lost
 * mid-session): on an event store each append is its own commit, so what the session appended to
 * other streams before stays.
 */
class EntitlementAppendFailsOnce extends InMemoryLedger {
  armed = false;

  override async append(...args: Parameters<InMemoryLedger['append']>): ReturnType<InMemoryLedger['append']> {
    if (this.armed && args[0].startsWith('entitlement-')) {
      this.armed = false;
      throw new Error('connection lost');
    }
    return super.append(...args);
  }
}

const items = (...events: TypedEvent[]): BatchItem[] =>
  events.map((event, i) => ({ event, context: { topic: 't', partition: 0, offset: String(i), key: null, timestamp: 0, headers: {} } }));

/** A settlement of NGN 5 000.00 (500 000 kobo) for `user-<reference>` (or `user`), buying one month of `pro`, at `at`. */
function settled(reference: string, at = SETTLED_AT, fields: Partial<ConsensusResultV1> = {}): TypedEvent {
  return { type: 'ConsensusResult', payload: { ...result(reference, SETTLE), occurred_at: at, ...fields } };
}

function refund(reference: string, providerId: string, amountMinor: number, status = 'succeeded', paymentReference = reference): MoneyMovementObservationV1 {
  return {
    kind: 'refund',
    provider_id: providerId,
    payment_reference: paymentReference,
    amount_minor: amountMinor,
    currency: 'NGN',
    provider_status: status === 'succeeded' ? 'processed' : status,
    status,
    reason: null,
    created_at: SETTLED_AT + DAY,
  };
}

function dispute(reference: string, providerId: string, status: 'open' | 'won' | 'lost', amountMinor = 500_000): MoneyMovementObservationV1 {
  return {
    kind: 'dispute',
    provider_id: providerId,
    payment_reference: reference,
    amount_minor: amountMinor,
    currency: 'NGN',
    provider_status: status === 'open' ? 'awaiting-merchant-feedback' : status,
    status,
    reason: 'fraudulent',
    created_at: SETTLED_AT + DAY,
  };
}

/** What the verifier read of a payment's money, at `at`. */
function observed(reference: string, at: number, movements: MoneyMovementObservationV1[], fields: Partial<MoneyMovementsObservedV1> = {}): TypedEvent {
  const eventId = randomUUID();
  return {
    type: 'MoneyMovementsObserved',
    payload: {
      event_id: eventId,
      occurred_at: at,
      correlation_id: `corr-${reference}`,
      causation_id: randomUUID(),
      reference,
      provider: 'paystack',
      trigger: 'webhook_received',
      verification_id: eventId,
      movements,
      skipped: 0,
      ...fields,
    },
  };
}

const types = (events: readonly RecordedLedgerEvent[]) => events.map((e) => e.type);

describe('ledger projector: refunds after settlement', () => {
  it('records a succeeded full refund after the settlement and revokes the grant: access ends at the revocation', async () => {
    const { service, txStream, accessStream } = projector();
    expect(await service.handleBatch(items(settled('ps_full')))).toEqual([]);
    const refundedAt = SETTLED_AT + 3 * DAY;
    const read = observed('ps_full', refundedAt, [refund('ps_full', 'rfnd_1', 500_000)]);
    expect(await service.handleBatch(items(read))).toEqual([]);

    const tx = await txStream('ps_full');
    expect(types(tx)).toEqual(['TransactionSettled', 'RefundRecorded']);
    expect(tx[1]!.data).toMatchObject({
      reference: 'ps_full',
      kind: 'refund',
      provider_id: 'rfnd_1',
      amount_minor: 500_000,
      full: true,
      returned_minor: 500_000,
      money_state: 'refunded',
      user_id: 'user-ps_full',
      entitlement: 'pro',
      decided_at: refundedAt,
    });
    expect(tx[1]!.metadata).toMatchObject({ correlationId: 'corr-ps_full', causationId: read.payload.event_id });

    const access = await accessStream('ps_full');
    expect(types(access)).toEqual(['EntitlementGranted', 'EntitlementRevoked']);
    expect(access[1]!.data).toMatchObject({
      event: 'subscription_revoked',
      reference: 'ps_full',
      reason: 'refunded',
      changed_at: iso(refundedAt),
      previous_expires_at: access[0]!.data.expires_at,
      expires_at: iso(refundedAt),
      cause_event_id: tx[1]!.eventId,
    });
    expect(access[0]!.data.expires_at).toBe('2027-02-10T09:00:00.000Z');
    // The read model follows: the money state on the transaction, the expiry on the entitlement.
    const rows = readModelRowsOf([...tx, ...access]);
    expect(rows.money).toEqual([{ reference: 'ps_full', moneyState: 'refunded', returnedMinor: 500_000, ledgerRevision: 1 }]);
    expect(rows.entitlements.at(-1)).toMatchObject({ expiresAt: new Date(refundedAt), lastEvent: 'subscription_revoked' });
  });

  it('records the settlement and a refund read in the same batch, the settlement first', async () => {
    const { service, txStream, accessStream } = projector();
    expect(await service.handleBatch(items(settled('ps_same'), observed('ps_same', SETTLED_AT + DAY, [refund('ps_same', 'rfnd_1', 500_000)])))).toEqual([]);
    expect(types(await txStream('ps_same'))).toEqual(['TransactionSettled', 'RefundRecorded']);
    expect(types(await accessStream('ps_same'))).toEqual(['EntitlementGranted', 'EntitlementRevoked']);
  });

  it('keeps access after a partial refund by default, and revokes it when the entitlement’s policy says partialRefund: revoke', async () => {
    const partial = [refund('ps_part', 'rfnd_1', 100_000)];
    const keep = projector();
    await keep.service.handleBatch(items(settled('ps_part')));
    expect(await keep.service.handleBatch(items(observed('ps_part', SETTLED_AT + DAY, partial)))).toEqual([]);
    const tx = await keep.txStream('ps_part');
    expect(types(tx)).toEqual(['TransactionSettled', 'RefundRecorded']);
    expect(tx[1]!.data).toMatchObject({ full: false, returned_minor: 100_000, money_state: 'partially_refunded' });
    expect(types(await keep.accessStream('ps_part'))).toEqual(['EntitlementGranted']);

    const revoke = projector({ pro: { partialRefund: 'revoke' } });
    await revoke.service.handleBatch(items(settled('ps_part')));
    expect(await revoke.service.handleBatch(items(observed('ps_part', SETTLED_AT + DAY, partial)))).toEqual([]);
    const access = await revoke.accessStream('ps_part');
    expect(types(access)).toEqual(['EntitlementGranted', 'EntitlementRevoked']);
    expect(access[1]!.data).toMatchObject({ reason: 'partially_refunded', expires_at: iso(SETTLED_AT + DAY) });
  });

  it('a policy changed later applies to the facts recorded after it: a re-read of a partial refund kept before revokes nothing', async () => {
    // Two projectors over one store: the same ledger before and after ACCESS_POLICIES changed.
    const store = new InMemoryLedger();
    const logger = createLogger('after-settlement-unit', 'fatal');
    const under = (policies: Record<string, Partial<AccessPolicy>>) =>
      new ProjectionService(new EventStoreLedgerWriter(store, async () => undefined), logger, undefined, new AfterSettlementProjection(logger, policies));
    const partial = [refund('ps_policy', 'rfnd_1', 100_000)];
    await under({}).handleBatch(items(settled('ps_policy')));
    expect(await under({}).handleBatch(items(observed('ps_policy', SETTLED_AT + DAY, partial)))).toEqual([]);
    // The same refund read again (another trigger: a reconciliation run) under a policy that revokes partial refunds.
    expect(await under({ pro: { partialRefund: 'revoke' } }).handleBatch(items(observed('ps_policy', SETTLED_AT + 2 * DAY, partial)))).toEqual([]);
    expect(types(await store.readStream(entitlementStream('user-ps_policy', 'pro')))).toEqual(['EntitlementGranted']);
    // A new partial refund after the change: recorded, and under the new policy it revokes.
    const second = [...partial, refund('ps_policy', 'rfnd_2', 50_000)];
    expect(await under({ pro: { partialRefund: 'revoke' } }).handleBatch(items(observed('ps_policy', SETTLED_AT + 3 * DAY, second)))).toEqual([]);
    expect(types(await store.readStream(entitlementStream('user-ps_policy', 'pro')))).toEqual(['EntitlementGranted', 'EntitlementRevoked']);
  });

  it('a policy of another entitlement changes nothing for this one', async () => {
    const { service, accessStream } = projector({ 'pro-annual': { partialRefund: 'revoke' } });
    await service.handleBatch(items(settled('ps_other_policy')));
    await service.handleBatch(items(observed('ps_other_policy', SETTLED_AT + DAY, [refund('ps_other_policy', 'rfnd_1', 100_000)])));
    expect(types(await accessStream('ps_other_policy'))).toEqual(['EntitlementGranted']);
  });

  it('records a refund that names another payment as MoneyMovementRejected and revokes nothing', async () => {
    const { service, txStream, accessStream } = projector();
    await service.handleBatch(items(settled('ps_wrong')));
    expect(
      await service.handleBatch(items(observed('ps_wrong', SETTLED_AT + DAY, [refund('ps_wrong', 'rfnd_1', 500_000, 'succeeded', 'ps_someone_else')]))),
    ).toEqual([]);
    const tx = await txStream('ps_wrong');
    expect(types(tx)).toEqual(['TransactionSettled', 'MoneyMovementRejected']);
    expect(tx[1]!.data).toMatchObject({ kind: 'refund', status: 'succeeded', money_state: null, returned_minor: null });
    expect((tx[1]!.data.checks as Array<{ check: string; passed: boolean }>).filter((c) => !c.passed).map((c) => c.check)).toEqual(['payment_identity']);
    expect(types(await accessStream('ps_wrong'))).toEqual(['EntitlementGranted']);
  });

  it('records nothing twice for a redelivered read: twice in one batch, again in a later batch, or the same refund read by another trigger', async () => {
    const { service, txStream, accessStream } = projector();
    await service.handleBatch(items(settled('ps_again')));
    const read = observed('ps_again', SETTLED_AT + DAY, [refund('ps_again', 'rfnd_1', 500_000)]);
    expect(await service.handleBatch(items(read, read))).toEqual([]);
    expect(await service.handleBatch(items(read))).toEqual([]);
    const reconciled = observed('ps_again', SETTLED_AT + 2 * DAY, [refund('ps_again', 'rfnd_1', 500_000)], { trigger: 'reconciliation' });
    expect(await service.handleBatch(items(reconciled))).toEqual([]);
    expect(types(await txStream('ps_again'))).toEqual(['TransactionSettled', 'RefundRecorded']);
    expect(types(await accessStream('ps_again'))).toEqual(['EntitlementGranted', 'EntitlementRevoked']);
  });

  it('reinstates the grant when a refund recorded before fails at the provider (its money stayed with the merchant)', async () => {
    const { service, txStream, accessStream } = projector();
    await service.handleBatch(items(settled('ps_failed')));
    const refundedAt = SETTLED_AT + DAY;
    await service.handleBatch(items(observed('ps_failed', refundedAt, [refund('ps_failed', 'rfnd_1', 500_000)])));
    const failedAt = SETTLED_AT + 2 * DAY;
    expect(await service.handleBatch(items(observed('ps_failed', failedAt, [refund('ps_failed', 'rfnd_1', 500_000, 'failed')])))).toEqual([]);
    const tx = await txStream('ps_failed');
    expect(types(tx)).toEqual(['TransactionSettled', 'RefundRecorded', 'RefundFailed']);
    expect(tx[2]!.data).toMatchObject({ returned_minor: 0, money_state: 'none' });
    const access = await accessStream('ps_failed');
    expect(types(access)).toEqual(['EntitlementGranted', 'EntitlementRevoked', 'EntitlementReinstated']);
    expect(access[2]!.data).toMatchObject({ previous_expires_at: iso(refundedAt), expires_at: '2027-02-10T09:00:00.000Z', changed_at: iso(failedAt) });
  });

  it('revokes the grant when the batch is retried after a session that failed between the money fact and the revocation', async () => {
    const store = new EntitlementAppendFailsOnce();
    const logger = createLogger('after-settlement-unit', 'fatal');
    const service = new ProjectionService(new EventStoreLedgerWriter(store, async () => undefined), logger, undefined, new AfterSettlementProjection(logger));
    await service.handleBatch(items(settled('ps_half')));
    const batch = items(observed('ps_half', SETTLED_AT + DAY, [refund('ps_half', 'rfnd_1', 500_000)]));
    store.armed = true;
    await expect(service.handleBatch(batch)).rejects.toThrow('connection lost');
    // Half-way: the refund is in the ledger, the revocation is not.
    expect(types(await store.readStream(transactionStream('ps_half')))).toEqual(['TransactionSettled', 'RefundRecorded']);
    expect(types(await store.readStream(entitlementStream('user-ps_half', 'pro')))).toEqual(['EntitlementGranted']);
    // The consumer retries the batch (transient failure): the revocation must not be lost.
    expect(await service.handleBatch(batch)).toEqual([]);
    expect(types(await store.readStream(transactionStream('ps_half')))).toEqual(['TransactionSettled', 'RefundRecorded']);
    expect(types(await store.readStream(entitlementStream('user-ps_half', 'pro')))).toEqual(['EntitlementGranted', 'EntitlementRevoked']);
  });

  it('records nothing for a payment the ledger holds no settlement of: never seen, or declined', async () => {
    const { store, service, txStream } = projector();
    expect(await service.handleBatch(items(observed('ps_unknown', SETTLED_AT, [refund('ps_unknown', 'rfnd_1', 500_000)])))).toEqual([]);
    expect(await txStream('ps_unknown')).toEqual([]);
    expect(await store.readStream(entitlementStream('user-ps_unknown', 'pro'))).toEqual([]);

    await service.handleBatch(items({ type: 'ConsensusResult', payload: result('ps_declined', DECLINE) }));
    expect(await service.handleBatch(items(observed('ps_declined', SETTLED_AT, [refund('ps_declined', 'rfnd_1', 500_000)])))).toEqual([]);
    expect(types(await txStream('ps_declined'))).toEqual(['PaymentDeclined']);
  });

  it('records the refund of a State Mismatch payment (money arrived) against what the provider captured, and revokes nothing (it never granted)', async () => {
    const { store, service, txStream } = projector();
    const mismatch: TypedEvent = {
      type: 'ConsensusResult',
      payload: { ...result('ps_mismatch', MISMATCH), observed_amount_minor: 300_000, observed_currency: 'NGN' },
    };
    expect(await service.handleBatch(items(mismatch))).toEqual([]);
    expect(await service.handleBatch(items(observed('ps_mismatch', SETTLED_AT, [refund('ps_mismatch', 'rfnd_1', 300_000)])))).toEqual([]);
    const tx = await txStream('ps_mismatch');
    expect(types(tx)).toEqual(['StateMismatchDetected', 'RefundRecorded']);
    expect(tx[1]!.data).toMatchObject({ full: true, money_state: 'refunded', returned_minor: 300_000 });
    expect(await store.readStream(entitlementStream('user-ps_mismatch', 'pro'))).toEqual([]);
  });

  it('dead-letters a read from another provider than the payment’s, and records nothing of it', async () => {
    const { service, txStream } = projector();
    await service.handleBatch(items(settled('ps_provider')));
    const failed = await service.handleBatch(
      items(observed('ps_provider', SETTLED_AT + DAY, [refund('ps_provider', 're_1', 500_000)], { provider: 'stripe' })),
    );
    expect(failed.map((f) => [f.index, (f.error as { code?: string }).code])).toEqual([[0, 'LEDGER.PROVIDER_MISMATCH']]);
    expect(types(await txStream('ps_provider'))).toEqual(['TransactionSettled']);
  });
});

describe('ledger projector: disputes after settlement', () => {
  it('records an open dispute and changes no access by default', async () => {
    const { service, txStream, accessStream } = projector();
    await service.handleBatch(items(settled('ps_dispute')));
    expect(await service.handleBatch(items(observed('ps_dispute', SETTLED_AT + DAY, [dispute('ps_dispute', 'dp_1', 'open')])))).toEqual([]);
    const tx = await txStream('ps_dispute');
    expect(types(tx)).toEqual(['TransactionSettled', 'DisputeOpened']);
    expect(tx[1]!.data).toMatchObject({ kind: 'dispute', money_state: 'disputed', reason: 'fraudulent', returned_minor: 0 });
    expect(types(await accessStream('ps_dispute'))).toEqual(['EntitlementGranted']);
  });

  it('suspends access while a dispute is open under disputeOpened: suspend, and reinstates it when the dispute is won', async () => {
    const { service, txStream, accessStream } = projector({ pro: { disputeOpened: 'suspend' } });
    await service.handleBatch(items(settled('ps_suspend')));
    const openedAt = SETTLED_AT + DAY;
    expect(await service.handleBatch(items(observed('ps_suspend', openedAt, [dispute('ps_suspend', 'dp_1', 'open')])))).toEqual([]);
    let access = await accessStream('ps_suspend');
    expect(types(access)).toEqual(['EntitlementGranted', 'EntitlementRevoked']);
    expect(access[1]!.data).toMatchObject({ reason: 'disputed', expires_at: iso(openedAt), previous_expires_at: '2027-02-10T09:00:00.000Z' });

    const wonAt = SETTLED_AT + 20 * DAY;
    expect(await service.handleBatch(items(observed('ps_suspend', wonAt, [dispute('ps_suspend', 'dp_1', 'won')])))).toEqual([]);
    const tx = await txStream('ps_suspend');
    expect(types(tx)).toEqual(['TransactionSettled', 'DisputeOpened', 'DisputeResolved']);
    expect(tx[2]!.data).toMatchObject({ outcome: 'won', money_state: 'none', returned_minor: 0 });
    access = await accessStream('ps_suspend');
    expect(types(access)).toEqual(['EntitlementGranted', 'EntitlementRevoked', 'EntitlementReinstated']);
    expect(access[2]!.data).toMatchObject({
      event: 'subscription_reinstated',
      reason: null,
      changed_at: iso(wonAt),
      previous_expires_at: iso(openedAt),
      expires_at: '2027-02-10T09:00:00.000Z',
      cause_event_id: tx[2]!.eventId,
    });
  });

  it('revokes with reason charged_back when a dispute is lost, whether seen open first or first seen lost', async () => {
    const { service, txStream, accessStream } = projector();
    await service.handleBatch(items(settled('ps_lost'), settled('ps_lost_at_once')));
    await service.handleBatch(items(observed('ps_lost', SETTLED_AT + DAY, [dispute('ps_lost', 'dp_1', 'open')])));
    const lostAt = SETTLED_AT + 30 * DAY;
    expect(
      await service.handleBatch(
        items(
          observed('ps_lost', lostAt, [dispute('ps_lost', 'dp_1', 'lost')]),
          observed('ps_lost_at_once', lostAt, [dispute('ps_lost_at_once', 'dp_2', 'lost')]),
        ),
      ),
    ).toEqual([]);
    for (const reference of ['ps_lost', 'ps_lost_at_once']) {
      const tx = await txStream(reference);
      expect(types(tx)).toEqual(['TransactionSettled', 'DisputeOpened', 'DisputeResolved']);
      expect(tx[2]!.data).toMatchObject({ outcome: 'lost', money_state: 'charged_back', returned_minor: 500_000 });
      const access = await accessStream(reference);
      expect(types(access)).toEqual(['EntitlementGranted', 'EntitlementRevoked']);
      expect(access[1]!.data).toMatchObject({ reason: 'charged_back', expires_at: iso(lostAt), cause_event_id: tx[2]!.eventId });
    }
  });
});

describe('ledger projector: the expiry after a revocation (docs/delivery.md, "Access follows the money")', () => {
  const at = (date: string) => Date.parse(`${date}T00:00:00.000Z`);

  it.each([
    {
      name: 'three monthly grants, Jan 1, Feb 1 and Mar 1',
      settlements: ['2027-01-01', '2027-02-01', '2027-03-01'],
      expected: '2027-04-01',
      before: '2027-04-01',
    },
    { name: 'the worked example, Jan 1, 2 and 3', settlements: ['2027-01-01', '2027-01-02', '2027-01-03'], expected: '2027-03-02', before: '2027-04-01' },
  ])('$name, the first refunded: the expiry is what the two later grants give alone', async ({ settlements, expected, before }) => {
    const { service, txStream, accessStream } = projector();
    const user = 'user-three-grants';
    const references = settlements.map((_, i) => `ps_instalment_${i}`);
    for (const [i, date] of settlements.entries()) {
      expect(await service.handleBatch(items(settled(references[i]!, at(date), { user_id: user })))).toEqual([]);
    }
    const grants = await accessStream(references[0]!, user);
    expect(grants.map((g) => [g.data.reference, g.data.expires_at])).toEqual([
      [references[0], expect.any(String)],
      [references[1], expect.any(String)],
      [references[2], iso(at(before))],
    ]);

    const refundedAt = at('2027-01-10');
    expect(await service.handleBatch(items(observed(references[0]!, refundedAt, [refund(references[0]!, 'rfnd_1', 500_000)])))).toEqual([]);
    expect(types(await txStream(references[0]!))).toEqual(['TransactionSettled', 'RefundRecorded']);
    const access = await accessStream(references[0]!, user);
    expect(types(access)).toEqual(['EntitlementGranted', 'EntitlementGranted', 'EntitlementGranted', 'EntitlementRevoked']);
    const monthly = parseAccessPeriod('P1M');
    const alone = expiryOfGrants(settlements.slice(1).map((date, i) => ({ reference: references[i + 1]!, settledAt: at(date), accessPeriod: monthly })));
    expect(access[3]!.data).toMatchObject({
      reference: references[0],
      reason: 'refunded',
      previous_expires_at: iso(at(before)),
      expires_at: iso(alone!),
    });
    expect(access[3]!.data.expires_at).toBe(iso(at(expected)));
  });

  it('two refunds of one user read in one batch: two revocations in stream order, the last leaving only the third grant', async () => {
    const { service, accessStream } = projector();
    const user = 'user-two-refunds';
    const references = ['ps_two_0', 'ps_two_1', 'ps_two_2'];
    for (const [i, date] of ['2027-01-01', '2027-01-02', '2027-01-03'].entries()) {
      await service.handleBatch(items(settled(references[i]!, at(date), { user_id: user })));
    }
    const refundedAt = at('2027-01-10');
    expect(
      await service.handleBatch(
        items(
          observed(references[0]!, refundedAt, [refund(references[0]!, 'rfnd_1', 500_000)]),
          observed(references[1]!, refundedAt, [refund(references[1]!, 'rfnd_2', 500_000)]),
        ),
      ),
    ).toEqual([]);
    const access = await accessStream(references[0]!, user);
    expect(access.map((e) => [e.type, e.revision, e.data.reference, e.data.expires_at])).toEqual([
      ['EntitlementGranted', 0, references[0], '2027-02-01T00:00:00.000Z'],
      ['EntitlementGranted', 1, references[1], '2027-03-01T00:00:00.000Z'],
      ['EntitlementGranted', 2, references[2], '2027-04-01T00:00:00.000Z'],
      ['EntitlementRevoked', 3, references[0], '2027-03-02T00:00:00.000Z'],
      ['EntitlementRevoked', 4, references[1], '2027-02-03T00:00:00.000Z'],
    ]);
    expect(access[4]!.data.previous_expires_at).toBe('2027-03-02T00:00:00.000Z');
  });
});

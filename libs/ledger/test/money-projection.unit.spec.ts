/**
 * The pure projection of the money after settlement (`readModelRowsOf`, `outboxMessagesOf`) over
 * one transaction stream (a settlement, a full refund, a rejected provider object) and one
 * entitlement stream (the grant, then its revocation): the read-model rows each event stands
 * for, and the outbox messages, with deterministic ids, on the right topics and keys.
 */
import { describe, expect, it } from 'vitest';
import {
  decideGrant,
  decideMoneyMovement,
  decideRevoke,
  evolveMoney,
  foldEntitlement,
  parseAccessPeriod,
  paymentMoney,
  type MoneyMovementEvent,
  type MoneyMovementObservation,
} from '@settle/domain';
import {
  accessChangeLedgerEvent,
  entitlementLedgerEvent,
  entitlementStream,
  moneyMovementLedgerEvent,
  outboxMessagesOf,
  readModelRowsOf,
  transactionStream,
  type LedgerEventInput,
  type ProjectedEvent,
} from '@settle/ledger';
import { topicFor, topicNames, type OutboxMessage } from '@settle/messaging';
import { deterministicId } from '@settle/platform';

const REFERENCE = 'ref_money_1';
const USER = 'user-ref_money_1';
const SETTLED_AT = Date.parse('2027-01-10T09:00:00.000Z');
const REFUNDED_AT = Date.parse('2027-01-20T15:30:00.000Z');
const LATER = REFUNDED_AT + 60_000;
const ids = {
  result: deterministicId('ConsensusResult', REFERENCE),
  settlement: deterministicId('LedgerEvent', REFERENCE),
  grant: deterministicId('EntitlementGranted', REFERENCE),
  refund: deterministicId('MoneyFact', REFERENCE, 'RefundRecorded:rfnd_1'),
  rejected: deterministicId('MoneyFact', REFERENCE, 'MoneyMovementRejected:rfnd_2:succeeded'),
  revoked: deterministicId('EntitlementRevoked', REFERENCE),
  observed: deterministicId('MoneyMovementsObserved', REFERENCE),
};

const settlement: LedgerEventInput = {
  eventId: ids.settlement,
  type: 'TransactionSettled',
  data: {
    reference: REFERENCE,
    provider: 'paystack',
    outcome: 'SETTLED_CONSENSUS',
    state: 'SETTLED_CONSENSUS',
    entitlement_status: 'UNLOCKED',
    verdict: 'cleared',
    trigger: 'webhook_received',
    provider_status: 'success',
    detail: null,
    checks: [{ check: 'amount', passed: true, code: null, expected: '500000', observed: '500000' }],
    expected: { amount_minor: 500_000, currency: 'NGN', user_id: USER, entitlement: 'pro' },
    observed: { amount_minor: 500_000, charged_amount_minor: null, currency: 'NGN', provider_transaction_id: '4099' },
    decided_at: SETTLED_AT,
  },
  metadata: { correlationId: `corr-${REFERENCE}`, causationId: ids.result },
};

const refund = (providerId: string, paymentReference: string): MoneyMovementObservation => ({
  kind: 'refund',
  providerId,
  paymentReference,
  amountMinor: 500_000,
  currency: 'NGN',
  providerStatus: 'processed',
  createdAt: REFUNDED_AT - 1_000,
  status: 'succeeded',
});

/** The money facts the real decider records for a full refund, then a refund naming another payment. */
function moneyFacts(): MoneyMovementEvent[] {
  let money = paymentMoney(REFERENCE, { amountMinor: 500_000, currency: 'NGN' });
  const facts: MoneyMovementEvent[] = [];
  for (const [observation, at] of [
    [refund('rfnd_1', REFERENCE), REFUNDED_AT],
    [refund('rfnd_2', 'ref_someone_else'), LATER],
  ] as const) {
    const decided = decideMoneyMovement(
      { type: 'RecordMoneyMovement', data: { reference: REFERENCE, verificationId: ids.observed, trigger: 'webhook_received', observation, decidedAt: at } },
      money,
    );
    for (const event of decided) money = evolveMoney(money, event);
    facts.push(...decided);
  }
  return facts;
}

/** The five events, as a store returns them: two streams, revisions from 0, positions 1..5. */
function history(): ProjectedEvent[] {
  const [refunded, rejected] = moneyFacts();
  const moneyCause = { provider: 'paystack' as const, userId: USER, entitlement: 'pro', correlationId: `corr-${REFERENCE}`, causationId: ids.observed };
  const [grant] = decideGrant(
    {
      type: 'GrantEntitlement',
      data: { eventId: ids.grant, userId: USER, entitlement: 'pro', reference: REFERENCE, accessPeriod: parseAccessPeriod('P1M'), settledAt: SETTLED_AT },
    },
    foldEntitlement([]),
  );
  const [revoked] = decideRevoke(
    { type: 'RevokeEntitlement', data: { eventId: ids.revoked, reference: REFERENCE, reason: 'refunded', revokedAt: REFUNDED_AT } },
    foldEntitlement([grant!]),
  );
  const tx = transactionStream(REFERENCE);
  const ent = entitlementStream(USER, 'pro');
  const events: Array<[string, number, LedgerEventInput]> = [
    [tx, 0, settlement],
    [ent, 0, entitlementLedgerEvent(grant!, { settlementEventId: ids.settlement, correlationId: `corr-${REFERENCE}` })],
    [tx, 1, moneyMovementLedgerEvent(refunded!, { ...moneyCause, eventId: ids.refund })],
    [ent, 1, accessChangeLedgerEvent(revoked!, { moneyEventId: ids.refund, correlationId: `corr-${REFERENCE}` })],
    [tx, 2, moneyMovementLedgerEvent(rejected!, { ...moneyCause, eventId: ids.rejected })],
  ];
  return events.map(([streamId, revision, e], i) => ({
    ...e,
    data: JSON.parse(JSON.stringify(e.data)) as Record<string, unknown>,
    streamId,
    revision,
    position: i + 1,
  }));
}

const topics = topicNames('unit');
/** The message's Kafka key as the outbox publishes it (the reference unless a key is named). */
const keyOf = (m: OutboxMessage) => m.key ?? (m.payload as { reference: string }).reference;

describe('readModelRowsOf over a settled, refunded payment', () => {
  it('sets the status from the outcome only, the money state from each recorded fact, and nothing for the rejected object', () => {
    expect(moneyFacts().map((f) => f.type)).toEqual(['RefundRecorded', 'MoneyMovementRejected']);
    const rows = readModelRowsOf(history());
    expect(rows.statuses).toEqual([
      expect.objectContaining({ reference: REFERENCE, state: 'SETTLED_CONSENSUS', entitlementStatus: 'UNLOCKED', amountMinor: 500_000, ledgerRevision: 0 }),
    ]);
    expect(rows.money).toEqual([{ reference: REFERENCE, moneyState: 'refunded', returnedMinor: 500_000, ledgerRevision: 1 }]);
    expect(rows.unmatched).toEqual([]);
    expect(rows.runs).toEqual([]);
  });

  it('moves the entitlement expiry earlier on the revocation, which is the last event of the stream', () => {
    const [granted, revoked] = readModelRowsOf(history()).entitlements;
    expect(granted).toMatchObject({
      userId: USER,
      entitlement: 'pro',
      expiresAt: new Date('2027-02-10T09:00:00.000Z'),
      grants: 1,
      lastEvent: 'subscription_started',
      lastEventId: ids.grant,
      ledgerRevision: 0,
      updatedAt: new Date(SETTLED_AT),
    });
    expect(revoked).toEqual({
      userId: USER,
      entitlement: 'pro',
      // The only grant is revoked: access ends at the revocation.
      expiresAt: new Date(REFUNDED_AT),
      grants: 2,
      lastEventId: ids.revoked,
      lastEvent: 'subscription_revoked',
      lastReference: REFERENCE,
      ledgerRevision: 1,
      updatedAt: new Date(REFUNDED_AT),
    });
    expect(revoked!.expiresAt.getTime()).toBeLessThan(granted!.expiresAt.getTime());
  });
});

describe('outboxMessagesOf over a settled, refunded payment', () => {
  it('publishes the settlement, each money fact, the grant and the access change, in event order, on their topics and keys', () => {
    const messages = outboxMessagesOf(history());
    expect(messages.map((m) => [m.type, topicFor(topics, m.type), keyOf(m)])).toEqual([
      ['SettlementRecorded', topics.settlements, REFERENCE],
      ['EntitlementGranted', topics.entitlementEvents, USER],
      ['MoneyMovementRecorded', topics.settlements, REFERENCE],
      ['EntitlementAccessChanged', topics.entitlementEvents, USER],
      ['MoneyMovementRecorded', topics.settlements, REFERENCE],
    ]);
  });

  it('says what each money fact recorded, with the ledger coordinates of its event', () => {
    const [refunded, rejected] = outboxMessagesOf(history()).filter((m) => m.type === 'MoneyMovementRecorded');
    expect(refunded).toMatchObject({
      causationId: ids.observed,
      payload: {
        event_id: deterministicId('MoneyMovementRecorded', ids.refund),
        occurred_at: REFUNDED_AT,
        correlation_id: `corr-${REFERENCE}`,
        reference: REFERENCE,
        provider: 'paystack',
        type: 'RefundRecorded',
        kind: 'refund',
        provider_id: 'rfnd_1',
        amount_minor: 500_000,
        currency: 'NGN',
        returned_minor: 500_000,
        money_state: 'refunded',
        full: true,
        dispute_outcome: null,
        user_id: USER,
        entitlement: 'pro',
        ledger_stream: transactionStream(REFERENCE),
        ledger_revision: 1,
        ledger_position: 3,
      },
    });
    expect(rejected).toMatchObject({
      payload: {
        type: 'MoneyMovementRejected',
        provider_id: 'rfnd_2',
        occurred_at: LATER,
        returned_minor: null,
        money_state: null,
        full: null,
        ledger_revision: 2,
        ledger_position: 5,
      },
    });
    expect(refunded!.payload.event_id).not.toBe(rejected!.payload.event_id);
  });

  it('announces the revocation to the user: reason, expiry before and after, keyed by user, at the event’s revision', () => {
    const change = outboxMessagesOf(history()).find((m) => m.type === 'EntitlementAccessChanged');
    expect(change).toEqual({
      type: 'EntitlementAccessChanged',
      key: USER,
      causationId: ids.refund,
      payload: {
        event_id: ids.revoked,
        occurred_at: REFUNDED_AT,
        correlation_id: `corr-${REFERENCE}`,
        reference: REFERENCE,
        event: 'subscription_revoked',
        user_id: USER,
        entitlement: 'pro',
        expires_at: new Date(REFUNDED_AT).toISOString(),
        previous_expires_at: '2027-02-10T09:00:00.000Z',
        reason: 'refunded',
        changed_at: new Date(REFUNDED_AT).toISOString(),
        ledger_stream: entitlementStream(USER, 'pro'),
        ledger_revision: 1,
        ledger_position: 4,
        // Projected without its stream hash (the test's events have none): no receipt to give.
        ledger_stream_hash: null,
      },
    });
  });

  it('yields the same messages, ids included, when the events are projected again', () => {
    const once = outboxMessagesOf(history());
    const again = outboxMessagesOf(history());
    expect(again).toEqual(once);
    const eventIds = once.map((m) => m.payload.event_id);
    expect(new Set(eventIds).size).toBe(eventIds.length);
    expect(once.find((m) => m.type === 'SettlementRecorded')!.payload.event_id).toBe(deterministicId('SettlementRecorded', ids.result));
  });
});

/**
 * The ledger events of the money after settlement and of the access changes it causes
 * (`libs/ledger/src/events/money-movement.ts`, `entitlement-access.ts`): every domain event comes
 * back unchanged from its stored form (after a JSON round trip, as a store keeps it), a malformed
 * payload or a foreign type is refused with `LedgerEventShapeError`, and `entitlementEventOf`
 * reads grants and access changes of an entitlement stream alike.
 */
import { describe, expect, it } from 'vitest';
import {
  decideGrant,
  initialEntitlementState,
  MONEY_MOVEMENT_EVENT_TYPES,
  parseAccessPeriod,
  type EntitlementReinstated,
  type EntitlementRevoked,
  type MoneyMovementEvent,
} from '@settle/domain';
import {
  accessChangeEventOf,
  accessChangeLedgerEvent,
  accessChangeOf,
  entitlementEventOf,
  entitlementLedgerEvent,
  isAccessChangeType,
  isMoneyMovementType,
  LedgerEventShapeError,
  moneyMovementDataOf,
  moneyMovementEventOf,
  moneyMovementLedgerEvent,
  type LedgerEventInput,
} from '@settle/ledger';

const T = Date.parse('2027-03-01T12:00:00.123Z');

const cause = {
  provider: 'paystack' as const,
  userId: 'user-1',
  entitlement: 'pro',
  eventId: '0d4f7a1e-8f0e-4c41-9d0f-1b3d6f2a5c11',
  correlationId: 'corr-ref_1',
  causationId: '5e0c2b44-6b0a-4d4f-8a57-3e1f0c9b7d22',
};

/** What every recorded fact carries. */
const base = {
  reference: 'ref_1',
  verificationId: 'ver_1',
  trigger: 'webhook_received' as const,
  decidedAt: T,
  providerId: 'rfnd_1',
  providerStatus: 'processed',
  amountMinor: 200_000,
  currency: 'NGN',
  createdAt: T - 60_000,
};

/** One domain event of each of the six types, with distinct values where a type has its own fields. */
const SIX: Record<MoneyMovementEvent['type'], MoneyMovementEvent> = {
  RefundRecorded: { type: 'RefundRecorded', data: { ...base, returnedMinor: 200_000, moneyState: 'partially_refunded', full: false } },
  RefundFailed: { type: 'RefundFailed', data: { ...base, providerStatus: 'failed', returnedMinor: 0, moneyState: 'none' } },
  ReversalRecorded: {
    type: 'ReversalRecorded',
    data: { ...base, providerId: 'txn_9', providerStatus: 'reversed', amountMinor: 500_000, returnedMinor: 500_000, moneyState: 'reversed' },
  },
  DisputeOpened: {
    type: 'DisputeOpened',
    data: { ...base, providerId: 'dp_1', providerStatus: 'needs_response', returnedMinor: 0, moneyState: 'disputed', reason: 'fraudulent' },
  },
  DisputeResolved: {
    type: 'DisputeResolved',
    data: { ...base, providerId: 'dp_1', providerStatus: 'lost', returnedMinor: 500_000, moneyState: 'charged_back', outcome: 'lost' },
  },
  MoneyMovementRejected: {
    type: 'MoneyMovementRejected',
    data: {
      ...base,
      currency: 'usd',
      kind: 'refund',
      status: 'succeeded',
      checks: [
        { check: 'payment_identity', passed: false, code: 'MOVEMENT.IDENTITY_MISMATCH', expected: 'ref_1', observed: 'ref_2' },
        { check: 'currency', passed: false, code: 'MOVEMENT.CURRENCY_MISMATCH', expected: 'NGN', observed: 'usd' },
        { check: 'amount', passed: true, code: null, expected: 'at most 500000', observed: '200000' },
      ],
    },
  },
};

/** A ledger event as a store gives it back: its data through JSON, at a position. */
function stored(event: LedgerEventInput, position = 7): LedgerEventInput & { position: number } {
  return { ...event, data: JSON.parse(JSON.stringify(event.data)) as Record<string, unknown>, position };
}

describe('money facts as ledger events', () => {
  it('covers exactly the six money fact types', () => {
    expect(Object.keys(SIX).sort()).toEqual([...MONEY_MOVEMENT_EVENT_TYPES].sort());
    for (const type of MONEY_MOVEMENT_EVENT_TYPES) expect(isMoneyMovementType(type)).toBe(true);
    for (const type of ['TransactionSettled', 'EntitlementRevoked', 'EntitlementGranted', 'refundrecorded', '']) expect(isMoneyMovementType(type)).toBe(false);
  });

  it.each(MONEY_MOVEMENT_EVENT_TYPES)('gives back the same %s from its stored ledger event', (type) => {
    const event = SIX[type];
    const ledgerEvent = moneyMovementLedgerEvent(event, cause);
    expect(ledgerEvent).toMatchObject({ eventId: cause.eventId, type, metadata: { correlationId: cause.correlationId, causationId: cause.causationId } });
    expect(moneyMovementEventOf(stored(ledgerEvent))).toEqual(event);
  });

  it('writes the payload the read model and the outbox read: the kind, the totals, and null for the fields a type does not use', () => {
    const refund = moneyMovementLedgerEvent(SIX.RefundRecorded, cause).data;
    expect(refund).toMatchObject({
      reference: 'ref_1',
      provider: 'paystack',
      user_id: 'user-1',
      entitlement: 'pro',
      verification_id: 'ver_1',
      kind: 'refund',
      returned_minor: 200_000,
      money_state: 'partially_refunded',
      full: false,
      reason: null,
      outcome: null,
      status: null,
      checks: null,
    });
    expect(moneyMovementLedgerEvent(SIX.ReversalRecorded, cause).data.kind).toBe('reversal');
    expect(moneyMovementLedgerEvent(SIX.DisputeResolved, cause).data).toMatchObject({ kind: 'dispute', outcome: 'lost', full: null });
    const rejected = moneyMovementLedgerEvent(SIX.MoneyMovementRejected, cause).data;
    expect(rejected).toMatchObject({ kind: 'refund', status: 'succeeded', currency: 'usd', returned_minor: null, money_state: null });
    expect(rejected.checks).toHaveLength(3);
    expect(moneyMovementDataOf(stored(moneyMovementLedgerEvent(SIX.MoneyMovementRejected, cause)))).toEqual({ type: 'MoneyMovementRejected', data: rejected });
  });

  it('refuses a malformed payload or a foreign type with LedgerEventShapeError, naming the event', () => {
    const good = stored(moneyMovementLedgerEvent(SIX.RefundRecorded, cause));
    const bad = (over: Partial<LedgerEventInput>, data: Record<string, unknown> = {}) => ({ ...good, ...over, data: { ...good.data, ...data } });
    const cases = [
      bad({}, { amount_minor: '200000' }),
      bad({}, { amount_minor: 2.5 }),
      bad({}, { reference: '' }),
      bad({}, { provider: 'paypal' }),
      bad({}, { kind: 'chargeback' }),
      bad({}, { money_state: 'gone' }),
      bad({}, { decided_at: undefined }),
      bad({}, { checks: [{ check: 'vibes', passed: true, code: null, expected: '', observed: '' }] }),
      { ...good, data: { reference: 'ref_1' } },
      bad({ type: 'TransactionSettled' }),
      bad({ type: 'EntitlementRevoked' }),
    ];
    for (const event of cases) {
      expect(() => moneyMovementDataOf(event)).toThrow(LedgerEventShapeError);
      expect(() => moneyMovementEventOf(event)).toThrow(LedgerEventShapeError);
    }
    const error = (() => {
      try {
        moneyMovementDataOf(bad({ type: 'TransactionSettled' }));
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toMatchObject({ code: 'LEDGER.MALFORMED_EVENT', eventId: cause.eventId, position: 7 });
    expect((error as Error).message).toContain('a money fact');
  });

  it('refuses a DisputeResolved without a decided outcome', () => {
    const resolved = stored(moneyMovementLedgerEvent(SIX.DisputeResolved, cause));
    for (const outcome of [null, 'open']) {
      const event = { ...resolved, data: { ...resolved.data, outcome } };
      expect(() => moneyMovementDataOf(event)).not.toThrow();
      expect(() => moneyMovementEventOf(event)).toThrow(LedgerEventShapeError);
    }
  });

  it('keeps unknown extra fields of a later version', () => {
    const event = stored(moneyMovementLedgerEvent(SIX.RefundRecorded, cause));
    const { data } = moneyMovementDataOf({ ...event, data: { ...event.data, fee_minor: 120 } });
    expect(data).toMatchObject({ fee_minor: 120, amount_minor: 200_000 });
  });
});

const REVOKED: EntitlementRevoked = {
  type: 'EntitlementRevoked',
  data: {
    eventId: '7f3b1c2d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
    userId: 'user-1',
    entitlement: 'pro',
    reference: 'ref_1',
    reason: 'refunded',
    revokedAt: T,
    previousExpiresAt: Date.parse('2027-04-01T00:00:00.000Z'),
    expiresAt: T,
  },
};
const REINSTATED: EntitlementReinstated = {
  type: 'EntitlementReinstated',
  data: {
    eventId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
    userId: 'user-1',
    entitlement: 'pro',
    reference: 'ref_1',
    reinstatedAt: T + 86_400_000,
    previousExpiresAt: T,
    expiresAt: Date.parse('2027-04-01T00:00:00.000Z'),
  },
};
const moneyCause = { moneyEventId: 'a9b8c7d6-e5f4-4a3b-8c2d-1e0f9a8b7c6d', correlationId: 'corr-ref_1' };

describe('access changes as ledger events', () => {
  it.each([REVOKED, REINSTATED])('gives back the same $type from its stored ledger event', (change) => {
    const ledgerEvent = accessChangeLedgerEvent(change, moneyCause);
    expect(ledgerEvent).toMatchObject({
      eventId: change.data.eventId,
      type: change.type,
      metadata: { correlationId: 'corr-ref_1', causationId: moneyCause.moneyEventId },
    });
    expect(accessChangeEventOf(stored(ledgerEvent))).toEqual(change);
    expect(entitlementEventOf(stored(ledgerEvent))).toEqual(change);
  });

  it('writes the customer-facing kind, the reason of a revocation only, ISO times and the money fact behind it', () => {
    expect(accessChangeLedgerEvent(REVOKED, moneyCause).data).toEqual({
      event_id: REVOKED.data.eventId,
      event: 'subscription_revoked',
      user_id: 'user-1',
      entitlement: 'pro',
      reference: 'ref_1',
      reason: 'refunded',
      changed_at: '2027-03-01T12:00:00.123Z',
      previous_expires_at: '2027-04-01T00:00:00.000Z',
      expires_at: '2027-03-01T12:00:00.123Z',
      cause_event_id: moneyCause.moneyEventId,
    });
    const reinstated = accessChangeLedgerEvent({ ...REINSTATED, data: { ...REINSTATED.data, previousExpiresAt: null } }, moneyCause).data;
    expect(reinstated).toMatchObject({ event: 'subscription_reinstated', reason: null, previous_expires_at: null, changed_at: '2027-03-02T12:00:00.123Z' });
    expect(isAccessChangeType('EntitlementRevoked')).toBe(true);
    expect(isAccessChangeType('EntitlementReinstated')).toBe(true);
    expect(isAccessChangeType('EntitlementGranted')).toBe(false);
  });

  it('refuses a malformed access change or a foreign type with LedgerEventShapeError', () => {
    const good = stored(accessChangeLedgerEvent(REVOKED, moneyCause));
    const cases = [
      { ...good, data: { ...good.data, expires_at: 'tomorrow' } },
      { ...good, data: { ...good.data, reason: 'bored' } },
      { ...good, data: { ...good.data, event: 'subscription_started' } },
      { ...good, data: { ...good.data, cause_event_id: '' } },
      { ...good, type: 'EntitlementGranted' },
      { ...good, type: 'RefundRecorded' },
    ];
    for (const event of cases) {
      expect(() => accessChangeOf(event)).toThrow(LedgerEventShapeError);
      expect(() => accessChangeEventOf(event)).toThrow(LedgerEventShapeError);
    }
    // A revocation must say why.
    const noReason = { ...good, data: { ...good.data, reason: null } };
    expect(() => accessChangeOf(noReason)).not.toThrow();
    expect(() => accessChangeEventOf(noReason)).toThrow(LedgerEventShapeError);
  });
});

describe('entitlementEventOf', () => {
  const [grant] = decideGrant(
    {
      type: 'GrantEntitlement',
      data: {
        eventId: 'b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e',
        userId: 'user-1',
        entitlement: 'pro',
        reference: 'ref_1',
        accessPeriod: parseAccessPeriod('P1M'),
        settledAt: T,
      },
    },
    initialEntitlementState(),
  );
  const granted = stored(entitlementLedgerEvent(grant!, { settlementEventId: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f', correlationId: 'corr-ref_1' }));

  it('reads a grant as EntitlementGranted and an access change as itself', () => {
    expect(entitlementEventOf(granted)).toEqual(grant);
    expect(entitlementEventOf(stored(accessChangeLedgerEvent(REVOKED, moneyCause))).type).toBe('EntitlementRevoked');
    expect(entitlementEventOf(stored(accessChangeLedgerEvent(REINSTATED, moneyCause))).type).toBe('EntitlementReinstated');
  });

  it('refuses an event of neither kind, or a grant payload under an access change type (and the reverse)', () => {
    expect(() => entitlementEventOf({ ...granted, type: 'RefundRecorded' })).toThrow(LedgerEventShapeError);
    expect(() => entitlementEventOf({ ...granted, type: 'EntitlementRevoked' })).toThrow(LedgerEventShapeError);
    expect(() => entitlementEventOf({ ...stored(accessChangeLedgerEvent(REVOKED, moneyCause)), type: 'EntitlementGranted' })).toThrow(LedgerEventShapeError);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  accessChange,
  DEFAULT_ACCESS_POLICY,
  decideMoneyMovement,
  evolveMoney,
  foldMoney,
  grantInForce,
  moneyStateOf,
  paymentMoney,
  refundedMinor,
  type DisputeStatus,
  type MoneyMovementEvent,
  type MoneyMovementObservation,
  type PaymentMoney,
  type RefundStatus,
} from '@settle/domain';

const T = Date.parse('2027-03-01T12:00:00.000Z');
const captured = paymentMoney('ref_1', { amountMinor: 500_000, currency: 'NGN' });

const refund = (
  providerId: string,
  amountMinor: number,
  status: RefundStatus = 'succeeded',
  extra: Partial<MoneyMovementObservation> = {},
): MoneyMovementObservation =>
  ({
    kind: 'refund',
    providerId,
    paymentReference: 'ref_1',
    amountMinor,
    currency: 'ngn',
    providerStatus: status,
    createdAt: T - 1000,
    status,
    ...extra,
  }) as MoneyMovementObservation;
const dispute = (providerId: string, status: DisputeStatus, amountMinor = 500_000): MoneyMovementObservation => ({
  kind: 'dispute',
  providerId,
  paymentReference: 'ref_1',
  amountMinor,
  currency: 'NGN',
  providerStatus: status,
  createdAt: T - 1000,
  status,
  reason: 'fraudulent',
});
const reversal = (amountMinor = 500_000): MoneyMovementObservation => ({
  kind: 'reversal',
  providerId: 'txn_9',
  paymentReference: 'ref_1',
  amountMinor,
  currency: 'NGN',
  providerStatus: 'reversed',
  createdAt: T - 1000,
});

/** The money state a recorded fact leaves (`null` for a rejection, which records nothing about the money). */
const moneyStateAfter = (e: MoneyMovementEvent) => (e.type === 'MoneyMovementRejected' ? null : e.data.moneyState);

/** The verification id of the n-th observation once every observation is decided twice in a row. */
const twiceId = (id: string) => `v${2 * Number(id.slice(1))}`;

/** Given these observations recorded in turn, the money and every event decided. */
function given(observations: readonly MoneyMovementObservation[], from: PaymentMoney = captured) {
  let money = from;
  const events: MoneyMovementEvent[] = [];
  observations.forEach((observation, i) => {
    const decided = decideMoneyMovement(
      { type: 'RecordMoneyMovement', data: { reference: 'ref_1', verificationId: `v${i}`, trigger: 'webhook_received', observation, decidedAt: T + i } },
      money,
    );
    events.push(...decided);
    money = decided.reduce(evolveMoney, money);
  });
  return { money, events };
}

const base = { reference: 'ref_1', trigger: 'webhook_received', currency: 'NGN', createdAt: T - 1000 } as const;

describe('decideMoneyMovement: the money after settlement (docs/state-machine.md)', () => {
  it('a partial refund is recorded with what was returned so far; the payment is partially refunded', () => {
    expect(given([refund('re_1', 200_000)]).events).toEqual<MoneyMovementEvent[]>([
      {
        type: 'RefundRecorded',
        data: {
          ...base,
          verificationId: 'v0',
          decidedAt: T,
          providerId: 're_1',
          providerStatus: 'succeeded',
          amountMinor: 200_000,
          full: false,
          returnedMinor: 200_000,
          moneyState: 'partially_refunded',
        },
      },
    ]);
  });

  it('refunds that return all the captured money make it refunded; the last one is full', () => {
    const { events, money } = given([refund('re_1', 200_000), refund('re_2', 300_000)]);
    expect(events.map((e) => [e.type, moneyStateAfter(e), (e.data as { full?: boolean }).full])).toEqual([
      ['RefundRecorded', 'partially_refunded', false],
      ['RefundRecorded', 'refunded', true],
    ]);
    expect(moneyStateOf(money)).toBe('refunded');
  });

  it('a pending refund records nothing; the same refund observed again records nothing', () => {
    expect(given([refund('re_1', 100, 'pending')]).events).toEqual([]);
    expect(given([refund('re_1', 100), refund('re_1', 100)]).events).toHaveLength(1);
  });

  it('a refund that fails after it was recorded gives the money back to the merchant; one never recorded changes nothing', () => {
    const { events, money } = given([refund('re_1', 200_000), refund('re_1', 200_000, 'failed')]);
    expect(events[1]).toEqual({
      type: 'RefundFailed',
      data: {
        ...base,
        verificationId: 'v1',
        decidedAt: T + 1,
        providerId: 're_1',
        providerStatus: 'failed',
        amountMinor: 200_000,
        returnedMinor: 0,
        moneyState: 'none',
      },
    });
    expect(refundedMinor(money)).toBe(0);
    expect(given([refund('re_9', 100, 'failed')]).events).toEqual([]);
  });

  it('a refund over what is left, in another currency, or for another payment is rejected once, with its checks', () => {
    const { events } = given([refund('re_1', 400_000), refund('re_2', 100_001), refund('re_2', 100_001)]);
    expect(events.map((e) => e.type)).toEqual(['RefundRecorded', 'MoneyMovementRejected']);
    expect(events[1]!.data).toMatchObject({
      kind: 'refund',
      status: 'succeeded',
      checks: [
        { check: 'payment_identity', passed: true, code: null },
        { check: 'currency', passed: true, code: null },
        { check: 'amount', passed: false, code: 'MOVEMENT.AMOUNT_EXCEEDS_CAPTURED', expected: 'at most 100000', observed: '100001' },
      ],
    });
    const usd = given([refund('re_3', 100, 'succeeded', { currency: 'USD' })]).events[0]!;
    expect(usd).toMatchObject({
      type: 'MoneyMovementRejected',
      data: { currency: 'USD', checks: [{ passed: true }, { code: 'MOVEMENT.CURRENCY_MISMATCH' }, { passed: true }] },
    });
    const other = given([refund('re_4', 100, 'succeeded', { paymentReference: 'ref_2' })]).events[0]!;
    expect(other).toMatchObject({
      type: 'MoneyMovementRejected',
      data: { checks: [{ code: 'MOVEMENT.IDENTITY_MISMATCH', expected: 'ref_1', observed: 'ref_2' }, {}, {}] },
    });
  });

  it('a reversal is recorded once and makes the payment reversed', () => {
    const { events, money } = given([reversal(), reversal()]);
    expect(events).toEqual([
      {
        type: 'ReversalRecorded',
        data: {
          ...base,
          verificationId: 'v0',
          decidedAt: T,
          providerId: 'txn_9',
          providerStatus: 'reversed',
          amountMinor: 500_000,
          returnedMinor: 500_000,
          moneyState: 'reversed',
        },
      },
    ]);
    expect(moneyStateOf(money)).toBe('reversed');
  });

  it('a dispute opens, then is lost: a chargeback', () => {
    const { events } = given([dispute('dp_1', 'open'), dispute('dp_1', 'open'), dispute('dp_1', 'lost')]);
    expect(events.map((e) => [e.type, moneyStateAfter(e)])).toEqual([
      ['DisputeOpened', 'disputed'],
      ['DisputeResolved', 'charged_back'],
    ]);
    expect(events[1]!.data).toMatchObject({ outcome: 'lost', returnedMinor: 500_000 });
  });

  it('a dispute first seen decided records its opening and its decision; a decided dispute never changes', () => {
    const { events } = given([refund('re_1', 100_000), dispute('dp_1', 'won'), dispute('dp_1', 'lost')]);
    expect(events.map((e) => [e.type, moneyStateAfter(e)])).toEqual([
      ['RefundRecorded', 'partially_refunded'],
      ['DisputeOpened', 'disputed'],
      ['DisputeResolved', 'partially_refunded'],
    ]);
  });

  it('folding the events gives the money they were decided on', () => {
    const { events, money } = given([
      refund('re_1', 100_000),
      dispute('dp_1', 'open'),
      refund('re_1', 100_000, 'failed'),
      dispute('dp_1', 'won'),
      reversal(400_000),
    ]);
    expect(foldMoney(events, captured)).toEqual(money);
  });

  it('property: refunds and a reversal never return more than was captured; an observation decided again at once records nothing', () => {
    const observation = fc.oneof(
      fc
        .record({
          id: fc.constantFrom('re_1', 're_2', 're_3'),
          amount: fc.integer({ min: 1, max: 600_000 }),
          status: fc.constantFrom<RefundStatus>('pending', 'succeeded', 'failed'),
        })
        .map((r) => refund(r.id, r.amount, r.status)),
      fc.integer({ min: 1, max: 600_000 }).map((amount) => reversal(amount)),
      fc
        .record({
          id: fc.constantFrom('dp_1', 'dp_2'),
          status: fc.constantFrom<DisputeStatus>('open', 'won', 'lost'),
          amount: fc.integer({ min: 1, max: 600_000 }),
        })
        .map((d) => dispute(d.id, d.status, d.amount)),
    );
    fc.assert(
      fc.property(fc.array(observation, { maxLength: 15 }), (observations) => {
        const { money, events } = given(observations);
        expect(refundedMinor(money) + (money.reversal?.amountMinor ?? 0)).toBeLessThanOrEqual(captured.captured.amountMinor);
        for (const d of money.disputes.values()) expect(d.amountMinor).toBeLessThanOrEqual(captured.captured.amountMinor);
        const twice = given(observations.flatMap((o) => [o, o]));
        expect(twice.events).toEqual(
          events.map((e) => ({
            ...e,
            data: { ...e.data, verificationId: twiceId(e.data.verificationId), decidedAt: e.data.decidedAt + Number(e.data.verificationId.slice(1)) },
          })),
        );
        expect(foldMoney(events, captured)).toEqual(money);
        for (const event of events) if (event.type !== 'MoneyMovementRejected') expect(event.data.returnedMinor).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});

describe('grantInForce and accessChange: access follows the money (docs/delivery.md)', () => {
  const after = (observations: readonly MoneyMovementObservation[]) => given(observations).money;

  it('a full refund, a reversal and a lost dispute revoke; a partial refund and an open dispute keep access by default', () => {
    expect(accessChange(captured, after([refund('re_1', 500_000)]), DEFAULT_ACCESS_POLICY)).toBe('revoke');
    expect(accessChange(captured, after([reversal()]), DEFAULT_ACCESS_POLICY)).toBe('revoke');
    expect(accessChange(captured, after([dispute('dp_1', 'lost')]), DEFAULT_ACCESS_POLICY)).toBe('revoke');
    expect(accessChange(captured, after([refund('re_1', 1)]), DEFAULT_ACCESS_POLICY)).toBe('none');
    expect(accessChange(captured, after([dispute('dp_1', 'open')]), DEFAULT_ACCESS_POLICY)).toBe('none');
  });

  it('the policy can revoke on a partial refund, and suspend while a dispute is open, reinstating when it is won', () => {
    const strict = { partialRefund: 'revoke', disputeOpened: 'suspend' } as const;
    expect(accessChange(captured, after([refund('re_1', 1)]), strict)).toBe('revoke');
    const open = after([dispute('dp_1', 'open')]);
    expect(accessChange(captured, open, strict)).toBe('revoke');
    expect(accessChange(open, after([dispute('dp_1', 'open'), dispute('dp_1', 'won')]), strict)).toBe('reinstate');
  });

  it('a recorded refund that fails reinstates what it revoked', () => {
    const refunded = after([refund('re_1', 500_000)]);
    expect(grantInForce(refunded, DEFAULT_ACCESS_POLICY)).toBe(false);
    expect(accessChange(refunded, after([refund('re_1', 500_000), refund('re_1', 500_000, 'failed')]), DEFAULT_ACCESS_POLICY)).toBe('reinstate');
  });
});

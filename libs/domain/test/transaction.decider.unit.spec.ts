import { describe, expect, it } from 'vitest';
import {
  decide,
  decideNewAttempt,
  DomainError,
  evolve,
  fold,
  initialState,
  isRegistered,
  parseAccessPeriod,
  type Expectation,
  type ProviderObservation,
  type ProviderVerdict,
  type ConsensusCheck,
  type TransactionCommand,
  type RegisteredTransaction,
  type TransactionEvent,
} from '@settle/domain';

const expectation: Expectation = {
  reference: 'ref_7PVGX8MEk85tgeEpVDtD',
  provider: 'paystack',
  amountMinor: 500_000,
  currency: 'NGN',
  userId: 'user-42',
  customer: { email: 'ada@example.com' },
  entitlement: 'pro-monthly',
  accessPeriod: parseAccessPeriod('P1M'),
};

const paid: ProviderObservation = {
  reference: expectation.reference,
  amountMinor: 500_000,
  currency: 'NGN',
  customer: { email: 'Ada@Example.com ' },
  providerStatus: 'success',
};

const registered: TransactionEvent = { type: 'CheckoutRegistered', data: { expectation, registeredAt: 1_000 } };
const heldInReview: TransactionEvent = {
  type: 'PaymentHeldInReview',
  data: { reference: expectation.reference, verificationId: 'v0', trigger: 'sweeper_orphaned', decidedAt: 2_000, providerStatus: 'pending' },
};

function verify(verdict: ProviderVerdict): TransactionCommand {
  return {
    type: 'RecordVerification',
    data: { reference: expectation.reference, verificationId: 'v1', trigger: 'webhook_received', verdict, verifiedAt: 3_000 },
  };
}

/** Folds a history that starts with a registration: the state is registered, or the test fails here. */
function foldRegistered(history: TransactionEvent[]): RegisteredTransaction {
  const state = fold(history);
  if (!isRegistered(state)) throw new Error('expected a registered transaction');
  return state;
}

/** The four checks of {@link paid} against {@link expectation}, all passed (docs/spec.md, section 3). */
const passedChecks: ConsensusCheck[] = [
  { check: 'transaction_identity', passed: true, code: null, expected: expectation.reference, observed: expectation.reference },
  { check: 'currency', passed: true, code: null, expected: 'NGN', observed: 'NGN' },
  { check: 'amount', passed: true, code: null, expected: '500000', observed: '500000' },
  { check: 'customer', passed: true, code: null, expected: 'email:a•••@example.com', observed: 'email:A•••@Example.com' },
];

/** What every event decided on {@link verify}'s command carries. */
const decidedBy = { reference: expectation.reference, verificationId: 'v1', trigger: 'webhook_received', decidedAt: 3_000 } as const;

/**
 * Given past events, when a command, then exactly these new events, whole (type and data), as
 * Emmett's `DeciderSpecification` asserts them.
 */
function given(history: TransactionEvent[]) {
  return {
    when: (command: TransactionCommand) => ({
      then: (expected: TransactionEvent[]) => expect(decide(command, fold(history))).toEqual(expected),
      thenThrows: (code: string) => {
        try {
          decide(command, fold(history));
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).toBe(code);
          return;
        }
        throw new Error(`expected ${code}`);
      },
    }),
  };
}

describe('transaction decider: the spec transition table (section 3)', () => {
  it('PENDING + cleared + four checks pass -> SETTLED_CONSENSUS, entitlement unlocked', () => {
    given([registered])
      .when(verify({ kind: 'cleared', observation: paid }))
      .then([{ type: 'TransactionSettled', data: { ...decidedBy, checks: passedChecks, observation: paid } }]);
    const state = foldRegistered([registered, ...decide(verify({ kind: 'cleared', observation: paid }), foldRegistered([registered]))]);
    expect(state.status).toBe('SETTLED_CONSENSUS');
    expect(state.entitlement).toBe('UNLOCKED');
    expect(state.outcomes).toBe(1);
  });

  it('PENDING + definitive failure -> FAILED_DECLINED, entitlement locked', () => {
    const verdict: ProviderVerdict = { kind: 'declined', providerStatus: 'failed', reason: 'Declined' };
    given([registered])
      .when(verify(verdict))
      .then([{ type: 'PaymentDeclined', data: { ...decidedBy, providerStatus: 'failed', reason: 'Declined' } }]);
    const state = foldRegistered([registered, ...decide(verify(verdict), foldRegistered([registered]))]);
    expect([state.status, state.entitlement]).toEqual(['FAILED_DECLINED', 'LOCKED']);
  });

  it('PENDING + still clearing -> RECOVERING, entitlement held in review', () => {
    given([registered])
      .when(verify({ kind: 'clearing', providerStatus: 'ongoing' }))
      .then([{ type: 'PaymentHeldInReview', data: { ...decidedBy, providerStatus: 'ongoing' } }]);
    expect(foldRegistered([registered, heldInReview]).entitlement).toBe('HELD_IN_REVIEW');
  });

  it('RECOVERING + still clearing -> RECOVERING unchanged (no new event)', () => {
    given([registered, heldInReview])
      .when(verify({ kind: 'clearing', providerStatus: 'pending' }))
      .then([]);
  });

  it('RECOVERING + cleared + four checks pass -> SETTLED_CONSENSUS', () => {
    given([registered, heldInReview])
      .when(verify({ kind: 'cleared', observation: paid }))
      .then([{ type: 'TransactionSettled', data: { ...decidedBy, checks: passedChecks, observation: paid } }]);
  });

  it('any state + 502/504/time-out -> unchanged (a time-out is unknown, not failed)', () => {
    given([registered])
      .when(verify({ kind: 'unreachable', cause: 'PROVIDER.BAD_GATEWAY' }))
      .then([]);
    given([registered, heldInReview])
      .when(verify({ kind: 'unreachable', cause: 'PROVIDER.TIMEOUT' }))
      .then([]);
  });

  it.each([
    ['a lower amount paid', { amountMinor: 400_000 }, 'CONSENSUS.AMOUNT_MISMATCH'],
    ['another currency', { currency: 'USD' }, 'CONSENSUS.CURRENCY_MISMATCH'],
    ['another reference', { reference: 'ref_other' }, 'CONSENSUS.IDENTITY_MISMATCH'],
    ['another customer', { customer: { email: 'eve@example.com' } }, 'CONSENSUS.CUSTOMER_MISMATCH'],
  ])('any state + cleared but %s -> STATE_MISMATCH, entitlement stays locked', (_name, change, code) => {
    const observation = { ...paid, ...change };
    const events = decide(verify({ kind: 'cleared', observation }), foldRegistered([registered]));
    expect(events.map((e) => e.type)).toEqual(['StateMismatchDetected']);
    const [event] = events;
    if (event?.type !== 'StateMismatchDetected') throw new Error('unreachable');
    expect(event.data.checks.filter((c) => !c.passed).map((c) => c.code)).toEqual([code]);
    expect(foldRegistered([registered, ...events]).entitlement).toBe('LOCKED');
  });

  it('a settled transaction is never settled twice or un-settled', () => {
    const settled = decide(verify({ kind: 'cleared', observation: paid }), foldRegistered([registered]));
    for (const verdict of [
      { kind: 'cleared', observation: paid },
      { kind: 'declined', providerStatus: 'reversed', reason: 'Reversed' },
      { kind: 'clearing', providerStatus: 'pending' },
    ] as ProviderVerdict[]) {
      given([registered, ...settled])
        .when(verify(verdict))
        .then([]);
    }
  });

  it('not found leaves the state unchanged', () => {
    given([registered])
      .when(verify({ kind: 'not_found' }))
      .then([]);
  });

  it('rejects a verification for an unknown reference', () => {
    given([])
      .when(verify({ kind: 'cleared', observation: paid }))
      .thenThrows('TRANSACTION.UNKNOWN');
  });
});

describe('transaction decider: registration and completion', () => {
  it('an unregistered reference is a state of its own; the registration opens it with its terms, pending and locked', () => {
    expect(initialState()).toEqual({ status: 'UNREGISTERED' });
    expect(isRegistered(initialState())).toBe(false);
    expect(fold([registered])).toEqual({ status: 'PENDING', expectation, entitlement: 'LOCKED', completedAt: null, outcomes: 0 });
  });

  it('an event other than the registration changes nothing on an unregistered reference (decide never produces one)', () => {
    expect(evolve(initialState(), heldInReview)).toEqual({ status: 'UNREGISTERED' });
    expect(evolve(initialState(), { type: 'CheckoutCompleted', data: { reference: expectation.reference, completedAt: 9 } })).toEqual({
      status: 'UNREGISTERED',
    });
  });

  it.each([
    ['provider', { provider: 'stripe' as const }],
    ['amount', { amountMinor: 1 }],
    ['currency', { currency: 'USD' }],
    ['user', { userId: 'user-43' }],
    ['customer e-mail', { customer: { email: 'eve@example.com' } }],
    ['customer phone', { customer: { email: 'ada@example.com', phone: '+2348000000000' } }],
    ['entitlement', { entitlement: 'pro-yearly' }],
    ['access period', { accessPeriod: parseAccessPeriod('P1Y') }],
  ])('the same reference registered again with another %s: TRANSACTION.CONFLICT, nothing recorded', (_term, change) => {
    given([registered])
      .when({ type: 'RegisterCheckout', data: { expectation: { ...expectation, ...change }, registeredAt: 5 } })
      .thenThrows('TRANSACTION.CONFLICT');
  });

  it('registers once; the same terms again are a no-op; other terms conflict', () => {
    const register: TransactionCommand = { type: 'RegisterCheckout', data: { expectation, registeredAt: 1_000 } };
    given([]).when(register).then([registered]);
    given([registered]).when(register).then([]);
    given([registered])
      .when({ type: 'RegisterCheckout', data: { expectation: { ...expectation, amountMinor: 1 }, registeredAt: 5 } })
      .thenThrows('TRANSACTION.CONFLICT');
  });

  it('completes once, and only a registered checkout', () => {
    const complete: TransactionCommand = { type: 'CompleteCheckout', data: { reference: expectation.reference, completedAt: 9 } };
    given([registered])
      .when(complete)
      .then([{ type: 'CheckoutCompleted', data: { reference: expectation.reference, completedAt: 9 } }]);
    given([registered, { type: 'CheckoutCompleted', data: { reference: expectation.reference, completedAt: 9 } }])
      .when(complete)
      .then([]);
    given([]).when(complete).thenThrows('TRANSACTION.UNKNOWN');
  });
});

describe('transaction decider: guards', () => {
  it('refuses a command naming another transaction than the state it is applied to', () => {
    given([registered])
      .when({ type: 'CompleteCheckout', data: { reference: 'ref_someone_else', completedAt: 1 } })
      .thenThrows('TRANSACTION.REFERENCE_MISMATCH');
  });
});

describe('transaction decider: the spec error table (section 7)', () => {
  it('provider returns 502 or 504, or times out: state preserved (the query is retried by the adapter)', () => {
    for (const cause of ['PROVIDER.BAD_GATEWAY', 'PROVIDER.GATEWAY_TIMEOUT', 'PROVIDER.TIMEOUT']) {
      given([registered])
        .when(verify({ kind: 'unreachable', cause }))
        .then([]);
      given([registered, heldInReview])
        .when(verify({ kind: 'unreachable', cause }))
        .then([]);
    }
  });

  it('amount, currency, identity or customer mismatch: State Mismatch, entitlement stays locked', () => {
    const events = decide(verify({ kind: 'cleared', observation: { ...paid, amountMinor: 1 } }), foldRegistered([registered]));
    expect(foldRegistered([registered, ...events])).toMatchObject({ status: 'STATE_MISMATCH', entitlement: 'LOCKED' });
  });

  it('provider reports a decline: FAILED_DECLINED, and a new attempt is allowed', () => {
    const events = decide(verify({ kind: 'declined', providerStatus: 'failed', reason: 'Insufficient funds' }), foldRegistered([registered]));
    const state = foldRegistered([registered, ...events]);
    expect(state.status).toBe('FAILED_DECLINED');
    expect(decideNewAttempt(state.status, 'declined')).toEqual({ allowed: true, reason: 'PREVIOUS_ATTEMPT_DECLINED' });
  });

  it('provider reports the payment still clearing: held in review, and no new attempt while it clears', () => {
    const events = decide(verify({ kind: 'clearing', providerStatus: 'pending' }), foldRegistered([registered]));
    const state = foldRegistered([registered, ...events]);
    expect(state).toMatchObject({ status: 'RECOVERING', entitlement: 'HELD_IN_REVIEW' });
    expect(decideNewAttempt(state.status, 'clearing').allowed).toBe(false);
  });
});

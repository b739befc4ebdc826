import { describe, expect, it } from 'vitest';
import { checkInvariants, formatTable, secretsIn, type ChaosFacts, type CheckoutFact, type CommandFacts } from '../../scripts/chaos/invariants.js';

const settled = (reference: string, userId: string): CheckoutFact => ({
  reference,
  userId,
  outcome: 'paid, webhook delivered',
  expectedState: 'SETTLED_CONSENSUS',
  observedState: 'SETTLED_CONSENSUS',
  ledgerEvents: ['TransactionSettled'],
  settlementEventIds: [`s-${reference}`],
  settlementRecords: 1,
  expectedMoneyState: null,
  observedMoneyState: 'none',
});

/** Two settled checkouts of one user, one decline, every fact as it should be. */
function healthy(): ChaosFacts {
  return {
    checkouts: [
      settled('ref_a', 'u1'),
      settled('ref_b', 'u1'),
      {
        reference: 'ref_c',
        userId: 'u2',
        outcome: 'declined',
        expectedState: 'FAILED_DECLINED',
        observedState: 'FAILED_DECLINED',
        ledgerEvents: ['PaymentDeclined'],
        settlementEventIds: ['s-ref_c'],
        settlementRecords: 1,
        expectedMoneyState: null,
        observedMoneyState: null,
      },
      // Settled, then refunded: a money fact after the outcome (its own record on the settlements topic), and the grant revoked.
      {
        ...settled('ref_d', 'u3'),
        outcome: 'paid, then refunded',
        ledgerEvents: ['TransactionSettled', 'RefundRecorded'],
        settlementEventIds: ['s-ref_d', 'm-ref_d'],
        settlementRecords: 2,
        expectedMoneyState: 'refunded',
        observedMoneyState: 'refunded',
      },
    ],
    chainBreak: null,
    grants: [
      { eventId: 'g1', userId: 'u1', type: 'EntitlementGranted', reference: 'ref_a', revision: 0, expiresAt: '2027-02-01T00:00:00.000Z' },
      { eventId: 'g2', userId: 'u1', type: 'EntitlementGranted', reference: 'ref_b', revision: 1, expiresAt: '2027-03-01T00:00:00.000Z' },
      { eventId: 'g3', userId: 'u3', type: 'EntitlementGranted', reference: 'ref_d', revision: 0, expiresAt: '2027-02-01T00:00:00.000Z' },
      { eventId: 'r3', userId: 'u3', type: 'EntitlementRevoked', reference: 'ref_d', revision: 1, expiresAt: '2027-01-02T00:00:00.000Z' },
    ],
    customerRuns: { g1: 1, g2: 1, g3: 1, r3: 1 },
    customerExpiry: { u1: '2027-03-01T00:00:00.000Z', u3: '2027-01-02T00:00:00.000Z' },
    acknowledgedWebhooks: ['h1'],
    inboxWebhooks: ['h1', 'h2'],
    publishedWebhooks: ['h1', 'h2'],
    outboxBacklog: { ingestion: 0, ledger: 0 },
    pendingDeliveries: 0,
    unprocessedAtCustomer: 0,
    deadLetters: { unprocessable: 0, deliveries: 0 },
    secretsInLogs: [],
    unexpectedExits: [],
    recoveryMs: 2_500,
    recoveryBy: 'settlement',
  };
}

/** A load that went both ways in: ref_a and ref_c over HTTP, ref_b and ref_d over Kafka, each of their two commands answered once. */
function bothWays(): CommandFacts {
  const overKafka = (reference: string) => ({
    reference,
    via: 'kafka' as const,
    submittedBy: 'kafka:chaos',
    registeredEventIds: [`reg-${reference}`],
    registeredRecords: 1,
  });
  const overHttp = (reference: string) => ({
    reference,
    via: 'http' as const,
    submittedBy: 'api_key:0123456789ab',
    registeredEventIds: [`reg-${reference}`],
    registeredRecords: 1,
  });
  const answered = (type: string, reference: string) => ({
    eventId: `${type}-${reference}`,
    type,
    reference,
    results: [{ eventId: `res-${type}-${reference}`, outcome: 'accepted' }],
  });
  return {
    producer: 'chaos',
    registrations: [overHttp('ref_a'), overKafka('ref_b'), overHttp('ref_c'), overKafka('ref_d')],
    commands: ['ref_b', 'ref_d'].flatMap((r) => [answered('RegisterCheckout', r), answered('CompleteCheckout', r)]),
    strayResults: 0,
  };
}

const failed = (facts: ChaosFacts, expected = {}) =>
  checkInvariants(facts, expected)
    .filter((r) => !r.ok)
    .map((r) => r.name);

describe('chaos invariants', () => {
  it('all hold on healthy facts', () => {
    expect(failed(healthy())).toEqual([]);
  });

  it('a checkout left unprocessed, or in another state, fails the states invariant', () => {
    const facts = healthy();
    facts.checkouts[0]!.observedState = null;
    expect(failed(facts)).toEqual(['checkouts in the expected state']);
    const other = healthy();
    other.checkouts[2]!.observedState = 'SETTLED_CONSENSUS';
    expect(failed(other)).toEqual(['checkouts in the expected state']);
  });

  it('a doubled or spurious settlement fails the ledger invariant', () => {
    const doubled = healthy();
    doubled.checkouts[0]!.ledgerEvents = ['TransactionSettled', 'TransactionSettled'];
    doubled.checkouts[0]!.settlementEventIds = ['x', 'y'];
    expect(failed(doubled)).toEqual(['one ledger settlement per settled checkout']);
    const spurious = healthy();
    spurious.checkouts[2]!.ledgerEvents = ['TransactionSettled'];
    expect(failed(spurious)).toEqual(['one ledger settlement per settled checkout']);
  });

  it('a broken chain fails', () => {
    expect(failed({ ...healthy(), chainBreak: 'GLOBAL_HASH_MISMATCH at 7' })).toEqual(['hash chains verify']);
  });

  it('a missing settlement event fails, a repeated record with the same id does not', () => {
    const missing = healthy();
    missing.checkouts[1]!.settlementEventIds = [];
    missing.checkouts[1]!.settlementRecords = 0;
    expect(failed(missing)).toEqual(['settlement events equal ledger outcomes']);
    const repeated = healthy();
    repeated.checkouts[1]!.settlementRecords = 3;
    expect(failed(repeated)).toEqual([]);
  });

  it("an entitlement event run twice or never, or an expiry at the customer other than the ledger's last revision, fails", () => {
    const name = "entitlement events ran once, expiry is the ledger's";
    expect(failed({ ...healthy(), customerRuns: { g1: 2, g2: 1, g3: 1, r3: 1 } })).toEqual([name]);
    expect(failed({ ...healthy(), customerRuns: { g1: 1, g2: 1, g3: 1 } })).toEqual([name]);
    expect(failed({ ...healthy(), customerExpiry: { u1: '2027-02-01T00:00:00.000Z', u3: '2027-01-02T00:00:00.000Z' } })).toEqual([name]);
    // The revocation's earlier expiry is the one to hold, not the grant's later one.
    expect(failed({ ...healthy(), customerExpiry: { u1: '2027-03-01T00:00:00.000Z', u3: '2027-02-01T00:00:00.000Z' } })).toEqual([name]);
  });

  it('a refunded payment without its money state, without its revocation or revoked twice, or a revocation of another payment, fails', () => {
    const name = 'money after settlement recorded, grant revoked once';
    const unrecorded = healthy();
    unrecorded.checkouts[3]!.observedMoneyState = 'none';
    expect(failed(unrecorded)).toEqual([name]);
    const unrevoked = healthy();
    unrevoked.grants = unrevoked.grants.filter((g) => g.eventId !== 'r3');
    unrevoked.customerRuns = { g1: 1, g2: 1, g3: 1 };
    unrevoked.customerExpiry = { ...unrevoked.customerExpiry, u3: '2027-02-01T00:00:00.000Z' };
    expect(failed(unrevoked)).toEqual([name]);
    const twice = healthy();
    twice.grants.push({ eventId: 'r4', userId: 'u3', type: 'EntitlementRevoked', reference: 'ref_d', revision: 2, expiresAt: '2027-01-02T00:00:00.000Z' });
    twice.customerRuns = { ...twice.customerRuns, r4: 1 };
    expect(failed(twice)).toEqual([name]);
    const spurious = healthy();
    spurious.grants.push({ eventId: 'r1', userId: 'u1', type: 'EntitlementRevoked', reference: 'ref_a', revision: 2, expiresAt: '2027-03-01T00:00:00.000Z' });
    spurious.customerRuns = { ...spurious.customerRuns, r1: 1 };
    expect(failed(spurious)).toEqual([name]);
  });

  it('an acknowledged webhook missing from the inbox, or stored and never published, fails', () => {
    expect(failed({ ...healthy(), acknowledgedWebhooks: ['h1', 'h9'] })).toEqual(['no acknowledged webhook lost']);
    expect(failed({ ...healthy(), publishedWebhooks: ['h1'] })).toEqual(['no acknowledged webhook lost']);
  });

  it('an outbox backlog, a pending delivery or an unexpected dead letter fails; an expected one does not', () => {
    expect(failed({ ...healthy(), outboxBacklog: { ingestion: 0, ledger: 2 } })).toEqual(['nothing stuck, dead letters as expected']);
    expect(failed({ ...healthy(), pendingDeliveries: 1 })).toEqual(['nothing stuck, dead letters as expected']);
    const dead = { ...healthy(), deadLetters: { unprocessable: 0, deliveries: 4 } };
    expect(failed(dead)).toEqual(['nothing stuck, dead letters as expected']);
    expect(failed(dead, { deadLetters: { unprocessable: 0, deliveries: 4 } })).toEqual([]);
  });

  it('a secret in a log, an app that exited, or a slow recovery fails', () => {
    expect(failed({ ...healthy(), secretsInLogs: ['verifier: paystackSecret'] })).toEqual(['no secret in any log']);
    expect(failed({ ...healthy(), unexpectedExits: ['verifier (code 1)'] })).toEqual(['no app exited on its own']);
    expect(failed({ ...healthy(), recoveryMs: 12_000 })).toEqual(["recovered within 10 s of the fault's end"]);
    expect(failed({ ...healthy(), recoveryMs: null, recoveryBy: 'delivery' })).toEqual(["recovered within 10 s of the fault's end"]);
  });

  it('a load that went both ways in adds its two invariants, which hold on healthy facts', () => {
    const results = checkInvariants({ ...healthy(), commands: bothWays() });
    expect(results.map((r) => r.name).slice(-2)).toEqual(['each checkout registered once, by its way in', 'each command answered once, accepted']);
    expect(results.filter((r) => !r.ok)).toEqual([]);
    // A record repeated with its event id (a relay's re-publication) is counted and allowed.
    const repeated = bothWays();
    repeated.registrations[1]!.registeredRecords = 2;
    repeated.commands[0]!.results.push({ ...repeated.commands[0]!.results[0]! });
    expect(failed({ ...healthy(), commands: repeated })).toEqual([]);
  });

  it('a checkout registered twice or never, one recorded with another submitter, or a load that went one way only, fails the registrations invariant', () => {
    const name = 'each checkout registered once, by its way in';
    const twice = bothWays();
    twice.registrations[1]!.registeredEventIds = ['reg-ref_b', 'reg-ref_b-again'];
    twice.registrations[1]!.registeredRecords = 2;
    expect(failed({ ...healthy(), commands: twice })).toEqual([name]);
    const never = bothWays();
    never.registrations[3]!.registeredEventIds = [];
    never.registrations[3]!.registeredRecords = 0;
    expect(failed({ ...healthy(), commands: never })).toEqual([name]);
    const otherProducer = bothWays();
    otherProducer.registrations[1]!.submittedBy = 'kafka:someone-else';
    expect(failed({ ...healthy(), commands: otherProducer })).toEqual([name]);
    const httpAsKafka = bothWays();
    httpAsKafka.registrations[0]!.submittedBy = 'kafka:chaos';
    expect(failed({ ...healthy(), commands: httpAsKafka })).toEqual([name]);
    const httpOnly = bothWays();
    httpOnly.registrations = httpOnly.registrations.map((r) => ({ ...r, via: 'http' as const, submittedBy: 'api_key:0123456789ab' }));
    expect(failed({ ...healthy(), commands: httpOnly })).toEqual([name]);
  });

  it('a command unanswered, answered twice (a redelivered batch handled again), refused, or a result of no command sent, fails the results invariant', () => {
    const name = 'each command answered once, accepted';
    const unanswered = bothWays();
    unanswered.commands[1]!.results = [];
    expect(failed({ ...healthy(), commands: unanswered })).toEqual([name]);
    // Handled again after a crash: the same result id, answered duplicate.
    const again = bothWays();
    again.commands[2]!.results.push({ eventId: again.commands[2]!.results[0]!.eventId, outcome: 'duplicate' });
    expect(failed({ ...healthy(), commands: again })).toEqual([name]);
    const twoIds = bothWays();
    twoIds.commands[2]!.results.push({ eventId: 'another-result', outcome: 'accepted' });
    expect(failed({ ...healthy(), commands: twoIds })).toEqual([name]);
    const refused = bothWays();
    refused.commands[0]!.results = [{ eventId: 'res', outcome: 'refused' }];
    expect(failed({ ...healthy(), commands: refused })).toEqual([name]);
    expect(failed({ ...healthy(), commands: { ...bothWays(), strayResults: 1 } })).toEqual([name]);
    expect(failed({ ...healthy(), commands: { ...bothWays(), commands: [] } })).toEqual([name]);
  });

  it('finds secrets by name and never reports short values', () => {
    expect(secretsIn('{"msg":"key sk_test_0123456789"}', { paystack: 'sk_test_0123456789', short: 'msg' })).toEqual(['paystack']);
  });

  it('prints one line per invariant with its result', () => {
    const table = formatTable('scenario x', checkInvariants({ ...healthy(), chainBreak: 'broken at 3' }));
    const lines = table.split('\n');
    expect(lines[0]).toBe('scenario x');
    expect(lines).toHaveLength(3 + 11);
    expect(lines.find((l) => l.startsWith('hash chains verify'))).toContain('FAILED');
  });
});

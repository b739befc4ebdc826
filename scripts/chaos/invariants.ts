/**
 * The invariants a chaos scenario must keep (docs/reliability.md, "Chaos suite"), as pure
 * functions over facts collected once the system is quiet (collect.ts). Each check gives one
 * row of the printed table: its name, whether it held and what was counted.
 */

/** Terminal states of a checkout (docs/state-machine.md). */
export const TERMINAL_STATES = ['SETTLED_CONSENSUS', 'FAILED_DECLINED', 'STATE_MISMATCH'] as const;

/** One checkout the load registered, with what the sandbox was told to do and what Settle made of it. */
export interface CheckoutFact {
  reference: string;
  userId: string;
  /** The sandbox outcome's name (scripts/demo/scenarios.ts). */
  outcome: string;
  expectedState: (typeof TERMINAL_STATES)[number];
  /** The state in `read_model.transaction_status`, `null` when the checkout was never processed. */
  observedState: string | null;
  /** Event types of the transaction's ledger stream, in order. */
  ledgerEvents: string[];
  /** Distinct event ids of the records on the settlements topic for it (`SettlementRecorded`, `MoneyMovementRecorded`). */
  settlementEventIds: string[];
  /** Records for it on the settlements topic, duplicates included. */
  settlementRecords: number;
  /** After settlement: the money state its scenario ends in (refunded, charged back), `null` for the others. */
  expectedMoneyState: string | null;
  /** Its money state in `read_model.transaction_status` (`none` when nothing moved). */
  observedMoneyState: string | null;
}

/**
 * One event of an entitlement stream in the ledger (a grant, a revocation or a reinstatement):
 * its customer-facing id, the payment it concerns and its place in the stream.
 */
export interface GrantFact {
  eventId: string;
  userId: string;
  /** `EntitlementGranted`, `EntitlementRevoked` or `EntitlementReinstated`. */
  type: string;
  reference: string;
  /** Its revision in the user's entitlement stream. */
  revision: number;
  /** ISO 8601. */
  expiresAt: string;
}

/**
 * One registered checkout of a scenario whose load went both ways in (the checkout API and the
 * checkout commands topic): how it came, whom ingestion recorded as its submitter, and its
 * registration's records.
 */
export interface RegistrationFact {
  reference: string;
  via: 'http' | 'kafka';
  /** `ingestion.checkouts.submitted_by` (`api_key:<key id>`, `kafka:<producer>`); `null` without a row. */
  submittedBy: string | null;
  /** Distinct event ids of the `CheckoutRegistered` records for it on the transaction-events topic. */
  registeredEventIds: string[];
  /** Those records, repeats included. */
  registeredRecords: number;
}

/** One command the load produced to the checkout commands topic, with every result record answering it. */
export interface CommandFact {
  eventId: string;
  /** `RegisterCheckout`, `CompleteCheckout`. */
  type: string;
  reference: string;
  /** The records on the results topic whose `causation_id` is this command's event id: each one's event id and outcome. */
  results: Array<{ eventId: string; outcome: string }>;
}

/** What a scenario whose load sends commands over Kafka adds to its facts. */
export interface CommandFacts {
  /** The `settle-producer` header the load sent. */
  producer: string;
  registrations: RegistrationFact[];
  commands: CommandFact[];
  /** Result records for the scenario's references answering no command the load sent. */
  strayResults: number;
}

/** Everything the invariants look at, for one scenario's checkouts. */
export interface ChaosFacts {
  checkouts: CheckoutFact[];
  /** Both hash chains of the whole ledger: `null` when they verify, else the first break. */
  chainBreak: string | null;
  grants: GrantFact[];
  /** Business-logic runs at the customer backend per event id (`entitlement_runs`). */
  customerRuns: Record<string, number>;
  /** The customer backend's access expiry per user (ISO 8601), for the scenario's users. */
  customerExpiry: Record<string, string>;
  /** Webhooks answered 200 by ingestion, as SHA-256 of their bodies (those the load sent itself). */
  acknowledgedWebhooks: string[];
  /** Signature-valid webhooks in ingestion's inbox for the scenario's references (SHA-256 of the body). */
  inboxWebhooks: string[];
  /** `ProviderWebhookReceived` records on the transaction-events topic (their `body_sha256`). */
  publishedWebhooks: string[];
  /** Rows waiting in each app's outbox. */
  outboxBacklog: Record<string, number>;
  /** Deliveries of the scenario's grants not yet delivered (pending), and events not processed at the customer backend. */
  pendingDeliveries: number;
  unprocessedAtCustomer: number;
  /** Records added to the dead-letter topics during the scenario. */
  deadLetters: { unprocessable: number; deliveries: number };
  /** Secrets found in a log: `<log>: <which secret>` (never the value). */
  secretsInLogs: string[];
  /** Processes that exited without the scenario ending them. */
  unexpectedExits: string[];
  /** From the end of the fault to the first settlement (or delivery) committed after it, milliseconds; `null` when none came. */
  recoveryMs: number | null;
  /** What recovery is measured by: a settlement in the ledger, or (for faults downstream of it) a delivery to the customer. */
  recoveryBy: 'settlement' | 'delivery';
  /** Set when the scenario's load sent commands over the checkout commands topic. */
  commands?: CommandFacts;
}

/** What a scenario expects beyond the defaults. */
export interface Expectations {
  /** Records the dead-letter topics may gain (default none). */
  deadLetters?: { unprocessable: number; deliveries: number };
  /** Recovery target, milliseconds (default 10 000). */
  recoveryTargetMs?: number;
}

/** One row of the invariant table. */
export interface InvariantResult {
  name: string;
  ok: boolean;
  detail: string;
}

const count = <T>(items: readonly T[], keep: (item: T) => boolean) => items.reduce((n, item) => n + (keep(item) ? 1 : 0), 0);

/** Every registered checkout ends in exactly one terminal state, the one its sandbox outcome calls for. */
export function checkStates(facts: Pick<ChaosFacts, 'checkouts'>): InvariantResult {
  const unprocessed = facts.checkouts.filter((c) => c.observedState === null || !(TERMINAL_STATES as readonly string[]).includes(c.observedState));
  const wrong = facts.checkouts.filter((c) => c.observedState !== null && !unprocessed.includes(c) && c.observedState !== c.expectedState);
  const example = [...unprocessed, ...wrong][0];
  return {
    name: 'checkouts in the expected state',
    ok: unprocessed.length === 0 && wrong.length === 0,
    detail:
      `${facts.checkouts.length - unprocessed.length - wrong.length}/${facts.checkouts.length} expected, ${unprocessed.length} unprocessed, ${wrong.length} other` +
      (example ? ` (e.g. ${example.reference} [${example.outcome}]: ${example.observedState ?? 'none'})` : ''),
  };
}

/** Exactly one `TransactionSettled` per settled checkout, none for the others. */
export function checkLedgerSettlements(facts: Pick<ChaosFacts, 'checkouts'>): InvariantResult {
  const settledOnes = facts.checkouts.filter((c) => c.expectedState === 'SETTLED_CONSENSUS');
  const others = facts.checkouts.filter((c) => c.expectedState !== 'SETTLED_CONSENSUS');
  const settledCount = (c: CheckoutFact) => count(c.ledgerEvents, (e) => e === 'TransactionSettled');
  const missing = count(settledOnes, (c) => settledCount(c) === 0);
  const doubled = count(facts.checkouts, (c) => settledCount(c) > 1);
  const spurious = count(others, (c) => settledCount(c) > 0);
  return {
    name: 'one ledger settlement per settled checkout',
    ok: missing === 0 && doubled === 0 && spurious === 0,
    detail: `${settledOnes.length} settled: ${missing} missing, ${doubled} doubled; ${spurious} of ${others.length} others settled`,
  };
}

/** Both hash chains of the ledger verify. */
export function checkChains(facts: Pick<ChaosFacts, 'chainBreak'>): InvariantResult {
  return { name: 'hash chains verify', ok: facts.chainBreak === null, detail: facts.chainBreak ?? 'stream and global chains hold' };
}

/**
 * The settlements topic carries one distinct record per event of a transaction stream: a
 * `SettlementRecorded` per outcome, a `MoneyMovementRecorded` per money fact after it (a record
 * repeated with its event id, a relay's re-publication, is counted but allowed: consumers
 * de-duplicate by event id).
 */
export function checkSettlementEvents(facts: Pick<ChaosFacts, 'checkouts'>): InvariantResult {
  let ledger = 0;
  let distinct = 0;
  let records = 0;
  let mismatched = 0;
  for (const c of facts.checkouts) {
    ledger += c.ledgerEvents.length;
    distinct += c.settlementEventIds.length;
    records += c.settlementRecords;
    if (c.settlementEventIds.length !== c.ledgerEvents.length) mismatched += 1;
  }
  return {
    name: 'settlement events equal ledger outcomes',
    ok: mismatched === 0,
    detail: `${ledger} ledger outcomes, ${distinct} distinct events, ${records - distinct} duplicate records, ${mismatched} checkouts differ`,
  };
}

/**
 * Each entitlement event's id (grants and revocations) ran the customer's business logic exactly
 * once; each user's expiry there is the ledger's: that of the highest revision of the user's stream.
 */
export function checkEntitlements(facts: Pick<ChaosFacts, 'grants' | 'customerRuns' | 'customerExpiry'>): InvariantResult {
  const never = count(facts.grants, (g) => (facts.customerRuns[g.eventId] ?? 0) === 0);
  const twice = count(facts.grants, (g) => (facts.customerRuns[g.eventId] ?? 0) > 1);
  const granted = new Set(facts.grants.map((g) => g.eventId));
  const unknown = count(Object.keys(facts.customerRuns), (id) => !granted.has(id));
  const last = new Map<string, GrantFact>();
  for (const g of facts.grants) if ((last.get(g.userId)?.revision ?? -1) < g.revision) last.set(g.userId, g);
  let stale = 0;
  for (const [user, g] of last) {
    const seen = facts.customerExpiry[user];
    if (seen === undefined || Date.parse(seen) !== Date.parse(g.expiresAt)) stale += 1;
  }
  const revocations = count(facts.grants, (g) => g.type === 'EntitlementRevoked');
  return {
    name: "entitlement events ran once, expiry is the ledger's",
    ok: never === 0 && twice === 0 && unknown === 0 && stale === 0,
    detail: `${facts.grants.length} events (${revocations} revocations): ${never} never ran, ${twice} ran twice or more, ${unknown} unknown ran; ${stale} of ${last.size} users with another expiry`,
  };
}

/**
 * Every payment refunded or charged back after it settled ends with that money state in the
 * ledger's read model, and exactly one revocation of its grant (docs/state-machine.md, "The money
 * after settlement"); no other payment's grant was revoked.
 */
export function checkMoneyAfterSettlement(facts: Pick<ChaosFacts, 'checkouts' | 'grants'>): InvariantResult {
  const moved = facts.checkouts.filter((c) => c.expectedMoneyState !== null);
  const revoked = new Map<string, number>();
  for (const g of facts.grants) if (g.type === 'EntitlementRevoked') revoked.set(g.reference, (revoked.get(g.reference) ?? 0) + 1);
  const wrongState = moved.filter((c) => c.observedMoneyState !== c.expectedMoneyState);
  const notRevokedOnce = moved.filter((c) => revoked.get(c.reference) !== 1);
  const movedRefs = new Set(moved.map((c) => c.reference));
  const spurious = count([...revoked.keys()], (reference) => !movedRefs.has(reference));
  const example = [...wrongState, ...notRevokedOnce][0];
  return {
    name: 'money after settlement recorded, grant revoked once',
    ok: wrongState.length === 0 && notRevokedOnce.length === 0 && spurious === 0,
    detail:
      `${moved.length} refunded or charged back: ${wrongState.length} with another money state, ${notRevokedOnce.length} not revoked exactly once; ${spurious} other grants revoked` +
      (example ? ` (e.g. ${example.reference}: ${example.observedMoneyState ?? 'none'}, ${revoked.get(example.reference) ?? 0} revocations)` : ''),
  };
}

/** Every webhook answered 200 is in the inbox, and every inbox webhook reached the topic. */
export function checkWebhooks(facts: Pick<ChaosFacts, 'acknowledgedWebhooks' | 'inboxWebhooks' | 'publishedWebhooks'>): InvariantResult {
  const inbox = new Set(facts.inboxWebhooks);
  const published = new Set(facts.publishedWebhooks);
  const acknowledged = new Set(facts.acknowledgedWebhooks);
  const notStored = count([...acknowledged], (h) => !inbox.has(h));
  const notPublished = count([...inbox], (h) => !published.has(h));
  return {
    name: 'no acknowledged webhook lost',
    ok: notStored === 0 && notPublished === 0,
    detail: `${inbox.size} stored (${acknowledged.size} sent by the load answered 200): ${notStored} of those not stored, ${notPublished} stored but not published`,
  };
}

/** Nothing waits in an outbox or for delivery, and the dead-letter topics gained only what the scenario expects. */
export function checkBacklog(
  facts: Pick<ChaosFacts, 'outboxBacklog' | 'pendingDeliveries' | 'unprocessedAtCustomer' | 'deadLetters'>,
  expected: Expectations = {},
): InvariantResult {
  const stuck = Object.entries(facts.outboxBacklog).filter(([, n]) => n > 0);
  const dl = expected.deadLetters ?? { unprocessable: 0, deliveries: 0 };
  const dlOk = facts.deadLetters.unprocessable === dl.unprocessable && facts.deadLetters.deliveries === dl.deliveries;
  return {
    name: 'nothing stuck, dead letters as expected',
    ok: stuck.length === 0 && facts.pendingDeliveries === 0 && facts.unprocessedAtCustomer === 0 && dlOk,
    detail:
      `outboxes ${stuck.length === 0 ? 'empty' : stuck.map(([s, n]) => `${s}:${n}`).join(' ')}, ${facts.pendingDeliveries} deliveries pending, ` +
      `${facts.unprocessedAtCustomer} unprocessed at the customer; dead letters ${facts.deadLetters.unprocessable}+${facts.deadLetters.deliveries} (expected ${dl.unprocessable}+${dl.deliveries})`,
  };
}

/** No secret value appears in any log. */
export function checkSecrets(facts: Pick<ChaosFacts, 'secretsInLogs'>): InvariantResult {
  return {
    name: 'no secret in any log',
    ok: facts.secretsInLogs.length === 0,
    detail: facts.secretsInLogs.length === 0 ? 'none found' : facts.secretsInLogs.slice(0, 3).join(', '),
  };
}

/** No process exited that the scenario did not end. */
export function checkExits(facts: Pick<ChaosFacts, 'unexpectedExits'>): InvariantResult {
  return {
    name: 'no app exited on its own',
    ok: facts.unexpectedExits.length === 0,
    detail: facts.unexpectedExits.length === 0 ? 'none' : facts.unexpectedExits.join(', '),
  };
}

/** The first settlement (or delivery) after the fault ended came within the target. */
export function checkRecovery(facts: Pick<ChaosFacts, 'recoveryMs' | 'recoveryBy'>, expected: Expectations = {}): InvariantResult {
  const target = expected.recoveryTargetMs ?? 10_000;
  return {
    name: `recovered within ${target / 1000} s of the fault's end`,
    ok: facts.recoveryMs !== null && facts.recoveryMs <= target,
    detail:
      facts.recoveryMs === null ? `no ${facts.recoveryBy} after the fault` : `first ${facts.recoveryBy} ${(facts.recoveryMs / 1000).toFixed(1)} s after it`,
  };
}

/**
 * Every registered checkout of a load that went both ways in has exactly one registration: one
 * distinct `CheckoutRegistered` on the transaction-events topic (a record repeated with its event
 * id, a relay's re-publication, is counted and allowed), recorded with the submitter of the way
 * it came (`kafka:<producer>` over the commands topic, `api_key:<key id>` over HTTP); and both
 * ways carried some.
 */
export function checkRegistrations(facts: CommandFacts): InvariantResult {
  const regs = facts.registrations;
  const overKafka = count(regs, (r) => r.via === 'kafka');
  const missing = regs.filter((r) => r.registeredEventIds.length === 0);
  const twice = regs.filter((r) => r.registeredEventIds.length > 1);
  const expectedSubmitter = (r: RegistrationFact) =>
    r.via === 'kafka' ? r.submittedBy === `kafka:${facts.producer}` : r.submittedBy?.startsWith('api_key:') === true;
  const otherSubmitter = regs.filter((r) => !expectedSubmitter(r));
  const repeats = regs.reduce((n, r) => n + r.registeredRecords - r.registeredEventIds.length, 0);
  const bothWays = overKafka > 0 && overKafka < regs.length;
  const example = [...missing, ...twice, ...otherSubmitter][0];
  return {
    name: 'each checkout registered once, by its way in',
    ok: missing.length === 0 && twice.length === 0 && otherSubmitter.length === 0 && bothWays,
    detail:
      `${regs.length} checkouts (${overKafka} over Kafka, ${regs.length - overKafka} over HTTP): ${missing.length} without a CheckoutRegistered, ` +
      `${twice.length} registered twice or more, ${otherSubmitter.length} with another submitter; ${repeats} repeated records` +
      (example
        ? ` (e.g. ${example.reference} [${example.via}]: ${example.registeredEventIds.length} registrations, submitted by ${example.submittedBy ?? 'nobody'})`
        : ''),
  };
}

/**
 * Every command the load sent was answered exactly once, `accepted`: one distinct result
 * (event id and outcome) whose `causation_id` is the command's. A batch handled again after a
 * crash would answer its commands a second time, `duplicate` (the same event id, another
 * outcome): counted as answered twice. A record repeated as it was (a relay's re-publication)
 * is counted and allowed, as consumers de-duplicate by event id; no result may answer a command
 * nobody sent.
 */
export function checkCommandResults(facts: CommandFacts): InvariantResult {
  const answers = (c: CommandFact) => new Set(c.results.map((r) => `${r.eventId}|${r.outcome}`));
  const unanswered = facts.commands.filter((c) => c.results.length === 0);
  const twice = facts.commands.filter((c) => answers(c).size > 1);
  const other = facts.commands.filter((c) => answers(c).size === 1 && c.results[0]!.outcome !== 'accepted');
  const repeats = facts.commands.reduce((n, c) => n + c.results.length - answers(c).size, 0);
  const byType = new Map<string, number>();
  for (const c of facts.commands) byType.set(c.type, (byType.get(c.type) ?? 0) + 1);
  const example = [...unanswered, ...twice, ...other][0];
  return {
    name: 'each command answered once, accepted',
    ok: unanswered.length === 0 && twice.length === 0 && other.length === 0 && facts.strayResults === 0 && facts.commands.length > 0,
    detail:
      `${facts.commands.length} commands (${[...byType].map(([type, n]) => `${n} ${type}`).join(', ') || 'none'}): ` +
      `${facts.commands.length - unanswered.length - twice.length - other.length} accepted once, ${unanswered.length} unanswered, ` +
      `${twice.length} answered twice or more, ${other.length} answered otherwise; ${repeats} repeated records, ${facts.strayResults} results of no command sent` +
      (example ? ` (e.g. ${example.type} ${example.reference}: ${example.results.map((r) => r.outcome).join(', ') || 'no result'})` : ''),
  };
}

/** Every invariant, in table order. */
export function checkInvariants(facts: ChaosFacts, expected: Expectations = {}): InvariantResult[] {
  return [
    checkStates(facts),
    checkLedgerSettlements(facts),
    checkChains(facts),
    checkSettlementEvents(facts),
    checkEntitlements(facts),
    checkMoneyAfterSettlement(facts),
    checkWebhooks(facts),
    checkBacklog(facts, expected),
    checkSecrets(facts),
    checkExits(facts),
    checkRecovery(facts, expected),
    ...(facts.commands ? [checkRegistrations(facts.commands), checkCommandResults(facts.commands)] : []),
  ];
}

/**
 * The secrets found in a log, by name: each value of `secrets` (at least 8 characters, so that
 * short test values cannot match by chance) that occurs in `text`.
 */
export function secretsIn(text: string, secrets: Readonly<Record<string, string>>): string[] {
  return Object.entries(secrets)
    .filter(([, value]) => value.length >= 8 && text.includes(value))
    .map(([name]) => name);
}

/** The invariant table as text: a title line, a header, one line per invariant. */
export function formatTable(title: string, results: readonly InvariantResult[]): string {
  const rows = results.map((r) => [r.name, r.ok ? 'ok' : 'FAILED', r.detail]);
  const header = ['invariant', 'result', 'detail'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [title, line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

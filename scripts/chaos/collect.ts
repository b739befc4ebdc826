import { createKafka, topicNames } from '@settle/messaging';
import { PostgresLedger, verifyLedger } from '@settle/ledger';
import { createLogger } from '@settle/platform';
import { readTopics, type PublishedMessage, type StackApp } from '@settle/testing';
import type { ChaosBed } from './bed.js';
import type { SentCommand } from './commands.js';
import { secretsIn, TERMINAL_STATES, type ChaosFacts, type CheckoutFact, type CommandFacts, type GrantFact } from './invariants.js';
import type { AfterSettlementScenario } from '../demo/scenarios.js';
import type { LoadedCheckout } from './load.js';

const OUTBOXES = ['ingestion', 'verifier', 'ledger', 'sweeper', 'dispatcher'] as const;
const APPS_OF_STACK: readonly StackApp[] = ['provider-sandbox', 'ingestion', 'verifier', 'ledger-projector', 'sweeper', 'dispatcher'];

/** Records on the two dead-letter topics right now (a baseline to count a scenario's additions from). */
export async function deadLetterCounts(bed: ChaosBed): Promise<{ unprocessable: number; deliveries: number }> {
  const topics = topicNames(bed.stack.topicPrefix);
  const admin = createKafka('settle-chaos-admin', bed.stack.kafkaBrokers, createLogger('settle-chaos-admin', 'fatal')).admin();
  await admin.connect();
  try {
    const total = async (topic: string) => (await admin.fetchTopicOffsets(topic)).reduce((n, o) => n + Number(o.high) - Number(o.low), 0);
    return { unprocessable: await total(topics.deadLetter), deliveries: await total(topics.deliveryDeadLetter) };
  } finally {
    await admin.disconnect();
  }
}

/** How far a scenario's checkouts are, read cheaply: what the quiet wait polls. */
export interface Progress {
  /** Registered checkouts without a terminal state. */
  open: number;
  /** Rows in every outbox. */
  outboxRows: number;
  /** Grants of these checkouts in the ledger, recorded by the dispatcher, and processed at the customer backend. */
  grants: number;
  recorded: number;
  processed: number;
  /** Deliveries of these grants still pending. */
  pending: number;
  /** Payments refunded or charged back after they settled whose money state is not in the read model yet. */
  moneyOpen: number;
}

/** Reads a scenario's {@link Progress}. */
export async function progressOf(bed: ChaosBed, checkouts: readonly LoadedCheckout[]): Promise<Progress> {
  const refs = checkouts.filter((c) => c.registered).map((c) => c.reference);
  const db = bed.stack.db;
  const open = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM unnest($1::text[]) r LEFT JOIN read_model.transaction_status s ON s.reference = r WHERE s.state IS NULL OR NOT s.state = ANY($2)`,
    [refs, TERMINAL_STATES],
  );
  const outbox = await db.query<{ n: number }>(OUTBOXES.map((s) => `SELECT count(*)::int AS n FROM ${s}.outbox`).join(' UNION ALL '));
  const grants = await grantIds(bed, refs);
  const recorded = await db.query<{ n: number; pending: number }>(
    `SELECT count(DISTINCT e.event_id)::int AS n, count(*) FILTER (WHERE d.state = 'pending')::int AS pending
       FROM dispatcher.events e LEFT JOIN dispatcher.deliveries d ON d.event_id = e.event_id WHERE e.reference = ANY($1)`,
    [refs],
  );
  const moved = checkouts.filter((c) => c.moneyMoved);
  const money = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM unnest($1::text[], $2::text[]) AS m(reference, expected)
       LEFT JOIN read_model.transaction_status s ON s.reference = m.reference WHERE s.money_state IS DISTINCT FROM m.expected`,
    [moved.map((c) => c.reference), moved.map((c) => (c.outcome as AfterSettlementScenario).expectedMoneyState)],
  );
  const processed = await bed.customer.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM settle_receiver.events WHERE event_id = ANY($1) AND state = 'processed'`,
    [grants.map((g) => g.eventId)],
  );
  return {
    open: open.rows[0]!.n,
    outboxRows: outbox.rows.reduce((n, r) => n + r.n, 0),
    grants: grants.length,
    recorded: recorded.rows[0]!.n,
    processed: processed.rows[0]!.n,
    pending: recorded.rows[0]!.pending,
    moneyOpen: money.rows[0]!.n,
  };
}

/** True when nothing more is expected to move for these checkouts. */
export function isQuiet(p: Progress): boolean {
  return p.open === 0 && p.outboxRows === 0 && p.grants === p.recorded && p.processed === p.grants && p.pending === 0 && p.moneyOpen === 0;
}

/** The ledger's entitlement events (grants, revocations, reinstatements) of these references. */
async function grantIds(bed: ChaosBed, refs: readonly string[]): Promise<GrantFact[]> {
  const { rows } = await bed.stack.db.query<{ event_id: string; event_type: string; reference: string; revision: string; user_id: string; expires_at: string }>(
    `SELECT event_id::text, event_type, data->>'reference' AS reference, revision, data->>'user_id' AS user_id, data->>'expires_at' AS expires_at
       FROM ledger.events
      WHERE event_type IN ('EntitlementGranted', 'EntitlementRevoked', 'EntitlementReinstated') AND data->>'reference' = ANY($1)`,
    [refs],
  );
  return rows.map((r) => ({
    eventId: r.event_id,
    type: r.event_type,
    reference: r.reference,
    revision: Number(r.revision),
    userId: r.user_id,
    expiresAt: r.expires_at,
  }));
}

/**
 * When the first settlement (a `TransactionSettled` committed to the ledger) or delivery (an
 * entitlement event delivered to the customer endpoint) happened at or after `since` (epoch
 * milliseconds), or `null` when none did yet.
 */
export async function firstProgressSince(bed: ChaosBed, by: 'settlement' | 'delivery', since: number): Promise<Date | null> {
  const first = await bed.stack.db.query<{ at: Date | null }>(
    by === 'settlement'
      ? `SELECT min(recorded_at) AS at FROM ledger.events WHERE event_type = 'TransactionSettled' AND recorded_at >= $1`
      : `SELECT min(delivered_at) AS at FROM dispatcher.deliveries WHERE delivered_at >= $1`,
    [new Date(since)],
  );
  return first.rows[0]!.at;
}

/** What {@link collectFacts} needs to know of the scenario beyond its checkouts. */
export interface CollectContext {
  /** Webhooks the scenario posted itself and ingestion answered 200 (SHA-256 of the bodies). */
  acknowledgedWebhooks: string[];
  /** Dead-letter counts before the scenario. */
  deadLettersBefore: { unprocessable: number; deliveries: number };
  /** When the fault ended (epoch milliseconds). */
  faultEndedAt: number;
  /** What recovery is measured by (default a settlement). */
  recoveryBy?: 'settlement' | 'delivery';
  /** The commands the load sent over the checkout commands topic, and the producer it named, when it sent any. */
  commands?: { producer: string; sent: readonly SentCommand[] };
}

/**
 * Reads every fact the invariants need for a scenario's registered checkouts: states and
 * ledger streams, the whole ledger's hash chains, the settlements and transaction-events
 * topics, grants and their runs at the customer backend, the webhook inbox, outboxes,
 * deliveries, dead-letter topics, every log of the stack, which apps run, and the first
 * settlement after the fault; for a load that sent commands over Kafka (`context.commands`),
 * each registration's way in and submitter, and the results topic's answers to the commands.
 */
export async function collectFacts(bed: ChaosBed, all: readonly LoadedCheckout[], context: CollectContext): Promise<ChaosFacts> {
  const { stack, customer } = bed;
  const db = stack.db;
  const checkouts = all.filter((c) => c.registered);
  const refs = checkouts.map((c) => c.reference);
  const statusRows = (
    await db.query<{ reference: string; state: string; money_state: string }>(
      'SELECT reference, state, money_state FROM read_model.transaction_status WHERE reference = ANY($1)',
      [refs],
    )
  ).rows;
  const states = new Map(statusRows.map((r) => [r.reference, r.state]));
  const moneyStates = new Map(statusRows.map((r) => [r.reference, r.money_state]));
  const ledger = new Map(
    (
      await db.query<{ stream_id: string; events: string[] }>(
        'SELECT stream_id, array_agg(event_type ORDER BY revision) AS events FROM ledger.events WHERE stream_id = ANY($1) GROUP BY stream_id',
        [refs.map((r) => `transaction-${r}`)],
      )
    ).rows.map((r) => [r.stream_id.slice('transaction-'.length), r.events]),
  );
  const onTopics = await readTopics(stack.kafkaBrokers, stack.registryUrl, stack.topicPrefix, ['settlements', 'transactionEvents']);
  const wanted = new Set(refs);
  const settlementIds = new Map<string, string[]>();
  const publishedWebhooks: string[] = [];
  for (const m of onTopics) {
    const reference = m.payload.reference;
    if (!reference || !wanted.has(reference)) continue;
    if (m.type === 'SettlementRecorded' || m.type === 'MoneyMovementRecorded')
      settlementIds.set(reference, [...(settlementIds.get(reference) ?? []), m.payload.event_id]);
    if (m.type === 'ProviderWebhookReceived') publishedWebhooks.push(String(m.payload.body_sha256));
  }
  const facts: CheckoutFact[] = checkouts.map((c) => {
    const ids = settlementIds.get(c.reference) ?? [];
    return {
      reference: c.reference,
      userId: c.userId,
      outcome: c.outcome.name,
      expectedState: c.outcome.expectedState,
      observedState: states.get(c.reference) ?? null,
      ledgerEvents: ledger.get(c.reference) ?? [],
      settlementEventIds: [...new Set(ids)],
      settlementRecords: ids.length,
      expectedMoneyState: c.moneyMoved ? (c.outcome as AfterSettlementScenario).expectedMoneyState : null,
      observedMoneyState: moneyStates.get(c.reference) ?? null,
    };
  });

  const verification = await verifyLedger(new PostgresLedger(db));
  const chainBreak = verification.broken ? JSON.stringify(verification.broken) : null;

  const grants = await grantIds(bed, refs);
  const runs = await customer.db.query<{ event_id: string; n: number }>(
    'SELECT event_id, count(*)::int AS n FROM entitlement_runs WHERE user_id = ANY($1) GROUP BY event_id',
    [[...new Set(checkouts.map((c) => c.userId))]],
  );
  const access = await customer.db.query<{ user_id: string; expires_at: Date }>(
    `SELECT user_id, expires_at FROM settle_receiver.access WHERE user_id = ANY($1) AND entitlement = 'pro-monthly'`,
    [[...new Set(checkouts.map((c) => c.userId))]],
  );
  const inbox = await db.query<{ dedupe_key: string }>(
    `SELECT dedupe_key FROM ingestion.webhook_inbox WHERE provider = 'paystack' AND signature_valid AND reference = ANY($1)`,
    [refs],
  );
  const outboxBacklog: Record<string, number> = {};
  for (const schema of OUTBOXES) outboxBacklog[schema] = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.outbox`)).rows[0]!.n;
  const progress = await progressOf(bed, checkouts);
  const deadNow = await deadLetterCounts(bed);

  const secrets = stack.secretValues();
  const secretsInLogs: string[] = [];
  const unexpectedExits: string[] = [];
  const running = stack.control.pids();
  for (const app of APPS_OF_STACK) {
    for (const instance of stack.control.instances(app)) {
      for (const name of secretsIn(stack.logs(instance), secrets)) secretsInLogs.push(`${instance}: ${name}`);
      if (running[instance] === undefined) unexpectedExits.push(instance);
    }
  }
  for (const name of secretsIn(customer.logs(), secrets)) secretsInLogs.push(`customer-backend: ${name}`);

  const recoveryBy = context.recoveryBy ?? 'settlement';
  const firstAt = await firstProgressSince(bed, recoveryBy, context.faultEndedAt);
  const commands = context.commands ? await commandFacts(bed, checkouts, onTopics, context.commands) : undefined;

  return {
    checkouts: facts,
    chainBreak,
    grants,
    customerRuns: Object.fromEntries(runs.rows.map((r) => [r.event_id, r.n])),
    customerExpiry: Object.fromEntries(access.rows.map((r) => [r.user_id, r.expires_at.toISOString()])),
    acknowledgedWebhooks: context.acknowledgedWebhooks,
    inboxWebhooks: inbox.rows.map((r) => r.dedupe_key),
    publishedWebhooks,
    outboxBacklog,
    pendingDeliveries: progress.pending,
    unprocessedAtCustomer: progress.grants - progress.processed,
    deadLetters: {
      unprocessable: deadNow.unprocessable - context.deadLettersBefore.unprocessable,
      deliveries: deadNow.deliveries - context.deadLettersBefore.deliveries,
    },
    secretsInLogs,
    unexpectedExits,
    recoveryMs: firstAt ? Math.max(0, firstAt.getTime() - context.faultEndedAt) : null,
    recoveryBy,
    ...(commands ? { commands } : {}),
  };
}

/**
 * The facts of a load that went both ways in: each registered checkout's way, its submitter in
 * `ingestion.checkouts` and its `CheckoutRegistered` records (from the transaction-events
 * records already read), and every record of the results topic answering the load's commands.
 */
async function commandFacts(
  bed: ChaosBed,
  checkouts: readonly LoadedCheckout[],
  transactionRecords: readonly PublishedMessage[],
  sent: { producer: string; sent: readonly SentCommand[] },
): Promise<CommandFacts> {
  const refs = checkouts.map((c) => c.reference);
  const submitters = new Map(
    (
      await bed.stack.db.query<{ reference: string; submitted_by: string | null }>(
        'SELECT reference, submitted_by FROM ingestion.checkouts WHERE reference = ANY($1)',
        [refs],
      )
    ).rows.map((r) => [r.reference, r.submitted_by]),
  );
  const registered = new Map<string, string[]>();
  for (const m of transactionRecords) {
    if (m.type === 'CheckoutRegistered' && m.payload.reference)
      registered.set(m.payload.reference, [...(registered.get(m.payload.reference) ?? []), m.payload.event_id]);
  }
  const { stack } = bed;
  const results = await readTopics(stack.kafkaBrokers, stack.registryUrl, stack.topicPrefix, ['checkoutResults']);
  const answering = new Map<string, Array<{ eventId: string; outcome: string }>>();
  const wanted = new Set(refs);
  const commandIds = new Set(sent.sent.map((c) => c.eventId));
  let strayResults = 0;
  for (const m of results) {
    if (m.type !== 'CheckoutCommandResult') continue;
    const { causation_id: causationId, outcome } = m.payload as unknown as { causation_id: string; outcome: string };
    if (!commandIds.has(causationId)) {
      if (m.payload.reference && wanted.has(m.payload.reference)) strayResults += 1;
      continue;
    }
    answering.set(causationId, [...(answering.get(causationId) ?? []), { eventId: m.payload.event_id, outcome }]);
  }
  return {
    producer: sent.producer,
    registrations: checkouts.map((c) => {
      const ids = registered.get(c.reference) ?? [];
      return {
        reference: c.reference,
        via: c.via,
        submittedBy: submitters.get(c.reference) ?? null,
        registeredEventIds: [...new Set(ids)],
        registeredRecords: ids.length,
      };
    }),
    commands: sent.sent.map((c) => ({ eventId: c.eventId, type: c.type, reference: c.reference, results: answering.get(c.eventId) ?? [] })),
    strayResults,
  };
}

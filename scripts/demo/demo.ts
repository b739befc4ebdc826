/**
 * Drives the running stack with checkouts across every sandbox outcome, waits for Settle to
 * settle them (dropped webhooks only the sweeper can recover included) and for the example
 * customer backend to receive the entitlement events, then prints a reconciliation table: per
 * outcome, expected versus observed state, entitlement and ledger entries, the entitlement
 * events expected and delivered, the business-logic runs at the customer backend and whether
 * its access expiry matches the ledger; and how many checkouts were lost.
 *
 * Beside the checkouts, some payments are made at the sandbox and never registered ("paid, never
 * registered": the upstream service crashed before `POST /v1/checkouts`): each must end as an
 * unmatched payment with the amount paid (docs/unmatched-payments.md). `Unseen payments` counts
 * the payments the sandbox holds as paid (declines aside) that are neither in the ledger as a
 * checkout's outcome nor listed as an unmatched payment.
 *
 * Each checkout is its own user's, but for "paid twice": users who pay twice for the same
 * entitlement within seconds (a double click). Both payments settle (the second renews the
 * access: `subscription_renewed`), and the second must be flagged as a possible duplicate charge
 * at once, a reconciliation exception (docs/reconciliation.md).
 *
 * Some payments' money goes back after they settled ("paid, then refunded", "paid, then reversed
 * (no notification)", "paid, then disputed and lost"): the refund and the dispute notify Settle,
 * the reversal does not (the reconciliation run finds it); each must end with its money state in
 * the ledger and its grant revoked, the revocation delivered to the customer backend and run once.
 *
 * Some payments of a lower amount are accepted as paid by two people ("lower amount, accepted by
 * two admins", docs/state-machine.md, "Resolving a State Mismatch"): the demo creates a console
 * operator and a console admin for its run, the operator proposes in the console's API and the
 * admin approves; each must end still in State Mismatch with `resolution` `accepted_as_paid`,
 * `SettledByOverride` in its ledger stream, and its grant delivered and run once.
 *
 * Last, a reconciliation run over the demo's window compares the sandbox's own list of
 * transactions with Settle's records, and the demo prints its counts per class. The customer
 * backend's access must equal the ledger's for every user, revoked ones included.
 *
 * Two ways in (docs/api.md): of the checkouts across the sandbox outcomes, every other round of
 * the outcomes (8 of each 17) is registered and completed over Kafka, through the example checkout
 * producer (examples/checkout-producer: `RegisterCheckout` and `CompleteCheckout` on
 * `settle.checkout-commands.v1`, each answer read from `settle.checkout-results.v1`), the rest
 * through the HTTP API; the table shows each outcome per transport. Every Kafka command must be
 * answered `accepted`.
 *
 * Receipts (docs/ledger.md, "Receipts"): the customer backend keeps each delivered event's receipt
 * with its payload; the demo fetches the proof of the earliest one from the dispatcher with the
 * merchant's key and verifies it offline with the receiver kit and the public keys the ledger
 * projector published in its checkpoint sink.
 *
 * Environment: INGESTION_URL, SANDBOX_URL, SETTLE_API_KEY, SETTLE_ADMIN_API_KEY, DATABASE_URL,
 * DISPATCHER_URL, LEDGER_CHECKPOINT_DIR, LEDGER_ORIGIN (default settle.dev/ledger/local),
 * KAFKA_BROKERS, SCHEMA_REGISTRY_URL, SETTLE_TOPIC_PREFIX (default settle),
 * SWEEPER_INACTIVITY_MS, CUSTOMER_URL, CUSTOMER_DATABASE_URL, CONSOLE_URL, DEMO_CHECKOUTS (default 221),
 * DEMO_UNREGISTERED (default 12), DEMO_PAID_TWICE (default 6), DEMO_AFTER_SETTLEMENT (per kind,
 * default 3), DEMO_ACCEPTED_MISMATCH (default 2), DEMO_CONCURRENCY (default 16).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ConsoleClient, IngestionClient, SandboxClient, type CheckoutBody, type CheckoutStatus, type ReconciliationRunView } from '../ops/clients.js';
// The receiver kit as customers install it (it ships on its own, so it is not a workspace alias).
import { fetchReceiptProof, receiptOf, verifyReceipt, type Receipt } from '../../libs/receiver/src/index.js';
import { connectExampleProducer, type SentCommand } from './checkout-producer.js';
import { ACCEPTED_MISMATCH, AFTER_SETTLEMENT, PAID_TWICE, SCENARIOS, type AfterSettlementScenario, type Scenario } from './scenarios.js';

/**
 * Receipts: how many of the events the customer backend holds carry one, and whether the earliest
 * (by ledger position) verifies offline against a signed checkpoint, asking again while no
 * checkpoint covers it yet (at most 90 s: checkpoints are signed every minute).
 */
async function checkReceipts(
  customer: pg.Pool,
  eventIds: readonly string[],
): Promise<{ held: number; withReceipt: number; earliest: Receipt | null; verdict: string; ok: boolean }> {
  const { rows } = await customer.query<{ payload: Record<string, unknown> }>('SELECT payload FROM settle_receiver.events WHERE event_id = ANY($1::text[])', [
    eventIds,
  ]);
  const receipts = rows.map((r) => receiptOf(r.payload)).filter((r): r is Receipt => r !== null);
  const earliest = [...receipts].sort((a, b) => a.ledgerPosition - b.ledgerPosition)[0] ?? null;
  if (!earliest) return { held: rows.length, withReceipt: 0, earliest, verdict: 'no receipt to verify', ok: false };
  const keysDir = join(env('LEDGER_CHECKPOINT_DIR'), 'keys');
  const keys = readdirSync(keysDir)
    .filter((f) => f.endsWith('.vkey'))
    .map((f) => readFileSync(join(keysDir, f), 'utf8').trim());
  const deadline = Date.now() + 90_000;
  for (;;) {
    const fetched = await fetchReceiptProof({ baseUrl: env('DISPATCHER_URL'), apiKey: env('SETTLE_API_KEY'), eventId: earliest.eventId });
    if (fetched.status === 'proven') {
      const result = verifyReceipt(earliest, fetched.proof, keys, { origin: env('LEDGER_ORIGIN', 'settle.dev/ledger/local') });
      const verdict = result.verified
        ? `verified offline against signed checkpoint ${result.checkpoint.size} (key ${result.checkpoint.key})`
        : `NOT verified: ${result.reason} (${result.message})`;
      return { held: rows.length, withReceipt: receipts.length, earliest, verdict, ok: result.verified };
    }
    if (fetched.status === 'unknown' || Date.now() > deadline) {
      return { held: rows.length, withReceipt: receipts.length, earliest, verdict: `no proof (${fetched.status})`, ok: false };
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(fetched.retryAfterMs, 5_000)));
  }
}

function env(name: string, fallback?: string): string {
  const value = process.env[name] ?? fallback;
  if (!value) throw new Error(`${name} is required`);
  return value;
}

/** How a checkout was registered and completed: Settle's HTTP API, or commands on the Kafka topic. */
type Transport = 'HTTP' | 'Kafka';

/** One Kafka command's answer as the demo read it (`missing`: none within the wait). */
interface CommandAnswer {
  command: SentCommand['command'];
  outcome: string;
  /** The refusal's code, when refused. */
  code: string | null;
  /** From the send to the answer read, milliseconds (the wait, when missing). */
  ms: number;
}

/** How long the demo waits for each Kafka command's answer, milliseconds. */
const COMMAND_RESULT_TIMEOUT_MS = 30_000;

interface Checkout {
  reference: string;
  userId: string;
  scenario: Scenario;
  transport: Transport;
  /** Over Kafka: each command's answer. */
  answers?: CommandAnswer[];
  status?: CheckoutStatus;
  ledgerEntries?: number;
  /** Entitlement events the dispatcher received for this checkout's payment (0 or 1). */
  grants?: number;
  /** Of those, delivered to the customer backend (answered 2xx). */
  delivered?: number;
  /** Business-logic runs at the customer backend for this checkout's grant. */
  runs?: number;
  /** After settlement: whether the ledger revoked the grant and the revocation ran once at the customer backend. */
  revokedOnce?: boolean;
}

async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const TERMINAL = new Set(['SETTLED_CONSENSUS', 'FAILED_DECLINED', 'STATE_MISMATCH']);

/** A payment made at the sandbox and never registered. */
interface Unregistered {
  reference: string;
  /** Minor units. */
  amount: number;
}

async function main(): Promise<void> {
  const ingestion = new IngestionClient(env('INGESTION_URL'), env('SETTLE_API_KEY'));
  const sandbox = new SandboxClient(env('SANDBOX_URL'));
  const total = Number(env('DEMO_CHECKOUTS', '221'));
  const concurrency = Number(env('DEMO_CONCURRENCY', '16'));
  const unregisteredCount = Number(env('DEMO_UNREGISTERED', '12'));
  const paidTwiceCount = Number(env('DEMO_PAID_TWICE', '6'));
  const afterSettlementCount = Number(env('DEMO_AFTER_SETTLEMENT', '3'));
  const acceptedCount = Number(env('DEMO_ACCEPTED_MISMATCH', '2'));
  const admin = new IngestionClient(env('INGESTION_URL'), env('SETTLE_ADMIN_API_KEY'));
  const inactivityMs = Number(env('SWEEPER_INACTIVITY_MS', '45000'));
  const run = randomBytes(3).toString('hex');
  const checkouts: Checkout[] = [
    // Every other round of the outcomes over Kafka: each outcome, both ways in.
    ...Array.from({ length: total }, (_, i): Checkout => ({
      reference: `ref_demo_${run}_${String(i).padStart(4, '0')}`,
      userId: `user-demo-${run}-${String(i).padStart(4, '0')}`,
      scenario: SCENARIOS[i % SCENARIOS.length]!,
      transport: Math.floor(i / SCENARIOS.length) % 2 === 1 ? 'Kafka' : 'HTTP',
    })),
    // Paid twice: the same user, the same entitlement, two checkouts paid within seconds.
    ...Array.from({ length: 2 * paidTwiceCount }, (_, i): Checkout => ({
      reference: `ref_demo_${run}_twice_${String(Math.floor(i / 2)).padStart(3, '0')}_${i % 2 === 0 ? 'a' : 'b'}`,
      userId: `user-demo-${run}-twice-${String(Math.floor(i / 2)).padStart(3, '0')}`,
      scenario: PAID_TWICE,
      transport: 'HTTP',
    })),
    ...AFTER_SETTLEMENT.flatMap((scenario) =>
      Array.from({ length: afterSettlementCount }, (_, i): Checkout => ({
        reference: `ref_demo_${run}_${scenario.action}_${String(i).padStart(3, '0')}`,
        userId: `user-demo-${run}-${scenario.action}-${String(i).padStart(3, '0')}`,
        scenario,
        transport: 'HTTP',
      })),
    ),
    ...Array.from({ length: acceptedCount }, (_, i): Checkout => ({
      reference: `ref_demo_${run}_accepted_${String(i).padStart(3, '0')}`,
      userId: `user-demo-${run}-accepted-${String(i).padStart(3, '0')}`,
      scenario: ACCEPTED_MISMATCH,
      transport: 'HTTP',
    })),
  ];
  const unregistered: Unregistered[] = Array.from({ length: unregisteredCount }, (_, i) => ({
    reference: `ref_demo_${run}_unreg_${String(i).padStart(3, '0')}`,
    amount: 100_000 + Math.floor(Math.random() * 900) * 100,
  }));

  const started = Date.now();
  console.log(
    `Demo run ${run}: ${total} checkouts across ${SCENARIOS.length} outcomes, ${paidTwiceCount} users paying twice, ` +
      `${afterSettlementCount} payments each refunded, reversed and charged back after settling, ${acceptedCount} lower amounts accepted by two admins, ` +
      `sweeper threshold ${inactivityMs} ms`,
  );
  const overKafka = checkouts.filter((c) => c.transport === 'Kafka');
  const { producer, isTimeout } = await connectExampleProducer({
    brokers: env('KAFKA_BROKERS').split(','),
    registryUrl: env('SCHEMA_REGISTRY_URL'),
    topicPrefix: env('SETTLE_TOPIC_PREFIX', 'settle'),
    clientId: 'settle-demo',
  });
  console.log(
    `${overKafka.length} of them registered and completed over Kafka by the example checkout producer (connected in ${((Date.now() - started) / 1000).toFixed(1)} s), the rest over HTTP`,
  );
  /** Sends one Kafka command and waits for its answer; a refusal or no answer is recorded, for the checks at the end. */
  const command = async (c: Checkout, send: () => Promise<SentCommand>): Promise<void> => {
    const sending = Date.now();
    const sent = await send();
    let answer: CommandAnswer;
    try {
      const result = await sent.result({ timeoutMs: COMMAND_RESULT_TIMEOUT_MS });
      answer = { command: sent.command, outcome: result.outcome, code: result.problem?.code ?? null, ms: Date.now() - sending };
    } catch (error) {
      if (!isTimeout(error)) throw error;
      answer = { command: sent.command, outcome: 'missing', code: null, ms: Date.now() - sending };
    }
    (c.answers ??= []).push(answer);
  };
  // A user's second payment follows the first (a double click): in order, so both settle one after the other.
  const firsts = checkouts.filter((c) => !c.reference.endsWith('_b'));
  const seconds = checkouts.filter((c) => c.reference.endsWith('_b'));
  const submit = async (c: Checkout) => {
    const amount = 100_000 + Math.floor(Math.random() * 900) * 100;
    const email = `customer.${c.reference}@example.com`;
    const created = await sandbox.create({ reference: c.reference, amount, currency: 'NGN', email, behaviour: c.scenario.behaviour });
    if (created.status !== 201) throw new Error(`sandbox refused ${c.reference}: ${JSON.stringify(created.body)}`);
    const body: CheckoutBody = {
      provider: 'paystack',
      reference: c.reference,
      amount,
      currency: 'NGN',
      user_id: c.userId,
      customer: { email },
      entitlement: 'pro-monthly',
      access_period: 'P1M',
    };
    if (c.transport === 'Kafka') {
      // As an upstream service does: register, the client pays, complete; each answer read before going on.
      await command(c, () => producer.register(body, { correlationId: c.reference }));
      await sandbox.pay(c.reference);
      await command(c, () => producer.complete(c.reference, { correlationId: c.reference }));
      return;
    }
    const registered = await ingestion.register(body);
    if (registered.status !== 202) throw new Error(`ingestion refused ${c.reference}: ${JSON.stringify(registered.body)}`);
    await sandbox.pay(c.reference);
    const completed = await ingestion.complete(c.reference);
    if (completed.status !== 202) throw new Error(`complete refused ${c.reference}`);
  };
  try {
    await pool(firsts, concurrency, submit);
    await pool(seconds, concurrency, submit);
  } finally {
    await producer.close();
  }
  // Paid at the provider, never registered: only their signed webhooks tell Settle.
  await pool(unregistered, concurrency, async (u) => {
    const created = await sandbox.create({ reference: u.reference, amount: u.amount, currency: 'NGN', email: `customer.${u.reference}@example.com` });
    if (created.status !== 201) throw new Error(`sandbox refused ${u.reference}: ${JSON.stringify(created.body)}`);
    await sandbox.pay(u.reference);
  });
  console.log(`Submitted in ${((Date.now() - started) / 1000).toFixed(1)} s; waiting for outcomes...`);

  // Held-in-review payments need two sweeps (one to find them clearing, one to find them cleared).
  const deadline = Date.now() + 3 * inactivityMs + 90_000;
  for (;;) {
    await pool(
      checkouts.filter((c) => !c.status || !TERMINAL.has(c.status.state) || c.status.state !== c.scenario.expectedState),
      concurrency,
      async (c) => {
        const answer = await ingestion.status(c.reference);
        if (answer.status === 200) c.status = answer.body;
      },
    );
    const open = checkouts.filter((c) => c.status?.state !== c.scenario.expectedState).length;
    process.stdout.write(
      `\r  ${checkouts.length - open}/${checkouts.length} at their expected outcome after ${((Date.now() - started) / 1000).toFixed(0)} s   `,
    );
    if (open === 0 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  process.stdout.write('\n');

  // After settlement: the money goes back at the provider. A refund and a dispute notify Settle;
  // a reversal does not (the reconciliation run below finds it).
  const moneyBack = checkouts.filter((c): c is Checkout & { scenario: AfterSettlementScenario } => 'action' in c.scenario);
  await pool(moneyBack, concurrency, async (c) => {
    if (c.status?.state !== 'SETTLED_CONSENSUS') return;
    if (c.scenario.action === 'refund') await sandbox.refund(c.reference);
    else if (c.scenario.action === 'reverse') await sandbox.reverse(c.reference);
    else {
      const dispute = await sandbox.dispute(c.reference, { reason: 'fraudulent' });
      if (dispute.status === 201) await sandbox.resolveDispute(dispute.body.id, { outcome: 'lost' });
    }
  });

  // A lower amount paid, accepted as paid by two people through the console.
  const accepted = checkouts.filter((c) => c.scenario === ACCEPTED_MISMATCH && c.status?.state === 'STATE_MISMATCH');
  if (accepted.length > 0) await acceptAsPaid(accepted, run, concurrency, ingestion);

  const db = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 2 });
  const { rows } = await db.query<{ stream_id: string; entries: string }>(
    'SELECT stream_id, count(*) AS entries FROM ledger.events WHERE stream_id = ANY($1::text[]) GROUP BY stream_id',
    [checkouts.map((c) => `transaction-${c.reference}`)],
  );
  const entries = new Map(rows.map((r) => [r.stream_id, Number(r.entries)]));
  for (const c of checkouts) c.ledgerEntries = entries.get(`transaction-${c.reference}`) ?? 0;

  // The payments never registered: recorded as unmatched payments, with the amount paid, after
  // the grace period (the sweeper's window) and one provider query.
  const unmatchedDeadline = Date.now() + 2 * inactivityMs + 60_000;
  let unmatched = new Map<string, { status: string; amount: number | null }>();
  for (;;) {
    unmatched = new Map(
      (
        await db.query<{ reference: string; status: string; amount_minor: string | null }>(
          'SELECT reference, status, amount_minor FROM read_model.unmatched_payments WHERE reference = ANY($1::text[])',
          [unregistered.map((u) => u.reference)],
        )
      ).rows.map((r) => [r.reference, { status: r.status, amount: r.amount_minor === null ? null : Number(r.amount_minor) }]),
    );
    process.stdout.write(`\r  ${unmatched.size}/${unregistered.length} payments never registered found as unmatched payments   `);
    if (unmatched.size >= unregistered.length || Date.now() > unmatchedDeadline) break;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  process.stdout.write('\n');
  const unmatchedOk = unregistered.filter((u) => unmatched.get(u.reference)?.status === 'open' && unmatched.get(u.reference)?.amount === u.amount).length;

  // Entitlements: each settled checkout's grant must reach the customer backend's business
  // logic exactly once, and each user's access expiry there must be the ledger's.
  const customer = new pg.Pool({ connectionString: env('CUSTOMER_DATABASE_URL'), max: 2 });
  const expectedGrants = checkouts.filter((c) => c.scenario.expectedEntitlement === 'UNLOCKED').length;
  const references = checkouts.map((c) => c.reference);
  const grantDeadline = Date.now() + 120_000;
  let grants: Array<{ reference: string; event_id: string; event: string; delivered: boolean }> = [];
  let runs = new Map<string, number>();
  for (;;) {
    grants = (
      await db.query<{ reference: string; event_id: string; event: string; delivered: boolean }>(
        `SELECT e.reference, e.event_id, e.event, bool_or(d.state = 'delivered') AS delivered
           FROM dispatcher.events e LEFT JOIN dispatcher.deliveries d ON d.event_id = e.event_id
          WHERE e.reference = ANY($1::text[]) AND e.event IN ('subscription_started', 'subscription_renewed')
          GROUP BY e.reference, e.event_id, e.event`,
        [references],
      )
    ).rows;
    const ran = await customer.query<{ event_id: string; n: number }>(
      'SELECT event_id, count(*)::int AS n FROM entitlement_runs WHERE event_id = ANY($1::text[]) GROUP BY event_id',
      [grants.map((g) => g.event_id)],
    );
    runs = new Map(ran.rows.map((r) => [r.event_id, r.n]));
    const done = grants.filter((g) => g.delivered && runs.has(g.event_id)).length;
    process.stdout.write(`\r  ${done}/${expectedGrants} entitlement events delivered and processed by the customer backend   `);
    if ((done >= expectedGrants && grants.length >= expectedGrants) || Date.now() > grantDeadline) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  process.stdout.write('\n');
  const byReference = new Map(grants.map((g) => [g.reference, g]));
  for (const c of checkouts) {
    const g = byReference.get(c.reference);
    c.grants = g ? 1 : 0;
    c.delivered = g?.delivered ? 1 : 0;
    c.runs = g ? (runs.get(g.event_id) ?? 0) : 0;
  }

  // Paid twice: one of each user's two payments (the one that settled second) flagged at once as a
  // possible duplicate charge.
  const twiceUsers = [...new Set(checkouts.filter((c) => c.scenario === PAID_TWICE).map((c) => c.userId))];
  const flaggedReferences = new Set(
    (
      await db.query<{ reference: string }>(
        `SELECT reference FROM read_model.reconciliation_exceptions WHERE class = 'possible_duplicate' AND reference = ANY($1::text[])`,
        [checkouts.filter((c) => c.scenario === PAID_TWICE).map((c) => c.reference)],
      )
    ).rows.map((r) => r.reference),
  );
  const flaggedUsers = twiceUsers.filter((user) => checkouts.filter((c) => c.userId === user && flaggedReferences.has(c.reference)).length === 1).length;

  // A reconciliation run over the demo's window: the sandbox's own list against Settle's records.
  let reconciliation: ReconciliationRunView | null = null;
  const requested = await admin.startReconciliation({ provider: 'paystack', since: new Date(started - 60_000).toISOString(), requested_by: 'demo' });
  if (requested.status === 202) {
    const runDeadline = Date.now() + 120_000;
    for (;;) {
      const read = await admin.reconciliationRun(requested.body.run_id);
      if (read.status === 200) reconciliation = read.body;
      process.stdout.write(
        `\r  reconciliation run: ${reconciliation?.status ?? 'requested'}, ${reconciliation?.listed ?? 0} provider transactions compared   `,
      );
      if (reconciliation?.status === 'completed' || reconciliation?.status === 'failed' || Date.now() > runDeadline) break;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    process.stdout.write('\n');
  } else {
    console.log(`reconciliation run refused: ${JSON.stringify(requested.body)}`);
  }
  // After settlement: each payment's money state in the ledger (the reversals were found by the
  // run just above), its grant revoked, the revocation delivered and run once at the customer backend.
  const moneyDeadline = Date.now() + 90_000;
  for (;;) {
    await pool(
      moneyBack.filter((c) => c.status?.money_state !== c.scenario.expectedMoneyState),
      concurrency,
      async (c) => {
        const answer = await ingestion.status(c.reference);
        if (answer.status === 200) c.status = answer.body;
      },
    );
    const revocations = (
      await db.query<{ reference: string; event_id: string; delivered: boolean }>(
        `SELECT e.reference, e.event_id, bool_or(d.state = 'delivered') AS delivered
           FROM dispatcher.events e LEFT JOIN dispatcher.deliveries d ON d.event_id = e.event_id
          WHERE e.reference = ANY($1::text[]) AND e.event = 'subscription_revoked' GROUP BY e.reference, e.event_id`,
        [moneyBack.map((c) => c.reference)],
      )
    ).rows;
    const ran = new Map(
      (
        await customer.query<{ event_id: string; n: number }>(
          'SELECT event_id, count(*)::int AS n FROM entitlement_runs WHERE event_id = ANY($1::text[]) GROUP BY event_id',
          [revocations.map((r) => r.event_id)],
        )
      ).rows.map((r) => [r.event_id, r.n]),
    );
    for (const c of moneyBack) {
      const revoked = revocations.filter((r) => r.reference === c.reference);
      c.revokedOnce = revoked.length === 1 && revoked[0]!.delivered && ran.get(revoked[0]!.event_id) === 1;
    }
    const done = moneyBack.filter((c) => c.status?.money_state === c.scenario.expectedMoneyState && c.revokedOnce).length;
    process.stdout.write(
      `\r  ${done}/${moneyBack.length} payments refunded, reversed or charged back: recorded, revoked and applied by the customer backend   `,
    );
    if (done === moneyBack.length || Date.now() > moneyDeadline) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  process.stdout.write('\n');
  const moneyEntries = new Map(
    (
      await db.query<{ stream_id: string; entries: string }>(
        'SELECT stream_id, count(*) AS entries FROM ledger.events WHERE stream_id = ANY($1::text[]) GROUP BY stream_id',
        [[...moneyBack, ...accepted].map((c) => `transaction-${c.reference}`)],
      )
    ).rows.map((r) => [r.stream_id, Number(r.entries)]),
  );
  for (const c of [...moneyBack, ...accepted]) c.ledgerEntries = moneyEntries.get(`transaction-${c.reference}`) ?? 0;

  const users = [...new Set(checkouts.map((c) => c.userId))];
  const ledgerExpiry = new Map(
    (
      await db.query<{ user_id: string; expires_at: Date }>(
        `SELECT user_id, expires_at FROM read_model.entitlements WHERE user_id = ANY($1::text[]) AND entitlement = 'pro-monthly'`,
        [users],
      )
    ).rows.map((r) => [r.user_id, r.expires_at.toISOString()]),
  );
  let accessMatches = 0;
  for (const user of ledgerExpiry.keys()) {
    const answer = await fetch(`${env('CUSTOMER_URL')}/access/${encodeURIComponent(user)}/pro-monthly`);
    const body = answer.status === 200 ? ((await answer.json()) as { expires_at: string }) : null;
    if (body?.expires_at === ledgerExpiry.get(user)) accessMatches += 1;
  }
  const receipts = await checkReceipts(
    customer,
    grants.map((g) => g.event_id),
  );
  await customer.end();

  const exceptionReferences = new Set(
    (
      await db.query<{ reference: string }>(`SELECT DISTINCT reference FROM read_model.reconciliation_exceptions WHERE reference LIKE $1`, [
        `ref_demo_${run}_%`,
      ])
    ).rows.map((r) => r.reference),
  );
  await db.end();

  const header = ['outcome', 'via', 'n', 'expected state', 'observed', 'entitlement exp/obs', 'ledger exp/obs', 'grants exp/delivered/ran once', 'ok'];
  const lines: string[][] = [];
  let unexpected = 0;
  // Each outcome per transport: the same outcome, whichever way the checkout came in.
  const tableRows = [...SCENARIOS, PAID_TWICE, ...AFTER_SETTLEMENT, ACCEPTED_MISMATCH].flatMap((scenario) =>
    (['HTTP', 'Kafka'] as const).map((transport) => ({ scenario, transport })),
  );
  for (const { scenario, transport } of tableRows) {
    const group = checkouts.filter((c) => c.scenario === scenario && c.transport === transport);
    if (group.length === 0) continue;
    const observedStates = new Map<string, number>();
    const observedEntitlements = new Map<string, number>();
    let ledgerOk = 0;
    let ok = 0;
    for (const c of group) {
      const state = c.status?.state ?? 'UNKNOWN';
      observedStates.set(state, (observedStates.get(state) ?? 0) + 1);
      const ent = c.status?.entitlement_status ?? 'UNKNOWN';
      observedEntitlements.set(ent, (observedEntitlements.get(ent) ?? 0) + 1);
      if (c.ledgerEntries === scenario.expectedLedgerEntries) ledgerOk += 1;
      const grant = scenario.expectedEntitlement === 'UNLOCKED' ? 1 : 0;
      const good =
        state === scenario.expectedState &&
        ent === scenario.expectedEntitlement &&
        c.ledgerEntries === scenario.expectedLedgerEntries &&
        c.grants === grant &&
        c.delivered === grant &&
        c.runs === grant &&
        (!('action' in scenario) || (c.status?.money_state === (scenario as AfterSettlementScenario).expectedMoneyState && c.revokedOnce === true)) &&
        (scenario !== ACCEPTED_MISMATCH || c.status?.resolution === ACCEPTED_MISMATCH.expectedResolution);
      if (good) ok += 1;
      else unexpected += 1;
    }
    const expectedGrantCount = scenario.expectedEntitlement === 'UNLOCKED' ? group.length : 0;
    const sum = (f: (c: Checkout) => number) => group.reduce((n, c) => n + f(c), 0);
    const fmt = (m: Map<string, number>) => [...m].map(([k, v]) => `${k}×${v}`).join(' ');
    lines.push([
      scenario.name + (scenario.needsSweeper ? ' *' : ''),
      transport,
      String(group.length),
      scenario.expectedState,
      fmt(observedStates),
      `${scenario.expectedEntitlement} / ${fmt(observedEntitlements)}`,
      `${scenario.expectedLedgerEntries} / ${ledgerOk === group.length ? scenario.expectedLedgerEntries : `${ledgerOk} of ${group.length} ok`}`,
      `${expectedGrantCount} / ${sum((c) => c.delivered ?? 0)} / ${sum((c) => (c.runs === 1 ? 1 : 0))}`,
      `${ok}/${group.length}`,
    ]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const row = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log('\nReconciliation');
  console.log(row(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const l of lines) console.log(row(l));
  console.log('* recovered by the sweeper alone: no usable webhook ever arrived');
  console.log(
    'after settlement (refunded, reversed, disputed and lost): ok also needs the money state in the ledger and the revocation delivered and run once',
  );
  console.log('accepted by two admins: ok also needs the resolution accepted_as_paid (proposed by an operator, approved by a different admin)\n');
  console.log(
    `paid, never registered: ${unregistered.length}; expected an open unmatched payment with the amount paid; observed ${unmatchedOk}; ok ${unmatchedOk}/${unregistered.length}\n`,
  );
  console.log(
    `paid twice: ${twiceUsers.length} users; expected exactly one of the two payments flagged as a possible duplicate charge (reconciliation exception); observed ${flaggedUsers}; ok ${flaggedUsers}/${twiceUsers.length}`,
  );
  if (reconciliation) {
    const classes = Object.entries(reconciliation.classes)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    console.log(
      `reconciliation run ${reconciliation.run_id}: ${reconciliation.status}; ${reconciliation.listed} provider transactions, ${reconciliation.out_of_scope} out of scope, ${reconciliation.too_recent} too recent; ${classes}; ${reconciliation.exceptions_raised} exceptions raised`,
    );
  }
  console.log('');
  // Lost: a checkout with no terminal outcome in the ledger at all.
  const lost = checkouts.filter((c) => !c.status || !TERMINAL.has(c.status.state) || (c.ledgerEntries ?? 0) === 0).length;
  // Unseen: a payment the sandbox holds as paid (declines aside) that Settle shows nowhere: not as a
  // checkout's outcome in the ledger, not as an unmatched payment, not as a reconciliation exception.
  let unseen = 0;
  const payments = [
    ...checkouts.filter((c) => c.scenario.behaviour.outcome !== 'declined').map((c) => ({ reference: c.reference, inLedger: (c.ledgerEntries ?? 0) > 0 })),
    ...unregistered.map((u) => ({ reference: u.reference, inLedger: false })),
  ];
  await pool(payments, concurrency, async (p) => {
    const held = await sandbox.inspect(p.reference);
    if (held.status === 200 && held.body.paid && !p.inLedger && !unmatched.has(p.reference) && !exceptionReferences.has(p.reference)) unseen += 1;
  });
  // Every Kafka command answered accepted on the results topic.
  const answers = overKafka.flatMap((c) => c.answers ?? []);
  const expectedAnswers = 2 * overKafka.length;
  const acceptedAnswers = answers.filter((a) => a.outcome === 'accepted').length;
  const otherAnswers = new Map<string, number>();
  for (const a of answers.filter((a) => a.outcome !== 'accepted')) {
    const key = `${a.command} ${a.outcome}${a.code ? ` ${a.code}` : ''}`;
    otherAnswers.set(key, (otherAnswers.get(key) ?? 0) + 1);
  }
  const answerMs = answers.map((a) => a.ms).sort((a, b) => a - b);
  const quantile = (q: number) => answerMs[Math.min(answerMs.length - 1, Math.floor(q * answerMs.length))] ?? 0;
  const kinds = (kind: string) => grants.filter((g) => g.event === kind).length;
  const twice = checkouts.filter((c) => (c.runs ?? 0) > 1).length;
  console.log(`Checkouts: ${checkouts.length}; at their expected outcome: ${checkouts.length - unexpected}; unexpected outcomes: ${unexpected}`);
  console.log(
    `Entitlement events: ${expectedGrants} expected, ${grants.length} granted (${kinds('subscription_started')} subscription_started, ${kinds('subscription_renewed')} subscription_renewed), ` +
      `${grants.filter((g) => g.delivered).length} delivered; business logic ran once for ${checkouts.filter((c) => c.runs === 1).length}, twice or more for ${twice}`,
  );
  console.log(`Customer backend access expiry equals the ledger's for ${accessMatches} of ${ledgerExpiry.size} users`);
  console.log(
    `Kafka commands: ${expectedAnswers} sent for ${overKafka.length} checkouts (${overKafka.length} RegisterCheckout, ${overKafka.length} CompleteCheckout); ` +
      `answered accepted: ${acceptedAnswers} of ${expectedAnswers}` +
      (otherAnswers.size > 0 ? `; otherwise: ${[...otherAnswers].map(([k, n]) => `${k}×${n}`).join(', ')}` : '') +
      `; sent to answer read: p50 ${quantile(0.5)} ms, p99 ${quantile(0.99)} ms, max ${quantile(1)} ms`,
  );
  console.log(
    `Receipts: ${receipts.withReceipt} of ${receipts.held} events the customer backend holds carry one; the earliest (ledger position ${receipts.earliest?.ledgerPosition ?? '-'}): ${receipts.verdict}`,
  );
  console.log(`Elapsed: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`Lost checkouts: ${lost}`);
  console.log(`Unseen payments: ${unseen}`);
  const reconciled = reconciliation?.status === 'completed';
  process.exitCode =
    lost === 0 &&
    unseen === 0 &&
    unexpected === 0 &&
    unmatchedOk === unregistered.length &&
    flaggedUsers === twiceUsers.length &&
    reconciled &&
    accessMatches === ledgerExpiry.size &&
    acceptedAnswers === expectedAnswers &&
    receipts.ok
      ? 0
      : 1;
}

/**
 * Creates a console user for this run with a random password through the console's own command
 * (`./settle console-user`, the password on standard input), and signs it in.
 *
 * @throws Error when the command or the sign-in fails.
 */
async function consoleUser(email: string, role: 'operator' | 'admin'): Promise<ConsoleClient> {
  const password = randomBytes(24).toString('base64url');
  const cli = fileURLToPath(new URL('../../apps/console/src/cli/create-user.js', import.meta.url));
  const created = spawnSync(process.execPath, [cli, '--email', email, '--role', role], { input: `${password}\n`, encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`could not create the console user ${email}: ${created.stderr}`);
  return ConsoleClient.signIn(env('CONSOLE_URL'), email, password);
}

/**
 * Accepts each State Mismatch as paid with two people (docs/approvals.md): an operator of this run
 * proposes it in the console, an admin of this run approves it; then waits for each checkout's
 * status to read `accepted_as_paid` with its entitlement unlocked (at most 60 s).
 */
async function acceptAsPaid(checkouts: Checkout[], run: string, concurrency: number, ingestion: IngestionClient): Promise<void> {
  const proposer = await consoleUser(`demo-operator-${run}@example.com`, 'operator');
  const approver = await consoleUser(`demo-admin-${run}@example.com`, 'admin');
  await pool(checkouts, concurrency, async (c) => {
    const proposed = await proposer.proposeAcceptAsPaid(c.reference, 'demo: a lower amount, within the tolerance the merchant honours');
    if (proposed.status !== 201) throw new Error(`the console refused the proposal for ${c.reference}: ${JSON.stringify(proposed.body)}`);
    const approved = await approver.approve(proposed.body.id);
    if (approved.status !== 200) throw new Error(`the console refused the approval for ${c.reference}: ${JSON.stringify(approved.body)}`);
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    await pool(checkouts, concurrency, async (c) => {
      const answer = await ingestion.status(c.reference);
      if (answer.status === 200) c.status = answer.body;
    });
    const done = checkouts.filter((c) => c.status?.resolution === 'accepted_as_paid' && c.status.entitlement_status === 'UNLOCKED').length;
    process.stdout.write(`\r  ${done}/${checkouts.length} lower amounts accepted as paid by two admins   `);
    if (done === checkouts.length || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  process.stdout.write('\n');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

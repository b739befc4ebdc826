import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { PostgresLedger, transactionStream, type LedgerEventInput } from '@settle/ledger';
import { inTransaction } from '@settle/platform';
import { infra, startStack, type RunningStack } from '@settle/testing';
import { childPids, peakRssMiB } from './support/proc.js';

/** A run as ingestion's admin API answers it. */
interface RunView {
  status: string;
  pages: number;
  /** The transaction list's count of pages (Paystack's `pageCount`): movement pages are not in it. */
  total_pages: number | null;
  listed: number;
  classes: Record<string, number>;
  exceptions_raised: number;
  error: string | null;
}

/** Transactions per page the Paystack adapter asks for (its `perPage`), as the run uses it. */
const PAGE_SIZE = 100;

/** The window the seeded transactions were created in: one hour ending an hour ago. */
const HOUR = 3_600_000;

/** Rows per page the Paystack adapter asks of the refund and dispute lists (`PAYSTACK_MOVEMENT_LIST_PAGE_SIZE`). */
const MOVEMENT_PAGE_SIZE = 100;

/** The money facts a refund or a dispute of the window becomes in the ledger. */
const MONEY_FACTS = ['RefundRecorded', 'DisputeOpened'] as const;

/** How long the ledger is given, after the run, to record the money facts of the verifications it asked for. */
const LEDGER_WAIT_MS = 60_000;

/** How often the verifier's run row is read near the transaction list's end, to see when the run enters the movement phase. */
const PHASE_POLL_MS = 25;

/** The payments the sandbox's refund and dispute lists name for the window (as the adapter reads them). */
interface WindowMovements {
  /** Reference of the payment each refund names, one per refund. */
  refunds: string[];
  /** Reference of the payment each dispute names, one per dispute. */
  disputes: string[];
}

/**
 * A reconciliation run over a window holding `count` provider transactions (default 1,000,000),
 * as `./settle up` runs it: the verifier pages through the sandbox's Paystack list
 * (`GET /transaction`, 100 per page) and compares each transaction with its records, committing a
 * page at a time with the run's cursor; then, in the same run (the movement phase,
 * docs/reconciliation.md "Refund and dispute lists"), it pages the sandbox's refund and dispute
 * lists for the window (`GET /refund`, `GET /dispute`, 100 per page) and asks the verifier
 * (`VerificationRequested`, trigger `reconciliation`) to read the money of each settled payment
 * they name. Both sides are seeded directly, not through the pipeline: the sandbox's book through
 * its control API, the verifier's records of the matching checkouts with one SQL statement, and the
 * ledger's settlements of the payments the refund and dispute lists name (so the projector can
 * record their money facts). The window holds a sprinkling of each exception class (about one in a
 * thousand each: declined or reversed there and settled here, another amount, stuck, unknown here)
 * and about one in a thousand payments each refunded in full and disputed there, 1 s after their
 * payment, settled here (a refunded Paystack payment lists as `reversed`, so it is also a
 * settled-not-successful exception of the transaction list).
 *
 * Reports transactions compared per second, the time per page against the sandbox's bare list
 * call in the same run (the same pages read in a loop, nothing compared), and the verifier's peak
 * resident memory (VmHWM); then the movement phase: its pages and rows (the run's `pages` and
 * `listed` less the transaction list's), how long it took (from the run's row first showing it,
 * the row read every 25 ms over the list's last pages, to the run's `finished_at`; with the bounds
 * the polling leaves), the verifications the run asked (its `VerificationRequested` records, on
 * the topic or still in the verifier's outbox: the transaction list's are those committed with an
 * exception the same page raised for the same reference, the rest the movement phase's), and the
 * money facts the ledger recorded for the window's refunds and disputes (`RefundRecorded`,
 * `DisputeOpened` on `transaction-<reference>` streams), waited for up to 60 s after the run. The
 * existing lines count the whole run: its `pages` and `listed` include the movement phase's. What
 * it leaves out: Kafka and the ledger projector run, but the exceptions' and the movements' facts
 * are a few thousandths of the work; delivery is not involved (the ledger holds no grants to
 * revoke).
 *
 * Arguments: `[count]` (default 1000000).
 */
export async function reconcileBenchmark(args: string[]): Promise<void> {
  const count = Number(args[0] ?? 1_000_000);
  const stack = await startStack({
    inactivityMs: 3_600_000,
    logLevel: 'warn',
    adminDatabaseUrl: infra.benchAdminDatabaseUrl,
    env: { verifier: { RECONCILIATION_ENABLED: 'false', RECONCILIATION_TICK_MS: '1000' } },
  });
  try {
    const windowUntil = Date.now() - HOUR;
    const windowFrom = windowUntil - HOUR;
    const seedStart = performance.now();
    await seedSandbox(stack, count, windowFrom, windowUntil);
    await seedVerifier(stack, count, windowFrom);
    const movements = await windowMovements(stack, windowFrom, windowUntil);
    const settlements = await seedLedger(stack, movements);
    console.log(`seeded ${count} provider transactions and their checkouts in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
    // The money facts the ledger should record: one per refund and dispute of a payment settled here.
    const expectedFacts = [...movements.refunds, ...movements.disputes].filter(settledHere).length;
    console.log(
      `seeded movements:         ${movements.refunds.length} refunds, ${movements.disputes.length} disputes in the window; ${settlements} of their payments settled here (verifier and ledger)`,
    );

    // Baseline: the bare list call, the same pages in a loop (up to 1,000 of them), nothing compared.
    const agent = new Agent({ connections: 1 });
    const pages = Math.ceil(count / PAGE_SIZE);
    const baselinePages = Math.min(pages, 1_000);
    const baselineStart = performance.now();
    for (let page = 1; page <= baselinePages; page++) {
      const query = new URLSearchParams({
        from: new Date(windowFrom).toISOString(),
        to: new Date(windowUntil).toISOString(),
        perPage: String(PAGE_SIZE),
        page: String(page),
      });
      const response = await request(`${stack.sandboxUrl}/transaction?${query.toString()}`, {
        headers: { authorization: `Bearer ${stack.paystackSecret}` },
        dispatcher: agent,
      });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`sandbox list answered ${response.statusCode}`);
    }
    const baselineMsPerPage = (performance.now() - baselineStart) / baselinePages;
    await agent.close();

    const verifier = childPids('dist/apps/verifier/src/main.js')[0];
    if (verifier === undefined) throw new Error('the verifier process was not found');
    const rssBefore = peakRssMiB(verifier);
    const started = performance.now();
    const requested = await fetch(`${stack.ingestionUrl}/v1/admin/reconciliation-runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        provider: 'paystack',
        since: new Date(windowFrom).toISOString(),
        until: new Date(windowUntil).toISOString(),
        requested_by: 'bench',
      }),
    });
    if (requested.status !== 202) throw new Error(`run refused: ${requested.status} ${await requested.text()}`);
    const { run_id: runId } = (await requested.json()) as { run_id: string };
    let run: RunView | null = null;
    let lastPrint = 0;
    let lastViewRead = -Infinity;
    // The verifier's own run row, read to see when the run leaves the transaction list: every
    // 250 ms, every 25 ms from its last 20 pages on. When it was last read still in the
    // transaction list (the read's start) and first read past it (the read's end), epoch ms: the
    // movement phase began in between.
    let nextRowRead = 0;
    let lastInTransactions: number | null = null;
    let firstPastTransactions: number | null = null;
    for (;;) {
      if (firstPastTransactions === null && performance.now() >= nextRowRead) {
        const sent = Date.now();
        const { rows } = await stack.db.query<{ cursor: string | null; status: string; pages: string; total_pages: string | null }>(
          'SELECT cursor, status, pages, total_pages FROM verifier.reconciliation_runs WHERE run_id = $1',
          [runId],
        );
        const row = rows[0];
        if (row && ((row.status !== 'pending' && row.status !== 'running') || row.cursor?.startsWith('m|') === true)) firstPastTransactions = Date.now();
        else lastInTransactions = sent;
        const nearTheEnd = row !== undefined && row.total_pages !== null && Number(row.pages) >= Number(row.total_pages) - 20;
        nextRowRead = performance.now() + (nearTheEnd ? PHASE_POLL_MS : 250);
      }
      if (performance.now() - lastViewRead >= 250) {
        lastViewRead = performance.now();
        const read = await fetch(`${stack.ingestionUrl}/v1/admin/reconciliation-runs/${runId}`, { headers: { authorization: `Bearer ${stack.adminKey}` } });
        if (read.status === 200) run = (await read.json()) as RunView;
        else await read.text();
        const seconds = (performance.now() - started) / 1000;
        if (seconds - lastPrint >= 10) {
          lastPrint = seconds;
          console.log(
            `  ${seconds.toFixed(0)} s: ${run?.pages ?? 0}/${pages} pages, ${run?.listed ?? 0} compared, verifier peak RSS ${peakRssMiB(verifier).toFixed(0)} MiB`,
          );
        }
        if (run?.status === 'completed' || run?.status === 'failed') break;
        if (seconds > 1_800) throw new Error('the run did not end within 30 minutes');
      }
      await new Promise((resolve) => setTimeout(resolve, PHASE_POLL_MS));
    }
    const seconds = (performance.now() - started) / 1000;
    if (run === null || run.status !== 'completed') throw new Error(`the run did not complete: ${run?.error ?? 'never recorded'}`);
    const rssPeak = peakRssMiB(verifier);
    const classes = Object.entries(run.classes)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    console.log(`window:                   ${count} provider transactions, ${run.pages} pages of ${PAGE_SIZE}`);
    console.log(
      `run:                      ${seconds.toFixed(1)} s → ${(run.listed / seconds).toFixed(0)} transactions compared/s (target: the window in under 300 s)`,
    );
    console.log(
      `per page:                 ${((seconds * 1000) / run.pages).toFixed(1)} ms through the verifier; bare list call ${baselineMsPerPage.toFixed(1)} ms (${baselinePages} pages)`,
    );
    console.log(`verifier peak RSS:        ${rssPeak.toFixed(0)} MiB (${rssBefore.toFixed(0)} MiB before the run; target under 300 MB)`);
    console.log(`classes:                  ${classes}; ${run.exceptions_raised} exceptions raised`);

    // The movement phase: the run's pages and rows beyond the transaction list's.
    const transactionPages = run.total_pages ?? pages;
    const movementPages = run.pages - transactionPages;
    const movementRows = run.listed - count;
    const finishedAt = await runFinishedAt(stack, runId);
    const phase = movementPhaseSeconds(finishedAt, lastInTransactions, firstPastTransactions);
    console.log(
      `movement phase:           ${movementPages} pages, ${movementRows} refund and dispute rows (refund list ${Math.max(1, Math.ceil(movements.refunds.length / MOVEMENT_PAGE_SIZE))} + dispute list ${Math.max(1, Math.ceil(movements.disputes.length / MOVEMENT_PAGE_SIZE))} pages expected); ${phase}`,
    );
    const asked = await verificationsAsked(stack, runId);
    console.log(
      `verifications asked:      ${asked.movements} by the movement phase (${new Set([...movements.refunds, ...movements.disputes].filter(settledHere)).size} settled payments named); ${asked.transactions} by the transaction list's exceptions; ${asked.movements + asked.transactions} by the run`,
    );
    const ledger = await waitForMoneyFacts(stack, expectedFacts, finishedAt);
    console.log(
      `ledger money facts:       ${ledger.recorded} of ${expectedFacts} (${MONEY_FACTS.map((type) => `${type} ${ledger.byType[type] ?? 0}`).join(', ')}${ledger.rejected > 0 ? `; ${ledger.rejected} MoneyMovementRejected` : ''}), the last recorded ${ledger.lastAfterRunSeconds === null ? '-' : `${ledger.lastAfterRunSeconds.toFixed(1)} s`} after the run completed${ledger.recorded + ledger.rejected < expectedFacts ? ` (waited ${LEDGER_WAIT_MS / 1000} s)` : ''}`,
    );
  } finally {
    await stack.stop();
  }
}

/**
 * The sandbox's side: `count` Paystack transactions created evenly over the window through the
 * control API's bulk seed (`POST /_sandbox/paystack/transactions/bulk`), references
 * `ref_rb_<n>`, 100000 minor units of NGN each; a thousandth each declined, reversed after
 * settlement, never paid, refunded in full and disputed (the refund or dispute 1 s after the
 * payment; drawn with a fixed seed), the rest paid.
 */
async function seedSandbox(stack: RunningStack, count: number, fromMs: number, untilMs: number): Promise<void> {
  const response = await fetch(`${stack.sandboxUrl}/_sandbox/paystack/transactions/bulk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      count,
      from: new Date(fromMs).toISOString(),
      until: new Date(untilMs).toISOString(),
      reference_prefix: 'ref_rb_',
      outcomes: { success: 995, declined: 1, reversed: 1, unpaid: 1, refunded: 1, disputed: 1 },
      amount: 100_000,
      currency: 'NGN',
      email: 'payer@example.com',
      seed: 7,
    }),
    signal: AbortSignal.timeout(600_000),
  });
  if (response.status !== 201) throw new Error(`bulk seed refused: ${response.status} ${await response.text()}`);
  await response.text();
}

/**
 * The verifier's records of the seeded checkouts, one statement: every transaction settled with
 * the sandbox's terms, but one in a thousand of each exception class (stuck: still pending here;
 * unknown: no record; another amount), for a sprinkling of exceptions.
 */
async function seedVerifier(stack: RunningStack, count: number, fromMs: number): Promise<void> {
  await stack.db.query(
    `INSERT INTO verifier.transactions (reference, provider, amount_minor, currency, user_id, customer_email, entitlement, correlation_id,
                                        status, entitlement_status, outcomes, settled_at)
     SELECT 'ref_rb_' || i, 'paystack',
            CASE WHEN i % 1000 = 3 THEN 99 ELSE 100000 END, 'NGN', 'user-rb-' || i, 'payer@example.com', 'pro',
            gen_random_uuid()::text, CASE WHEN i % 1000 = 2 THEN 'PENDING' ELSE 'SETTLED_CONSENSUS' END,
            CASE WHEN i % 1000 = 2 THEN 'LOCKED' ELSE 'UNLOCKED' END, 1, $2::bigint + i
       FROM generate_series(0, $1::int - 1) AS i
      WHERE i % 1000 <> 4`,
    [count, fromMs],
  );
}

/** Whether the verifier holds a seeded reference settled: all but the stuck (`n % 1000 = 2`) and the missing (`n % 1000 = 4`), as {@link seedVerifier} writes them. */
function settledHere(reference: string): boolean {
  const n = Number(reference.slice('ref_rb_'.length)) % 1000;
  return n !== 2 && n !== 4;
}

/**
 * The refunds and disputes the sandbox lists for the window, read as the Paystack adapter reads
 * them (`GET /refund` and `GET /dispute`, `from` and `to` the window's instants, 100 a page, rows
 * created from `until` on left out): the payment each names.
 */
async function windowMovements(stack: RunningStack, fromMs: number, untilMs: number): Promise<WindowMovements> {
  const read = async (path: '/refund' | '/dispute'): Promise<string[]> => {
    const references: string[] = [];
    for (let page = 1; ; page++) {
      const query = new URLSearchParams({
        from: new Date(fromMs).toISOString(),
        to: new Date(untilMs).toISOString(),
        perPage: String(MOVEMENT_PAGE_SIZE),
        page: String(page),
      });
      const response = await fetch(`${stack.sandboxUrl}${path}?${query.toString()}`, { headers: { authorization: `Bearer ${stack.paystackSecret}` } });
      if (response.status !== 200) throw new Error(`sandbox ${path} answered ${response.status}: ${await response.text()}`);
      const body = (await response.json()) as {
        data: Array<{ createdAt: string; transaction_reference: string | null; transaction: number | { reference: string } }>;
        meta: { pageCount: number };
      };
      for (const row of body.data) {
        if (Date.parse(row.createdAt) >= untilMs) continue;
        references.push(typeof row.transaction === 'object' ? row.transaction.reference : row.transaction_reference!);
      }
      if (page >= body.meta.pageCount) return references;
    }
  };
  return { refunds: await read('/refund'), disputes: await read('/dispute') };
}

/**
 * The ledger's side: a `TransactionSettled` on `transaction-<reference>` for each payment settled
 * here that the window's refunds and disputes name, with the verifier's terms, in one transaction
 * (the projector records a money fact only after a settlement; the benchmark's other checkouts
 * have none, as their facts are not measured).
 *
 * @returns how many settlements were appended.
 */
async function seedLedger(stack: RunningStack, movements: WindowMovements): Promise<number> {
  const references = [...new Set([...movements.refunds, ...movements.disputes])].filter(settledHere);
  if (references.length === 0) return 0;
  const ledger = new PostgresLedger(stack.db);
  await inTransaction(stack.db, async (client) => {
    const prepared = await ledger.prepareAppendsWith(
      client,
      references.map((reference) => ({ streamId: transactionStream(reference), events: [settlement(reference)], expected: 'no_stream' as const })),
    );
    const appends = prepared.map((p) => {
      if ('error' in p) throw p.error;
      if ('done' in p) throw new Error('a seeded settlement was stored already');
      return p;
    });
    await ledger.writePreparedMany(client, appends);
  });
  return references.length;
}

/** A settlement of a seeded checkout as the projector appends it: the verifier's terms expected (another amount for `n % 1000 = 3`), the sandbox's observed. */
function settlement(reference: string): LedgerEventInput {
  const n = Number(reference.slice('ref_rb_'.length));
  const expectedAmount = n % 1000 === 3 ? 99 : 100_000;
  return {
    eventId: randomUUID(),
    type: 'TransactionSettled',
    data: {
      reference,
      provider: 'paystack',
      outcome: 'SETTLED_CONSENSUS',
      state: 'SETTLED_CONSENSUS',
      entitlement_status: 'UNLOCKED',
      trigger: 'webhook_received',
      verdict: 'cleared',
      provider_status: 'success',
      detail: null,
      checks: [
        { check: 'transaction_identity', passed: true, code: null, expected: reference, observed: reference },
        { check: 'currency', passed: true, code: null, expected: 'NGN', observed: 'NGN' },
        { check: 'amount', passed: true, code: null, expected: String(expectedAmount), observed: '100000' },
        { check: 'customer', passed: true, code: null, expected: 'payer@example.com', observed: 'payer@example.com' },
      ],
      expected: { amount_minor: expectedAmount, currency: 'NGN', user_id: `user-rb-${n}`, entitlement: 'pro' },
      observed: { amount_minor: 100_000, charged_amount_minor: null, currency: 'NGN', provider_transaction_id: null },
      decided_at: Date.now(),
    },
    metadata: { correlationId: randomUUID(), causationId: randomUUID() },
  };
}

/** The run's `finished_at` in the verifier's own record (epoch ms: the commit instant of its last page). */
async function runFinishedAt(stack: RunningStack, runId: string): Promise<number> {
  const { rows } = await stack.db.query<{ finished_at: string | null }>('SELECT finished_at FROM verifier.reconciliation_runs WHERE run_id = $1', [runId]);
  const finished = rows[0]?.finished_at;
  if (finished === null || finished === undefined) throw new Error('the verifier holds no finish of the run');
  return Number(finished);
}

/**
 * How long the movement phase took, as text: from when the run's row was first read past the
 * transaction list to its `finished_at`, with the bounds the polling leaves (the phase began
 * after the last read that still showed the transaction list started).
 */
function movementPhaseSeconds(finishedAt: number, lastInTransactions: number | null, firstPastTransactions: number | null): string {
  if (firstPastTransactions === null) return 'duration not observed';
  const atLeast = Math.max(0, finishedAt - firstPastTransactions) / 1000;
  if (lastInTransactions === null) return `at least ${atLeast.toFixed(2)} s (its start was not observed)`;
  const atMost = Math.max(0, finishedAt - lastInTransactions) / 1000;
  return `${((atLeast + atMost) / 2).toFixed(2)} s (between ${atLeast.toFixed(2)} and ${atMost.toFixed(2)} s: the run's row read every ${PHASE_POLL_MS} ms)`;
}

/**
 * The verifications the run asked for: its `VerificationRequested` records (`requested_by`
 * `reconciliation:<run id>`), on the topic or still in the verifier's outbox. One of the
 * transaction list is committed with an exception the same page raised for the same reference
 * (`raised_at` = its `occurred_at`: the database is fresh, so every ask of the list comes with a
 * raise); the others are the movement phase's.
 */
async function verificationsAsked(stack: RunningStack, runId: string): Promise<{ transactions: number; movements: number }> {
  const published = await stack.published('verifier', 'transactionEvents');
  const asks = published.filter((m) => m.type === 'VerificationRequested' && m.payload.requested_by === `reconciliation:${runId}`);
  const { rows } = await stack.db.query<{ reference: string; raised_at: string }>(
    'SELECT reference, raised_at FROM verifier.reconciliation_exceptions WHERE first_run_id = $1',
    [runId],
  );
  const raised = new Set(rows.map((r) => `${r.reference}@${r.raised_at}`));
  const transactions = asks.filter((m) => raised.has(`${m.payload.reference}@${String(m.payload.occurred_at)}`)).length;
  return { transactions, movements: asks.length - transactions };
}

/**
 * The money facts the ledger recorded for the window's refunds and disputes, waited for up to
 * {@link LEDGER_WAIT_MS} until `expected` are recorded (or rejected).
 */
async function waitForMoneyFacts(
  stack: RunningStack,
  expected: number,
  finishedAt: number,
): Promise<{ recorded: number; rejected: number; byType: Record<string, number>; lastAfterRunSeconds: number | null }> {
  const deadline = Date.now() + LEDGER_WAIT_MS;
  for (;;) {
    const { rows } = await stack.db.query<{ event_type: string; n: string; last: Date | null }>(
      `SELECT event_type, count(*) AS n, max(recorded_at) AS last FROM ledger.events
        WHERE event_type = ANY($1::text[]) AND stream_id LIKE 'transaction-ref\\_rb\\_%'
        GROUP BY event_type`,
      [[...MONEY_FACTS, 'MoneyMovementRejected']],
    );
    const byType = Object.fromEntries(rows.map((r) => [r.event_type, Number(r.n)]));
    const recorded = MONEY_FACTS.reduce((sum, type) => sum + (byType[type] ?? 0), 0);
    const rejected = byType.MoneyMovementRejected ?? 0;
    if (recorded + rejected >= expected || Date.now() >= deadline) {
      const last = rows.filter((r) => r.event_type !== 'MoneyMovementRejected' && r.last !== null).map((r) => r.last!.getTime());
      return { recorded, rejected, byType, lastAfterRunSeconds: last.length === 0 ? null : (Math.max(...last) - finishedAt) / 1000 };
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

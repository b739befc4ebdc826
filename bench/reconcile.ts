import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { infra, startStack, type RunningStack } from '@settle/testing';
import { childPids, peakRssMiB } from './support/proc.js';

/** A run as ingestion's admin API answers it. */
interface RunView {
  status: string;
  pages: number;
  listed: number;
  classes: Record<string, number>;
  exceptions_raised: number;
  error: string | null;
}

/** Transactions per page the Paystack adapter asks for (its `perPage`), as the run uses it. */
const PAGE_SIZE = 100;

/** The window the seeded transactions were created in: one hour ending an hour ago. */
const HOUR = 3_600_000;

/**
 * A reconciliation run over a window holding `count` provider transactions (default 1,000,000),
 * as `./settle up` runs it: the verifier pages through the sandbox's Paystack list
 * (`GET /transaction`, 100 per page) and compares each transaction with its records, committing a
 * page at a time with the run's cursor. Both sides are seeded directly, not through the pipeline:
 * the sandbox's book through its control API, the verifier's records of the matching checkouts
 * with one SQL statement. The window holds a sprinkling of each exception class (about one in a
 * thousand each: declined or reversed there and settled here, another amount, stuck, unknown here).
 *
 * Reports transactions compared per second, the time per page against the sandbox's bare list
 * call in the same run (the same pages read in a loop, nothing compared), and the verifier's peak
 * resident memory (VmHWM). What it leaves out: Kafka and the ledger projector run, but the
 * exceptions' facts are a thousandth of the work; delivery is not involved (a run grants nothing).
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
    console.log(`seeded ${count} provider transactions and their checkouts in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

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
    for (;;) {
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
      await new Promise((resolve) => setTimeout(resolve, 250));
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
  } finally {
    await stack.stop();
  }
}

/**
 * The sandbox's side: `count` Paystack transactions created evenly over the window through the
 * control API's bulk seed (`POST /_sandbox/paystack/transactions/bulk`), references
 * `ref_rb_<n>`, 100000 minor units of NGN each; a thousandth each declined, reversed after
 * settlement and never paid (drawn with a fixed seed), the rest paid.
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
      outcomes: { success: 997, declined: 1, reversed: 1, unpaid: 1 },
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

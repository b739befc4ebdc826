/**
 * The operations console in a real browser (Debian's chromium driven by playwright-core, no
 * browser download) against the running stack: sign-in, a transaction held in review reconciled
 * from its page after the provider cleared it (settling without a reload), the four checks of a
 * lower amount side by side, that reconciliation in an admin's Audit page with the operator who
 * asked, a delivery resend (an entitlement event delivered to the example customer backend, resent
 * from its attempts view: the new attempt shows without a reload, the backend receives it again
 * and runs it once), roles (a viewer has no "Reconcile now" and the API refuses it), the overview
 * (the ledger's chains verified by the console, the workers' consumer lag, the dead letters, cards
 * opening their lists; the Queues page's unmatched payments tab), closing an unmatched payment, matching one to a checkout (an
 * operator proposes it through the form, a second admin approves it on the Proposals page, and the checkout settles through
 * ingestion), resolving a State Mismatch (a lower amount accepted as paid by an operator and a second admin:
 * the settlement by override, its grant delivered; closed as refund due by an admin, then refunded at the provider),
 * erasing a payer's data (proposed by an operator, approved by a second admin: the customer check reads erased),
 * CSRF, a wrong password and a locked-out login, the security headers and
 * Swagger UI's page; every test fails on a Content-Security-Policy violation its pages report.
 * Skipped, saying why, where no chromium exists
 * (`scripts/local/lib.sh`, `ensure_chromium`, installs it as root).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil, type CheckoutStatus, type SandboxBehaviour } from '../../scripts/ops/clients.js';
import { ROOT, startStack, withRecoveryReport, type RunningStack } from '@settle/testing';
import { transactionStream, upsertReconciliation } from '@settle/ledger';
import { parse } from 'csv-parse/sync';

const CHROMIUM = process.env.SETTLE_CHROMIUM ?? '/usr/bin/chromium';
/** Launch flags that work on these machines (no sandbox, no GPU, nothing phoning home). */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const PASSWORD = {
  admin: `admin-${randomBytes(8).toString('hex')}`,
  viewer: `viewer-${randomBytes(8).toString('hex')}`,
  adminUser: `owner-${randomBytes(8).toString('hex')}`,
};

if (!existsSync(CHROMIUM)) {
  const reason = `no browser at ${CHROMIUM} (scripts/local/lib.sh installs Debian's chromium when run as root)`;
  console.warn(`[console in a browser] skipped: ${reason}`);
  describe('the console in a browser', () => {
    it.skip(`skipped: ${reason}`, () => undefined);
  });
} else {
  let stack: RunningStack;
  let browser: Browser;
  let consoleUrl: string;
  /** The checkout the operator reconciled from its page (the first test), for the audit test after it. */
  let reconciled: string | undefined;

  /** Creates a console user with the command line, the password on standard input. */
  function createUser(email: string, role: string, password: string): void {
    const result = spawnSync(process.execPath, [join(ROOT, 'dist/apps/console/src/cli/create-user.js'), '--email', email, '--role', role], {
      input: `${password}\n`,
      env: { PATH: process.env.PATH, DATABASE_URL: stack.databaseUrl },
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`create-user failed: ${result.stderr}`);
  }

  beforeAll(async () => {
    stack = await startStack({
      inactivityMs: 3_000,
      // The ledger's chains verified every second, so the overview shows them verified within the test.
      console: { env: { CONSOLE_LEDGER_VERIFY_INTERVAL_MS: '1000' } },
      // The example customer backend (its endpoint registered with the dispatcher): what a
      // resend from the console reaches.
      customerBackend: {},
      // The sweeper's re-check of a held-in-review checkout comes much later than the test: only
      // the operator's "Reconcile now" can settle it within it.
      env: { sweeper: { SWEEPER_RECHECK_INITIAL_DELAY_MS: '600000', SWEEPER_RECHECK_MAX_DELAY_MS: '600000' } },
    });
    consoleUrl = stack.consoleUrl!;
    createUser('ops@example.com', 'operator', PASSWORD.admin);
    createUser('viewer@example.com', 'viewer', PASSWORD.viewer);
    createUser('admin@example.com', 'admin', PASSWORD.adminUser);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  /** A checkout paid at the sandbox with the given behaviour; its reference. */
  async function checkout(behaviour: SandboxBehaviour, amount = 500_000): Promise<string> {
    const reference = `ref_console_${randomBytes(5).toString('hex')}`;
    const email = `payer.${reference}@example.com`;
    expect((await stack.sandbox.create({ reference, amount, currency: 'NGN', email, behaviour })).status).toBe(201);
    const registered = await stack.ingestion.register({
      provider: 'paystack',
      reference,
      amount: 500_000,
      currency: 'NGN',
      user_id: `user-${reference}`,
      customer: { email },
      entitlement: 'pro-monthly',
      access_period: 'P1M',
    });
    expect(registered.status).toBe(202);
    expect((await stack.sandbox.pay(reference)).status).toBe(200);
    return reference;
  }

  /** Waits for a checkout's state; a time-out says where its recovery stands (`recoveryReport`). */
  async function stateOf(reference: string, state: string): Promise<void> {
    const reached = waitUntil(`${reference} to reach ${state}`, 30_000, async () => {
      const answer = await stack.ingestion.status(reference);
      return answer.status === 200 && answer.body.state === state ? true : undefined;
    });
    await withRecoveryReport(stack, reference, reached);
  }

  /** Waits for a payment Settle was never told about to be recorded (after the sweeper's grace period). */
  async function unmatchedRecorded(reference: string): Promise<void> {
    const recorded = waitUntil('the unmatched payment recorded', 30_000, async () => {
      const { rows } = await stack.db.query("SELECT 1 FROM read_model.unmatched_payments WHERE reference = $1 AND status = 'open'", [reference]);
      return rows.length === 1 ? true : undefined;
    });
    await withRecoveryReport(stack, reference, recorded);
  }

  /**
   * Content-Security-Policy violations the pages reported (the document's
   * `securitypolicyviolation` events, and Chromium's console lines about a refused load): any
   * one fails the test that caused it (`afterEach`).
   */
  const cspViolations: string[] = [];

  /** A new page that reports its CSP violations to {@link cspViolations}. */
  async function openPage(): Promise<Page> {
    const page = await browser.newPage();
    await page.addInitScript(() => {
      type Violation = { violatedDirective: string; blockedURI: string; sourceFile: string; lineNumber: number };
      const { document } = globalThis as unknown as { document: { addEventListener(type: string, listener: (e: Violation) => void): void } };
      document.addEventListener('securitypolicyviolation', (e) => {
        console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber}`);
      });
    });
    page.on('console', (message) => {
      if (/Content Security Policy|CSP violation/i.test(message.text())) cspViolations.push(`${page.url()}: ${message.text()}`);
    });
    return page;
  }

  afterEach(() => {
    const seen = cspViolations.splice(0);
    expect(seen, 'Content-Security-Policy violations').toEqual([]);
  });

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(consoleUrl);
    await page.getByTestId('login-email').fill(email);
    await page.getByTestId('login-password').fill(password);
    await page.getByTestId('login-submit').click();
    await page.getByTestId('nav-transactions').waitFor();
  }

  async function openTransaction(page: Page, reference: string): Promise<void> {
    await page.getByTestId('nav-transactions').click();
    await page.getByTestId('search').fill(reference);
    await page.getByTestId('search').press('Enter');
    await page.locator(`[data-testid="transaction-row"][data-reference="${reference}"]`).click();
    await page.getByTestId('state-badge').waitFor();
  }

  /** The checkout's status answer with its State Mismatch resolution (`accepted_as_paid`, `refund_due`, `refunded` or null). */
  async function statusOf(reference: string): Promise<CheckoutStatus> {
    const answer = await stack.ingestion.status(reference);
    expect(answer.status).toBe(200);
    return answer.body;
  }

  /** Waits until the checkout's status answer reads `resolution`; that answer. */
  async function resolutionOf(reference: string, resolution: string, timeoutMs = 30_000): Promise<CheckoutStatus> {
    return waitUntil(`${reference} to read ${resolution}`, timeoutMs, async () => {
      const status = await statusOf(reference);
      return status.resolution === resolution ? status : undefined;
    });
  }

  /** The `data` of the transaction stream's events of `type`, oldest first. */
  async function ledgerFacts(reference: string, type: string): Promise<Array<Record<string, unknown>>> {
    const { rows } = await stack.db.query<{ data: Record<string, unknown> }>(
      'SELECT data FROM ledger.events WHERE stream_id = $1 AND event_type = $2 ORDER BY position',
      [transactionStream(reference), type],
    );
    return rows.map((r) => r.data);
  }

  /** Waits until the example customer backend's access of `user` to `pro-monthly` ends at `expected`. */
  async function customerAccess(user: string, expected: string): Promise<void> {
    await waitUntil(`the customer backend's access of ${user} to be ${expected}`, 30_000, async () => {
      const answer = await fetch(`${stack.customer!.url}/access/${encodeURIComponent(user)}/pro-monthly`);
      if (answer.status !== 200) return undefined;
      const { expires_at } = (await answer.json()) as { expires_at: string };
      return expires_at === expected ? true : undefined;
    });
  }

  /** A POST to the console's API from the signed-in page, with its CSRF token. */
  async function postAsSignedIn(page: Page, path: string, data?: unknown): Promise<{ status: number; code: string | undefined }> {
    const session = (await (await page.request.get(`${consoleUrl}/api/v1/session`)).json()) as { csrfToken: string };
    const answer = await page.request.post(`${consoleUrl}${path}`, { headers: { 'x-csrf-token': session.csrfToken }, ...(data === undefined ? {} : { data }) });
    const body = (await answer.json().catch(() => ({}))) as { code?: string };
    return { status: answer.status(), code: body.code };
  }

  /** Whether the console's State Mismatch queue (the open ones, newest first) lists `reference`, read as the signed-in page. */
  async function inMismatchQueue(page: Page, reference: string): Promise<boolean> {
    const answer = await page.request.get(`${consoleUrl}/api/v1/queues/state-mismatch?limit=100`);
    expect(answer.status()).toBe(200);
    return ((await answer.json()) as { items: Array<{ reference: string }> }).items.some((item) => item.reference === reference);
  }

  /** The timeline entry of the transaction stream's event `type` (its heading is the type itself). */
  function timelineEntry(page: Page, type: string) {
    return page.locator('[data-testid="timeline"] > li').filter({ has: page.locator('.timeline-head > strong', { hasText: new RegExp(`^${type}$`) }) });
  }

  /** The transaction page's entitlement badge's status (its title: `LOCKED`, `UNLOCKED`, ...). */
  function entitlementBadge(page: Page) {
    return page.locator('.title-block .badges > .badge').nth(1);
  }

  describe('the console in a browser', () => {
    it('an operator finds a checkout held in review, reconciles it after the provider cleared it, and sees it settle without a reload', async () => {
      const reference = await checkout({ outcome: 'clearing_then_success', clearing_checks: 1 });
      await stateOf(reference, 'RECOVERING');
      const page = await openPage();
      await signIn(page, 'ops@example.com', PASSWORD.admin);
      await openTransaction(page, reference);
      // The badge reads as words ("Recovering"); its title is the state itself.
      await expect.poll(() => page.getByTestId('state-badge').getAttribute('title')).toBe('RECOVERING');
      // A marker that a reload would wipe.
      await page.evaluate(() => Object.assign(globalThis, { __sameDocument: true }));
      await page.getByTestId('reconcile').click();
      await expect.poll(() => page.getByTestId('state-badge').getAttribute('title'), { timeout: 30_000 }).toBe('SETTLED_CONSENSUS');
      expect(await page.evaluate(() => (globalThis as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
      await expect.poll(() => page.getByTestId('timeline').innerText()).toMatch(/settled/i);
      reconciled = reference;
      await page.close();
    });

    it("an admin finds that reconciliation in the Audit page with the operator's email, and the operator on the transaction's timeline", async () => {
      expect(reconciled, 'the reconciliation test ran first').toBeDefined();
      const page = await openPage();
      await signIn(page, 'admin@example.com', PASSWORD.adminUser);
      await page.getByTestId('nav-audit').click();
      const row = page.locator('[data-testid="audit-row"][data-action="transaction.reconcile"]', { hasText: reconciled! });
      await row.waitFor();
      const text = await row.innerText();
      expect(text).toContain('ops@example.com');
      expect(text).toMatch(/operator/i);
      expect(text).toMatch(/succeeded/i);
      // The target links to the transaction, whose timeline names who asked.
      await row.getByRole('link', { name: reconciled! }).click();
      await page.getByTestId('timeline-actor').first().waitFor();
      expect(await page.getByTestId('timeline-actor').first().innerText()).toContain('ops@example.com (operator)');
      await page.close();
    });

    it('an operator resends a delivered entitlement event from its attempts and sees the new attempt without a reload; the customer backend receives it again and runs it once', async () => {
      const customer = stack.customer!;
      const reference = await checkout({ outcome: 'success' });
      await stack.ingestion.complete(reference);
      await stateOf(reference, 'SETTLED_CONSENSUS');
      const eventId = await waitUntil('the grant delivered to the customer backend', 30_000, async () => {
        const { rows } = await stack.db.query<{ event_id: string }>(
          `SELECT d.event_id FROM dispatcher.deliveries d JOIN dispatcher.events e ON e.event_id = d.event_id
            WHERE e.reference = $1 AND d.endpoint_id = $2 AND d.state = 'delivered'`,
          [reference, customer.endpointId],
        );
        return rows[0]?.event_id;
      });
      const answered = async () => ((await (await fetch(`${customer.url}/stats/answers`)).json()) as { answered: number }).answered;
      const answeredBefore = await answered();

      const page = await openPage();
      await signIn(page, 'ops@example.com', PASSWORD.admin);
      await openTransaction(page, reference);
      await page.locator(`[data-testid="entitlement-event"][data-event-id="${eventId}"] [data-testid="event-attempts-link"]`).click();
      const delivery = page.locator(`[data-testid="event-delivery"][data-endpoint-id="${customer.endpointId}"]`);
      const attempts = delivery.locator('[data-testid="attempt-row"]');
      await expect.poll(() => attempts.count()).toBe(1);
      expect(await delivery.getAttribute('data-state')).toBe('delivered');
      // A marker that a reload would wipe.
      await page.evaluate(() => Object.assign(globalThis, { __sameDocument: true }));
      await delivery.getByTestId('resend-delivery').click();
      await expect.poll(() => delivery.getByTestId('resend-result').innerText()).toMatch(/Resent: 1 delivery/);
      await expect.poll(() => attempts.count(), { timeout: 30_000 }).toBe(2);
      expect(await attempts.nth(1).getAttribute('data-outcome')).toBe('delivered');
      expect(await page.evaluate(() => (globalThis as { __sameDocument?: boolean }).__sameDocument)).toBe(true);

      // The backend answered the second delivery too, and its inbox ran the event once (by event_id).
      await expect.poll(answered, { timeout: 10_000 }).toBe(answeredBefore + 1);
      const runs = await customer.db.query<{ n: string }>('SELECT count(*) AS n FROM entitlement_runs WHERE event_id = $1', [eventId]);
      expect(Number(runs.rows[0]!.n)).toBe(1);

      // The resend is in the ledger with its actor, before and after.
      const { rows } = await stack.db.query<{ event_type: string; actor: string }>(
        `SELECT event_type, data->'actor'->>'email' AS actor FROM ledger.events WHERE stream_id = $1 ORDER BY position`,
        [`admin-event-${eventId}`],
      );
      expect(rows).toEqual([
        { event_type: 'AdminActionRequested', actor: 'ops@example.com' },
        { event_type: 'AdminActionCompleted', actor: 'ops@example.com' },
      ]);
      await page.close();
    });

    it('shows why a lower amount is a State Mismatch: the amount check, expected against observed, on its page and in the State Mismatch queue', async () => {
      const reference = await checkout({ outcome: 'lower_amount' });
      await stack.ingestion.complete(reference);
      await stateOf(reference, 'STATE_MISMATCH');
      const page = await openPage();
      await signIn(page, 'viewer@example.com', PASSWORD.viewer);
      await openTransaction(page, reference);
      const amount = page.locator('[data-testid="checks"] [data-check="amount"]');
      expect(await amount.getAttribute('class')).toContain('check-fail');
      const text = (await amount.textContent()) ?? '';
      // Expected against observed, side by side, and the rule's code.
      expect(text).toMatch(/failed/);
      expect(text).toContain('500000');
      expect(text).toContain('CONSENSUS.AMOUNT_MISMATCH');
      for (const passed of ['transaction_identity', 'currency', 'customer']) {
        expect(await page.locator(`[data-testid="checks"] [data-check="${passed}"]`).getAttribute('class')).toContain('check-pass');
      }
      // The State Mismatch queue explains it too: the failed check alone, expected against
      // observed, and the provider's field the observed amount was read from.
      await page.getByTestId('nav-queues').click();
      await page.getByTestId('queue-tab-mismatch').click();
      const row = page.locator(`[data-testid="queue-mismatch"] [data-reference="${reference}"]`);
      await row.waitFor();
      const failed = row.getByTestId('failed-check');
      expect(await failed.count()).toBe(1);
      expect(await failed.getAttribute('data-check')).toBe('amount');
      expect(await failed.getByTestId('expected').textContent()).toContain('500000');
      expect(await failed.getByTestId('provider-field').textContent()).toContain('data.amount');
      await page.close();
    });

    it('a viewer has no "Reconcile now", and the API refuses a viewer who tries', async () => {
      const reference = await checkout({ outcome: 'declined' });
      await stack.ingestion.complete(reference);
      await stateOf(reference, 'FAILED_DECLINED');
      const page = await openPage();
      await signIn(page, 'viewer@example.com', PASSWORD.viewer);
      await openTransaction(page, reference);
      expect(await page.getByTestId('reconcile').count()).toBe(0);
      const session = (await (await page.request.get(`${consoleUrl}/api/v1/session`)).json()) as { csrfToken: string };
      const refused = await page.request.post(`${consoleUrl}/api/v1/transactions/${reference}/reconcile`, { headers: { 'x-csrf-token': session.csrfToken } });
      expect(refused.status()).toBe(403);
      expect(((await refused.json()) as { code: string }).code).toBe('CONSOLE.FORBIDDEN');
      await page.close();
    });

    it("an operator opens Reconciliation, sees an exception's evidence side by side, resolves it with a reason through ingestion and the verifier, and downloads the filtered exceptions as CSV", async () => {
      // A terms_differ exception as a run records it: the verifier's open row (what a resolve
      // request closes) and the read model's row (what the page reads). Its raised fact is not in
      // the ledger, so the read model's row is seeded at revision -1: the resolution the projector
      // appends (revision 0 of the exception's stream) then updates it, as it would a raised one.
      const reference = `ref_console_recon_${randomBytes(4).toString('hex')}`;
      const exceptionId = `rex_${randomUUID()}`;
      const runId = `rcr_${randomUUID()}`;
      const raisedAt = new Date(Date.now() - 3_600_000).toISOString();
      await stack.db.query(
        `INSERT INTO verifier.reconciliation_exceptions (exception_id, provider, reference, class, status, raised_at, first_run_id, last_run_id)
         VALUES ($1, 'paystack', $2, 'terms_differ', 'open', $3, $4, $4)`,
        [exceptionId, reference, Date.parse(raisedAt), runId],
      );
      await upsertReconciliation(
        stack.db,
        [
          {
            status: 'completed',
            ledgerRevision: 2,
            data: {
              run_id: runId,
              provider: 'paystack',
              kind: 'daily',
              window_from: new Date(Date.parse(raisedAt) - 86_400_000).toISOString(),
              window_until: raisedAt,
              dry_run: false,
              started_by: 'scheduler',
              pages: 1,
              total_pages: 1,
              listed: 12,
              out_of_scope: 0,
              too_recent: 0,
              classes: { matches: 11, terms_differ: 1 },
              exceptions_raised: 1,
              exceptions_resolved: 0,
              started_at: raisedAt,
              finished_at: raisedAt,
              error: null,
            },
          },
        ],
        [
          {
            kind: 'raised',
            ledgerRevision: -1,
            data: {
              exception_id: exceptionId,
              reference,
              provider: 'paystack',
              class: 'terms_differ',
              evidence: [{ field: 'amount', provider: '250000', settle: '200000' }],
              run_id: runId,
              provider_transaction_id: '5099001',
              provider_status: 'success',
              amount_minor: 250_000,
              currency: 'NGN',
              raised_at: raisedAt,
            },
          },
        ],
      );

      const page = await openPage();
      await signIn(page, 'ops@example.com', PASSWORD.admin);
      await page.getByTestId('nav-reconciliation').click();
      const row = page.locator(`[data-testid="recon-exception-row"][data-exception-id="${exceptionId}"]`);
      await row.waitFor();
      expect(await row.getAttribute('data-status')).toBe('open');
      // The amounts side by side, recorded in minor units, shown as money (NGN: two decimals).
      const amount = row.locator('[data-testid="evidence-row"][data-field="amount"]');
      expect(await amount.getByTestId('evidence-provider').innerText()).toContain('2,500.00');
      expect(await amount.getByTestId('evidence-settle').innerText()).toContain('2,000.00');
      expect(await amount.getByTestId('evidence-provider').getAttribute('title')).toBe('250000');

      await row.getByTestId('recon-resolve').click();
      await row.getByTestId('recon-resolve-reason').fill('refunded the difference at the provider');
      await row.getByTestId('recon-resolve-confirm').click();
      await expect.poll(() => row.getByTestId('recon-resolve-result').innerText()).toMatch(/Resolving/);

      // Ingestion published the request, the verifier closed its exception and the ledger recorded why and who.
      const resolved = await waitUntil('the resolution in the ledger', 30_000, async () => {
        const { rows } = await stack.db.query<{ note: string; resolved_by: string }>(
          "SELECT data->>'note' AS note, data->>'resolved_by' AS resolved_by FROM ledger.events WHERE stream_id = $1 AND event_type = 'ReconciliationExceptionResolved'",
          [`reconciliation-${reference}`],
        );
        return rows[0];
      });
      expect(resolved).toEqual({ note: 'refunded the difference at the provider', resolved_by: 'ops@example.com' });
      // The console's audit trail has the action with its actor, before and after.
      const { rows: audit } = await stack.db.query<{ event_type: string; actor: string; action: string }>(
        `SELECT event_type, data->'actor'->>'email' AS actor, data->>'action' AS action FROM ledger.events WHERE stream_id = $1 ORDER BY position`,
        [`admin-reconciliation_exception-${exceptionId}`],
      );
      expect(audit).toEqual([
        { event_type: 'AdminActionRequested', actor: 'ops@example.com', action: 'reconciliation_exception.resolve' },
        { event_type: 'AdminActionCompleted', actor: 'ops@example.com', action: 'reconciliation_exception.resolve' },
      ]);
      await expect
        .poll(
          async () => {
            await page.reload();
            const again = page.locator(`[data-testid="recon-exception-row"][data-exception-id="${exceptionId}"]`);
            await again.waitFor();
            return `${await again.getAttribute('data-status')}: ${await again.getByTestId('recon-resolution').innerText()}`;
          },
          { timeout: 15_000, interval: 1_000 },
        )
        .toMatch(/^resolved: Resolved by ops@example\.com: refunded the difference at the provider/);

      // The CSV download honours the filters: this class and provider, this run's one row.
      await page.getByTestId('recon-filter-class').selectOption('terms_differ');
      await page.getByTestId('recon-filter-run').fill(runId);
      await page.getByTestId('recon-apply').click();
      await expect.poll(() => new URL(page.url()).search).toBe(`?class=terms_differ&runId=${runId}`);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('recon-csv').click()]);
      expect(download.suggestedFilename()).toBe('reconciliation-exceptions.csv');
      const rows: Array<Record<string, string>> = parse(readFileSync(await download.path(), 'utf8'), { columns: true });
      expect(rows.map((r) => [r.exception_id, r.status, r.class, r.amount_minor, r.resolved_by])).toEqual([
        [exceptionId, 'resolved', 'terms_differ', '250000', 'ops@example.com'],
      ]);
      await page.close();
    });

    it("shows on the overview the ledger's chains verified, the workers' consumer lag and the dead letters, each card opening its list", async () => {
      const page = await openPage();
      await signIn(page, 'viewer@example.com', PASSWORD.viewer);
      await page.getByTestId('nav-overview').click();
      // The settled checkouts and the reconciliation above are in the ledger: the console's
      // verification (every second here) reaches them, from its checkpoint.
      await expect
        .poll(
          async () => {
            await page.reload();
            const chains = page.getByTestId('ledger-chains');
            return `${await chains.getAttribute('data-status')}: ${await chains.innerText()}`;
          },
          { timeout: 30_000, interval: 1_000 },
        )
        .toMatch(/^verified: Ledger chains verified up to position [1-9][\d,]* at /);
      expect(await page.getByTestId('consumer-lag').getAttribute('data-status')).toBe('ok');
      const groups = await page.getByTestId('consumer-lag-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-group')));
      expect(groups).toEqual(['verifier', 'ledger-projector', 'sweeper', 'dispatcher', 'ingestion'].map((worker) => `${stack.topicPrefix}-${worker}`));
      expect(await page.getByTestId('card-dead-lettered-messages').getAttribute('data-status')).toBe('ok');
      expect(await page.getByTestId('card-dead-lettered-deliveries').getAttribute('href')).toBe('/deliveries/dead-lettered');

      await page.getByTestId('card-held-in-review').click();
      await page.getByTestId('queue-held').waitFor();
      expect(new URL(page.url()).pathname).toBe('/queues/held-in-review');
      await page.goBack();
      await page.getByTestId('card-manual-review').click();
      await page.getByTestId('queue-manual').waitFor();
      expect(new URL(page.url()).pathname).toBe('/queues/manual-review');
      await page.goBack();
      await page.getByTestId('card-state-mismatch').click();
      await page.getByTestId('transactions-table').waitFor();
      expect(new URL(page.url()).search).toBe('?state=STATE_MISMATCH');

      // The Queues page's fourth tab reads the unmatched payments from the ledger's read model.
      await page.getByTestId('nav-queues').click();
      await page.getByTestId('queue-tab-unmatched').click();
      await page.getByTestId('queue-unmatched').waitFor();
      expect(new URL(page.url()).pathname).toBe('/queues/unmatched-payments');
      await expect.poll(() => page.getByTestId('queue-unmatched').getAttribute('aria-busy'), { timeout: 10_000 }).toBe('false');
      expect(await page.getByRole('alert').count()).toBe(0);
      await page.close();
    });

    it('an operator closes an unmatched payment (paid, never registered) with a reason from the Queues page; it leaves the queue and the ledger records why and who', async () => {
      const reference = `ref_console_unmatched_${randomBytes(4).toString('hex')}`;
      expect((await stack.sandbox.create({ reference, amount: 90_000, currency: 'NGN', email: `payer.${reference}@example.com` })).status).toBe(201);
      expect((await stack.sandbox.pay(reference)).status).toBe(200);
      await unmatchedRecorded(reference);
      const page = await openPage();
      await signIn(page, 'ops@example.com', PASSWORD.admin);
      await page.goto(`${consoleUrl}/queues/unmatched-payments`);
      const row = page.locator(`[data-testid="queue-row"][data-reference="${reference}"]`);
      await row.waitFor();
      await row.getByTestId('close-unmatched').click();
      await row.getByTestId('close-reason').selectOption('test_payment');
      await row.getByTestId('close-note').fill('QA card');
      await row.getByTestId('close-confirm').click();
      await waitUntil('the closing in the ledger', 30_000, async () => {
        const { rows } = await stack.db.query<{ reason: string; closed_by: string }>(
          "SELECT data->>'reason' AS reason, data->>'closed_by' AS closed_by FROM ledger.events WHERE stream_id = $1 AND event_type = 'UnmatchedPaymentClosed'",
          [`unmatched-${reference}`],
        );
        return rows[0];
      }).then((closed) => expect(closed).toEqual({ reason: 'test_payment', closed_by: 'ops@example.com' }));
      await page.reload();
      await page.getByTestId('queue-unmatched').waitFor();
      await expect.poll(() => page.locator(`[data-testid="queue-row"][data-reference="${reference}"]`).count(), { timeout: 10_000 }).toBe(0);
      await page.close();
    });

    it("an operator proposes matching an unmatched payment to a checkout through the form; the proposer cannot approve it; a second admin compares the terms with the provider's answer and approves it, and the checkout is registered with ingestion, settles and is delivered", async () => {
      const reference = `ref_console_match_${randomBytes(4).toString('hex')}`;
      const email = `payer.${reference}@example.com`;
      expect((await stack.sandbox.create({ reference, amount: 90_000, currency: 'NGN', email })).status).toBe(201);
      expect((await stack.sandbox.pay(reference)).status).toBe(200);
      await unmatchedRecorded(reference);
      expect((await stack.ingestion.status(reference)).status).toBe(404);

      // The operator proposes the match from the queue, with the terms from their own source.
      const page = await openPage();
      await signIn(page, 'ops@example.com', PASSWORD.admin);
      await page.goto(`${consoleUrl}/queues/unmatched-payments`);
      const row = page.locator(`[data-testid="queue-row"][data-reference="${reference}"]`);
      await row.waitFor();
      await row.getByTestId('match-unmatched').click();
      const form = page.getByTestId('match-form');
      await form.waitFor();
      expect(await form.getByTestId('match-reference').innerText()).toBe(reference);
      // Nothing of the provider's answer is filled in: the operator states every term.
      const fields = ['match-entitlement', 'match-user-id', 'match-access-period', 'match-currency', 'match-amount', 'match-email', 'match-phone'];
      for (const field of fields) expect(await form.getByTestId(field).inputValue(), field).toBe('');
      await form.getByTestId('match-entitlement').fill('pro-monthly');
      await form.getByTestId('match-user-id').fill(`user-${reference}`);
      await form.getByTestId('match-access-period').fill('P30D');
      await form.getByTestId('match-currency').fill('NGN');
      await form.getByTestId('match-amount').fill('900.00');
      await form.getByTestId('match-email').fill(email);
      expect(await form.getByTestId('match-amount-preview').innerText()).toContain('90000 minor units');
      await form.getByTestId('match-submit').click();
      const result = page.getByTestId('match-result');
      await result.waitFor();
      expect(await result.getAttribute('data-status')).toBe('pending');
      expect(await result.innerText()).toMatch(/waits for a second admin/);
      const proposalId = (await result.getAttribute('data-proposal-id'))!;
      expect(proposalId).toMatch(/^[0-9a-f-]{36}$/);

      // The proposer cannot approve it: the button is disabled with the reason, and the API refuses it anyway.
      await result.getByTestId('match-open-proposal').click();
      const mine = page.locator(`[data-testid="proposal"][data-proposal-id="${proposalId}"]`);
      await mine.waitFor();
      expect(new URL(page.url()).pathname).toBe(`/proposals/${proposalId}`);
      expect(await mine.getAttribute('data-status')).toBe('pending');
      expect(await mine.getByTestId('approve').isDisabled()).toBe(true);
      expect(await mine.getByTestId('approve-blocked').innerText()).toMatch(/You proposed it/);
      const session = (await (await page.request.get(`${consoleUrl}/api/v1/session`)).json()) as { csrfToken: string };
      const refused = await page.request.post(`${consoleUrl}/api/v1/proposals/${proposalId}/approve`, { headers: { 'x-csrf-token': session.csrfToken } });
      expect(refused.status()).toBe(403);
      expect((await stack.ingestion.status(reference)).status).toBe(404);
      await page.close();

      // A second admin compares the terms with the provider's answer and approves.
      const approver = await openPage();
      await signIn(approver, 'admin@example.com', PASSWORD.adminUser);
      await approver.getByTestId('nav-proposals').click();
      const card = approver.locator(`[data-testid="proposal"][data-proposal-id="${proposalId}"]`);
      await card.waitFor();
      expect(await card.getByTestId('proposer').innerText()).toBe('ops@example.com');
      const amount = card.locator('[data-testid="term-row"][data-term="amount"]');
      await expect.poll(() => amount.getAttribute('data-agrees'), { timeout: 10_000 }).toBe('true');
      expect(await amount.getByTestId('term-proposed').innerText()).toContain('900.00');
      expect(await amount.getByTestId('term-provider').innerText()).toContain('900.00');
      // The provider's email is shown masked (docs/privacy.md): the screen cannot say "same", only that it does not differ.
      const emailRow = card.locator('[data-testid="term-row"][data-term="email"]');
      expect(await emailRow.getAttribute('data-agrees')).toBeNull();
      expect(await emailRow.getByTestId('term-provider').innerText()).toMatch(/•••@example\.com/);
      expect(await emailRow.getByTestId('term-differs').count()).toBe(0);
      approver.once('dialog', (dialog) => void dialog.accept());
      await card.getByTestId('approve').click();
      await expect.poll(() => card.getAttribute('data-status'), { timeout: 30_000 }).toBe('approved');
      expect(await card.getByTestId('decided-by').innerText()).toBe('admin@example.com');

      // The registration reached ingestion: a checkout under the payment's reference with the
      // proposed terms, verified against the provider's answer (the four checks) and settled.
      await stateOf(reference, 'SETTLED_CONSENSUS');
      const checkout = await stack.ingestion.status(reference);
      expect(checkout.body).toMatchObject({ reference, amount: 90_000, currency: 'NGN', entitlement: 'pro-monthly', access_period: 'P30D' });
      const { rows: matched } = await stack.db.query("SELECT 1 FROM ledger.events WHERE stream_id = $1 AND event_type = 'UnmatchedPaymentMatched'", [
        `unmatched-${reference}`,
      ]);
      expect(matched).toHaveLength(1);
      // The proposal's customer reached the ledger's admin actions and the console's table sealed, never in plaintext (docs/privacy.md).
      const { rows: plaintext } = await stack.db.query(
        `SELECT 1 FROM ledger.events WHERE stream_id LIKE 'admin-%' AND strpos(lower(data::text), lower($1::text)) > 0
         UNION ALL SELECT 1 FROM console.proposals WHERE strpos(lower(parameters::text), lower($1::text)) > 0`,
        [email],
      );
      expect(plaintext).toEqual([]);
      // The payment's grant reaches the customer backend like any settled checkout's.
      await waitUntil('the matched payment’s grant delivered to the customer backend', 30_000, async () => {
        const { rows } = await stack.db.query<{ event_id: string }>(
          `SELECT d.event_id FROM dispatcher.deliveries d JOIN dispatcher.events e ON e.event_id = d.event_id
            WHERE e.reference = $1 AND d.endpoint_id = $2 AND d.state = 'delivered'`,
          [reference, stack.customer!.endpointId],
        );
        return rows[0]?.event_id;
      });
      // The approved proposal opens its checkout's page.
      await card.getByTestId('proposal-transaction').click();
      await expect.poll(() => approver.getByTestId('state-badge').getAttribute('title'), { timeout: 30_000 }).toBe('SETTLED_CONSENSUS');
      await approver.close();
    });

    it("a lower amount paid: an operator proposes accepting it as paid with a note; the proposer cannot approve; a second admin approves; the ledger records the settlement by override naming both, the entitlement is granted and the checkout's status reads accepted_as_paid", async () => {
      const customer = stack.customer!;
      const reference = await checkout({ outcome: 'lower_amount' });
      const user = `user-${reference}`;
      const note = `Half paid: the merchant honours ${reference} as paid`;
      expect((await stack.ingestion.complete(reference)).status).toBe(202);
      await stateOf(reference, 'STATE_MISMATCH');
      // Nothing is granted until someone decides.
      expect(await statusOf(reference)).toMatchObject({ state: 'STATE_MISMATCH', entitlement_status: 'LOCKED', resolution: null });
      expect((await stack.ingestion.entitlements(user)).body.entitlements).toEqual([]);

      // The operator proposes it from the transaction's page, with a note (none, no proposal).
      const page = await openPage();
      await signIn(page, 'ops@example.com', PASSWORD.admin);
      await openTransaction(page, reference);
      const panel = page.getByTestId('mismatch-panel');
      await panel.waitFor();
      expect(await panel.getByTestId('mismatch-resolution').count()).toBe(0);
      expect(await panel.getByTestId('refund-due').count()).toBe(0);
      expect(await inMismatchQueue(page, reference)).toBe(true);
      await panel.getByTestId('accept-as-paid').click();
      const dialog = page.getByTestId('accept-as-paid-dialog');
      await dialog.waitFor();
      expect(await dialog.getByTestId('accept-as-paid-submit').isDisabled()).toBe(true);
      await dialog.getByTestId('accept-as-paid-note').fill(note);
      await dialog.getByTestId('accept-as-paid-submit').click();
      const result = dialog.getByTestId('accept-as-paid-result');
      await result.waitFor();
      expect(await result.innerText()).toMatch(/waits for a second admin/);
      const proposalId = (await result.getAttribute('data-proposal-id'))!;
      expect(proposalId).toMatch(/^[0-9a-f-]{36}$/);

      // The proposer cannot approve it: the button is disabled with the reason, and the API refuses it anyway.
      await result.getByTestId('accept-as-paid-open-proposal').click();
      const mine = page.locator(`[data-testid="proposal"][data-proposal-id="${proposalId}"]`);
      await mine.waitFor();
      expect(new URL(page.url()).pathname).toBe(`/proposals/${proposalId}`);
      expect(await mine.getAttribute('data-status')).toBe('pending');
      expect(await mine.getByTestId('approve').isDisabled()).toBe(true);
      expect(await mine.getByTestId('approve-blocked').innerText()).toMatch(/You proposed it/);
      expect((await postAsSignedIn(page, `/api/v1/proposals/${proposalId}/approve`)).status).toBe(403);
      expect((await statusOf(reference)).resolution).toBeNull();
      expect(await ledgerFacts(reference, 'SettledByOverride')).toEqual([]);
      await page.close();

      // A second admin reads the note and approves, after the question of what it does.
      const approver = await openPage();
      await signIn(approver, 'admin@example.com', PASSWORD.adminUser);
      await approver.getByTestId('nav-proposals').click();
      const card = approver.locator(`[data-testid="proposal"][data-proposal-id="${proposalId}"]`);
      await card.waitFor();
      expect(await card.getByTestId('proposer').innerText()).toBe('ops@example.com');
      expect(await card.getByTestId('proposal-target').innerText()).toBe(reference);
      expect(await card.getByTestId('proposal-parameters').innerText()).toContain(note);
      let question = '';
      approver.once('dialog', (dialog) => {
        question = dialog.message();
        void dialog.accept();
      });
      const approvedFrom = Date.now();
      await card.getByTestId('approve').click();
      await expect.poll(() => card.getAttribute('data-status'), { timeout: 30_000 }).toBe('approved');
      expect(question).toContain(reference);
      expect(question).toMatch(/settled by override/);
      expect(await card.getByTestId('decided-by').innerText()).toBe('admin@example.com');

      // The ledger records the settlement by override, naming both people and the difference accepted...
      const [override] = await waitUntil('the settlement by override in the ledger', 30_000, async () => {
        const facts = await ledgerFacts(reference, 'SettledByOverride');
        return facts.length > 0 ? facts : undefined;
      });
      expect(override).toMatchObject({
        reference,
        user_id: user,
        entitlement: 'pro-monthly',
        proposal_id: proposalId,
        proposed_by: 'ops@example.com',
        approved_by: 'admin@example.com',
        note,
        expected: { amount_minor: 500_000, currency: 'NGN' },
        observed: { amount_minor: 250_000, currency: 'NGN' },
        difference_minor: 250_000,
      });
      // ...and grants the entitlement the checkout bought, a month from the decision.
      const granted = await waitUntil(`the grant of ${user}`, 30_000, async () => {
        const answer = await stack.ingestion.entitlements(user);
        return answer.status === 200 && answer.body.entitlements.length === 1 ? answer.body.entitlements[0] : undefined;
      });
      const approvedBy = Date.now();
      expect(granted).toMatchObject({ entitlement: 'pro-monthly', grants: 1, last_event: 'subscription_started' });
      const day = 86_400_000;
      expect(Date.parse(granted.expires_at)).toBeGreaterThanOrEqual(approvedFrom + 28 * day);
      expect(Date.parse(granted.expires_at)).toBeLessThanOrEqual(approvedBy + 31 * day);
      // The checkout's status answer: still a State Mismatch (the checks did fail), accepted as paid, unlocked.
      expect(await resolutionOf(reference, 'accepted_as_paid')).toMatchObject({
        state: 'STATE_MISMATCH',
        entitlement_status: 'UNLOCKED',
        resolution: 'accepted_as_paid',
        money_state: 'none',
      });
      // The grant reaches the customer backend like any grant: its access ends where the ledger's does.
      await waitUntil('the override’s grant delivered to the customer backend', 30_000, async () => {
        const { rows } = await stack.db.query<{ event_id: string }>(
          `SELECT d.event_id FROM dispatcher.deliveries d JOIN dispatcher.events e ON e.event_id = d.event_id
            WHERE e.reference = $1 AND d.endpoint_id = $2 AND d.state = 'delivered'`,
          [reference, customer.endpointId],
        );
        return rows[0]?.event_id;
      });
      await customerAccess(user, granted.expires_at);

      // The approved proposal opens the transaction: who decided, the difference and the note, the
      // resolution on the timeline; the state badge stays State Mismatch, the entitlement unlocked.
      await card.getByTestId('proposal-transaction').click();
      const resolution = approver.getByTestId('mismatch-resolution');
      await resolution.waitFor();
      expect(await resolution.getAttribute('data-resolution')).toBe('accepted_as_paid');
      const notice = await resolution.innerText();
      expect(notice).toMatch(/Accepted as paid/);
      expect(notice).toContain('Proposed by ops@example.com, approved by admin@example.com');
      expect(notice).toContain('2,500.00');
      expect(notice).toContain(note);
      expect(await approver.getByTestId('state-badge').getAttribute('title')).toBe('STATE_MISMATCH');
      expect(await entitlementBadge(approver).getAttribute('title')).toBe('UNLOCKED');
      expect(await approver.getByTestId('accept-as-paid').count()).toBe(0);
      expect(await approver.getByTestId('refund-due').count()).toBe(0);
      const fact = timelineEntry(approver, 'SettledByOverride').getByTestId('timeline-resolution');
      const factText = await fact.innerText();
      expect(factText).toContain('ops@example.com (proposed), admin@example.com (approved)');
      expect(factText).toContain('250000 minor units');
      expect(factText).toContain(note);
      // Accepted as paid, it leaves the State Mismatch queue (the open ones).
      expect(await inMismatchQueue(approver, reference)).toBe(false);
      await approver.close();
    });

    it("a payer's data erased by two people: an operator proposes it from the Proposals page; the proposer cannot approve; a second admin approves; the transaction's customer check reads erased, the chains verify, and the customer backend keeps its access", async () => {
      const reference = await checkout({ outcome: 'success' });
      const user = `user-${reference}`;
      const email = `payer.${reference}@example.com`;
      expect((await stack.ingestion.complete(reference)).status).toBe(202);
      await stateOf(reference, 'SETTLED_CONSENSUS');
      const granted = await waitUntil(`the grant of ${user}`, 30_000, async () => {
        const answer = await stack.ingestion.entitlements(user);
        return answer.status === 200 && answer.body.entitlements.length === 1 ? answer.body.entitlements[0] : undefined;
      });
      await customerAccess(user, granted.expires_at);

      // The operator proposes erasing the customer, by email, with a reason that names no one.
      const page = await openPage();
      await signIn(page, 'ops@example.com', PASSWORD.admin);
      await page.getByTestId('nav-proposals').click();
      await page.getByTestId('propose-erasure').click();
      const dialog = page.getByTestId('erasure-dialog');
      await dialog.waitFor();
      await dialog.getByTestId('erasure-kind-customer').check();
      await dialog.getByTestId('erasure-subject').fill(email.toUpperCase());
      await dialog.getByTestId('erasure-reason').fill('DPO-42, request of the day');
      await dialog.getByTestId('erasure-submit').click();
      const result = dialog.getByTestId('erasure-result');
      await result.waitFor();
      const proposalId = (await result.getAttribute('data-proposal-id'))!;
      expect(proposalId).toMatch(/^[0-9a-f-]{36}$/);
      expect((await postAsSignedIn(page, `/api/v1/proposals/${proposalId}/approve`)).status).toBe(403);
      await page.close();
      // Proposed, the subject is in the ledger's audit only sealed.
      const mentions = async () =>
        (await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger.events WHERE strpos(lower(data::text), $1) > 0`, [email])).rows[0]!.n;
      expect(await mentions()).toBe(0);

      // A second admin sees whom it names and approves it.
      const approver = await openPage();
      await signIn(approver, 'admin@example.com', PASSWORD.adminUser);
      await approver.getByTestId('nav-proposals').click();
      const card = approver.locator(`[data-testid="proposal"][data-proposal-id="${proposalId}"]`);
      await card.waitFor();
      expect(await card.getByTestId('subject').innerText()).toContain(email);
      approver.once('dialog', (question) => void question.accept());
      await card.getByTestId('approve').click();
      await expect.poll(() => card.getAttribute('data-status'), { timeout: 30_000 }).toBe('approved');
      await card.getByTestId('subject-erased').waitFor();

      // The ledger records the erasure naming both people and the payment, not the payer.
      const { rows: facts } = await stack.db.query<{ data: Record<string, unknown> }>(
        `SELECT data FROM ledger.events WHERE stream_id = 'privacy-erasures' AND data->'transaction_references' ? $1`,
        [reference],
      );
      expect(facts.map((f) => f.data)).toEqual([
        expect.objectContaining({ subject_kind: 'customer', requested_by: 'ops@example.com', approved_by: 'admin@example.com' }),
      ]);
      expect(await mentions()).toBe(0);
      const { rows: checkouts } = await stack.db.query('SELECT customer_email FROM ingestion.checkouts WHERE reference = $1', [reference]);
      expect(checkouts).toEqual([{ customer_email: null }]);

      // The transaction's page shows its customer check erased, the other checks as they were.
      await openTransaction(approver, reference);
      await approver.getByTestId('check-erased').first().waitFor();
      expect(await approver.getByTestId('state-badge').getAttribute('title')).toBe('SETTLED_CONSENSUS');
      expect(await entitlementBadge(approver).getAttribute('title')).toBe('UNLOCKED');
      await approver.close();

      // The ledger's chains still verify; the customer backend keeps the access it was granted.
      const verify = spawnSync(process.execPath, [join(ROOT, 'dist/scripts/ops/ledger.js'), 'verify'], {
        env: { PATH: process.env.PATH, DATABASE_URL: stack.databaseUrl, LEDGER_CHECKPOINT_DIR: stack.checkpointDir },
        encoding: 'utf8',
      });
      expect(verify.status, verify.stderr).toBe(0);
      await customerAccess(user, granted.expires_at);
    });

    it('an admin closes a State Mismatch as refund due; a viewer or operator does not see the button; once the provider refunds the payment in full the page reads Refunded', async () => {
      const reference = await checkout({ outcome: 'lower_amount' });
      const user = `user-${reference}`;
      const note = `Refund ${reference} from the dashboard`;
      expect((await stack.ingestion.complete(reference)).status).toBe(202);
      await stateOf(reference, 'STATE_MISMATCH');
      // What the provider captured (the sandbox's lower amount is half the registered one): what a full refund returns.
      const captured = Number((await statusOf(reference)).checks?.find((c) => c.check === 'amount')?.observed);
      expect(captured).toBe(250_000);
      const path = `/api/v1/transactions/${reference}/close-refund-due`;

      // A viewer sees neither button, and the API refuses a viewer who tries.
      const viewer = await openPage();
      await signIn(viewer, 'viewer@example.com', PASSWORD.viewer);
      await openTransaction(viewer, reference);
      await viewer.getByTestId('mismatch-panel').waitFor();
      expect(await viewer.getByTestId('refund-due').count()).toBe(0);
      expect(await viewer.getByTestId('accept-as-paid').count()).toBe(0);
      expect(await postAsSignedIn(viewer, path, { note })).toEqual({ status: 403, code: 'CONSOLE.FORBIDDEN' });
      await viewer.close();
      // An operator may propose accepting it, but not close it as refund due.
      const operator = await openPage();
      await signIn(operator, 'ops@example.com', PASSWORD.admin);
      await openTransaction(operator, reference);
      await operator.getByTestId('accept-as-paid').waitFor();
      expect(await operator.getByTestId('refund-due').count()).toBe(0);
      expect(await postAsSignedIn(operator, path, { note })).toEqual({ status: 403, code: 'CONSOLE.FORBIDDEN' });
      await operator.close();
      expect((await statusOf(reference)).resolution).toBeNull();

      // An admin closes it as refund due, with a note.
      const verifyCallsBefore = (await stack.sandbox.inspect(reference)).body.verifyCalls;
      const page = await openPage();
      await signIn(page, 'admin@example.com', PASSWORD.adminUser);
      await openTransaction(page, reference);
      await page.getByTestId('refund-due').click();
      const dialog = page.getByTestId('refund-due-dialog');
      await dialog.waitFor();
      await dialog.getByTestId('refund-due-note').fill(note);
      await dialog.getByTestId('refund-due-submit').click();
      await expect.poll(() => dialog.count(), { timeout: 10_000 }).toBe(0);
      expect(await resolutionOf(reference, 'refund_due')).toMatchObject({ state: 'STATE_MISMATCH', entitlement_status: 'LOCKED', returned: 0 });
      expect(await ledgerFacts(reference, 'MismatchRefundDue')).toEqual([expect.objectContaining({ closed_by: 'admin@example.com', note })]);
      // Closing it asked the verifier to read the payment at the provider (a refund made before would close it at once).
      await waitUntil('the provider to be asked', 20_000, async () =>
        (await stack.sandbox.inspect(reference)).body.verifyCalls > verifyCallsBefore ? true : undefined,
      );
      await page.reload();
      const resolution = page.getByTestId('mismatch-resolution');
      await resolution.waitFor();
      expect(await resolution.getAttribute('data-resolution')).toBe('refund_due');
      expect(await resolution.innerText()).toContain('Closed by admin@example.com');
      expect(await page.getByTestId('refund-due').count()).toBe(0);
      expect(await page.getByTestId('accept-as-paid').count()).toBe(0);
      const closing = await timelineEntry(page, 'MismatchRefundDue').getByTestId('timeline-resolution').innerText();
      expect(closing).toContain('admin@example.com');
      expect(closing).toContain(note);
      // The console's audit trail names the admin on the timeline.
      const action = page.locator('[data-testid="timeline-admin-action"]', { hasText: 'Closed: refund due' });
      expect(await action.getByTestId('timeline-actor').innerText()).toContain('admin@example.com (admin)');
      // Refund due stays in the State Mismatch queue until the refund shows.
      expect(await inMismatchQueue(page, reference)).toBe(true);
      // A resolved State Mismatch cannot be accepted as paid any more.
      expect(await postAsSignedIn(page, `/api/v1/transactions/${reference}/accept-as-paid-proposals`, { note: 'too late' })).toEqual({
        status: 409,
        code: 'CONSOLE.MISMATCH_RESOLVED',
      });

      // Part of the captured money back: still refund due.
      const part = 100_000;
      expect((await stack.sandbox.refund(reference, { amount: part })).status).toBe(201);
      await waitUntil('the partial refund recorded', 30_000, async () => ((await statusOf(reference)).returned === part ? true : undefined));
      expect((await statusOf(reference)).resolution).toBe('refund_due');
      expect(await ledgerFacts(reference, 'MismatchRefundDueClosed')).toEqual([]);
      // The rest of it: the provider shows the captured money returned in full, and it closes by itself.
      expect((await stack.sandbox.refund(reference, { amount: captured - part })).status).toBe(201);
      expect(await resolutionOf(reference, 'refunded', 40_000)).toMatchObject({ state: 'STATE_MISMATCH', returned: captured, resolution: 'refunded' });
      expect(await ledgerFacts(reference, 'MismatchRefundDueClosed')).toEqual([expect.objectContaining({ returned_minor: captured })]);
      // Nothing was ever granted.
      expect((await stack.ingestion.entitlements(user)).body.entitlements).toEqual([]);

      await page.reload();
      await resolution.waitFor();
      expect(await resolution.getAttribute('data-resolution')).toBe('refunded');
      expect(await resolution.innerText()).toMatch(/^Refunded\./);
      expect(await page.getByTestId('money-returned').innerText()).toContain('2,500.00');
      expect(await page.getByTestId('state-badge').getAttribute('title')).toBe('STATE_MISMATCH');
      expect(await entitlementBadge(page).getAttribute('title')).toBe('LOCKED');
      expect(await timelineEntry(page, 'MismatchRefundDueClosed').count()).toBe(1);
      expect(await page.getByTestId('refund-due').count()).toBe(0);
      expect(await inMismatchQueue(page, reference)).toBe(false);
      await page.close();
    });

    it("sends its Content-Security-Policy and the other security headers, and Swagger UI's page renders within its own (no violation)", async () => {
      const page = await openPage();
      const answer = await page.goto(consoleUrl);
      const headers = answer!.headers();
      expect(headers['content-security-policy']).toContain("script-src 'self'");
      expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(headers['content-security-policy']).not.toContain('unsafe-inline');
      expect(headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' });
      expect(headers['permissions-policy']).toContain('camera=()');
      await page.goto(`${consoleUrl}/api/docs`);
      // Swagger UI rendered the console's API (its operations listed): its scripts ran and its styles applied.
      await page.locator('.opblock').first().waitFor({ timeout: 15_000 });
      expect(await page.locator('.opblock').count()).toBeGreaterThan(5);
      // Ingestion's and the dispatcher's pages too, each within its app's policy.
      for (const url of [`${stack.ingestionUrl}/docs`, `${stack.dispatcherUrl}/docs`]) {
        await page.goto(url);
        await page.locator('.opblock').first().waitFor({ timeout: 15_000 });
        await page.locator('.opblock-summary').first().click();
      }
      await page.close();
    });

    it('refuses a state change without the CSRF token, even with the session cookie', async () => {
      const page = await openPage();
      await signIn(page, 'ops@example.com', PASSWORD.admin);
      const refused = await page.request.post(`${consoleUrl}/api/v1/transactions/ref_anything/reconcile`);
      expect(refused.status()).toBe(403);
      expect(((await refused.json()) as { code: string }).code).toBe('CONSOLE.CSRF_REJECTED');
      await page.close();
    });

    it('says so for a wrong password, and locks the login out after five', async () => {
      const email = `locked-${randomBytes(4).toString('hex')}@example.com`;
      createUser(email, 'viewer', 'the-right-password-1');
      const page = await openPage();
      await page.goto(consoleUrl);
      for (let i = 0; i < 5; i++) {
        await page.getByTestId('login-email').fill(email);
        await page.getByTestId('login-password').fill(`wrong-${i}`);
        await page.getByTestId('login-submit').click();
        await expect.poll(() => page.getByTestId('login-error').innerText()).toBeTruthy();
      }
      await page.getByTestId('login-password').fill('the-right-password-1');
      await page.getByTestId('login-submit').click();
      await expect.poll(() => page.getByTestId('login-error').innerText()).toMatch(/too many|locked|later/i);
      await page.close();
    });
  });
}

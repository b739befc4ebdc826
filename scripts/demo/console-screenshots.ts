/**
 * Screenshots of the operations console's main pages for the documentation, taken in a real
 * browser (Debian's chromium, playwright-core) against the running stack after `./settle demo`,
 * so they show the demo's data: `scripts/demo/console-screenshots.sh [folder]`.
 * Creates an admin of its own for the run (through the console's command line), signs in
 * and saves, under `docs/console/` (or the folder given as the first argument): the sign-in
 * page, the overview, the transactions list, the State Mismatch list, the review queues, the
 * page of a transaction whose lower amount failed the amount check, and the Deliveries pages
 * (the endpoints, the dead-lettered deliveries and an entitlement event's attempts), the audit
 * trail and the users.
 *
 * Environment: DATABASE_URL (the stack's database), CONSOLE_URL (default
 * http://127.0.0.1:3400), SETTLE_CHROMIUM (default /usr/bin/chromium).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const consoleUrl = process.env.CONSOLE_URL ?? 'http://127.0.0.1:3400';
const out = resolve(process.argv[2] ?? join(ROOT, 'docs/console'));

async function shot(page: Page, name: string): Promise<void> {
  // The pages poll; wait until nothing is loading before the picture.
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: join(out, `${name}.png`), fullPage: false });
  process.stderr.write(`saved ${join(out, `${name}.png`)}\n`);
}

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) throw new Error('set DATABASE_URL (the stack database, which ./settle up uses)');
  mkdirSync(out, { recursive: true });
  const email = `screenshots-${randomBytes(4).toString('hex')}@example.com`;
  const password = randomBytes(18).toString('base64url');
  const created = spawnSync(process.execPath, [join(ROOT, 'dist/apps/console/src/cli/create-user.js'), '--email', email, '--role', 'admin'], {
    input: `${password}\n`,
    env: process.env,
    encoding: 'utf8',
  });
  if (created.status !== 0) throw new Error(`creating the screenshot user failed: ${created.stderr}`);

  const browser = await chromium.launch({
    executablePath: process.env.SETTLE_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(consoleUrl);
    await page.getByTestId('login-email').waitFor();
    await shot(page, 'sign-in');
    await page.getByTestId('login-email').fill(email);
    await page.getByTestId('login-password').fill(password);
    await page.getByTestId('login-submit').click();
    await page.getByTestId('nav-transactions').waitFor();
    // The overview once its figures are in (the ledger's chains, the consumer lag), not its loading cards.
    await page.getByTestId('card-total').waitFor();
    await page.getByTestId('consumer-lag').waitFor();
    await page.waitForLoadState('networkidle');
    await shot(page, 'overview');
    await page.getByTestId('nav-transactions').click();
    await page.getByTestId('transactions-table').waitFor();
    await shot(page, 'transactions');
    await page.goto(`${consoleUrl}/transactions?state=STATE_MISMATCH`);
    await page.getByTestId('transactions-table').waitFor();
    await shot(page, 'state-mismatch');
    await page.getByTestId('nav-queues').click();
    await page.waitForLoadState('networkidle');
    await shot(page, 'queues');
    await page.goto(`${consoleUrl}/transactions?state=STATE_MISMATCH`);
    await page.getByTestId('transactions-table').waitFor();
    // A lower amount paid (the demo's "lower amount paid" checkouts): found through the API.
    const list = (await (await page.request.get(`${consoleUrl}/api/v1/transactions?state=STATE_MISMATCH&limit=100`)).json()) as {
      items: Array<{ reference: string }>;
    };
    for (const { reference } of list.items) {
      const detail = (await (await page.request.get(`${consoleUrl}/api/v1/transactions/${encodeURIComponent(reference)}`)).json()) as {
        transaction: { checks: Array<{ check: string; passed: boolean }> | null };
      };
      if (detail.transaction.checks?.some((c) => c.check === 'amount' && !c.passed)) {
        await page.goto(`${consoleUrl}/transactions/${encodeURIComponent(reference)}`);
        await page.getByTestId('checks').waitFor();
        break;
      }
    }
    await shot(page, 'transaction');
    await deliveries(page);
    // The admin's pages: the audit trail (the command line's user creations at least) and the users.
    await page.getByTestId('nav-audit').click();
    await page.getByTestId('audit-table').waitFor();
    await shot(page, 'audit');
    await page.getByTestId('nav-users').click();
    await page.getByTestId('users-table').waitFor();
    await shot(page, 'users');
  } finally {
    await browser.close();
  }
}

/**
 * The Deliveries pages: the endpoints, the dead-lettered deliveries, and the attempts of a
 * dead-lettered event (else of the newest settled transaction's first entitlement event).
 */
async function deliveries(page: Page): Promise<void> {
  await page.getByTestId('nav-deliveries').click();
  await page.waitForLoadState('networkidle');
  await shot(page, 'deliveries');
  await page.getByTestId('deliveries-tab-failed').click();
  await page.waitForLoadState('networkidle');
  await shot(page, 'dead-lettered');
  let link = page.getByTestId('event-attempts-link').first();
  if ((await link.count()) === 0) {
    const settled = (await (await page.request.get(`${consoleUrl}/api/v1/transactions?state=SETTLED_CONSENSUS&limit=1`)).json()) as {
      items: Array<{ reference: string }>;
    };
    if (!settled.items[0]) return;
    await page.goto(`${consoleUrl}/transactions/${encodeURIComponent(settled.items[0].reference)}`);
    await page.getByTestId('entitlement-events').waitFor();
    link = page.getByTestId('event-attempts-link').first();
    if ((await link.count()) === 0) return;
  }
  await link.click();
  await page.getByTestId('event-deliveries').waitFor();
  await shot(page, 'delivery-attempts');
}

main().catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});

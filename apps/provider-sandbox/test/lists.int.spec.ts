import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import { createLogger } from '@settle/platform';
import {
  FlutterwaveProvider,
  PaystackProvider,
  ProviderCallError,
  ProviderMetrics,
  StripeProvider,
  type ListedTransaction,
  type ListWindow,
  type TransactionLister,
  type TransactionPage,
} from '@settle/providers';
import { createSandboxApp, type SandboxApp } from '../src/app.js';
import { loadSandboxConfig } from '../src/config.js';

// Each provider's list adapter against the sandbox over HTTP (docs/reconciliation.md,
// "Providers' lists"): pages, an empty window, a 429 with Retry-After in the middle of a run,
// failures that do not go away, a run resumed from a stored cursor, Flutterwave's dates. Every
// test seeds its own days, far apart, so the shared book never mixes them.
const hex = (n: number) => randomBytes(n).toString('hex');
const keys = { paystack: `sk_test_${hex(20)}`, stripe: `sk_test_${hex(24)}`, flutterwave: `FLWSECK_TEST-${hex(16)}-X` };
type Listing = 'paystack' | 'stripe' | 'flutterwave';
const LISTING: readonly Listing[] = ['paystack', 'stripe', 'flutterwave'];
const DAY = 86_400_000;
const HOUR = 3_600_000;
let sandbox: SandboxApp;
let baseUrl: string;
const open: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  const config = loadSandboxConfig({
    PAYSTACK_SECRET_KEY: keys.paystack,
    SANDBOX_WEBHOOK_URL: 'http://127.0.0.1:9/unused',
    STRIPE_SECRET_KEY: keys.stripe,
    FLUTTERWAVE_SECRET_KEY: keys.flutterwave,
  });
  sandbox = await createSandboxApp(config, createLogger('lists', 'silent'));
  await sandbox.app.listen(0, '127.0.0.1');
  baseUrl = `http://127.0.0.1:${(sandbox.app.getHttpServer().address() as AddressInfo).port}`;
});

afterAll(async () => {
  await Promise.all(open.splice(0).map((adapter) => adapter.close()));
  await sandbox?.close();
});

interface Options {
  key?: string;
  maxAttempts?: number;
  maxDelayMs?: number;
  metrics?: ProviderMetrics;
}

/** A list adapter of the provider pointed at the sandbox; 25 rows a page where the caller chooses. */
function lister(provider: Listing, options: Options = {}): TransactionLister & { close(): Promise<void> } {
  const common = {
    baseUrl,
    timeoutMs: 2_000,
    retry: { maxAttempts: options.maxAttempts ?? 3, initialDelayMs: 5, maxDelayMs: options.maxDelayMs ?? 50 },
    breaker: { minimumVerifications: 1_000 },
    listPageSize: 25,
    metrics: options.metrics,
  };
  const secretKey = new Secret(options.key ?? keys[provider]);
  const adapter =
    provider === 'paystack'
      ? new PaystackProvider({ ...common, secretKey })
      : provider === 'stripe'
        ? new StripeProvider({ ...common, secretKey })
        : new FlutterwaveProvider({ ...common, secretKey, phoneRegion: 'NG' });
  open.push(adapter);
  return adapter;
}

async function control(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}/_sandbox${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Each provider's currency for its seeds: exponents 2, 0 and 3, so every conversion is exercised over HTTP. */
const SEEDS: Record<Listing, { currency: string; amount: number; prefix: (p: string) => string }> = {
  paystack: { currency: 'NGN', amount: 10_050, prefix: (p) => `${p}_` },
  stripe: { currency: 'JPY', amount: 500, prefix: (p) => p },
  flutterwave: { currency: 'KWD', amount: 1_234, prefix: (p) => `${p}_` },
};

/** Seeds `count` transactions created over `[fromMs, untilMs)`; returns their references. */
async function seed(
  provider: Listing,
  prefix: string,
  count: number,
  fromMs: number,
  untilMs: number,
  outcomes: Record<string, number> = { success: 1 },
): Promise<string[]> {
  const { currency, amount, prefix: shape } = SEEDS[provider];
  const answer = await control(`/${provider}/transactions/bulk`, {
    count,
    from: new Date(fromMs).toISOString(),
    until: new Date(untilMs).toISOString(),
    reference_prefix: shape(prefix),
    outcomes,
    currency,
    amount,
    metadata: { settle: 'yes' },
  });
  expect(answer).toMatchObject({ status: 201, body: { created: count, existing: 0 } });
  return Array.from({ length: count }, (_, n) => (provider === 'stripe' ? `pi_${shape(prefix)}${n}` : `${shape(prefix)}${n}`));
}

/** Pages through a window from a cursor to the end, keeping every page. */
async function listAll(
  adapter: TransactionLister,
  window: ListWindow,
  cursor: string | null = null,
): Promise<{ pages: TransactionPage[]; cursors: Array<string | null> }> {
  const pages: TransactionPage[] = [];
  const cursors: Array<string | null> = [cursor];
  for (let next = cursor, guard = 0; guard < 100; guard++) {
    const page = await adapter.listPage(window, next);
    pages.push(page);
    next = page.next;
    cursors.push(next);
    if (next === null) break;
  }
  return { pages, cursors };
}

const references = (pages: TransactionPage[]) => pages.flatMap((p) => p.transactions.map((t) => t.reference));

/** A day of its own for each test and provider, from 2025-01-01. */
let nextDay = 0;
const day = () => Date.UTC(2025, 0, 1) + nextDay++ * 2 * DAY;

describe.each(LISTING)('%s list adapter against the sandbox', (provider) => {
  it('pages through a window: every transaction once, in the normalised shape, newest first', async () => {
    const fromMs = day() + 6 * HOUR;
    const untilMs = fromMs + 12 * HOUR;
    const seeded = await seed(provider, `pages${hex(3)}`, 60, fromMs, untilMs, { success: 3, declined: 1, clearing: 1, reversed: 1 });
    const { pages } = await listAll(lister(provider), { fromMs, untilMs });
    expect(pages.length).toBe(provider === 'flutterwave' ? 6 : 3);
    if (provider !== 'stripe') expect(pages[0]!.totalPages).toBe(pages.length);
    const listed = pages.flatMap((p) => p.transactions);
    expect(listed.map((t) => t.reference)).toEqual([...seeded].reverse());
    expect(pages.every((p) => p.skipped === undefined && p.rows === p.transactions.length)).toBe(true);
    const { currency, amount } = SEEDS[provider];
    for (const t of listed) {
      expect(t).toMatchObject({ provider, currency, metadata: { settle: 'yes' }, customer: { email: 'payer@example.com' } });
      expect(t.createdAtMs).toBeGreaterThanOrEqual(fromMs);
      expect(t.createdAtMs).toBeLessThan(untilMs);
      if (t.status === 'succeeded' || provider !== 'stripe') expect(t.amountMinor).toBe(amount);
    }
    const statuses = new Set(listed.map((t) => t.status));
    expect(statuses).toEqual(new Set(provider === 'paystack' ? ['succeeded', 'failed', 'pending', 'reversed'] : ['succeeded', 'failed', 'pending']));
  });

  it('an empty window is one empty page', async () => {
    const fromMs = day();
    const page = await lister(provider).listPage({ fromMs, untilMs: fromMs + DAY }, null);
    expect(page).toMatchObject({ transactions: [], next: null, rows: 0 });
  });

  it('a 429 in the middle of a run is retried after its Retry-After, and the run goes on where it was', async () => {
    const fromMs = day();
    const window = { fromMs, untilMs: fromMs + DAY };
    await seed(provider, `limit${hex(3)}`, 30, fromMs + HOUR, fromMs + 20 * HOUR);
    const metrics = new ProviderMetrics(new Registry());
    const adapter = lister(provider, { maxDelayMs: 2_000, metrics });
    const uninterrupted = references((await listAll(adapter, window)).pages);
    const first = await adapter.listPage(window, null);
    expect(await control(`/${provider}/list/failures`, { times: 1, retry_after_seconds: 1 })).toMatchObject({ status: 200 });
    const started = performance.now();
    const rest = await listAll(adapter, window, first.next);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(references([first, ...rest.pages])).toEqual(uninterrupted);
    const calls = await metrics.callDuration.get();
    const list = calls.values.filter((v) => v.metricName?.endsWith('_count') && v.labels.operation === 'list');
    expect(list.find((v) => v.labels.outcome === 'PROVIDER.RATE_LIMITED')?.value).toBe(1);
    const retries = await metrics.retries.get();
    expect(retries.values.find((v) => v.labels.reason === 'PROVIDER.RATE_LIMITED')?.value).toBe(1);
  });

  it('a page that keeps failing throws: a refused key is final, a 500 or a 429 that lasts may pass on a later run', async () => {
    const fromMs = day();
    const window = { fromMs, untilMs: fromMs + DAY };
    const wrongKey = provider === 'flutterwave' ? `FLWSECK_TEST-${hex(16)}-X` : `sk_test_${hex(20)}`;
    const refused = await lister(provider, { key: wrongKey })
      .listPage(window, null)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProviderCallError);
    expect(refused).toMatchObject({ code: 'PROVIDER.AUTH_REJECTED', retryable: false });

    await control(`/${provider}/list/failures`, { status: 500, times: 100 });
    await expect(lister(provider).listPage(window, null)).rejects.toMatchObject({ code: 'PROVIDER.UNEXPECTED_STATUS_500', retryable: true });
    await control(`/${provider}/list/failures`, { status: 429, times: 100, retry_after_seconds: 0 });
    await expect(lister(provider).listPage(window, null)).rejects.toMatchObject({ code: 'PROVIDER.RATE_LIMITED', retryable: true });
    await control(`/${provider}/list/failures`, { times: 0 });
    expect(await lister(provider).listPage(window, null)).toMatchObject({ next: null });
  });

  it('a run resumed from a stored cursor by another adapter gets the same remaining transactions', async () => {
    const fromMs = day();
    const window = { fromMs, untilMs: fromMs + DAY };
    await seed(provider, `resume${hex(3)}`, 70, fromMs + HOUR, fromMs + 23 * HOUR, { success: 1, declined: 1 });
    const whole = await listAll(lister(provider), window);
    expect(whole.pages.length).toBeGreaterThanOrEqual(3);
    const stored = JSON.parse(JSON.stringify(whole.cursors[2])) as string;
    const resumed = await listAll(lister(provider), window, stored);
    expect(references(resumed.pages)).toEqual(references(whole.pages.slice(2)));
  });
});

describe('Stripe: a cursor is an intent, so intents created during a run move nothing', () => {
  it('the pages after a stored cursor are the same after new intents were created in the window', async () => {
    const fromMs = day();
    const window = { fromMs, untilMs: fromMs + DAY };
    await seed('stripe', `stable${hex(3)}`, 60, fromMs + HOUR, fromMs + 12 * HOUR);
    const adapter = lister('stripe');
    const first = await adapter.listPage(window, null);
    const before = references((await listAll(adapter, window, first.next)).pages);
    await seed('stripe', `later${hex(3)}`, 20, fromMs + 13 * HOUR, fromMs + 14 * HOUR);
    expect(references((await listAll(adapter, window, first.next)).pages)).toEqual(before);
    expect(references((await listAll(adapter, window)).pages)).toHaveLength(80);
  });
});

describe("Flutterwave: whole dates asked, the window's edges kept by created_at", () => {
  it('keeps the first instant and the last millisecond of a window that is not a whole day, and counts the rest', async () => {
    const base = day();
    const window = { fromMs: base + 22 * HOUR + 30 * 60_000, untilMs: base + DAY + HOUR + 15 * 60_000 };
    const at = (ms: number, name: string) => seed('flutterwave', `${name}${hex(3)}`, 1, ms, ms + 1).then(([reference]) => reference!);
    const beforeStart = await at(window.fromMs - 1, 'before');
    const start = await at(window.fromMs, 'start');
    const last = await at(window.untilMs - 1, 'last');
    const end = await at(window.untilMs, 'end');
    const sameDates = await at(base + HOUR, 'morning');
    const { pages } = await listAll(lister('flutterwave'), window);
    const listed: ListedTransaction[] = pages.flatMap((p) => p.transactions);
    expect(listed.map((t) => t.reference)).toEqual([last, start]);
    expect(pages.reduce((n, p) => n + (p.outsideWindow ?? 0), 0)).toBe(3);
    expect(pages.reduce((n, p) => n + p.rows, 0)).toBe(5);
    expect([beforeStart, end, sameDates]).not.toContain(listed[0]!.reference);
    expect(listed[0]).toMatchObject({ amountMinor: 1_234, currency: 'KWD', createdAtMs: window.untilMs - 1 });
  });

  it('a window of whole UTC days asks for the dates of its start and of its exclusive end', async () => {
    const base = day();
    const window = { fromMs: base, untilMs: base + DAY };
    const inside = await seed('flutterwave', `whole${hex(3)}`, 12, base, base + DAY);
    await seed('flutterwave', `next${hex(3)}`, 3, base + DAY, base + DAY + HOUR);
    const { pages } = await listAll(lister('flutterwave'), window);
    expect(references(pages)).toEqual([...inside].reverse());
    expect(pages.reduce((n, p) => n + (p.outsideWindow ?? 0), 0)).toBe(3);
  });
});

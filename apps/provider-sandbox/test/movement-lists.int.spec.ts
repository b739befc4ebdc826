import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import { createLogger } from '@settle/platform';
import {
  canListMovements,
  FlutterwaveProvider,
  PaystackProvider,
  StripeProvider,
  type ListWindow,
  type MovementLister,
  type MovementPage,
} from '@settle/providers';
import { createSandboxApp, type SandboxApp } from '../src/app.js';
import { loadSandboxConfig } from '../src/config.js';

// Each provider's refund and dispute list adapter against the sandbox over HTTP
// (docs/reconciliation.md, "Refund and dispute lists"): a window whose refunds and disputes span
// several pages is walked refunds first, then disputes, every object once, named by the payment's
// reference; a walk resumed from a stored cursor reads the rest and nothing twice; a cursor the
// adapter never wrote is refused. Each provider's book holds only this file's objects.
const hex = (n: number) => randomBytes(n).toString('hex');
const keys = { paystack: `sk_test_${hex(20)}`, stripe: `sk_test_${hex(24)}`, flutterwave: `FLWSECK_TEST-${hex(16)}-X` };
type Listing = 'paystack' | 'stripe' | 'flutterwave';
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
  sandbox = await createSandboxApp(config, createLogger('movement-lists', 'silent'));
  await sandbox.app.listen(0, '127.0.0.1');
  baseUrl = `http://127.0.0.1:${(sandbox.app.getHttpServer().address() as AddressInfo).port}`;
});

afterAll(async () => {
  await Promise.all(open.splice(0).map((adapter) => adapter.close()));
  await sandbox?.close();
});

/** The provider's adapter pointed at the sandbox, 2 rows a page where the caller chooses (Flutterwave's pages are its own: 20). */
function lister(provider: Listing): MovementLister {
  const common = { baseUrl, timeoutMs: 2_000, retry: { maxAttempts: 2, initialDelayMs: 5, maxDelayMs: 20 }, listPageSize: 2 };
  const adapter =
    provider === 'paystack'
      ? new PaystackProvider({ ...common, secretKey: new Secret(keys.paystack) })
      : provider === 'stripe'
        ? new StripeProvider({ ...common, secretKey: new Secret(keys.stripe) })
        : new FlutterwaveProvider({ ...common, secretKey: new Secret(keys.flutterwave) });
  open.push(adapter);
  if (!canListMovements(adapter)) throw new Error(`${provider} cannot list movements`);
  return adapter;
}

async function control(path: string, body: unknown = {}): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}/_sandbox${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** A paid payment of 50,000 minor units, its notification dropped; its reference. */
async function paid(provider: Listing): Promise<string> {
  const reference = provider === 'stripe' ? undefined : `stl_${hex(8)}`;
  const tx = await control(`/${provider}/transactions`, {
    reference,
    amount: 50_000,
    currency: 'NGN',
    email: 'ada@example.com',
    behaviour: { webhook: 'drop' },
  });
  await control(`/${provider}/transactions/${String(tx.reference)}/pay`);
  return String(tx.reference);
}

/** Walks the lists from a cursor to the end, keeping every page and the cursor each was read with. */
async function walk(
  adapter: MovementLister,
  window: ListWindow,
  cursor: string | null = null,
): Promise<{ pages: MovementPage[]; cursors: Array<string | null> }> {
  const pages: MovementPage[] = [];
  const cursors: Array<string | null> = [];
  for (let next = cursor, guard = 0; guard < 100; guard++) {
    cursors.push(next);
    const page = await adapter.listMovementPage(window, next);
    pages.push(page);
    next = page.next;
    if (next === null) break;
  }
  return { pages, cursors };
}

const named = (pages: MovementPage[]) => pages.flatMap((p) => p.movements.map((m) => [m.kind, m.id, m.reference] as const));

/** How many refunds each provider's test makes: enough for several pages (2 a page; Flutterwave's 20). */
const REFUNDS: Record<Listing, number> = { stripe: 5, paystack: 5, flutterwave: 23 };

describe.each(['stripe', 'paystack', 'flutterwave'] as const)('%s refund and dispute lists against the sandbox', (provider) => {
  const made: Array<readonly ['refund' | 'dispute', string, string]> = [];
  let window: ListWindow;

  beforeAll(async () => {
    // Whole seconds around the objects: Stripe's `created` is seconds.
    const fromMs = Math.floor(Date.now() / 1000) * 1000;
    const payments = [await paid(provider), await paid(provider), await paid(provider)];
    for (let n = 0; n < REFUNDS[provider]; n++) {
      const reference = payments[n % payments.length]!;
      const refund = await control(`/${provider}/transactions/${reference}/refunds`, { amount: 100, webhook: 'drop' });
      made.push(['refund', String(refund.id), reference]);
    }
    for (const reference of payments) {
      const dispute = await control(`/${provider}/transactions/${reference}/disputes`, { amount: 1_000, webhook: 'drop' });
      made.push(['dispute', String(dispute.id), reference]);
    }
    window = { fromMs, untilMs: Math.ceil((Date.now() + 1) / 1000) * 1000 };
  });

  it('walks refunds page after page, then disputes: every object once, named by its payment', async () => {
    const { pages, cursors } = await walk(lister(provider), window);
    expect(named(pages)).toHaveLength(made.length);
    expect([...named(pages)].sort()).toEqual([...made].sort());
    expect(new Set(named(pages).map(([kind, id]) => `${kind}:${id}`)).size).toBe(made.length);
    // Refunds first, then disputes, each over more than one page.
    const kinds = pages.flatMap((p) => p.movements.map((m) => m.kind));
    expect(kinds.lastIndexOf('refund')).toBeLessThan(kinds.indexOf('dispute'));
    expect(cursors.filter((c) => c === null || c.startsWith('refunds:')).length).toBeGreaterThan(1);
    expect(cursors.filter((c) => c !== null && c.startsWith('disputes:')).length).toBeGreaterThan(provider === 'flutterwave' ? 0 : 1);
    expect(pages.reduce((sum, p) => sum + p.rows, 0)).toBe(made.length);
    expect(pages.every((p) => p.skipped === undefined)).toBe(true);
  });

  it('resumed from a stored cursor, reads the rest and nothing twice', async () => {
    const adapter = lister(provider);
    const first = await adapter.listMovementPage(window, null);
    expect(first.next).not.toBeNull();
    const rest = await walk(adapter, window, first.next);
    expect([...named([first]), ...named(rest.pages)].sort()).toEqual([...made].sort());
  });

  it('an empty window lists nothing and ends after the dispute list', async () => {
    const before = { fromMs: window.fromMs - 3_600_000, untilMs: window.fromMs - 1_000 };
    const { pages } = await walk(lister(provider), before);
    expect(named(pages)).toEqual([]);
    expect(pages.at(-1)!.next).toBeNull();
  });

  it('refuses a cursor it never wrote', async () => {
    await expect(lister(provider).listMovementPage(window, '2')).rejects.toThrow(
      expect.objectContaining({ code: 'PROVIDER.INVALID_CURSOR', retryable: false }),
    );
  });
});

/**
 * The movement phase of a reconciliation run (docs/reconciliation.md, "Refund and dispute lists"),
 * end to end between two of Settle's processes without Kafka: the verifier's reconciler, on real
 * PostgreSQL and the real outbox, pages the provider sandbox's Stripe lists over HTTP through the
 * verifier's own Stripe adapter. A settled payment refunded, and another disputed, in the sandbox
 * without any notification is asked about (`VerificationRequested`, trigger `reconciliation`) by a
 * run; a payment Settle does not know, or one nothing happened to, is not; a dry run asks nothing;
 * and a run resumed with a movement-phase cursor continues there.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import type { ProviderName } from '@settle/domain';
import { AvroCodec, Outbox, topicNames, type BatchItem } from '@settle/messaging';
import { createLogger, createPool, migrateSchema, type Pool } from '@settle/platform';
import { StripeProvider, type TransactionLister } from '@settle/providers';
import { createTestDatabase, infra, uniqueTopicPrefix } from '@settle/testing';
import { createSandboxApp, type SandboxApp } from '../apps/provider-sandbox/src/app.js';
import { loadSandboxConfig } from '../apps/provider-sandbox/src/config.js';
import { ReconciliationMetrics } from '../apps/verifier/src/reconciliation/reconciliation.metrics.js';
import { ReconciliationService, type ReconcilerSettings } from '../apps/verifier/src/reconciliation/reconciliation.service.js';
import { VERIFIER_MIGRATIONS } from '../apps/verifier/src/schema.js';

const HOUR = 3_600_000;
const stripeKey = `sk_test_${randomBytes(24).toString('hex')}`;
let pool: Pool;
let drop: () => Promise<void>;
let outbox: Outbox;
let sandbox: SandboxApp;
let baseUrl: string;
let stripe: StripeProvider;

beforeAll(async () => {
  const config = loadSandboxConfig({
    PAYSTACK_SECRET_KEY: `sk_test_${randomBytes(20).toString('hex')}`,
    SANDBOX_WEBHOOK_URL: 'http://127.0.0.1:9/unused',
    STRIPE_SECRET_KEY: stripeKey,
  });
  sandbox = await createSandboxApp(config, createLogger('reconcile-movements', 'silent'));
  await sandbox.app.listen(0, '127.0.0.1');
  baseUrl = `http://127.0.0.1:${(sandbox.app.getHttpServer().address() as AddressInfo).port}`;
  // Two rows a page: the run's refund and dispute lists span several pages.
  stripe = new StripeProvider({
    baseUrl,
    secretKey: new Secret(stripeKey),
    timeoutMs: 2_000,
    retry: { maxAttempts: 2, initialDelayMs: 5, maxDelayMs: 20 },
    listPageSize: 2,
  });
  const database = await createTestDatabase('settle_reconcile_movements');
  drop = database.drop;
  pool = createPool(database.url, 6);
  await migrateSchema(pool, VERIFIER_MIGRATIONS);
  const topics = topicNames(uniqueTopicPrefix('reconcile-movements'));
  const codec = AvroCodec.connect(infra.registryUrl, topics);
  await codec.registerAll(['ReconciliationRunRecorded', 'ReconciliationExceptionObserved', 'VerificationRequested']);
  outbox = new Outbox('verifier', topics, codec);
});

afterAll(async () => {
  await stripe?.close();
  await sandbox?.close();
  await pool?.end();
  await drop?.();
});

beforeEach(async () => {
  await pool.query(
    'TRUNCATE verifier.transactions, verifier.unmatched_payments, verifier.reconciliation_runs, verifier.reconciliation_exceptions, verifier.reconciliation_schedule, verifier.outbox',
  );
});

async function control(path: string, body: unknown = {}): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}/_sandbox${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** A Stripe payment paid in the sandbox (its notification dropped), marked as Settle's when `ours`; its PaymentIntent id. */
async function paid(ours = true): Promise<string> {
  const tx = await control('/stripe/transactions', {
    amount: 5_000,
    currency: 'USD',
    email: 'ada@example.com',
    behaviour: { webhook: 'drop' },
    ...(ours ? { metadata: { settle: 'yes' } } : {}),
  });
  await control(`/stripe/transactions/${String(tx.reference)}/pay`);
  return String(tx.reference);
}

/** Settle's record of a Stripe checkout in a state; its correlation id. */
async function checkout(reference: string, status: string): Promise<string> {
  const correlationId = randomUUID();
  await pool.query(
    `INSERT INTO verifier.transactions (reference, provider, amount_minor, currency, user_id, customer_email, entitlement, correlation_id, status, entitlement_status, outcomes, settled_at)
     VALUES ($1, 'stripe', 5000, 'USD', $2, 'ada@example.com', 'pro', $3, $4, 'NONE', 1, $5)`,
    [reference, `user_${reference}`, correlationId, status, status === 'SETTLED_CONSENSUS' ? Date.now() : null],
  );
  return correlationId;
}

const SETTINGS: ReconcilerSettings = {
  enabled: false,
  tickMs: 60_000,
  intervalMs: HOUR,
  overlapMs: 2 * HOUR,
  daily: false,
  graceMs: 45_000,
  duplicateWindowMs: 600_000,
  scope: { stripe: { kind: 'metadata_key', key: 'settle' } },
};

function reconciler(): ReconciliationService {
  const listers = new Map<ProviderName, TransactionLister>([['stripe', stripe]]);
  return new ReconciliationService(pool, listers, outbox, { wake() {} }, createLogger('test', 'silent'), new ReconciliationMetrics(), SETTINGS);
}

/** A run request over `[fromMs, untilMs)` as ingestion publishes it. */
function runRequest(runId: string, window: { fromMs: number; untilMs: number }, dryRun = false): BatchItem {
  return {
    event: {
      type: 'ReconciliationRunRequested',
      payload: {
        event_id: randomUUID(),
        occurred_at: Date.now(),
        correlation_id: randomUUID(),
        reference: runId,
        provider: 'stripe',
        window_from: window.fromMs,
        window_until: window.untilMs,
        dry_run: dryRun,
        requested_by: 'ops@example.com',
      },
    },
  } as unknown as BatchItem;
}

async function requests(): Promise<Array<{ payload: Record<string, unknown>; causation_id: string; correlation_id: string }>> {
  const { rows } = await pool.query<{ payload: Record<string, unknown>; causation_id: string; correlation_id: string }>(
    "SELECT payload, causation_id, correlation_id FROM verifier.outbox WHERE event_type = 'VerificationRequested' ORDER BY id",
  );
  return rows;
}

async function run(runId: string): Promise<Record<string, unknown>> {
  const { rows } = await pool.query('SELECT * FROM verifier.reconciliation_runs WHERE run_id = $1', [runId]);
  return rows[0] as Record<string, unknown>;
}

describe('a reconciliation run over Stripe refund and dispute lists in the sandbox', () => {
  /** The sandbox's books for one window: settled payments refunded or disputed with no notification, and the others beside them. */
  async function books() {
    // Whole seconds around everything made here (Stripe's `created` is seconds), from a second no
    // earlier test made anything in: the sandbox's book is shared by the tests of this file.
    await new Promise((resolve) => setTimeout(resolve, 1_005 - (Date.now() % 1_000)));
    const fromMs = Math.floor(Date.now() / 1000) * 1000;
    const refunded = await paid();
    const disputed = await paid();
    const untouched = await paid();
    const refundedTwice = await paid();
    const notSettle = await paid(false);
    const pending = await paid();
    const correlation = {
      refunded: await checkout(refunded, 'SETTLED_CONSENSUS'),
      disputed: await checkout(disputed, 'STATE_MISMATCH'),
      refundedTwice: await checkout(refundedTwice, 'SETTLED_CONSENSUS'),
    };
    await checkout(untouched, 'SETTLED_CONSENSUS');
    await checkout(pending, 'PENDING');
    await control(`/stripe/transactions/${refunded}/refunds`, { amount: 1_000, webhook: 'drop' });
    await control(`/stripe/transactions/${refundedTwice}/refunds`, { amount: 1_000, webhook: 'drop' });
    await control(`/stripe/transactions/${refundedTwice}/refunds`, { amount: 2_000, webhook: 'drop' });
    await control(`/stripe/transactions/${notSettle}/refunds`, { webhook: 'drop' });
    await control(`/stripe/transactions/${pending}/refunds`, { amount: 500, webhook: 'drop' });
    await control(`/stripe/transactions/${disputed}/disputes`, { webhook: 'drop' });
    const window = { fromMs, untilMs: Math.ceil((Date.now() + 1) / 1000) * 1000 };
    return { window, refunded, disputed, refundedTwice, pending, correlation };
  }

  it('asks the verifier to read each settled payment the lists name, once a page, trigger reconciliation', async () => {
    const { window, refunded, disputed, refundedTwice, pending, correlation } = await books();
    const service = reconciler();
    await service.handleRequests([runRequest('rcr_movements', window)]);
    await service.tick();

    // 6 intents (3 pages of 2), then 5 refunds (3 pages), then 1 dispute (1 page).
    const stored = await run('rcr_movements');
    expect(stored).toMatchObject({ status: 'completed', cursor: null, pages: 7, listed: 12 });
    // The transaction list's classes as before: a refunded PaymentIntent stays succeeded, so it matches.
    expect(stored.counts).toMatchObject({ matches: 3, stuck: 2, out_of_scope: 1, settled_not_successful: 0 });
    const asked = await requests();
    // The pending payment is asked about by the transaction list (stuck); the refunded and disputed
    // settled ones by the refund and dispute lists: newest first, the two refunds of one payment
    // are on one page, so it is asked once. The untouched payment, the one Settle never heard of and
    // the pending one the refund list names are not asked about by the movement phase.
    expect(asked.map((r) => r.payload.reference)).toEqual([pending, refundedTwice, refunded, disputed]);
    for (const [reference, correlationId] of [
      [refunded, correlation.refunded],
      [refundedTwice, correlation.refundedTwice],
      [disputed, correlation.disputed],
    ] as const) {
      expect(asked.find((r) => r.payload.reference === reference)).toEqual({
        payload: expect.objectContaining({ reference, trigger: 'reconciliation', requested_by: 'reconciliation:rcr_movements', correlation_id: correlationId }),
        causation_id: 'rcr_movements',
        correlation_id: correlationId,
      });
    }
  });

  it('a dry run pages the lists and asks nothing', async () => {
    const { window } = await books();
    const service = reconciler();
    await service.handleRequests([runRequest('rcr_dry', window, true)]);
    await service.tick();
    expect(await run('rcr_dry')).toMatchObject({ status: 'completed', pages: 7, listed: 12 });
    expect(await requests()).toEqual([]);
  });

  it('a run resumed with a movement-phase cursor continues there: from the dispute list, the transaction list not read again', async () => {
    const { window, disputed, correlation } = await books();
    const service = reconciler();
    await service.handleRequests([runRequest('rcr_resumed', window)]);
    // As a verifier that died after the refund list left it: its lease expired, its cursor at the dispute list's first page.
    await pool.query(
      "UPDATE verifier.reconciliation_runs SET status = 'running', cursor = 'm|disputes:', pages = 6, listed = 11, lease_until = 0, started_at = $2 WHERE run_id = $1",
      ['rcr_resumed', Date.now()],
    );
    await service.tick();
    expect(await run('rcr_resumed')).toMatchObject({ status: 'completed', cursor: null, pages: 7, listed: 12 });
    // No transaction page was read again: every class still at zero.
    expect(Object.values((await run('rcr_resumed')).counts as Record<string, number>).every((n) => n === 0)).toBe(true);
    const asked = await requests();
    expect(asked.map((r) => r.payload.reference)).toEqual([disputed]);
    expect(asked[0]).toMatchObject({ correlation_id: correlation.disputed, causation_id: 'rcr_resumed' });
  });
});

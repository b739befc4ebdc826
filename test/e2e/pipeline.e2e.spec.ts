import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil, type CheckoutStatus, type SandboxBehaviour, type SandboxProvider } from '../../scripts/ops/clients.js';
import { startStack, type RunningStack } from '@settle/testing';
import { maskEmail } from '@settle/domain';
import { isSealedValue, loadPrivacyKeyRing, openSubjectKeys } from '@settle/vault';

/**
 * The walking skeleton end to end: real Kafka, schema registry and PostgreSQL; the five apps
 * as processes. The sweeper's inactivity window is 3 s here (45 s in production).
 */
const INACTIVITY_MS = 3_000;
/** Automatic re-checks before manual review (30 in production): the third is final here. */
const RECHECK_LIMIT = 3;
let stack: RunningStack;

beforeAll(async () => {
  // A reconciliation run compares a payment made a moment ago (no grace period here; 45 s in production).
  stack = await startStack({ inactivityMs: INACTIVITY_MS, recheckLimit: RECHECK_LIMIT, env: { verifier: { RECONCILIATION_GRACE_MS: '0' } } });
});

afterAll(async () => {
  await stack?.stop();
});

async function checkout(behaviour: SandboxBehaviour, amount = 500_000): Promise<string> {
  const reference = `ref_e2e_${randomBytes(6).toString('hex')}`;
  const email = `payer.${reference}@example.com`;
  expect((await stack.sandbox.create({ reference, amount, currency: 'NGN', email, behaviour })).status).toBe(201);
  const registered = await stack.ingestion.register({
    provider: 'paystack',
    reference,
    amount,
    currency: 'NGN',
    user_id: `user-${reference}`,
    customer: { email },
    entitlement: 'pro-monthly',
    access_period: 'P1M',
  });
  expect(registered).toMatchObject({ status: 202, body: { reference, state: 'PENDING' } });
  expect((await stack.sandbox.pay(reference)).status).toBe(200);
  expect((await stack.ingestion.complete(reference)).status).toBe(202);
  return reference;
}

async function settledState(reference: string, state: string, timeoutMs = 30_000): Promise<CheckoutStatus> {
  return waitUntil(`${reference} to reach ${state}`, timeoutMs, async () => {
    const answer = await stack.ingestion.status(reference);
    return answer.status === 200 && answer.body.state === state ? answer.body : undefined;
  });
}

async function ledgerEntries(reference: string): Promise<Array<{ event_type: string; revision: number }>> {
  const { rows } = await stack.db.query<{ event_type: string; revision: number }>(
    'SELECT event_type, revision::int AS revision FROM ledger.events WHERE stream_id = $1 ORDER BY revision',
    [`transaction-${reference}`],
  );
  return rows;
}

/** The `ProviderWebhookReceived` events ingestion published (or holds in its outbox) for a reference. */
async function webhooksPublished(reference: string) {
  return (await stack.published('ingestion', 'transactionEvents')).filter((m) => m.key === reference && m.type === 'ProviderWebhookReceived');
}

async function lastTrigger(reference: string): Promise<string | null> {
  const { rows } = await stack.db.query<{ last_trigger: string | null }>('SELECT last_trigger FROM read_model.transaction_status WHERE reference = $1', [
    reference,
  ]);
  return rows[0]?.last_trigger ?? null;
}

describe('checkout to Kafka to verifier to consensus to ledger', () => {
  it('a webhook that arrives settles the payment by REST verification and unlocks the entitlement', async () => {
    const reference = await checkout({});
    const status = await settledState(reference, 'SETTLED_CONSENSUS');
    expect(status.entitlement_status).toBe('UNLOCKED');
    expect(status.checks?.map((c) => [c.check, c.passed])).toEqual([
      ['transaction_identity', true],
      ['currency', true],
      ['amount', true],
      ['customer', true],
    ]);
    expect(await ledgerEntries(reference)).toEqual([{ event_type: 'TransactionSettled', revision: 0 }]);
    expect(await lastTrigger(reference)).toBe('webhook_received');
    const sandboxView = await stack.sandbox.inspect(reference);
    expect(sandboxView.body.webhooksSent).toBe(1);
    expect(sandboxView.body.verifyCalls).toBeGreaterThanOrEqual(1);
  });

  it('a webhook that never arrives is recovered by the sweeper after the inactivity window', async () => {
    const started = Date.now();
    const reference = await checkout({ webhook: 'drop' });
    const status = await settledState(reference, 'SETTLED_CONSENSUS', 30_000);
    expect(Date.now() - started).toBeGreaterThan(INACTIVITY_MS);
    expect(status.entitlement_status).toBe('UNLOCKED');
    expect(await lastTrigger(reference)).toBe('sweeper_webhook_missing');
    expect((await stack.sandbox.inspect(reference)).body.webhooksSent).toBe(0);
    expect(await ledgerEntries(reference)).toHaveLength(1);
  });

  it('a spoofed webhook is rejected with 401 and the transaction is verified by REST instead', async () => {
    const reference = await checkout({ webhook: 'spoof' });
    const status = await settledState(reference, 'SETTLED_CONSENSUS');
    expect(status.entitlement_status).toBe('UNLOCKED');
    expect(await lastTrigger(reference)).toBe('webhook_signature_rejected');
    const { rows } = await stack.db.query<{ signature_valid: boolean }>('SELECT signature_valid FROM ingestion.webhook_inbox WHERE reference = $1', [
      reference,
    ]);
    expect(rows).toEqual([{ signature_valid: false }]);
    expect(await webhooksPublished(reference)).toHaveLength(0);
  });

  it('a provider answering 502 twice is retried with backoff and then settles, state preserved meanwhile', async () => {
    const reference = await checkout({ failures: { mode: '502', times: 2 } });
    await settledState(reference, 'SETTLED_CONSENSUS');
    const sandboxView = (await stack.sandbox.inspect(reference)).body;
    expect(sandboxView.failuresServed).toBe(2);
    expect(sandboxView.verifyCalls).toBeGreaterThanOrEqual(3);
    expect(await ledgerEntries(reference)).toEqual([{ event_type: 'TransactionSettled', revision: 0 }]);
  });

  it('a lower amount paid is a State Mismatch and the entitlement stays locked', async () => {
    const reference = await checkout({ outcome: 'lower_amount' }, 800_000);
    const status = await settledState(reference, 'STATE_MISMATCH');
    expect(status.entitlement_status).toBe('LOCKED');
    const failed = status.checks?.filter((c) => !c.passed);
    expect(failed).toEqual([{ check: 'amount', passed: false, code: 'CONSENSUS.AMOUNT_MISMATCH', expected: '800000', observed: '400000' }]);
    expect(await ledgerEntries(reference)).toEqual([{ event_type: 'StateMismatchDetected', revision: 0 }]);
  });

  it('a duplicated webhook is stored once and writes one ledger entry', async () => {
    const reference = await checkout({ webhook: 'duplicate' });
    await settledState(reference, 'SETTLED_CONSENSUS');
    await waitUntil('both webhook copies to be delivered', 15_000, async () =>
      (await stack.sandbox.inspect(reference)).body.webhooksSent === 2 ? true : undefined,
    );
    const inbox = await stack.db.query('SELECT 1 FROM ingestion.webhook_inbox WHERE reference = $1', [reference]);
    expect(inbox.rowCount).toBe(1);
    expect(await ledgerEntries(reference)).toHaveLength(1);
  });

  it('a decline found by the sweeper is FAILED_DECLINED with the entitlement locked', async () => {
    const reference = await checkout({ outcome: 'declined' });
    const status = await settledState(reference, 'FAILED_DECLINED', 30_000);
    expect(status.entitlement_status).toBe('LOCKED');
    expect(await ledgerEntries(reference)).toEqual([{ event_type: 'PaymentDeclined', revision: 0 }]);
  });

  it('a payment still clearing is held in review, re-checked by the sweeper, then settled', async () => {
    const reference = await checkout({ outcome: 'clearing_then_success', clearing_checks: 1, webhook: 'drop' });
    const held = await settledState(reference, 'RECOVERING', 30_000);
    expect(held.entitlement_status).toBe('HELD_IN_REVIEW');
    await settledState(reference, 'SETTLED_CONSENSUS', 30_000);
    expect((await ledgerEntries(reference)).map((e) => e.event_type)).toEqual(['PaymentHeldInReview', 'TransactionSettled']);
  });

  it('a payment that keeps clearing is re-checked on the backoff schedule, then moved to manual review with an alert', async () => {
    const reference = await checkout({ outcome: 'clearing_then_success', clearing_checks: 1_000, webhook: 'drop' });
    // Orphan check after 3 s, held in review; re-checks after 3 s, 3 s, then 6 s (the third is final).
    const review = await settledState(reference, 'MANUAL_REVIEW', 45_000);
    expect(review.entitlement_status).toBe('HELD_IN_REVIEW');
    expect((await ledgerEntries(reference)).map((e) => e.event_type)).toEqual(['PaymentHeldInReview', 'ManualReviewRequired']);
    expect(await lastTrigger(reference)).toBe('sweeper_review_limit');
    const alert = stack
      .logs('verifier')
      .split('\n')
      .filter((line) => line.includes(reference) && line.includes('SETTLE_MANUAL_REVIEW_REQUIRED'));
    expect(alert).toHaveLength(1);
    expect(JSON.parse(alert[0]!)).toMatchObject({ level: 50, alert: 'SETTLE_MANUAL_REVIEW_REQUIRED', lastVerdict: 'clearing', entitlement: 'HELD_IN_REVIEW' });
    // And the metric to alert on: one manual review in this stack so far; the sweeper counted its final re-check.
    const verifierMetrics = await (await fetch(stack.metricsUrls.verifier)).text();
    expect(verifierMetrics).toMatch(/^settle_manual_review_total\{last_verdict="clearing"\} 1$/m);
    const sweeperMetrics = await (await fetch(stack.metricsUrls.sweeper)).text();
    expect(sweeperMetrics).toMatch(/^settle_sweeper_requests_total\{trigger="sweeper_review_limit"\} [1-9]/m);
    expect(sweeperMetrics).toMatch(/^settle_sweeper_owned_partitions 6$/m);
    // The sweeper stops asking: a person owns it now.
    const checks = (await stack.sandbox.inspect(reference)).body.verifyCalls;
    await new Promise((resolve) => setTimeout(resolve, INACTIVITY_MS * 3));
    expect((await stack.sandbox.inspect(reference)).body.verifyCalls).toBe(checks);
  });

  it('a webhook signed with the right key but sent twice by hand answers 200 both times and is stored once', async () => {
    const reference = await checkout({ webhook: 'drop' });
    const body = JSON.stringify({ event: 'charge.success', data: { reference, status: 'success' } });
    const signature = createHmac('sha512', stack.paystackSecret).update(body).digest('hex');
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${stack.ingestionUrl}/v1/webhooks/paystack`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-paystack-signature': signature },
        body,
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ received: true });
    }
    expect(await webhooksPublished(reference)).toHaveLength(1);
    await settledState(reference, 'SETTLED_CONSENSUS');
  });

  it('publishes a settlement event for every ledger entry, and grants each settled payment once', async () => {
    const { rows } = await stack.db.query<{ entries: number; settled: number; grants: number }>(
      `SELECT (SELECT count(*)::int FROM ledger.events WHERE stream_id LIKE 'transaction-%') AS entries,
              (SELECT count(*)::int FROM ledger.events WHERE event_type = 'TransactionSettled') AS settled,
              (SELECT count(*)::int FROM ledger.events WHERE stream_id LIKE 'entitlement-%') AS grants`,
    );
    const settlements = await stack.published('ledger', 'settlements');
    const granted = await stack.published('ledger', 'entitlementEvents');
    const counts = { ...rows[0]!, settlements: settlements.length, granted: granted.length };
    expect(counts.entries).toBeGreaterThan(0);
    expect(counts.settlements).toBe(counts.entries);
    expect(counts.settled).toBeGreaterThan(0);
    expect([counts.grants, counts.granted]).toEqual([counts.settled, counts.settled]);
    await waitUntil('settlements and grants to be relayed to Kafka', 15_000, async () => {
      const pending = await stack.db.query('SELECT 1 FROM ledger.outbox');
      return pending.rowCount === 0 ? true : undefined;
    });
  });
});

describe('ingestion edges: every bad input is a problem-details answer and nothing is published', () => {
  const post = (path: string, init: { body?: string; headers?: Record<string, string> }) =>
    fetch(`${stack.ingestionUrl}${path}`, { method: 'POST', body: init.body ?? null, headers: init.headers ?? {} });
  const auth = () => ({ authorization: `Bearer ${stack.ingestion.apiKey}` });
  const valid = (reference: string) => ({
    provider: 'paystack',
    reference,
    amount: 150_000,
    currency: 'NGN',
    user_id: 'user-edge',
    customer: { email: 'edge@example.com' },
    entitlement: 'pro-monthly',
    access_period: 'P1M',
  });

  async function problem(response: Response, status: number, code: string): Promise<void> {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    const body = (await response.json()) as { status: number; code: string; type: string; title: string };
    expect(body).toMatchObject({ status, code });
    expect(body.type).toMatch(/^urn:settle:problem:/);
  }

  it('registers idempotently: the same body answers the same, other terms answer 409', async () => {
    const reference = `ref_edge_${randomBytes(4).toString('hex')}`;
    const first = await stack.ingestion.register(valid(reference));
    const again = await stack.ingestion.register(valid(reference));
    expect(first).toMatchObject({ status: 202, body: { reference, state: 'PENDING' } });
    expect(again).toMatchObject({ status: 202, body: first.body });
    const conflict = await post('/v1/checkouts', {
      body: JSON.stringify({ ...valid(reference), amount: 1 }),
      headers: { ...auth(), 'content-type': 'application/json' },
    });
    await problem(conflict, 409, 'CHECKOUT.CONFLICT');
    const registrations = (await stack.published('ingestion', 'transactionEvents')).filter((m) => m.key === reference && m.type === 'CheckoutRegistered');
    expect(registrations).toHaveLength(1);
  });

  it('answers 400 with every invalid field, for floats, lower-case currencies, missing customers and access periods of zero', async () => {
    const response = await post('/v1/checkouts', {
      body: JSON.stringify({ ...valid('ref_edge_bad'), amount: 1500.5, currency: 'ngn', customer: {}, access_period: 'P0D' }),
      headers: { ...auth(), 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: string; errors: Array<{ path: string }> };
    expect(body.code).toBe('REQUEST.VALIDATION_FAILED');
    expect(body.errors.map((e) => e.path).sort()).toEqual(['access_period', 'amount', 'currency', 'customer']);
  });

  it('refuses missing and wrong API keys', async () => {
    await problem(await post('/v1/checkouts', { body: '{}', headers: { 'content-type': 'application/json' } }), 401, 'AUTH.MISSING_API_KEY');
    await problem(
      await post('/v1/checkouts', { body: '{}', headers: { authorization: 'Bearer sk_settle_wrong', 'content-type': 'application/json' } }),
      401,
      'AUTH.INVALID_API_KEY',
    );
  });

  it('answers malformed JSON, oversized bodies, unknown checkouts and unknown routes with problems', async () => {
    await problem(
      await post('/v1/checkouts', { body: '{"provider":', headers: { ...auth(), 'content-type': 'application/json' } }),
      400,
      'REQUEST.MALFORMED_JSON',
    );
    const huge = JSON.stringify({ ...valid('ref_edge_huge'), entitlement: 'x'.repeat(300_000) });
    await problem(await post('/v1/checkouts', { body: huge, headers: { ...auth(), 'content-type': 'application/json' } }), 413, 'REQUEST.BODY_TOO_LARGE');
    await problem(await post('/v1/checkouts/ref_never_registered/complete', { headers: auth() }), 404, 'CHECKOUT.NOT_FOUND');
    await problem(await post('/v1/webhooks/unknown-provider', { body: '{}', headers: { 'content-type': 'application/json' } }), 404, 'REQUEST.NOT_FOUND');
    const status = await fetch(`${stack.ingestionUrl}/v1/checkouts/ref_never_registered`, { headers: auth() });
    await problem(status, 404, 'CHECKOUT.NOT_FOUND');
  });

  it('rejects an unsigned webhook for an unknown reference without requesting anything', async () => {
    const body = JSON.stringify({ event: 'charge.success', data: { reference: 'ref_nobody_registered' } });
    await problem(await post('/v1/webhooks/paystack', { body, headers: { 'content-type': 'application/json' } }), 401, 'WEBHOOK.SIGNATURE_INVALID');
    expect((await stack.published('ingestion', 'transactionEvents')).filter((m) => m.key === 'ref_nobody_registered')).toHaveLength(0);
  });
});

describe('verification on demand', () => {
  const post = async (path: string) => {
    const response = await fetch(`${stack.ingestionUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${stack.ingestion.apiKey}` } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('a customer back after an out-of-band payment gets a fresh verification, without waiting for the sweeper', async () => {
    const reference = await checkout({ webhook: 'drop' });
    const answer = await post(`/v1/checkouts/${reference}/verify`);
    expect(answer).toEqual({
      status: 200,
      body: { reference, state: 'SETTLED_CONSENSUS', entitlement_status: 'UNLOCKED', verification: 'completed', verdict: 'cleared', coalesced: false },
    });
    expect(await lastTrigger(reference)).toBe('customer_returned');
    const again = await post(`/v1/checkouts/${reference}/verify`);
    expect(again.body).toMatchObject({ state: 'SETTLED_CONSENSUS', verification: 'not_needed' });
  });

  it('allows a new attempt only after verifying the existing reference (docs/spec.md, section 1, rule 3)', async () => {
    const declined = await checkout({ outcome: 'declined' });
    expect((await post(`/v1/checkouts/${declined}/attempts`)).body).toMatchObject({
      allowed: true,
      reason: 'PREVIOUS_ATTEMPT_DECLINED',
      state: 'FAILED_DECLINED',
      verification: 'completed',
    });

    const paid = await checkout({ webhook: 'drop' });
    expect((await post(`/v1/checkouts/${paid}/attempts`)).body).toMatchObject({ allowed: false, reason: 'ALREADY_PAID' });

    // Registered with Settle, never seen by the provider: nothing can land, a new attempt is safe.
    const reference = `ref_e2e_${randomBytes(6).toString('hex')}`;
    await stack.ingestion.register({
      provider: 'paystack',
      reference,
      amount: 10_000,
      currency: 'NGN',
      user_id: 'user-attempt',
      customer: { email: 'attempt@example.com' },
      entitlement: 'pro-monthly',
      access_period: 'P1M',
    });
    expect((await post(`/v1/checkouts/${reference}/attempts`)).body).toMatchObject({
      allowed: true,
      reason: 'NO_PAYMENT_FOUND',
      state: 'PENDING',
      verdict: 'not_found',
    });
  });

  it("an admin's manual reconciliation verifies through the same path; the upstream key cannot use it", async () => {
    const reference = await checkout({ webhook: 'drop' });
    const reconcile = (key: string) =>
      fetch(`${stack.ingestionUrl}/v1/admin/checkouts/${reference}/reconcile`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    expect((await reconcile(stack.ingestion.apiKey)).status).toBe(401);
    const answer = await reconcile(stack.adminKey);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ reference, state: 'SETTLED_CONSENSUS', verification: 'completed' });
    expect(await lastTrigger(reference)).toBe('admin_reconciliation');
  });

  it('answers "not yet known" when the provider cannot answer within the wait', async () => {
    const reference = await checkout({ webhook: 'drop', failures: { mode: 'timeout', times: 3 } });
    const answer = await post(`/v1/checkouts/${reference}/attempts?wait_ms=300`);
    expect(answer.body).toMatchObject({ allowed: null, reason: 'NOT_YET_KNOWN', verification: 'pending' });
    expect((await post(`/v1/checkouts/${reference}/attempts?wait_ms=99999`)).status).toBe(400);
  });
});

describe('secrets never leak', () => {
  it('keeps the API key and every provider secret out of every answer, log line, Kafka message and ledger entry', async () => {
    const secrets = [stack.ingestion.apiKey, stack.adminKey, ...Object.values(stack.secrets)];
    const answers: string[] = [];
    // A validation error fed the secret as a field value, and a wrong key that is close to the real one.
    const invalid = await fetch(`${stack.ingestionUrl}/v1/checkouts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.ingestion.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'paystack', reference: 'ref_leak', amount: stack.paystackSecret, currency: stack.paystackSecret }),
    });
    answers.push(await invalid.text());
    const wrongKey = await fetch(`${stack.ingestionUrl}/v1/checkouts/ref_leak`, { headers: { authorization: `Bearer ${stack.ingestion.apiKey}x` } });
    answers.push(await wrongKey.text());
    // A provider call that fails (502 then time-outs) goes through the verifier's error paths.
    const failing = await checkout({ webhook: 'drop', failures: { mode: '502', times: 10 } });
    await waitUntil('the failing verification to be logged', 20_000, async () => (stack.logs('verifier').includes(failing) ? true : undefined));
    answers.push(JSON.stringify((await stack.ingestion.status(failing)).body));
    // Every Kafka message passes through an outbox (or, for the sweeper, carries no payload
    // from configuration): what ingestion, the verifier and the projector published, or still
    // hold, is every payload.
    const published = [
      ...(await stack.published('ingestion', 'transactionEvents')),
      ...(await stack.published('verifier', 'consensusResults')),
      ...(await stack.published('ledger', 'settlements')),
      ...(await stack.published('ledger', 'entitlementEvents')),
    ];
    expect(published.length).toBeGreaterThan(0);
    const messages = published.map((m) => JSON.stringify(m.payload)).join('\n');
    const ledger = (await stack.db.query<{ data: string }>('SELECT data::text AS data FROM ledger.events')).rows.map((r) => r.data).join('\n');
    for (const secret of secrets) {
      expect(messages).not.toContain(secret);
      expect(ledger).not.toContain(secret);
      for (const answer of answers) expect(answer).not.toContain(secret);
      for (const app of ['ingestion', 'verifier', 'ledger-projector', 'sweeper', 'provider-sandbox']) {
        expect(stack.logs(app), `${app} log`).not.toContain(secret);
      }
    }
  });
});

describe('every provider, through the real stack, with credentials from the vault', () => {
  /** Registers and pays a checkout with a non-Paystack provider; the sandbox may assign the reference. */
  async function providerCheckout(
    provider: SandboxProvider,
    input: { amount: number; currency: string; email?: string; phone?: string; behaviour?: SandboxBehaviour },
  ): Promise<string> {
    const created = await stack.sandbox.create(
      { ...input, ...(provider === 'flutterwave' ? { reference: `tx_e2e_${randomBytes(6).toString('hex')}` } : {}) },
      provider,
    );
    expect(created.status).toBe(201);
    const reference = created.body.reference;
    const registered = await stack.ingestion.register({
      provider,
      reference,
      amount: input.amount,
      currency: input.currency,
      user_id: `user-${reference}`,
      customer: { ...(input.email ? { email: input.email } : {}), ...(input.phone ? { phone: `+${input.phone.replace(/^\+/, '')}` } : {}) },
      entitlement: 'pro-monthly',
      access_period: 'P1M',
    });
    expect(registered.status).toBe(202);
    expect((await stack.sandbox.pay(reference, provider)).status).toBe(200);
    return reference;
  }

  async function verifyNow(reference: string): Promise<Record<string, unknown>> {
    const response = await fetch(`${stack.ingestionUrl}/v1/checkouts/${reference}/verify?wait_ms=8000`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.ingestion.apiKey}` },
    });
    return (await response.json()) as Record<string, unknown>;
  }

  it.each([
    ['stripe', { amount: 2_500, currency: 'USD', email: 'card@example.com' }],
    ['flutterwave', { amount: 1_050_050, currency: 'NGN', email: 'bank@example.com' }],
    ['mpesa', { amount: 150_000, currency: 'KES', phone: '254712345678' }],
  ] as const)('%s: a paid checkout settles after a server-to-server verification', async (provider, input) => {
    const reference = await providerCheckout(provider, input);
    expect(await verifyNow(reference)).toMatchObject({ state: 'SETTLED_CONSENSUS', entitlement_status: 'UNLOCKED', verification: 'completed' });
    expect(await ledgerEntries(reference)).toEqual([{ event_type: 'TransactionSettled', revision: 0 }]);
  });

  it.each([
    ['stripe', 'other_currency', { amount: 2_500, currency: 'USD', email: 'card@example.com' }, 'CONSENSUS.CURRENCY_MISMATCH'],
    ['flutterwave', 'other_customer', { amount: 500_000, currency: 'NGN', email: 'bank@example.com' }, 'CONSENSUS.CUSTOMER_MISMATCH'],
    ['flutterwave', 'lower_amount', { amount: 500_000, currency: 'NGN', email: 'bank@example.com' }, 'CONSENSUS.AMOUNT_MISMATCH'],
  ] as const)('%s: %s is a State Mismatch with the entitlement locked', async (provider, outcome, input, code) => {
    const reference = await providerCheckout(provider, { ...input, behaviour: { outcome, webhook: 'drop' } });
    expect(await verifyNow(reference)).toMatchObject({ state: 'STATE_MISMATCH', entitlement_status: 'LOCKED' });
    const status = (await stack.ingestion.status(reference)).body;
    expect(status.checks?.filter((c) => !c.passed).map((c) => c.code)).toEqual([code]);
  });

  it('paystack: a provider record naming another reference fails the identity check', async () => {
    const reference = await checkout({ outcome: 'other_reference', webhook: 'drop' });
    expect(await verifyNow(reference)).toMatchObject({ state: 'STATE_MISMATCH', entitlement_status: 'LOCKED' });
    const status = (await stack.ingestion.status(reference)).body;
    expect(status.checks?.filter((c) => !c.passed)).toEqual([
      { check: 'transaction_identity', passed: false, code: 'CONSENSUS.IDENTITY_MISMATCH', expected: reference, observed: `${reference}_other` },
    ]);
  });

  it("flutterwave: a checkout naming someone else's transaction id finds nothing under that tx_ref and stays PENDING", async () => {
    const paid = await stack.sandbox.create(
      { reference: `tx_e2e_${randomBytes(6).toString('hex')}`, amount: 700_000, currency: 'NGN', email: 'victim@example.com', behaviour: { webhook: 'drop' } },
      'flutterwave',
    );
    await stack.sandbox.pay(paid.body.reference, 'flutterwave');
    // Checkouts are looked up by our own tx_ref, so another transaction's numeric id matches nothing.
    const reference = String((paid.body as unknown as { id: number }).id);
    const registered = await stack.ingestion.register({
      provider: 'flutterwave',
      reference,
      amount: 700_000,
      currency: 'NGN',
      user_id: 'user-replay',
      customer: { email: 'victim@example.com' },
      entitlement: 'pro-monthly',
      access_period: 'P1M',
    });
    expect(registered.status).toBe(202);
    expect(await verifyNow(reference)).toMatchObject({ state: 'PENDING', entitlement_status: 'LOCKED', verdict: 'not_found' });
  });

  it('mpesa: a declined STK push (wrong PIN) is FAILED_DECLINED', async () => {
    const reference = await providerCheckout('mpesa', {
      amount: 100_000,
      currency: 'KES',
      phone: '254712345679',
      behaviour: { outcome: 'declined', decline: 'wrong_pin' },
    });
    expect(await verifyNow(reference)).toMatchObject({ state: 'FAILED_DECLINED', entitlement_status: 'LOCKED' });
  });

  it.each([
    ['stripe', { amount: 4_200, currency: 'USD', email: 'hook@example.com' }],
    ['flutterwave', { amount: 250_000, currency: 'NGN', email: 'hook@example.com' }],
    ['mpesa', { amount: 50_000, currency: 'KES', phone: '254712345670' }],
  ] as const)('%s: a signed webhook (or callback) triggers the verification that settles the payment', async (provider, input) => {
    const reference = await providerCheckout(provider, input);
    await settledState(reference, 'SETTLED_CONSENSUS');
    expect(await lastTrigger(reference)).toBe('webhook_received');
    const inbox = await stack.db.query<{ signature_valid: boolean }>('SELECT signature_valid FROM ingestion.webhook_inbox WHERE reference = $1', [reference]);
    expect(inbox.rows).toEqual([{ signature_valid: true }]);
  });

  it.each([
    ['stripe', { amount: 4_300, currency: 'USD', email: 'spoof@example.com' }],
    ['flutterwave', { amount: 260_000, currency: 'NGN', email: 'spoof@example.com' }],
    ['mpesa', { amount: 60_000, currency: 'KES', phone: '254712345671' }],
  ] as const)('%s: a spoofed webhook is rejected and the transaction is verified by REST instead', async (provider, input) => {
    const reference = await providerCheckout(provider, { ...input, behaviour: { webhook: 'spoof' } });
    await settledState(reference, 'SETTLED_CONSENSUS');
    expect(await lastTrigger(reference)).toBe('webhook_signature_rejected');
    const published = await stack.db.query(`SELECT 1 FROM ingestion.outbox WHERE message_key = $1 AND event_type = 'ProviderWebhookReceived'`, [reference]);
    expect(published.rowCount).toBe(0);
  });

  it('accepts the previous webhook secret during a rotation, re-read from the vault without a restart', async () => {
    const { seedWebhookVault } = await import('@settle/testing');
    const rotated = `sk_test_${randomBytes(20).toString('hex')}`;
    // The operator rotates: first the old secret becomes `previous`, then the new one `current`,
    // so at every moment both are readable.
    await seedWebhookVault(stack.databaseUrl, stack.webhookMasterKeys, stack.secrets, { suffix: '_previous' });
    await seedWebhookVault(stack.databaseUrl, stack.webhookMasterKeys, { ...stack.secrets, paystackSecret: rotated });
    const reference = await checkout({ webhook: 'drop' });
    const body = JSON.stringify({ event: 'charge.success', data: { reference, status: 'success' } });
    const send = (key: string) =>
      fetch(`${stack.ingestionUrl}/v1/webhooks/paystack`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-paystack-signature': createHmac('sha512', key).update(body).digest('hex') },
        body,
      }).then((r) => r.status);
    await waitUntil('the rotated secret to be read', 10_000, async () => ((await send(rotated)) === 200 ? true : undefined));
    expect(await send(stack.paystackSecret)).toBe(200);
    expect(await send(`sk_test_${randomBytes(20).toString('hex')}`)).toBe(401);
    await settledState(reference, 'SETTLED_CONSENSUS');
  });

  it('counts rejected webhooks in the metrics', async () => {
    const metrics = await (await fetch(`${stack.ingestionUrl}/metrics`)).text();
    expect(metrics).toMatch(/settle_webhooks_total\{provider="stripe",outcome="rejected",reason="MISMATCH"\} [1-9]/);
    expect(metrics).toMatch(/settle_webhooks_total\{provider="paystack",outcome="accepted",reason=""\} [1-9]/);
  });

  it('paystack: a provider answering 502 three times is retried with backoff and settles, state preserved', async () => {
    const reference = await checkout({ webhook: 'drop', failures: { mode: '502', times: 3 } });
    expect(await verifyNow(reference)).toMatchObject({ state: 'SETTLED_CONSENSUS', verification: 'completed' });
    expect((await stack.sandbox.inspect(reference)).body.failuresServed).toBe(3);
    expect(await ledgerEntries(reference)).toEqual([{ event_type: 'TransactionSettled', revision: 0 }]);
  });

  it('every app serves the default process metrics and its own at GET /metrics', async () => {
    // One checkout through every app, its provider answering 502 once (retried).
    const reference = await checkout({ webhook: 'drop', failures: { mode: '502', times: 1 } });
    expect(await verifyNow(reference)).toMatchObject({ state: 'SETTLED_CONSENSUS', verification: 'completed' });
    await waitUntil('the settlement in the ledger', 30_000, async () => ((await ledgerEntries(reference)).length === 1 ? true : undefined));
    const prefix = stack.topicPrefix;
    const text = async (url: string) => (await fetch(url)).text();
    const served = {
      ingestion: await text(`${stack.ingestionUrl}/metrics`),
      verifier: await text(stack.metricsUrls.verifier),
      'ledger-projector': await text(stack.metricsUrls['ledger-projector']),
      sweeper: await text(stack.metricsUrls.sweeper),
      dispatcher: await text(stack.metricsUrls.dispatcher),
    };
    for (const [app, metrics] of Object.entries(served)) {
      expect(metrics, app).toMatch(/^process_cpu_seconds_total \d/m);
      expect(metrics, app).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    }
    expect(served.ingestion).toMatch(/^settle_http_request_duration_seconds_count\{method="POST",route="\/v1\/checkouts",status_code="202"\} [1-9]/m);
    expect(served.ingestion).toMatch(/^settle_outbox_backlog_age_seconds\{outbox="ingestion"\} \d/m);
    const lag = (group: string, topic: string) =>
      new RegExp(`^settle_consumer_lag_messages\\{consumer_group="${prefix}-${group}",topic="${prefix}.${topic}.v1",partition="\\d"\\} \\d+$`, 'm');
    expect(served.verifier).toMatch(lag('verifier', 'transaction-events'));
    expect(served.verifier).toMatch(/^settle_provider_circuit_state\{provider="paystack",state="closed"\} 1$/m);
    expect(served.verifier).toMatch(/^settle_provider_request_duration_seconds_count\{provider="paystack",operation="verify",outcome="answered"\} [1-9]/m);
    expect(served.verifier).toMatch(/^settle_provider_retries_total\{provider="paystack",reason="PROVIDER.BAD_GATEWAY"\} [1-9]/m);
    expect(served['ledger-projector']).toMatch(lag('ledger-projector', 'consensus-results'));
    expect(served['ledger-projector']).toMatch(/^settle_ledger_append_duration_seconds_count [1-9]/m);
    expect(served['ledger-projector']).toMatch(/^settle_outbox_backlog_age_seconds\{outbox="ledger"\} \d/m);
    expect(served.sweeper).toMatch(lag('sweeper', 'consensus-results'));
    expect(served.sweeper).toMatch(/^settle_sweeper_watches_overdue \d+$/m);
    expect(served.dispatcher).toMatch(/^settle_outbox_backlog_age_seconds\{outbox="dispatcher"\} \d/m);
  });
});

describe('a payment Settle was never told about (docs/unmatched-payments.md)', () => {
  it('its signed webhook is verified after the grace period and recorded, nothing granted; a checkout registered later is matched, verified at once and settled', async () => {
    const reference = `ref_e2e_unmatched_${randomBytes(6).toString('hex')}`;
    const email = `payer.${reference}@example.com`;
    expect((await stack.sandbox.create({ reference, amount: 750_000, currency: 'NGN', email })).status).toBe(201);
    expect((await stack.sandbox.pay(reference)).status).toBe(200);
    const unmatched = async () =>
      (
        await stack.db.query<{ status: string; amount_minor: number | null; currency: string | null; customer_email: string | null; terms_verified: boolean }>(
          'SELECT status, amount_minor, currency, customer_email, terms_verified FROM verifier.unmatched_payments WHERE reference = $1',
          [reference],
        )
      ).rows[0];
    const recorded = await waitUntil('the unmatched payment to be recorded', 30_000, async () => {
      const row = await unmatched();
      return row?.status === 'recorded' ? row : undefined;
    });
    expect(recorded).toEqual({ status: 'recorded', amount_minor: 750_000, currency: 'NGN', customer_email: email, terms_verified: true });
    const unmatchedFacts = async () =>
      (
        await stack.db.query<{ event_type: string }>('SELECT event_type FROM ledger.events WHERE stream_id = $1 ORDER BY revision', [`unmatched-${reference}`])
      ).rows.map((r) => r.event_type);
    await waitUntil('the unmatched payment in the ledger', 30_000, async () => ((await unmatchedFacts()).length === 1 ? true : undefined));
    expect(await unmatchedFacts()).toEqual(['UnmatchedPaymentRecorded']);
    // The payer's email left the verifier sealed under the customer's key, masked beside
    // (docs/privacy.md, "Crypto-shredding"): in plaintext neither on Kafka nor in the ledger.
    const observed = (await stack.published('verifier', 'consensusResults')).filter((m) => m.key === reference && m.type === 'UnmatchedPaymentObserved');
    expect(observed.map((m) => m.source)).toEqual([expect.stringContaining('consensus-results')]);
    const { rows: facts } = await stack.db.query<{ data: Record<string, unknown> }>(
      `SELECT data FROM ledger.events WHERE stream_id = $1 AND event_type = 'UnmatchedPaymentRecorded'`,
      [`unmatched-${reference}`],
    );
    const keys = await openSubjectKeys(stack.db, loadPrivacyKeyRing({ SETTLE_PRIVACY_VAULT_MASTER_KEYS: stack.privacyMasterKeys }));
    const key = await keys.keyFor({ kind: 'customer', id: email.toLowerCase() });
    for (const held of [observed[0]!.payload, facts[0]!.data]) {
      expect(JSON.stringify(held)).not.toContain(email);
      expect(held).toMatchObject({ customer_email_masked: maskEmail(email), customer_phone: null, customer_phone_masked: null });
      expect(isSealedValue(held.customer_email as string)).toBe(true);
      expect(key.reveal('customer_email', held.customer_email as string)).toBe(email);
    }
    expect(await ledgerEntries(reference)).toEqual([]);
    expect((await stack.ingestion.status(reference)).status).toBe(404);
    expect(await (await fetch(stack.metricsUrls.verifier)).text()).toMatch(
      /^settle_unmatched_payments_total\{provider="paystack",observation="recorded"\} [1-9]/m,
    );
    expect(stack.logs('verifier')).toMatch(/SETTLE_UNMATCHED_PAYMENT/);

    const registered = await stack.ingestion.register({
      provider: 'paystack',
      reference,
      amount: 750_000,
      currency: 'NGN',
      user_id: `user-${reference}`,
      customer: { email },
      entitlement: 'pro-monthly',
      access_period: 'P1M',
    });
    expect(registered.status).toBe(202);
    // Verified at once on the registration, not after the sweeper's inactivity window.
    await settledState(reference, 'SETTLED_CONSENSUS', INACTIVITY_MS);
    expect(await lastTrigger(reference)).toBe('unmatched_payment');
    expect((await unmatched())?.status).toBe('matched');
    await waitUntil('the match in the ledger', 30_000, async () => ((await unmatchedFacts()).length === 2 ? true : undefined));
    expect(await unmatchedFacts()).toEqual(['UnmatchedPaymentRecorded', 'UnmatchedPaymentMatched']);
    expect((await ledgerEntries(reference)).map((e) => e.event_type)).toEqual(['TransactionSettled']);
  });

  it('an operator closes one with a reason through the admin API: the ledger records UnmatchedPaymentClosed and the listing shows it closed', async () => {
    const reference = `ref_e2e_unmatched_${randomBytes(6).toString('hex')}`;
    expect((await stack.sandbox.create({ reference, amount: 120_000, currency: 'NGN', email: `payer.${reference}@example.com` })).status).toBe(201);
    expect((await stack.sandbox.pay(reference)).status).toBe(200);
    const admin = { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json' };
    const listed = async (status: string) => {
      const answer = await fetch(`${stack.ingestionUrl}/v1/admin/unmatched-payments?status=${status}&limit=100`, { headers: admin });
      const body = (await answer.json()) as { unmatched_payments: Array<{ reference: string; amount: number | null; closed: unknown }> };
      return body.unmatched_payments.find((p) => p.reference === reference);
    };
    await waitUntil('the payment listed as open', 30_000, () => listed('open'));
    const closing = await fetch(`${stack.ingestionUrl}/v1/admin/unmatched-payments/${reference}/close`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ reason: 'refunded_outside_settle', note: 'refunded by support', closed_by: 'ops@example.com' }),
    });
    expect(closing.status).toBe(202);
    const closed = await waitUntil('the payment listed as closed', 30_000, () => listed('closed'));
    expect(closed).toMatchObject({ amount: 120_000, closed: { reason: 'refunded_outside_settle', by: 'ops@example.com' } });
    const { rows } = await stack.db.query<{ event_type: string }>('SELECT event_type FROM ledger.events WHERE stream_id = $1 ORDER BY revision', [
      `unmatched-${reference}`,
    ]);
    expect(rows.map((r) => r.event_type)).toEqual(['UnmatchedPaymentRecorded', 'UnmatchedPaymentClosed']);
  });
});

describe('reconciliation: possible duplicate charges (docs/reconciliation.md)', () => {
  it('a user who pays twice for the same entitlement within minutes is flagged at once, as a ledger fact and an open exception', async () => {
    const user = `user-twice-${randomBytes(6).toString('hex')}`;
    const pay = async () => {
      const reference = `ref_e2e_twice_${randomBytes(6).toString('hex')}`;
      const email = `payer.${user}@example.com`;
      expect((await stack.sandbox.create({ reference, amount: 300_000, currency: 'NGN', email })).status).toBe(201);
      const registered = await stack.ingestion.register({
        provider: 'paystack',
        reference,
        amount: 300_000,
        currency: 'NGN',
        user_id: user,
        customer: { email },
        entitlement: 'pro-monthly',
        access_period: 'P1M',
      });
      expect(registered.status).toBe(202);
      expect((await stack.sandbox.pay(reference)).status).toBe(200);
      await settledState(reference, 'SETTLED_CONSENSUS');
      return reference;
    };
    const first = await pay();
    const second = await pay();
    const exceptions = await waitUntil('the possible duplicate in the read model', 30_000, async () => {
      const answer = await fetch(`${stack.ingestionUrl}/v1/admin/reconciliation-exceptions?class=possible_duplicate&reference=${second}`, {
        headers: { authorization: `Bearer ${stack.adminKey}` },
      });
      const body = (await answer.json()) as { exceptions: Array<{ reference: string; status: string; run_id: string | null; evidence: unknown[] }> };
      return body.exceptions.length > 0 ? body.exceptions : undefined;
    });
    expect(exceptions).toEqual([
      expect.objectContaining({ reference: second, status: 'open', run_id: null, evidence: [{ field: 'duplicate_of', provider: second, settle: first }] }),
    ]);
    const facts = await stack.db.query<{ event_type: string }>('SELECT event_type FROM ledger.events WHERE stream_id = $1', [`reconciliation-${second}`]);
    expect(facts.rows.map((r) => r.event_type)).toEqual(['ReconciliationExceptionRaised']);
    expect(stack.logs('verifier')).toMatch(/SETTLE_POSSIBLE_DUPLICATE_CHARGE/);
    // Both payments were real: both settled and both were granted (an operator refunds one).
    expect((await stack.ingestion.status(first)).body).toMatchObject({ state: 'SETTLED_CONSENSUS' });
  });
});

describe('reconciliation against the provider’s own list (docs/reconciliation.md)', () => {
  /** Starts a run over the last ten minutes through ingestion's admin API and waits for its end. */
  async function reconcile(): Promise<{ run_id: string; status: string; classes: Record<string, number>; exceptions_raised: number }> {
    const started = await fetch(`${stack.ingestionUrl}/v1/admin/reconciliation-runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'paystack', since: new Date(Date.now() - 600_000).toISOString(), requested_by: 'e2e' }),
    });
    expect(started.status).toBe(202);
    const { run_id: runId } = (await started.json()) as { run_id: string };
    return waitUntil(`run ${runId} to end`, 60_000, async () => {
      const answer = await fetch(`${stack.ingestionUrl}/v1/admin/reconciliation-runs/${runId}`, { headers: { authorization: `Bearer ${stack.adminKey}` } });
      if (answer.status !== 200) return undefined;
      const run = (await answer.json()) as { run_id: string; status: string; classes: Record<string, number>; exceptions_raised: number };
      return run.status === 'completed' || run.status === 'failed' ? run : undefined;
    });
  }

  async function exceptionsOf(
    reference: string,
  ): Promise<Array<{ class: string; status: string; evidence: Array<{ field: string; provider: string; settle: string }> }>> {
    const answer = await fetch(`${stack.ingestionUrl}/v1/admin/reconciliation-exceptions?reference=${reference}`, {
      headers: { authorization: `Bearer ${stack.adminKey}` },
    });
    return (
      (await answer.json()) as { exceptions: Array<{ class: string; status: string; evidence: Array<{ field: string; provider: string; settle: string }> }> }
    ).exceptions;
  }

  it('finds a payment that reached neither a registration nor a webhook, and records it as an unmatched payment', async () => {
    const reference = `ref_e2e_unseen_${randomBytes(6).toString('hex')}`;
    const email = `payer.${reference}@example.com`;
    expect((await stack.sandbox.create({ reference, amount: 420_000, currency: 'NGN', email, behaviour: { webhook: 'drop' } })).status).toBe(201);
    expect((await stack.sandbox.pay(reference)).status).toBe(200);
    const run = await reconcile();
    expect(run.status).toBe('completed');
    expect(run.classes.unknown_to_settle).toBeGreaterThanOrEqual(1);
    expect(await exceptionsOf(reference)).toEqual([expect.objectContaining({ class: 'unknown_to_settle', status: 'open' })]);
    // Verified at once, read-only, as an unmatched payment candidate (trigger reconciliation): recorded with what the provider confirmed.
    const recorded = await waitUntil('the unmatched payment to be recorded', 30_000, async () => {
      const { rows } = await stack.db.query<{ status: string; amount_minor: string | number }>(
        'SELECT status, amount_minor FROM read_model.unmatched_payments WHERE reference = $1',
        [reference],
      );
      return rows[0];
    });
    expect({ status: recorded.status, amount: Number(recorded.amount_minor) }).toEqual({ status: 'open', amount: 420_000 });
    expect(await ledgerEntries(reference)).toEqual([]);
  });

  it('reports a payment settled here and reversed at the provider as the most serious exception, once per window', async () => {
    const reference = await checkout({});
    await settledState(reference, 'SETTLED_CONSENSUS');
    expect((await stack.sandbox.reverse(reference)).status).toBe(200);
    const first = await reconcile();
    expect(first.status).toBe('completed');
    const raised = await exceptionsOf(reference);
    expect(raised).toEqual([
      expect.objectContaining({
        class: 'settled_not_successful',
        status: 'open',
        evidence: [expect.objectContaining({ field: 'status', settle: 'SETTLED_CONSENSUS' })],
      }),
    ]);
    // The same window again: reported again, never raised twice.
    await reconcile();
    expect(await exceptionsOf(reference)).toHaveLength(1);
    const facts = await stack.db.query<{ event_type: string }>('SELECT event_type FROM ledger.events WHERE stream_id = $1', [`reconciliation-${reference}`]);
    expect(facts.rows.map((r) => r.event_type)).toEqual(['ReconciliationExceptionRaised']);
  });
});

/**
 * The money after settlement, end to end (docs/state-machine.md, "The money after settlement";
 * docs/delivery.md, "Access follows the money"): the six apps as processes on the real
 * infrastructure and the example customer backend (the receiver kit from its packed tarball).
 * After a Paystack payment settled and granted a month, the provider's sandbox refunds it,
 * reverses it silently, or loses a dispute on it; Settle learns of it only from the provider's
 * own objects (a notification is only a trigger), records the fact in the ledger, revokes the
 * grant, and the customer backend's access ends equal to the ledger's. A spoofed refund
 * notification revokes nothing when the provider shows no refund.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestionClient, waitUntil } from '../../scripts/ops/clients.js';
import { startStack, type RunningStack } from '@settle/testing';

let stack: RunningStack;
let admin: IngestionClient;

beforeAll(async () => {
  stack = await startStack({ inactivityMs: 3_000, customerBackend: { env: { RETRY_INITIAL_DELAY_MS: '100' } } });
  admin = new IngestionClient(stack.ingestion.baseUrl, stack.adminKey);
});

afterAll(async () => {
  await stack?.stop();
});

const AMOUNT = 250_000;

/** A paid Paystack checkout of a fresh user for a month, settled and granted: its reference, user and the ledger's expiry. */
async function settledCheckout(): Promise<{ reference: string; user: string; expiresAt: string }> {
  const reference = `ref_mas_${randomBytes(6).toString('hex')}`;
  const user = `user-${randomBytes(4).toString('hex')}`;
  const email = `payer.${reference}@example.com`;
  expect((await stack.sandbox.create({ reference, amount: AMOUNT, currency: 'NGN', email })).status).toBe(201);
  const registered = await stack.ingestion.register({
    provider: 'paystack',
    reference,
    amount: AMOUNT,
    currency: 'NGN',
    user_id: user,
    customer: { email },
    entitlement: 'pro-monthly',
    access_period: 'P1M',
  });
  expect(registered.status).toBe(202);
  expect((await stack.sandbox.pay(reference)).status).toBe(200);
  expect((await stack.ingestion.complete(reference)).status).toBe(202);
  const granted = await waitUntil(`the grant of ${reference}`, 30_000, async () => {
    const answer = await stack.ingestion.entitlements(user);
    return answer.status === 200 && answer.body.entitlements.length === 1 ? answer.body.entitlements[0] : undefined;
  });
  await customerAccess(user, granted.expires_at);
  return { reference, user, expiresAt: granted.expires_at };
}

/** Waits until the customer backend's access (the receiver kit's) is `expected`. */
async function customerAccess(user: string, expected: string): Promise<void> {
  await waitUntil(`the customer backend's access of ${user} to be ${expected}`, 30_000, async () => {
    const answer = await fetch(`${stack.customer!.url}/access/${user}/pro-monthly`);
    if (answer.status !== 200) return undefined;
    const { expires_at } = (await answer.json()) as { expires_at: string };
    return expires_at === expected ? true : undefined;
  });
}

/** Waits until the ledger revoked the user's grant; then the customer backend's access must be the ledger's. */
async function revoked(user: string, before: string): Promise<{ expires_at: string; last_event: string }> {
  const after = await waitUntil(`the revocation of ${user}'s grant`, 40_000, async () => {
    const answer = await stack.ingestion.entitlements(user);
    const row = answer.body.entitlements[0];
    return row && row.last_event === 'subscription_revoked' ? row : undefined;
  });
  expect(Date.parse(after.expires_at)).toBeLessThan(Date.parse(before));
  await customerAccess(user, after.expires_at);
  return after;
}

/** The customer backend's business-logic runs of a user, by kind. */
async function runsOf(user: string): Promise<string[]> {
  const { rows } = await stack.customer!.db.query<{ event: string }>('SELECT event FROM entitlement_runs WHERE user_id = $1 ORDER BY ran_at', [user]);
  return rows.map((r) => r.event);
}

describe('a settled payment whose money goes back: recorded from the provider, access revoked at the customer backend', () => {
  it('refunded in full (refund.processed): RefundRecorded, money_state refunded, subscription_revoked with the payment and the reason', async () => {
    const { reference, user, expiresAt } = await settledCheckout();
    const refund = await stack.sandbox.refund(reference);
    expect(refund.status).toBe(201);
    const after = await revoked(user, expiresAt);
    const status = await waitUntil('the money state', 20_000, async () => {
      const answer = await stack.ingestion.status(reference);
      return answer.body.money_state === 'refunded' ? answer.body : undefined;
    });
    // The payment stays settled: what happened to its money is a field of its own.
    expect(status).toMatchObject({ state: 'SETTLED_CONSENSUS', money_state: 'refunded', returned: AMOUNT });
    // The only grant was revoked: access ends when the revocation was decided.
    expect(Date.parse(after.expires_at)).toBeLessThanOrEqual(Date.now());
    await waitUntil('the revocation to run at the customer backend', 30_000, async () =>
      (await runsOf(user)).includes('subscription_revoked') ? true : undefined,
    );
    const { rows } = await stack.customer!.db.query<{ payload: Record<string, unknown> }>(
      "SELECT payload FROM settle_receiver.events WHERE kind = 'subscription_revoked' AND payload->>'user_id' = $1",
      [user],
    );
    expect(rows[0]!.payload).toMatchObject({ reference, reason: 'refunded', revision: 1, expires_at: after.expires_at });
  });

  it('a spoofed refund notification is refused, verified by REST, and revokes nothing when the provider shows no refund', async () => {
    const { reference, user, expiresAt } = await settledCheckout();
    // Past the coalescing window (SETTLE_VERIFY_COALESCE_MS, 5 s): within it, a rejected webhook
    // is answered by the settlement's fresh provider answer and asks nothing (docs/webhooks.md).
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    const before = (await stack.sandbox.inspect(reference)).body.verifyCalls;
    const body = JSON.stringify({
      event: 'refund.processed',
      data: { transaction_reference: reference, amount: String(AMOUNT), currency: 'NGN', status: 'processed' },
    });
    const spoofed = await fetch(`${stack.ingestion.baseUrl}/v1/webhooks/paystack`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-paystack-signature': createHmac('sha512', 'not-the-secret').update(body).digest('hex') },
      body,
    });
    expect(spoofed.status).toBe(401);
    // The verifier asked Paystack (its movements read starts with the transaction's verify call).
    await waitUntil('the provider to be asked', 20_000, async () => ((await stack.sandbox.inspect(reference)).body.verifyCalls > before ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await stack.ingestion.status(reference)).body).toMatchObject({ state: 'SETTLED_CONSENSUS', money_state: 'none', returned: 0 });
    const [row] = (await stack.ingestion.entitlements(user)).body.entitlements;
    expect(row).toMatchObject({ expires_at: expiresAt, last_event: 'subscription_started' });
    await customerAccess(user, expiresAt);
  });

  it('reversed with no notification: the reconciliation run finds it, reads the provider, records the reversal and revokes', async () => {
    const since = new Date(Date.now() - 60_000).toISOString();
    const { reference, user, expiresAt } = await settledCheckout();
    expect((await stack.sandbox.reverse(reference)).status).toBe(200);
    const run = await admin.startReconciliation({ provider: 'paystack', since, requested_by: 'after-settlement e2e' });
    expect(run.status).toBe(202);
    await revoked(user, expiresAt);
    const status = await waitUntil('the money state', 20_000, async () => {
      const answer = await stack.ingestion.status(reference);
      return answer.body.money_state === 'reversed' ? answer.body : undefined;
    });
    expect(status).toMatchObject({ state: 'SETTLED_CONSENSUS', money_state: 'reversed', returned: AMOUNT });
  });

  it('disputed: opening changes nothing (the default policy), losing it revokes with reason charged_back', async () => {
    const { reference, user, expiresAt } = await settledCheckout();
    const dispute = await stack.sandbox.dispute(reference, { reason: 'fraudulent' });
    expect(dispute.status).toBe(201);
    await waitUntil('the dispute to be recorded', 30_000, async () => {
      const answer = await stack.ingestion.status(reference);
      return answer.body.money_state === 'disputed' ? true : undefined;
    });
    expect((await stack.ingestion.entitlements(user)).body.entitlements[0]).toMatchObject({ expires_at: expiresAt, last_event: 'subscription_started' });
    expect((await stack.sandbox.resolveDispute(dispute.body.id, { outcome: 'lost' })).status).toBe(200);
    await revoked(user, expiresAt);
    expect((await stack.ingestion.status(reference)).body).toMatchObject({ state: 'SETTLED_CONSENSUS', money_state: 'charged_back', returned: AMOUNT });
    const { rows } = await stack.customer!.db.query<{ payload: Record<string, unknown> }>(
      "SELECT payload FROM settle_receiver.events WHERE kind = 'subscription_revoked' AND payload->>'user_id' = $1",
      [user],
    );
    expect(rows[0]!.payload).toMatchObject({ reference, reason: 'charged_back' });
  });
});

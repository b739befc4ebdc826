import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import { decideMoneyMovement, evolveMoney, moneyStateOf, paymentMoney, type MoneyMovementEvent, type PaymentMoney } from '@settle/domain';
import { createLogger } from '@settle/platform';
import { canReadMovements, ProviderCallError, StripeProvider } from '@settle/providers';
import { createSandboxApp, type SandboxApp } from '../src/app.js';
import { loadSandboxConfig } from '../src/config.js';

// A provider's refunds and disputes read by its adapter over HTTP from the sandbox, and what the
// domain records of them (docs/state-machine.md, "The money after settlement").
const key = `sk_test_${randomBytes(24).toString('hex')}`;
let sandbox: SandboxApp;
let baseUrl: string;
let stripe: StripeProvider;

beforeAll(async () => {
  const config = loadSandboxConfig({
    PAYSTACK_SECRET_KEY: `sk_test_${randomBytes(20).toString('hex')}`,
    SANDBOX_WEBHOOK_URL: 'http://127.0.0.1:9/unused',
    STRIPE_SECRET_KEY: key,
  });
  sandbox = await createSandboxApp(config, createLogger('movements', 'silent'));
  await sandbox.app.listen(0, '127.0.0.1');
  baseUrl = `http://127.0.0.1:${(sandbox.app.getHttpServer().address() as AddressInfo).port}`;
  stripe = new StripeProvider({ baseUrl, secretKey: new Secret(key), timeoutMs: 2_000, retry: { maxAttempts: 2, initialDelayMs: 5, maxDelayMs: 20 } });
});

afterAll(async () => {
  await stripe?.close();
  await sandbox?.close();
});

async function control(path: string, body: unknown = {}): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}/_sandbox${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** A paid Stripe payment of 5,000 minor units (USD), its own notification dropped. */
async function paid(): Promise<string> {
  const tx = await control('/stripe/transactions', { amount: 5_000, currency: 'USD', email: 'ada@example.com', behaviour: { webhook: 'drop' } });
  await control(`/stripe/transactions/${String(tx.reference)}/pay`);
  return String(tx.reference);
}

/** Reads the payment's movements and decides them in turn, as the verifier will. */
async function record(reference: string, from: PaymentMoney): Promise<{ money: PaymentMoney; events: MoneyMovementEvent[] }> {
  const { observations } = await stripe.movementsOf(reference);
  let money = from;
  const events: MoneyMovementEvent[] = [];
  for (const observation of observations) {
    const decided = decideMoneyMovement(
      { type: 'RecordMoneyMovement', data: { reference, verificationId: 'v', trigger: 'reconciliation', observation, decidedAt: Date.now() } },
      money,
    );
    events.push(...decided);
    money = decided.reduce(evolveMoney, money);
  }
  return { money, events };
}

describe('Stripe refunds and disputes, read from the sandbox', () => {
  it('the adapter can read movements', () => {
    expect(canReadMovements(stripe)).toBe(true);
  });

  it('a payment nobody touched has none', async () => {
    expect(await stripe.movementsOf(await paid())).toEqual({ observations: [] });
  });

  it('a partial refund, then the rest, then a failed one: partially refunded, refunded, and back', async () => {
    const reference = await paid();
    const start = paymentMoney(reference, { amountMinor: 5_000, currency: 'USD' });
    const first = (await control(`/stripe/transactions/${reference}/refunds`, { amount: 2_000, webhook: 'drop' })) as { id: string };
    const afterFirst = await record(reference, start);
    expect(afterFirst.events).toMatchObject([
      { type: 'RefundRecorded', data: { providerId: first.id, amountMinor: 2_000, currency: 'USD', full: false, moneyState: 'partially_refunded' } },
    ]);

    await control(`/stripe/transactions/${reference}/refunds`, { webhook: 'drop' });
    const afterRest = await record(reference, afterFirst.money);
    expect(afterRest.events).toMatchObject([
      { type: 'RefundRecorded', data: { amountMinor: 3_000, full: true, returnedMinor: 5_000, moneyState: 'refunded' } },
    ]);

    await control(`/stripe/refunds/${first.id}`, { status: 'failed', webhook: 'drop' });
    const afterFailure = await record(reference, afterRest.money);
    expect(afterFailure.events).toMatchObject([
      { type: 'RefundFailed', data: { providerId: first.id, returnedMinor: 3_000, moneyState: 'partially_refunded' } },
    ]);
    expect((await record(reference, afterFailure.money)).events).toEqual([]);
  });

  it('a dispute opened then lost is a chargeback', async () => {
    const reference = await paid();
    const start = paymentMoney(reference, { amountMinor: 5_000, currency: 'USD' });
    const dispute = (await control(`/stripe/transactions/${reference}/disputes`, { reason: 'product_not_received', webhook: 'drop' })) as { id: string };
    const opened = await record(reference, start);
    expect(opened.events).toMatchObject([{ type: 'DisputeOpened', data: { providerId: dispute.id, reason: 'product_not_received', moneyState: 'disputed' } }]);
    await control(`/stripe/disputes/${dispute.id}/resolve`, { outcome: 'lost', webhook: 'drop' });
    const lost = await record(reference, opened.money);
    expect(lost.events).toMatchObject([{ type: 'DisputeResolved', data: { outcome: 'lost', moneyState: 'charged_back' } }]);
    expect(moneyStateOf(lost.money)).toBe('charged_back');
  });

  it('a wrong key is refused, not retried', async () => {
    const wrong = new StripeProvider({
      baseUrl,
      secretKey: new Secret('sk_test_wrong'),
      timeoutMs: 2_000,
      retry: { maxAttempts: 3, initialDelayMs: 5, maxDelayMs: 20 },
    });
    try {
      await expect(wrong.movementsOf('pi_x')).rejects.toThrow(expect.objectContaining({ code: 'PROVIDER.AUTH_REJECTED' }) as ProviderCallError);
    } finally {
      await wrong.close();
    }
  });
});

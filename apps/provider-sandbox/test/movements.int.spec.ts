import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import { decideMoneyMovement, evolveMoney, moneyStateOf, paymentMoney, type MoneyMovementEvent, type PaymentMoney } from '@settle/domain';
import { createLogger } from '@settle/platform';
import { canReadMovements, FlutterwaveProvider, PaystackProvider, ProviderCallError, StripeProvider, type MoneyMovementReader } from '@settle/providers';
import { createSandboxApp, type SandboxApp } from '../src/app.js';
import { loadSandboxConfig } from '../src/config.js';

// A provider's refunds and disputes read by its adapter over HTTP from the sandbox, and what the
// domain records of them (docs/state-machine.md, "The money after settlement").
const key = `sk_test_${randomBytes(24).toString('hex')}`;
const paystackKey = `sk_test_${randomBytes(20).toString('hex')}`;
const flutterwaveKey = `FLWSECK_TEST-${randomBytes(16).toString('hex')}-X`;
let sandbox: SandboxApp;
let baseUrl: string;
let stripe: StripeProvider;
let paystack: PaystackProvider;
let flutterwave: FlutterwaveProvider;

beforeAll(async () => {
  const config = loadSandboxConfig({
    PAYSTACK_SECRET_KEY: paystackKey,
    SANDBOX_WEBHOOK_URL: 'http://127.0.0.1:9/unused',
    STRIPE_SECRET_KEY: key,
    FLUTTERWAVE_SECRET_KEY: flutterwaveKey,
  });
  sandbox = await createSandboxApp(config, createLogger('movements', 'silent'));
  await sandbox.app.listen(0, '127.0.0.1');
  baseUrl = `http://127.0.0.1:${(sandbox.app.getHttpServer().address() as AddressInfo).port}`;
  stripe = new StripeProvider({ baseUrl, secretKey: new Secret(key), timeoutMs: 2_000, retry: { maxAttempts: 2, initialDelayMs: 5, maxDelayMs: 20 } });
  paystack = new PaystackProvider({
    baseUrl,
    secretKey: new Secret(paystackKey),
    timeoutMs: 2_000,
    retry: { maxAttempts: 2, initialDelayMs: 5, maxDelayMs: 20 },
  });
  flutterwave = new FlutterwaveProvider({
    baseUrl,
    secretKey: new Secret(flutterwaveKey),
    timeoutMs: 2_000,
    retry: { maxAttempts: 2, initialDelayMs: 5, maxDelayMs: 20 },
  });
});

afterAll(async () => {
  await stripe?.close();
  await paystack?.close();
  await flutterwave?.close();
  await sandbox?.close();
});

async function control(path: string, body: unknown = {}): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}/_sandbox${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** A paid payment of 5,000 minor units, its own notification dropped. */
async function paid(provider: 'stripe' | 'paystack' | 'flutterwave' = 'stripe'): Promise<string> {
  const reference = provider === 'stripe' ? undefined : `ref_${randomBytes(8).toString('hex')}`;
  const currency = provider === 'stripe' ? 'USD' : 'NGN';
  const tx = await control(`/${provider}/transactions`, { reference, amount: 5_000, currency, email: 'ada@example.com', behaviour: { webhook: 'drop' } });
  await control(`/${provider}/transactions/${String(tx.reference)}/pay`);
  return String(tx.reference);
}

/** Reads the payment's movements and decides them in turn, as the verifier will. */
async function record(
  reference: string,
  from: PaymentMoney,
  reader: MoneyMovementReader = stripe,
): Promise<{ money: PaymentMoney; events: MoneyMovementEvent[] }> {
  const { observations } = await reader.movementsOf(reference);
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

describe('Paystack refunds, disputes and reversals, read from the sandbox', () => {
  const start = (reference: string) => paymentMoney(reference, { amountMinor: 5_000, currency: 'NGN' });

  it('a refund, read through the transaction id; Paystack shows the transaction reversed, which the refund explains', async () => {
    const reference = await paid('paystack');
    expect(canReadMovements(paystack)).toBe(true);
    expect(await paystack.movementsOf(reference)).toEqual({ observations: [] });
    const refund = (await control(`/paystack/transactions/${reference}/refunds`, { amount: 1_500, webhook: 'drop' })) as { id: string };
    const verified = await fetch(`${baseUrl}/transaction/verify/${reference}`, { headers: { authorization: `Bearer ${paystackKey}` } });
    expect(((await verified.json()) as { data: { status: string } }).data.status).toBe('reversed');
    const { events } = await record(reference, start(reference), paystack);
    expect(events).toMatchObject([
      { type: 'RefundRecorded', data: { providerId: refund.id, amountMinor: 1_500, currency: 'NGN', moneyState: 'partially_refunded' } },
    ]);
  });

  it('a dispute the merchant accepts is a chargeback', async () => {
    const reference = await paid('paystack');
    const dispute = (await control(`/paystack/transactions/${reference}/disputes`, { webhook: 'drop' })) as { id: string };
    const opened = await record(reference, start(reference), paystack);
    expect(opened.events).toMatchObject([{ type: 'DisputeOpened', data: { providerId: dispute.id, reason: 'chargeback', moneyState: 'disputed' } }]);
    await control(`/paystack/disputes/${dispute.id}/resolve`, { outcome: 'lost', webhook: 'drop' });
    const lost = await record(reference, opened.money, paystack);
    expect(lost.events).toMatchObject([
      { type: 'DisputeResolved', data: { outcome: 'lost', providerStatus: 'resolved: merchant-accepted', moneyState: 'charged_back' } },
    ]);
  });

  it('a reversal nobody notified: the transaction reversed with no refund or dispute behind it', async () => {
    const reference = await paid('paystack');
    await control(`/paystack/transactions/${reference}/reverse`);
    const { events } = await record(reference, start(reference), paystack);
    expect(events).toMatchObject([{ type: 'ReversalRecorded', data: { amountMinor: 5_000, providerStatus: 'reversed', moneyState: 'reversed' } }]);
  });

  it('a reference Paystack does not know is refused, not retried', async () => {
    await expect(paystack.movementsOf('ref_unknown_to_paystack')).rejects.toThrow(
      expect.objectContaining({ code: 'PROVIDER.UNEXPECTED_STATUS_400' }) as ProviderCallError,
    );
  });
});

describe('Flutterwave refunds and chargebacks, read from the sandbox', () => {
  it('a refund in major units and a chargeback the merchant accepted, each in minor units of the transaction currency', async () => {
    const reference = await paid('flutterwave');
    const money = paymentMoney(reference, { amountMinor: 5_000, currency: 'NGN' });
    await control(`/flutterwave/transactions/${reference}/refunds`, { amount: 1_250 });
    const refunded = await record(reference, money, flutterwave);
    expect(refunded.events).toMatchObject([{ type: 'RefundRecorded', data: { amountMinor: 1_250, currency: 'NGN', providerStatus: 'completed' } }]);
    const dispute = (await control(`/flutterwave/transactions/${reference}/disputes`, { amount: 3_750 })) as { id: string };
    await control(`/flutterwave/disputes/${dispute.id}/resolve`, { outcome: 'lost' });
    const lost = await record(reference, refunded.money, flutterwave);
    expect(lost.events).toMatchObject([
      { type: 'DisputeOpened', data: { providerId: dispute.id, amountMinor: 3_750 } },
      { type: 'DisputeResolved', data: { outcome: 'lost', providerStatus: 'accepted (new)', returnedMinor: 5_000, moneyState: 'charged_back' } },
    ]);
  });
});

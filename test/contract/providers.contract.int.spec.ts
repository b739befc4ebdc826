import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import { loadSandboxConfig } from '../../apps/provider-sandbox/src/config.js';
import type { Expectation, ProviderName, ProviderVerdict } from '@settle/domain';
import { createLogger } from '@settle/platform';
import { FlutterwaveProvider, MpesaProvider, PaystackProvider, StripeProvider, type PaymentProvider } from '@settle/providers';
import { createSandboxApp, type SandboxApp } from '../../apps/provider-sandbox/src/app.js';
import { SandboxClient, type SandboxBehaviour } from '../../scripts/ops/clients.js';
import { providerContract, type ContractScenario } from '../../libs/providers/test/provider.contract.js';

/**
 * Contract tests: each provider adapter against the provider sandbox over real HTTP. The
 * sandbox answers with each provider's documented shapes and checks credentials as the
 * provider would; the adapter must map every outcome to the right normalised verdict. The
 * port's own contract (libs/providers/test/provider.contract.ts) runs here against the real
 * adapters and, as a unit test, against the in-memory fake; the rest is HTTP-specific.
 */
const hex = (n: number) => randomBytes(n).toString('hex');
const secrets = {
  paystack: `sk_test_${hex(20)}`,
  stripe: `sk_test_${hex(24)}`,
  flutterwave: `FLWSECK_TEST-${hex(16)}-X`,
  consumerKey: hex(16),
  consumerSecret: hex(16),
  passkey: hex(32),
};
const retry = { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 50 };
let sandbox: SandboxApp;
let sandboxUrl: string;
let client: SandboxClient;
let adapters: Record<ProviderName, PaymentProvider & { close(): Promise<void> }>;
let wrongKey: Record<'paystack' | 'stripe' | 'flutterwave' | 'mpesa', PaymentProvider & { close(): Promise<void> }>;

beforeAll(async () => {
  const config = loadSandboxConfig({
    PAYSTACK_SECRET_KEY: secrets.paystack,
    SANDBOX_WEBHOOK_URL: 'http://127.0.0.1:9/unused',
    SANDBOX_TIMEOUT_HOLD_MS: '400',
    STRIPE_SECRET_KEY: secrets.stripe,
    FLUTTERWAVE_SECRET_KEY: secrets.flutterwave,
    MPESA_CONSUMER_KEY: secrets.consumerKey,
    MPESA_CONSUMER_SECRET: secrets.consumerSecret,
    MPESA_PASSKEY: secrets.passkey,
  });
  sandbox = await createSandboxApp(config, createLogger('contract', 'silent'));
  await sandbox.app.listen(0, '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${(sandbox.app.getHttpServer().address() as AddressInfo).port}`;
  sandboxUrl = baseUrl;
  client = new SandboxClient(baseUrl);
  const common = { baseUrl, timeoutMs: 200, retry, breaker: { minimumVerifications: 1_000 } };
  const build = (k: typeof secrets) => ({
    paystack: new PaystackProvider({ ...common, secretKey: new Secret(k.paystack) }),
    stripe: new StripeProvider({ ...common, secretKey: new Secret(k.stripe) }),
    flutterwave: new FlutterwaveProvider({ ...common, secretKey: new Secret(k.flutterwave) }),
    mpesa: new MpesaProvider({
      ...common,
      consumerKey: new Secret(k.consumerKey),
      consumerSecret: new Secret(k.consumerSecret),
      passKey: new Secret(k.passkey),
      businessShortCode: '174379',
    }),
  });
  adapters = build(secrets);
  wrongKey = build({
    paystack: `sk_test_${hex(20)}`,
    stripe: `sk_test_${hex(24)}`,
    flutterwave: `FLWSECK_TEST-${hex(16)}-X`,
    consumerKey: hex(16),
    consumerSecret: hex(16),
    passkey: secrets.passkey,
  });
});

afterAll(async () => {
  await Promise.all([...Object.values(adapters ?? {}), ...Object.values(wrongKey ?? {})].map((a) => a.close()));
  await sandbox?.close();
});

/** A transaction per provider in its own shape: amounts in minor units, M-Pesa in whole KES. */
const inputs: Record<ProviderName, { amount: number; currency: string; email?: string; phone?: string }> = {
  paystack: { amount: 40_000, currency: 'NGN', email: 'ada@example.com' },
  stripe: { amount: 2_500, currency: 'USD', email: 'card@example.com' },
  flutterwave: { amount: 1_050_050, currency: 'NGN', email: 'bank@example.com' },
  mpesa: { amount: 150_000, currency: 'KES', phone: '254712345678' },
};

async function transaction(provider: ProviderName, behaviour: SandboxBehaviour, pay = true): Promise<Expectation> {
  const input = inputs[provider];
  const reference = provider === 'paystack' ? `ref_${hex(6)}` : provider === 'flutterwave' ? `tx_${hex(6)}` : undefined;
  const created = await client.create({ ...input, ...(reference ? { reference } : {}), behaviour }, provider);
  expect(created.status).toBe(201);
  if (pay) expect((await client.pay(created.body.reference, provider)).status).toBe(200);
  return {
    reference: created.body.reference,
    provider,
    amountMinor: input.amount,
    currency: input.currency,
    userId: 'user-contract',
    customer: { email: input.email, phone: input.phone ? `+${input.phone}` : undefined },
    entitlement: 'pro',
    accessPeriod: null,
  };
}

const verify = (provider: ProviderName, expectation: Expectation, adapter = adapters[provider]): Promise<ProviderVerdict> =>
  adapter.verify({ reference: expectation.reference, expectation });

/** The sandbox behaviour of each contract scenario. */
const SCENARIOS: Record<Exclude<ContractScenario, 'unknown'>, SandboxBehaviour> = {
  paid: {},
  declined: { outcome: 'declined' },
  clearing_then_paid: { outcome: 'clearing_then_success', clearing_checks: 1 },
  timing_out: { failures: { mode: 'timeout', times: 5 } },
};

providerContract('adapters against the sandbox', ['paystack', 'stripe', 'flutterwave', 'mpesa'], () => ({
  given: async (provider, scenario) => {
    if (scenario === 'unknown') {
      const reference = provider === 'stripe' ? `pi_${hex(12)}` : `ref_${hex(6)}`;
      return { adapter: adapters[provider], expectation: { ...(await transaction(provider, {}, false)), reference } };
    }
    return { adapter: adapters[provider], expectation: await transaction(provider, SCENARIOS[scenario]) };
  },
  // Daraja's STK query has no "unknown reference" answer of its own.
  supports: (provider, scenario) => !(provider === 'mpesa' && scenario === 'unknown'),
}));

describe.each(['paystack', 'stripe', 'flutterwave', 'mpesa'] as const)('%s adapter against the sandbox', (provider) => {
  it('502 answers are retried with backoff until the answer comes', async () => {
    const expectation = await transaction(provider, { failures: { mode: '502', times: 2 } });
    expect((await verify(provider, expectation)).kind).toBe('cleared');
    expect((await client.inspect(expectation.reference, provider)).body.failuresServed).toBe(2);
  });

  it('a wrong credential is refused by the provider and reported, not retried', async () => {
    const expectation = await transaction(provider, {});
    expect(await verify(provider, expectation, wrongKey[provider])).toEqual({ kind: 'unreachable', cause: 'PROVIDER.AUTH_REJECTED' });
  });
});

describe('Stripe adapter against the sandbox: the expanded charge', () => {
  it("reads the customer's email from latest_charge.billing_details.email when the intent has no receipt_email", async () => {
    const input = inputs.stripe;
    for (const [behaviour, email] of [
      [{}, input.email],
      [{ outcome: 'other_customer' }, 'someone.else@example.net'],
    ] as const) {
      const created = await client.create({ ...input, receipt_email: false, behaviour }, 'stripe');
      expect(created.status).toBe(201);
      expect((await client.pay(created.body.reference, 'stripe')).status).toBe(200);
      // What the adapter is answered: no receipt_email, the charge expanded with the payer's email.
      const answer = await fetch(`${sandboxUrl}/v1/payment_intents/${created.body.reference}?expand%5B%5D=latest_charge`, {
        headers: { authorization: `Bearer ${secrets.stripe}` },
      });
      const intent = (await answer.json()) as { receipt_email: string | null; latest_charge: { billing_details: { email: string } } };
      expect(intent.receipt_email).toBeNull();
      expect(intent.latest_charge.billing_details.email).toBe(email);
      const expectation: Expectation = {
        reference: created.body.reference,
        provider: 'stripe',
        amountMinor: input.amount,
        currency: input.currency,
        userId: 'user-contract',
        customer: { email: input.email, phone: undefined },
        entitlement: 'pro',
        accessPeriod: null,
      };
      const verdict = await verify('stripe', expectation);
      expect(verdict.kind === 'cleared' && verdict.observation.customer).toEqual({ email, phone: undefined });
    }
  });
});

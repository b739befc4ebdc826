import { Secret } from '@settle/config';
import { afterEach, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { FlutterwaveProvider, STRIPE_DEFAULT_API_VERSION, StripeProvider, stripeDefinition } from '@settle/providers';
import { expectation } from './fixtures.js';
import { sendJson, startLocalServer, type LocalServer } from './local-server.js';

const retry = { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 5 };
let server: LocalServer | undefined;
const providers: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
  await server?.close();
  server = undefined;
});

describe('Stripe adapter over HTTP', () => {
  it('retrieves the intent with the charge expanded and a Bearer key', async () => {
    server = await startLocalServer((req, res) =>
      sendJson(res, 200, {
        id: 'pi_123',
        object: 'payment_intent',
        amount: 2000,
        amount_received: 2000,
        currency: 'usd',
        receipt_email: null,
        latest_charge: { id: 'ch_1', billing_details: { email: 'ada@example.com' } },
        status: 'succeeded',
      }),
    );
    const provider = new StripeProvider({
      baseUrl: `${server.baseUrl}/`,
      secretKey: new Secret('sk_test_abc'),
      timeoutMs: 2000,
      retry,
      apiVersion: '2025-01-27.acacia',
    });
    providers.push(provider);
    const verdict = await provider.verify({ reference: 'pi_123', expectation: expectation({ reference: 'pi_123', provider: 'stripe' }) });
    expect(verdict.kind === 'cleared' && verdict.observation).toMatchObject({
      reference: 'pi_123',
      amountMinor: 2000,
      currency: 'USD',
      customer: { email: 'ada@example.com' },
    });
    const [received] = server.requests;
    expect(received).toMatchObject({ method: 'GET', url: '/v1/payment_intents/pi_123?expand%5B%5D=latest_charge' });
    expect(received!.headers.authorization).toBe('Bearer sk_test_abc');
    expect(received!.headers['stripe-version']).toBe('2025-01-27.acacia');
  });
});

describe("the verifier's Stripe adapter (its definition)", () => {
  const common = { timeoutMs: 2000, retry };
  const credential = async () => new Secret('sk_test_abc');
  const intent = { id: 'pi_1', object: 'payment_intent', amount: 1, amount_received: 1, currency: 'usd', status: 'succeeded' };

  it("pins Stripe-Version to STRIPE_API_VERSION, by default the version the stripe package's types are written for", async () => {
    expect(STRIPE_DEFAULT_API_VERSION).toBe(Stripe.API_VERSION);
    server = await startLocalServer((req, res) => sendJson(res, 200, intent));
    const pinned = await stripeDefinition.verifier.adapter({ STRIPE_BASE_URL: server.baseUrl }, credential, common);
    const chosen = await stripeDefinition.verifier.adapter({ STRIPE_BASE_URL: server.baseUrl, STRIPE_API_VERSION: '2025-03-31.basil' }, credential, common);
    providers.push(pinned!, chosen!);
    for (const adapter of [pinned!, chosen!]) {
      await adapter.verify({ reference: 'pi_1', expectation: expectation({ reference: 'pi_1', provider: 'stripe', amountMinor: 1 }) });
    }
    expect(server.requests.map((r) => r.headers['stripe-version'])).toEqual([STRIPE_DEFAULT_API_VERSION, '2025-03-31.basil']);
  });

  it('refuses a STRIPE_API_VERSION that is not a Stripe API version', () => {
    expect(stripeDefinition.verifier.env.safeParse({ STRIPE_API_VERSION: 'latest' }).success).toBe(false);
  });
});

describe('Flutterwave adapter over HTTP', () => {
  const data = {
    id: 4975363,
    tx_ref: 'chk_01HZX3',
    amount: 1.234,
    currency: 'KWD',
    charged_amount: 1.25,
    status: 'successful',
    customer: { email: 'ada@example.com', phone_number: '+96550001234' },
  };

  it('verifies by our tx_ref, or by a numeric Flutterwave id, and converts major units', async () => {
    server = await startLocalServer((req, res) => sendJson(res, 200, { status: 'success', message: 'Transaction fetched successfully', data }));
    const provider = new FlutterwaveProvider({ baseUrl: server.baseUrl, secretKey: new Secret('FLWSECK_TEST-abc-X'), timeoutMs: 2000, retry });
    providers.push(provider);
    const exp = expectation({ reference: 'chk_01HZX3', provider: 'flutterwave', currency: 'KWD', amountMinor: 1234 });

    const byRef = await provider.verify({ reference: 'chk_01HZX3', expectation: exp });
    expect(byRef.kind === 'cleared' && byRef.observation).toMatchObject({
      reference: 'chk_01HZX3',
      amountMinor: 1234,
      chargedAmountMinor: 1250,
      currency: 'KWD',
    });
    await provider.verify({ reference: '4975363', expectation: exp });

    expect(server.requests.map((r) => r.url)).toEqual(['/v3/transactions/verify_by_reference?tx_ref=chk_01HZX3', '/v3/transactions/4975363/verify']);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer FLWSECK_TEST-abc-X');
  });

  it('400 "No transaction was found" is not_found and is not retried', async () => {
    server = await startLocalServer((req, res) => sendJson(res, 400, { status: 'error', message: 'No transaction was found for this id', data: null }));
    const provider = new FlutterwaveProvider({ baseUrl: server.baseUrl, secretKey: new Secret('FLWSECK_TEST-abc-X'), timeoutMs: 2000, retry });
    providers.push(provider);
    expect(await provider.verify({ reference: 'chk_x', expectation: expectation({ reference: 'chk_x', provider: 'flutterwave' }) })).toEqual({
      kind: 'not_found',
    });
    expect(server.requests).toHaveLength(1);
  });
});

import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTHER_CUSTOMER_EMAIL } from '../src/sandbox.core.js';
import { STRIPE_API_VERSION } from '../src/stripe.sandbox.js';
import { startSandboxHarness, type SandboxHarness } from './contract/harness.js';
import { stripeContract, type StripeContract } from './contract/stripe-schema.js';

// Every Stripe answer of the sandbox, over HTTP, against the JSON Schema of the `stripe`
// package's own types (docs/providers.md, "The sandbox"): retrievals in every state with and
// without `expand[]=latest_charge`, its errors, unknown routes and the events it delivers. The
// builders are typed with the same types (a field left out fails the build); this checks what
// actually goes over the wire.
let sandbox: SandboxHarness;
let contract: StripeContract;

beforeAll(async () => {
  contract = stripeContract();
  sandbox = await startSandboxHarness();
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
});

const auth = () => `Bearer ${sandbox.secrets.stripe}`;
const retrieve = (id: string, query = '') => sandbox.call('GET', `/v1/payment_intents/${id}${query}`, { auth: auth() });
const EXPANDED = ['?expand%5B%5D=latest_charge', '?expand[0]=latest_charge', '?expand=latest_charge'];

describe('the contract itself', () => {
  it("is the stripe package's, at the API version the sandbox answers", () => {
    expect(STRIPE_API_VERSION).toBe(Stripe.API_VERSION);
  });

  it('fails an answer that lacks any field the types declare always present', async () => {
    const required = contract.required('payment_intent');
    expect(required.length).toBeGreaterThanOrEqual(40);
    expect(required).toEqual(expect.arrayContaining(['client_secret', 'next_action', 'shipping', 'processing', 'review', 'payment_method_options']));
    const { reference } = await sandbox.transaction('stripe', { amount: 2_000, currency: 'USD', email: 'ada@example.com' });
    const intent = (await retrieve(reference, EXPANDED[0])).body as Record<string, unknown>;
    expect(contract.problems('payment_intent', intent)).toEqual([]);
    for (const field of required) {
      const { [field]: _removed, ...without } = intent;
      expect(contract.problems('payment_intent', without), field).toContain(`(root) must have required property '${field}'`);
    }
    const charge = intent.latest_charge as Record<string, unknown>;
    expect(contract.required('charge').length).toBeGreaterThanOrEqual(40);
    for (const field of contract.required('charge')) {
      const { [field]: _removed, ...without } = charge;
      expect(contract.problems('charge', without), field).toContain(`(root) must have required property '${field}'`);
    }
    expect(contract.problems('payment_intent', { ...intent, invented: true })).toEqual(['(root) must NOT have additional properties (invented)']);
    expect(contract.problems('payment_intent', { ...intent, status: 'failed' })).not.toEqual([]);
  });
});

describe('PaymentIntent retrievals', () => {
  const cases: Array<[string, Record<string, unknown>, boolean]> = [
    ['unpaid', {}, false],
    ['succeeded', { phone: '+15555550100' }, true],
    ['declined (insufficient funds)', { behaviour: { outcome: 'declined' } }, true],
    ['declined (wrong PIN)', { behaviour: { outcome: 'declined', decline: 'wrong_pin' } }, true],
    ['processing', { behaviour: { outcome: 'clearing_then_success', clearing_checks: 100 } }, true],
    ['a lower amount', { behaviour: { outcome: 'lower_amount' } }, true],
    ['another currency', { behaviour: { outcome: 'other_currency' } }, true],
    ['another customer', { behaviour: { outcome: 'other_customer' } }, true],
    ['no receipt_email', { receipt_email: false }, true],
  ];

  it.each(cases)('%s: the intent, and its charge when expanded, are the types', async (_name, body, pay) => {
    const { reference } = await sandbox.transaction('stripe', { amount: 2_000, currency: 'USD', email: 'ada@example.com', ...body }, pay);
    const plain = await retrieve(reference);
    expect(plain.status).toBe(200);
    expect(contract.problems('payment_intent', plain.body)).toEqual([]);
    expect(plain.body.latest_charge === null || typeof plain.body.latest_charge === 'string').toBe(true);
    for (const query of EXPANDED) {
      const expanded = await retrieve(reference, query);
      expect(expanded.status).toBe(200);
      expect(contract.problems('payment_intent', expanded.body)).toEqual([]);
      if (!pay) {
        expect(expanded.body.latest_charge).toBeNull();
        continue;
      }
      expect(expanded.body.latest_charge).toMatchObject({ object: 'charge', id: plain.body.latest_charge, payment_intent: reference });
      expect(contract.problems('charge', expanded.body.latest_charge)).toEqual([]);
      const outcome = (body.behaviour as { outcome?: string } | undefined)?.outcome;
      expect(expanded.body.latest_charge.billing_details.email).toBe(outcome === 'other_customer' ? OTHER_CUSTOMER_EMAIL : 'ada@example.com');
    }
  });

  it('without receipt_email, the email is only on the expanded charge', async () => {
    const { reference } = await sandbox.transaction('stripe', { amount: 2_000, currency: 'USD', email: 'ada@example.com', receipt_email: false });
    const intent = (await retrieve(reference, EXPANDED[0])).body;
    expect(intent.receipt_email).toBeNull();
    expect(intent.latest_charge.billing_details.email).toBe('ada@example.com');
  });
});

describe('errors and unknown routes', () => {
  it('refusals, not found and injected gateway failures are Stripe errors', async () => {
    const { reference } = await sandbox.transaction('stripe', { amount: 2_000, currency: 'USD', email: 'ada@example.com' });
    const answers = [
      [401, await sandbox.call('GET', `/v1/payment_intents/${reference}`)],
      [401, await sandbox.call('GET', `/v1/payment_intents/${reference}`, { auth: 'Bearer sk_test_wrong' })],
      [404, await retrieve('pi_missing', EXPANDED[0])],
    ] as const;
    for (const [status, answer] of answers) {
      expect(answer.status).toBe(status);
      expect(contract.problems('error', answer.body)).toEqual([]);
    }
    expect(answers[2][1].body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing' });
    for (const mode of ['502', '504', 'timeout'] as const) {
      const failing = await sandbox.transaction('stripe', {
        amount: 2_000,
        currency: 'USD',
        email: 'a@example.com',
        behaviour: { failures: { mode, times: 1 } },
      });
      const answer = await retrieve(failing.reference);
      expect(answer.status).toBe(mode === '502' ? 502 : 504);
      expect(contract.problems('error', answer.body)).toEqual([]);
    }
  });

  it.each([
    ['GET', '/v1/no_such_resource'],
    ['GET', '/v1'],
    ['POST', '/v1/payment_intents/pi_123/confirm'],
    ['GET', '/v1/customers/cus_123'],
    ['DELETE', '/v1/payment_intents/pi_123'],
  ])('%s %s answers 404 invalid_request_error, as Stripe does', async (method, path) => {
    const answer = await sandbox.call(method, path, { auth: auth() });
    expect(answer.status).toBe(404);
    expect(contract.problems('error', answer.body)).toEqual([]);
    expect(answer.body.error).toEqual({ type: 'invalid_request_error', message: expect.stringContaining(`Unrecognized request URL (${method}: ${path})`) });
  });
});

describe("Stripe's own Node client, pointed at the sandbox", () => {
  const client = () => {
    const { port } = new URL(sandbox.url);
    return new Stripe(sandbox.secrets.stripe, { host: '127.0.0.1', port: Number(port), protocol: 'http', maxNetworkRetries: 0 });
  };

  it('retrieves an intent with its charge expanded, at the pinned version', async () => {
    const { reference } = await sandbox.transaction('stripe', { amount: 2_000, currency: 'USD', email: 'ada@example.com', receipt_email: false });
    const intent = await client().paymentIntents.retrieve(reference, { expand: ['latest_charge'] });
    expect(intent).toMatchObject({ id: reference, status: 'succeeded', amount_received: 2_000, receipt_email: null });
    expect(typeof intent.latest_charge === 'object' && intent.latest_charge?.billing_details.email).toBe('ada@example.com');
  });

  it('reads an unknown id and an unknown route as invalid request errors of the API', async () => {
    await expect(client().paymentIntents.retrieve('pi_missing')).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 404,
      code: 'resource_missing',
    });
    await expect(client().rawRequest('GET', '/v1/no_such_resource')).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 404,
      message: expect.stringContaining('Unrecognized request URL (GET: /v1/no_such_resource)'),
    });
  });
});

describe('events', () => {
  it('payment_intent.succeeded and payment_intent.payment_failed are the types, at the pinned version', async () => {
    await sandbox.transaction('stripe', { amount: 2_000, currency: 'USD', email: 'ok@example.com' });
    await sandbox.transaction('stripe', { amount: 2_000, currency: 'USD', email: 'no@example.com', behaviour: { outcome: 'declined' } });
    const deadline = Date.now() + 5_000;
    const events = () => sandbox.webhooks.filter((w) => w.path === '/stripe').map((w) => JSON.parse(w.body));
    while (Date.now() < deadline && !['payment_intent.succeeded', 'payment_intent.payment_failed'].every((t) => events().some((e) => e.type === t))) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const types = new Set(events().map((e) => e.type));
    expect(types).toEqual(new Set(['payment_intent.succeeded', 'payment_intent.payment_failed']));
    for (const event of events()) {
      expect(contract.problems('event', event)).toEqual([]);
      expect(event.api_version).toBe(STRIPE_API_VERSION);
    }
  });
});

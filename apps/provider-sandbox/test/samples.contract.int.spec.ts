import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxHarness, type SandboxHarness } from './contract/harness.js';
import { sampleFixture, shapeProblems, type SampleFixture } from './contract/sample-shape.js';

// Every Paystack and Flutterwave answer of the sandbox, over HTTP, against the providers'
// published samples kept under test/fixtures (each names its source and date): the sample's keys
// must all be present with the same JSON types; values are never compared (docs/providers.md,
// "The sandbox").
let sandbox: SandboxHarness;
const paystackVerify = sampleFixture('paystack/verify-200.json');
const paystackError = sampleFixture('paystack/error.json');
const flutterwaveVerify = sampleFixture('flutterwave/verify-200.json');
const flutterwaveError = sampleFixture('flutterwave/error.json');

beforeAll(async () => {
  sandbox = await startSandboxHarness();
});

afterAll(async () => {
  await sandbox?.close();
});

const variant = (fixture: SampleFixture, state: string) => {
  const found = fixture.variants?.[state];
  if (!found) throw new Error(`${fixture.source.provider} fixture has no variant ${state}`);
  return found;
};

describe('the fixtures', () => {
  it.each([paystackVerify, paystackError, flutterwaveVerify, flutterwaveError])(
    'name their source and date ($source.provider, $source.document)',
    (fixture) => {
      expect(fixture.source.url).toMatch(/^https:\/\/(paystack\.com|developer\.flutterwave\.com)\//);
      expect(fixture.source.written).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(fixture.source.published).toMatch(/\d{4}-\d{2}-\d{2}|undated/);
      expect(fixture.source.how).toMatch(/without web access/);
    },
  );

  it('catch an answer that lacks a key of the sample or changes its type', () => {
    const sample = paystackVerify.body as { data: Record<string, unknown> };
    expect(shapeProblems(sample, sample)).toEqual([]);
    const { authorization: _a, ...withoutAuthorization } = sample.data;
    expect(shapeProblems(sample, { ...sample, data: withoutAuthorization })).toEqual(['data.authorization: missing']);
    const customer = sample.data.customer as Record<string, unknown>;
    const { id: _id, ...customerWithoutId } = customer;
    expect(shapeProblems(sample, { ...sample, data: { ...sample.data, customer: customerWithoutId } })).toEqual(['data.customer.id: missing']);
    expect(shapeProblems(sample, { ...sample, data: { ...sample.data, amount: '40000' } })).toEqual(['data.amount: string where the sample has number']);
    expect(shapeProblems(sample, { ...sample, data: { ...sample.data, paid_at: null } })).toEqual(['data.paid_at: null where the sample has string']);
    expect(shapeProblems(sample, { ...sample, data: { ...sample.data, paid_at: null } }, variant(paystackVerify, 'failed'))).toEqual([]);
    expect(shapeProblems(sample, { ...sample, extra: 1 })).toEqual([]);
  });
});

describe('Paystack', () => {
  const verify = (reference: string, auth = `Bearer ${sandbox.secrets.paystack}`) => sandbox.call('GET', `/transaction/verify/${reference}`, { auth });
  const reference = () => `ref_${Math.random().toString(36).slice(2, 10)}`;

  it.each([
    ['success', {}, true],
    ['failed', { outcome: 'declined' }, true],
    ['pending', { outcome: 'clearing_then_success', clearing_checks: 100 }, true],
    ['abandoned', {}, false],
  ] as const)('verify, %s: the published sample', async (state, behaviour, pay) => {
    const ref = reference();
    await sandbox.transaction(
      'paystack',
      { reference: ref, amount: 40_000, currency: 'NGN', email: 'ada@example.com', phone: '+2348012345678', behaviour },
      pay,
    );
    const answer = await verify(ref);
    expect(answer.status).toBe(paystackVerify.status);
    expect(answer.body.data.status).toBe(state);
    expect(shapeProblems(paystackVerify.body, answer.body, variant(paystackVerify, state))).toEqual([]);
    if (pay)
      expect(answer.body.data.authorization).toMatchObject({
        authorization_code: expect.stringMatching(/^AUTH_/),
        channel: 'card',
        reusable: state === 'success',
      });
  });

  it('not found, refused, gateway failures and unknown routes: the published error envelope', async () => {
    const failing = reference();
    await sandbox.transaction('paystack', {
      reference: failing,
      amount: 100,
      currency: 'NGN',
      email: 'a@example.com',
      behaviour: { failures: { mode: '502', times: 1 } },
    });
    const answers = [
      [400, await verify('ref_missing')],
      [401, await verify('ref_missing', '')],
      [401, await verify('ref_missing', 'Bearer sk_test_wrong')],
      [502, await verify(failing)],
      [404, await sandbox.call('GET', '/transaction/verify')],
      [404, await sandbox.call('POST', '/charge')],
      [404, await sandbox.call('GET', '/customer/CUS_123')],
    ] as const;
    for (const [status, answer] of answers) {
      expect(answer.status).toBe(status);
      expect(shapeProblems(paystackError.body, answer.body)).toEqual([]);
      expect(answer.body.status).toBe(false);
    }
    expect(answers[0][1].body.message).toBe('Transaction reference not found');
  });
});

describe('Flutterwave', () => {
  const auth = () => `Bearer ${sandbox.secrets.flutterwave}`;
  const reference = () => `tx_${Math.random().toString(36).slice(2, 10)}`;

  it.each([
    ['successful', {}],
    ['failed', { outcome: 'declined' }],
    ['pending', { outcome: 'clearing_then_success', clearing_checks: 100 }],
  ] as const)('verify by id and by tx_ref, %s: the published sample', async (state, behaviour) => {
    const ref = reference();
    const { id } = await sandbox.transaction('flutterwave', { reference: ref, amount: 12_345, currency: 'NGN', email: 'ada@example.com', behaviour });
    for (const path of [`/v3/transactions/${id}/verify`, `/v3/transactions/verify_by_reference?tx_ref=${ref}`, `//v3/transactions/${id}/verify`]) {
      const answer = await sandbox.call('GET', path, { auth: auth() });
      expect(answer.status, path).toBe(flutterwaveVerify.status);
      expect(answer.body.data.status).toBe(state);
      expect(shapeProblems(flutterwaveVerify.body, answer.body, variant(flutterwaveVerify, state)), path).toEqual([]);
    }
  });

  it('amount_settled is what reaches the merchant after the fee, in major units', async () => {
    const ref = reference();
    await sandbox.transaction('flutterwave', { reference: ref, amount: 12_345, currency: 'NGN', email: 'ada@example.com' });
    const { data } = (await sandbox.call('GET', `/v3/transactions/verify_by_reference?tx_ref=${ref}`, { auth: auth() })).body;
    expect(data).toMatchObject({ amount: 123.45, app_fee: 1.73, amount_settled: 121.72, card: { last_4digits: '2950', type: 'MASTERCARD' } });
  });

  it('not found, refused, a missing tx_ref, gateway failures and unknown routes: the published error envelope', async () => {
    const unpaid = reference();
    await sandbox.transaction('flutterwave', { reference: unpaid, amount: 100, currency: 'NGN', email: 'a@example.com' }, false);
    const failing = reference();
    await sandbox.transaction('flutterwave', {
      reference: failing,
      amount: 100,
      currency: 'NGN',
      email: 'a@example.com',
      behaviour: { failures: { mode: '504', times: 1 } },
    });
    const answers = [
      [400, await sandbox.call('GET', '/v3/transactions/1/verify', { auth: auth() })],
      [400, await sandbox.call('GET', `/v3/transactions/verify_by_reference?tx_ref=${unpaid}`, { auth: auth() })],
      [400, await sandbox.call('GET', '/v3/transactions/verify_by_reference', { auth: auth() })],
      [401, await sandbox.call('GET', '/v3/transactions/1/verify')],
      [401, await sandbox.call('GET', '/v3/transactions/1/verify', { auth: 'Bearer FLWSECK_TEST-wrong-X' })],
      [504, await sandbox.call('GET', `/v3/transactions/verify_by_reference?tx_ref=${failing}`, { auth: auth() })],
      [404, await sandbox.call('GET', '/v3/no_such_resource', { auth: auth() })],
      [404, await sandbox.call('POST', '/v3/transactions/1/refund', { auth: auth() })],
      [404, await sandbox.call('GET', '//v3/no_such_resource', { auth: auth() })],
    ] as const;
    for (const [status, answer] of answers) {
      expect(answer.status).toBe(status);
      expect(shapeProblems(flutterwaveError.body, answer.body)).toEqual([]);
      expect(answer.body).toMatchObject({ status: 'error', data: null });
    }
  });
});

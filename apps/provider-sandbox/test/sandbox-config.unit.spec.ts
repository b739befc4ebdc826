import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, Secret } from '@settle/config';
import { PROVIDERS } from '@settle/domain';
import { loadSandboxConfig, SANDBOX_ENV_SCHEMAS } from '../src/config.js';
import { notConfigured } from '../src/sandbox.registry.js';
import { SIMULATION_LIST, SIMULATIONS } from '../src/simulations.js';

const base = {
  PAYSTACK_SECRET_KEY: `sk_test_${randomBytes(8).toString('hex')}`,
  SANDBOX_WEBHOOK_URL: 'http://127.0.0.1:3000/v1/webhooks/paystack',
};
const problems = (env: NodeJS.ProcessEnv): string[] => {
  try {
    loadSandboxConfig(env);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
};

describe('sandbox configuration', () => {
  it('keeps Paystack required and leaves the other providers off by default', () => {
    expect(problems({}).map((p) => p.split(':')[0])).toEqual(expect.arrayContaining(['PAYSTACK_SECRET_KEY', 'SANDBOX_WEBHOOK_URL']));
    const config = loadSandboxConfig(base);
    expect(config.providers.paystack.webhookUrl).toBe(base.SANDBOX_WEBHOOK_URL);
    expect(config.providers).toMatchObject({ stripe: null, flutterwave: null, mpesa: null });
    // Empty values (as `${VAR:-}` gives) mean "not configured".
    expect(loadSandboxConfig({ ...base, STRIPE_SECRET_KEY: '', MPESA_PASSKEY: ' ' }).providers).toMatchObject({ stripe: null, mpesa: null });
  });

  it('switches each provider on with its credentials, with documented defaults', () => {
    const stripeKey = `sk_test_${randomBytes(8).toString('hex')}`;
    const config = loadSandboxConfig({
      ...base,
      STRIPE_SECRET_KEY: stripeKey,
      STRIPE_WEBHOOK_SECRET: `whsec_${randomBytes(8).toString('hex')}`,
      SANDBOX_STRIPE_WEBHOOK_URL: 'http://127.0.0.1:3000/v1/webhooks/stripe',
      FLUTTERWAVE_SECRET_KEY: `FLWSECK_TEST-${randomBytes(8).toString('hex')}-X`,
      MPESA_CONSUMER_KEY: randomBytes(8).toString('hex'),
      MPESA_CONSUMER_SECRET: randomBytes(8).toString('hex'),
      MPESA_PASSKEY: randomBytes(8).toString('hex'),
    });
    expect(config.providers.stripe?.secretKey).toBeInstanceOf(Secret);
    expect(config.providers.stripe?.secretKey.reveal()).toBe(stripeKey);
    expect(config.providers.stripe?.webhook?.url).toBe('http://127.0.0.1:3000/v1/webhooks/stripe');
    expect(config.providers.flutterwave).toMatchObject({ webhook: null });
    expect(config.providers.mpesa).toMatchObject({ shortcode: '174379', tokenTtlMs: 3_599_000, callbackUrl: null });
    for (const rendering of [JSON.stringify(config), inspect(config, { depth: 10 })]) expect(rendering).not.toContain(stripeKey);
  });

  it('refuses partial credentials and a webhook URL without its signing secret, naming the variables', () => {
    const names = (env: NodeJS.ProcessEnv) => problems({ ...base, ...env }).map((p) => p.split(':')[0]);
    expect(names({ MPESA_CONSUMER_KEY: 'k' })).toEqual(['MPESA_CONSUMER_SECRET', 'MPESA_PASSKEY']);
    expect(names({ SANDBOX_STRIPE_WEBHOOK_URL: 'http://x/y' })).toEqual(['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET']);
    expect(names({ FLUTTERWAVE_SECRET_KEY: 'FLWSECK-a', SANDBOX_FLUTTERWAVE_WEBHOOK_URL: 'http://x/y' })).toEqual(['FLUTTERWAVE_SECRET_HASH']);
    expect(names({ STRIPE_SECRET_KEY: 'pk_test_wrong_kind' })).toEqual(['STRIPE_SECRET_KEY']);
    expect(names({ MPESA_CONSUMER_KEY: 'k', MPESA_CONSUMER_SECRET: 's', MPESA_PASSKEY: 'p', SANDBOX_MPESA_CALLBACK_URL: 'http://x' })).toEqual([
      'SANDBOX_MPESA_CALLBACK_URL',
    ]);
  });

  it('never echoes a secret value in its errors', () => {
    const secretish = `pk_live_${randomBytes(8).toString('hex')}`;
    expect(problems({ ...base, STRIPE_SECRET_KEY: secretish }).join('\n')).not.toContain(secretish);
  });

  it("reports the common variables' problems and every provider's at once", () => {
    expect(problems({ ...base, SANDBOX_PORT: 'not-a-port', MPESA_CONSUMER_KEY: 'k', STRIPE_SECRET_KEY: 'pk_wrong' }).map((p) => p.split(':')[0])).toEqual([
      'SANDBOX_PORT',
      'STRIPE_SECRET_KEY',
      'MPESA_CONSUMER_SECRET',
      'MPESA_PASSKEY',
    ]);
  });
});

describe('simulations', () => {
  it('simulate every provider of the domain, in its order, each with its controllers and its webhook URL among its variables', () => {
    expect(SIMULATION_LIST.map((s) => s.name)).toEqual([...PROVIDERS]);
    for (const simulation of SIMULATION_LIST) {
      expect(SIMULATIONS[simulation.name]).toBe(simulation);
      expect(simulation.controllers.length, simulation.name).toBeGreaterThan(0);
      expect(Object.keys(simulation.env.shape), simulation.name).toContain(simulation.webhookUrlVariable);
    }
    expect(SANDBOX_ENV_SCHEMAS).toHaveLength(PROVIDERS.length + 1);
  });

  it('say what to set to switch an optional provider on', () => {
    expect(notConfigured('stripe')).toEqual({
      error: 'provider_not_configured',
      provider: 'stripe',
      message: 'Stripe is not configured in this sandbox: set STRIPE_SECRET_KEY.',
    });
    expect(notConfigured('flutterwave').message).toBe('Flutterwave is not configured in this sandbox: set FLUTTERWAVE_SECRET_KEY.');
    expect(notConfigured('mpesa').message).toBe('M-Pesa is not configured in this sandbox: set MPESA_CONSUMER_KEY, MPESA_CONSUMER_SECRET and MPESA_PASSKEY.');
  });
});

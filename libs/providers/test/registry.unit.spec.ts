import { describe, expect, it } from 'vitest';
import { ConfigError, loadVerifierConfig } from '@settle/config';
import { PROVIDERS } from '@settle/domain';
import {
  loadWithProviderEnv,
  PROVIDER_DEFINITIONS,
  PROVIDER_REGISTRY,
  providerDefinition,
  providerEnvProblems,
  providerIngestionEnv,
  providerVerifierEnv,
  webhookAuthenticators,
} from '@settle/providers';

const base = {
  KAFKA_BROKERS: '127.0.0.1:19092',
  SCHEMA_REGISTRY_URL: 'http://127.0.0.1:18081/apis/ccompat/v7',
  DATABASE_URL: 'postgres://settle@127.0.0.1:5432/settle',
};

describe('provider registry', () => {
  it("holds one definition per name of the domain's PROVIDERS, in that order, each under its own name", () => {
    expect(PROVIDER_DEFINITIONS.map((d) => d.name)).toEqual([...PROVIDERS]);
    for (const name of PROVIDERS) expect(PROVIDER_REGISTRY[name].name).toBe(name);
    expect(providerDefinition('paystack')).toBe(PROVIDER_REGISTRY.paystack);
    expect(providerDefinition('toString')).toBeUndefined();
    expect(providerDefinition('unknown')).toBeUndefined();
  });

  it('names a stack variable for every credential, and keeps the vault names of today', () => {
    for (const d of PROVIDER_DEFINITIONS) {
      expect(Object.keys(d.stackVariables.credentials).sort()).toEqual([...d.credentialNames].sort());
    }
    expect(PROVIDER_REGISTRY.mpesa.credentialNames).toEqual(['consumer_key', 'consumer_secret', 'passkey']);
    expect(PROVIDER_REGISTRY.mpesa.webhook).toMatchObject({ route: 'token', secretNames: { current: 'callback_token', previous: 'callback_token_previous' } });
    expect(PROVIDER_REGISTRY.paystack.webhook).toMatchObject({
      route: 'plain',
      secretNames: { current: 'webhook_secret', previous: 'webhook_secret_previous' },
    });
  });
});

describe('provider configuration keys', () => {
  it('asks the verifier for at least one base URL, naming every variable', () => {
    expect(providerEnvProblems('verifier', {})).toEqual([
      'PAYSTACK_BASE_URL: set the base URL of at least one provider (PAYSTACK_BASE_URL, STRIPE_BASE_URL, FLUTTERWAVE_BASE_URL, MPESA_BASE_URL)',
    ]);
    expect(providerEnvProblems('verifier', { MPESA_BASE_URL: 'http://127.0.0.1:3100' })).toEqual([]);
    expect(providerVerifierEnv.parse({ MPESA_BASE_URL: 'http://127.0.0.1:3100', STRIPE_BASE_URL: '' })).toMatchObject({
      MPESA_SHORTCODE: '174379',
      STRIPE_BASE_URL: undefined,
    });
  });

  it("gives ingestion the webhook settings' defaults and refuses a bad allowlist entry, naming the variable", () => {
    expect(providerIngestionEnv.parse({})).toEqual({ WEBHOOK_TOLERANCE_MS: 300_000, FLUTTERWAVE_WEBHOOK_MODE: 'verif-hash', MPESA_CALLBACK_ALLOWLIST: [] });
    expect(providerEnvProblems('ingestion', { MPESA_CALLBACK_ALLOWLIST: '10.0.0.0/8, not-an-address' }).map((p) => p.split(':')[0])).toEqual([
      'MPESA_CALLBACK_ALLOWLIST',
    ]);
    expect(() => webhookAuthenticators({ FLUTTERWAVE_WEBHOOK_MODE: 'md5' })).toThrow(ConfigError);
    expect(Object.keys(webhookAuthenticators({}))).toEqual([...PROVIDERS]);
  });

  it("reports the app's problems and the providers' together, never a value", () => {
    try {
      loadWithProviderEnv('verifier', loadVerifierConfig, { PAYSTACK_BASE_URL: 'sk_live_not_a_url' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const names = (error as ConfigError).problems.map((p) => p.split(':')[0]);
      expect(names).toEqual(expect.arrayContaining(['KAFKA_BROKERS', 'DATABASE_URL', 'PAYSTACK_BASE_URL']));
      expect((error as Error).message).not.toContain('sk_live_not_a_url');
    }
    expect(loadWithProviderEnv('verifier', loadVerifierConfig, { ...base, STRIPE_BASE_URL: 'http://127.0.0.1:3100' }).providers.timeoutMs).toBe(5_000);
  });

  it('binds each scheme to its settings: an M-Pesa callback from outside the allowlist is refused as forbidden, before its token is read', () => {
    const token = 'a'.repeat(32);
    const request = { rawBody: Buffer.from('{}'), headers: {}, path: `/v1/webhooks/mpesa/${token}`, nowMs: Date.now() };
    const { mpesa } = webhookAuthenticators({ MPESA_CALLBACK_ALLOWLIST: '10.0.0.0/8' });
    expect(mpesa.authenticate({ ...request, sourceAddress: '127.0.0.1' }, [token])).toEqual({ ok: false, reason: 'SOURCE_NOT_ALLOWED', forbidden: true });
    expect(mpesa.authenticate({ ...request, sourceAddress: '10.1.2.3' }, [token])).toEqual({ ok: true, secretIndex: 0 });
    expect(mpesa.authenticate({ ...request, path: '/v1/webhooks/mpesa/wrong', sourceAddress: '10.1.2.3' }, [token])).toEqual({ ok: false, reason: 'MISMATCH' });
  });
});

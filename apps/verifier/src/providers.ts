import type { VerifierConfig } from '@settle/config';
import type { ProviderName } from '@settle/domain';
import { FlutterwaveProvider, MpesaProvider, PaystackProvider, StripeProvider, type PaymentProvider } from '@settle/providers';
import type { CredentialsVault } from '@settle/vault';

/**
 * Vault names of each provider's credentials (docs/vault.md): `(provider, account, name)`.
 * Paystack, Stripe and Flutterwave use one secret key; M-Pesa an app's consumer key and
 * secret and the Lipa na M-Pesa pass key.
 */
export const CREDENTIAL_NAMES: Record<ProviderName, readonly string[]> = {
  paystack: ['secret_key'],
  stripe: ['secret_key'],
  flutterwave: ['secret_key'],
  mpesa: ['consumer_key', 'consumer_secret', 'passkey'],
};

/** A provider adapter with a `close()` for shutdown. */
export type ClosableProvider = PaymentProvider & { close(): Promise<void> };

/**
 * Builds an adapter for every provider whose base URL is configured, reading its credentials
 * from the vault (the verifier is the only app that can decrypt them).
 *
 * @throws VaultError `VAULT.NOT_FOUND` when a configured provider has no credentials stored,
 *   or `VAULT.INTEGRITY_CHECK_FAILED` when they cannot be decrypted with the key ring.
 */
export async function buildProviders(config: VerifierConfig, vault: CredentialsVault): Promise<Map<ProviderName, ClosableProvider>> {
  const account = config.merchantAccount;
  const { baseUrls, timeoutMs, retry, breaker } = config.providers;
  const secret = (provider: ProviderName, name: string) => vault.get({ provider, account, name });
  const providers = new Map<ProviderName, ClosableProvider>();
  if (baseUrls.paystack) {
    providers.set(
      'paystack',
      new PaystackProvider({ baseUrl: baseUrls.paystack, secretKey: await secret('paystack', 'secret_key'), timeoutMs, retry, breaker }),
    );
  }
  if (baseUrls.stripe) {
    providers.set('stripe', new StripeProvider({ baseUrl: baseUrls.stripe, secretKey: await secret('stripe', 'secret_key'), timeoutMs, retry, breaker }));
  }
  if (baseUrls.flutterwave) {
    providers.set(
      'flutterwave',
      new FlutterwaveProvider({ baseUrl: baseUrls.flutterwave, secretKey: await secret('flutterwave', 'secret_key'), timeoutMs, retry, breaker }),
    );
  }
  if (baseUrls.mpesa) {
    providers.set(
      'mpesa',
      new MpesaProvider({
        baseUrl: baseUrls.mpesa,
        consumerKey: await secret('mpesa', 'consumer_key'),
        consumerSecret: await secret('mpesa', 'consumer_secret'),
        passKey: await secret('mpesa', 'passkey'),
        businessShortCode: config.providers.mpesaShortCode,
        timeoutMs,
        retry,
        breaker,
      }),
    );
  }
  return providers;
}

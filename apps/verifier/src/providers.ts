import type { VerifierConfig } from '@settle/config';
import type { ProviderName } from '@settle/domain';
import { PROVIDER_DEFINITIONS, type ClosablePaymentProvider, type ProviderMetrics, type RawEnv } from '@settle/providers';
import type { CredentialsVault } from '@settle/vault';

/** A provider adapter with a `close()` for shutdown. */
export type ClosableProvider = ClosablePaymentProvider;

/**
 * Builds an adapter for every provider of the registry whose base URL is configured, reading
 * its credentials (the names its definition lists, `credentialNames`) from the vault (the
 * verifier is the only app that can decrypt them).
 *
 * @param env - the raw environment, already validated with the providers' variables
 *   (`loadWithProviderEnv`).
 * @param metrics - where the adapters report their calls' latency, retries and breaker states.
 * @throws VaultError `VAULT.NOT_FOUND` when a configured provider has no credentials stored,
 *   or `VAULT.INTEGRITY_CHECK_FAILED` when they cannot be decrypted with the key ring.
 */
export async function buildProviders(
  config: VerifierConfig,
  vault: CredentialsVault,
  env: RawEnv = process.env,
  metrics?: ProviderMetrics,
): Promise<Map<ProviderName, ClosableProvider>> {
  const account = config.merchantAccount;
  const { timeoutMs, retry, breaker } = config.providers;
  const providers = new Map<ProviderName, ClosableProvider>();
  for (const definition of PROVIDER_DEFINITIONS) {
    const credential = (name: string) => vault.get({ provider: definition.name, account, name });
    const adapter = await definition.verifier.adapter(env, credential, { timeoutMs, retry, breaker, metrics });
    if (adapter) providers.set(definition.name, adapter);
  }
  return providers;
}

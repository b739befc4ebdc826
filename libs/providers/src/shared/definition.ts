import type { Secret } from '@settle/config';
import type { ConsensusCheckName, ProviderName } from '@settle/domain';
import { z } from 'zod';
import type { BackoffSettings, BreakerSettings } from './http.js';
import type { ProviderMetrics } from './metrics.js';
import type { PaymentProvider } from './provider.port.js';
import type { WebhookAuthenticator, WebhookScheme } from './webhook.js';

/** A provider adapter with a `close()` for shutdown (its connection pool). */
export type ClosablePaymentProvider = PaymentProvider & { close(): Promise<void> };

/** Settings every adapter shares, from the verifier's configuration. */
export interface AdapterCommonOptions {
  /** Per-call time-out, milliseconds. */
  timeoutMs: number;
  retry: BackoffSettings;
  /** Missing fields take `DEFAULT_BREAKER_SETTINGS`. */
  breaker?: Partial<BreakerSettings> | undefined;
  /** Where the adapter reports its calls' latency, retries and breaker state; nothing when absent. */
  metrics?: ProviderMetrics | undefined;
}

/** Reads one of the provider's credentials from the verifier's vault. @throws VaultError */
export type CredentialReader = (name: string) => Promise<Secret>;

/** Environment variables as the process has them (raw strings). */
export type RawEnv = Readonly<Record<string, string | undefined>>;

/**
 * Everything Settle knows about one provider, in one place (docs/providers.md, "Adding a
 * provider"). The registry (`registry.ts`) holds one per name of the domain's `PROVIDERS`.
 */
export interface ProviderDefinition {
  readonly name: ProviderName;
  /**
   * Vault names (verifier's credentials vault, `(provider, account, name)`) of the secrets the
   * verification adapter needs; `scripts/local/stack.sh` seeds them for the local stack.
   */
  readonly credentialNames: readonly string[];
  /**
   * The local stack's variables holding each secret's value (`scripts/local/stack.sh` seeds the vaults
   * from them; the provider sandbox checks and signs with the same values): by credential name,
   * and the webhook secret's.
   */
  readonly stackVariables: { readonly credentials: Readonly<Record<string, string>>; readonly webhookSecret: string };
  /**
   * Where, in the provider's verification answer, the adapter reads each value the consensus
   * checks compare (docs/spec.md, section 3): the field path (or, where the answer carries none,
   * the record the value is taken from). Shown beside a failed check, so an operator sees which
   * provider field disagreed (docs/console.md, the State Mismatch queue).
   */
  readonly observedFields: Readonly<Record<ConsensusCheckName, string>>;
  /** The verifier's side: configuration keys and the adapter factory. */
  readonly verifier: {
    /** The variable whose presence switches the provider on (its API's base URL). */
    readonly baseUrlVariable: string;
    /** The provider's verifier variables (zod, with their defaults); composed by the app. */
    readonly env: z.ZodObject;
    /**
     * Builds the adapter when the provider is configured (its base URL set), reading its
     * credentials; `null` when it is not.
     *
     * @param env - the raw environment (validated before by the composed schema).
     * @throws VaultError when a configured provider's credential is missing or undecryptable.
     */
    adapter(env: RawEnv, credential: CredentialReader, common: AdapterCommonOptions): Promise<ClosablePaymentProvider | null>;
  };
  /** Ingestion's side: how the provider's webhooks are authenticated and read. */
  readonly webhook: WebhookScheme & {
    /** The provider's ingestion variables (zod, with their defaults); composed by the app. */
    readonly env: z.ZodObject;
    /** The scheme bound to its settings, read from the raw environment. */
    authenticator(env: RawEnv): WebhookAuthenticator;
  };
}

/** An optional URL: unset or empty means "not configured". */
export function optionalBaseUrl(name: string) {
  return z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), z.url({ error: `${name} must be a URL` }).optional());
}

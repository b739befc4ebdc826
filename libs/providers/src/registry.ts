import { ConfigError } from '@settle/config';
import { PROVIDERS, type ProviderName } from '@settle/domain';
import { z } from 'zod';
import { flutterwaveDefinition } from './flutterwave/definition.js';
import { mpesaDefinition } from './mpesa/definition.js';
import { paystackDefinition } from './paystack/definition.js';
import type { ProviderDefinition, RawEnv } from './shared/definition.js';
import type { WebhookAuthenticator } from './shared/webhook.js';
import { stripeDefinition } from './stripe/definition.js';

// Each provider's folder, as its definition file exposes it (adapter, webhook scheme, definition).
export * from './paystack/definition.js';
export * from './stripe/definition.js';
export * from './flutterwave/definition.js';
export * from './mpesa/definition.js';

/**
 * Every provider Settle supports, by name. The names come from the domain's `PROVIDERS` (the
 * single list of names: the domain validates registrations against it); typing the registry
 * as a `Record` over them makes a provider without a definition a compile error. Ingestion's
 * webhook routes, the verifier's adapters, the provider configuration keys and the local
 * stack's vault seeding (`scripts/local/provider-secrets.ts`) all loop over this record.
 */
export const PROVIDER_REGISTRY: Readonly<Record<ProviderName, ProviderDefinition>> = Object.freeze({
  paystack: paystackDefinition,
  stripe: stripeDefinition,
  flutterwave: flutterwaveDefinition,
  mpesa: mpesaDefinition,
});

/** The definitions in the domain's order of `PROVIDERS`. */
export const PROVIDER_DEFINITIONS: readonly ProviderDefinition[] = PROVIDERS.map((name) => PROVIDER_REGISTRY[name]);

/** The definition of a provider name, or `undefined` for a name Settle does not know. */
export function providerDefinition(name: string): ProviderDefinition | undefined {
  return (PROVIDERS as readonly string[]).includes(name) ? PROVIDER_REGISTRY[name as ProviderName] : undefined;
}

function merged(shapes: readonly z.ZodObject[]): z.ZodObject {
  return shapes.reduce<z.ZodObject>((all, shape) => all.extend(shape.shape), z.object({}));
}

/**
 * The verifier's provider variables: every provider's (`PAYSTACK_BASE_URL`, `MPESA_SHORTCODE`,
 * ...), with the rule that at least one base URL is set.
 */
export const providerVerifierEnv = merged(PROVIDER_DEFINITIONS.map((d) => d.verifier.env)).superRefine((e, ctx) => {
  const variables = PROVIDER_DEFINITIONS.map((d) => d.verifier.baseUrlVariable);
  if (!variables.some((name) => Boolean(e[name]))) {
    ctx.addIssue({ code: 'custom', path: [variables[0]!], message: `set the base URL of at least one provider (${variables.join(', ')})` });
  }
});

/** Ingestion's provider variables: every provider's webhook settings (`WEBHOOK_TOLERANCE_MS`, ...). */
export const providerIngestionEnv = merged(PROVIDER_DEFINITIONS.map((d) => d.webhook.env));

/**
 * Validates the providers' variables of one app, so a bad value stops the boot with the
 * others' (ConfigError lists names, never values).
 *
 * @returns the problems, `path: message`; empty when valid.
 */
export function providerEnvProblems(app: 'verifier' | 'ingestion', env: RawEnv): string[] {
  const result = (app === 'verifier' ? providerVerifierEnv : providerIngestionEnv).safeParse(env);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
}

/**
 * Throws when the providers' variables of an app are invalid.
 *
 * @throws ConfigError listing the offending variables.
 */
export function assertProviderEnv(app: 'verifier' | 'ingestion', env: RawEnv): void {
  const problems = providerEnvProblems(app, env);
  if (problems.length > 0) throw new ConfigError(problems);
}

/**
 * Loads an app's configuration together with its providers' variables, reporting the problems
 * of both at once.
 *
 * @param load - the app's own loader (`loadVerifierConfig`, `loadIngestionConfig`).
 * @throws ConfigError listing every offending variable, never a value.
 */
export function loadWithProviderEnv<C>(app: 'verifier' | 'ingestion', load: (env: NodeJS.ProcessEnv) => C, env: NodeJS.ProcessEnv = process.env): C {
  const problems = providerEnvProblems(app, env);
  let config: C | undefined;
  try {
    config = load(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.unshift(...error.problems);
  }
  if (problems.length > 0 || config === undefined) throw new ConfigError(problems);
  return config;
}

/**
 * Every provider's webhook scheme bound to its settings (ingestion), built once at boot.
 *
 * @throws ConfigError when a provider's ingestion variables are invalid.
 */
export function webhookAuthenticators(env: RawEnv = process.env): Record<ProviderName, WebhookAuthenticator> {
  assertProviderEnv('ingestion', env);
  return Object.fromEntries(PROVIDER_DEFINITIONS.map((d) => [d.name, d.webhook.authenticator(env)])) as Record<ProviderName, WebhookAuthenticator>;
}

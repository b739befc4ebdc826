import type { Type } from '@nestjs/common';
import type { z } from 'zod';
import type { ProviderSimulator } from './provider.simulator.js';
import type { ProviderName } from './sandbox.core.js';
import type { Notifier } from './webhook-sender.js';

/**
 * A provider's own API paths, and how the sandbox answers under them when no route matches
 * (`provider.routes.ts`).
 */
export interface ProviderApi {
  /** Path roots of the provider's API (`/v1`): a path is under a root when it equals it or goes on with `/`. */
  readonly roots: readonly string[];
  /**
   * The provider's answer to a method and path under its roots that the sandbox does not route:
   * a 404 in the provider's own error shape, which its clients read as an answer of the API.
   */
  unknownRoute(method: string, path: string): { status: number; body: unknown };
  /**
   * Whether repeated slashes in a path under its roots are read as one (`//v3/transactions`,
   * which Flutterwave's Node client asks for); the provider's own API tolerates them.
   */
  readonly collapseSlashes?: boolean;
}

/**
 * Everything the sandbox knows about one simulated provider, declared beside its simulator
 * (`<provider>.sandbox.ts`) and listed once in `simulations.ts`; the configuration loader, the
 * registry, the HTTP module and the local stack's generated files (`npm run config:examples`)
 * loop over the list.
 *
 * @typeParam E - its variables' schema.
 * @typeParam C - its settings, `null` included when it can be switched off.
 * @typeParam P - its simulator.
 */
export interface ProviderSimulation<E extends z.ZodObject = z.ZodObject, C = unknown, P extends ProviderSimulator = ProviderSimulator> {
  readonly name: ProviderName;
  /** How people write the provider's name, in the 503 of a provider not configured. */
  readonly label: string;
  /**
   * Its sandbox variables: a zod object whose every field has `.meta({ description })` (the
   * env example and the README are generated from them), a rule between fields as a refinement.
   * Parsed on its own, its problems reported with every other's (ConfigError).
   */
  readonly env: E;
  /**
   * What to set to switch it on (`STRIPE_SECRET_KEY`), in the 503 a provider not configured
   * answers; `null` for a provider that is always on (its variables are required).
   */
  readonly switchOn: string | null;
  /**
   * The variable naming where its webhooks (or callbacks) are delivered; the local stack points
   * it at ingestion's webhook path of the provider (scripts/local/stack.sh, generated), and
   * docker-compose.yml does too for a provider that is always on.
   */
  readonly webhookUrlVariable: string;
  /** Its settings from its parsed variables; `null` when it is not configured. */
  settings(env: z.output<E>): C;
  /** One phrase for the boot log (`on, webhooks on`), of configured settings. */
  describe(settings: NonNullable<C>): string;
  /** Its simulator, for configured settings. */
  create(settings: NonNullable<C>, notifier: Notifier, now: () => number): P;
  /** Its provider-facing HTTP controllers (Nest), each extending `ProviderController`. */
  readonly controllers: readonly Type[];
  /** Its API's roots and its answer to an unknown route there; none: the framework's 404 answers. */
  readonly api?: ProviderApi;
}

/** A declaration of any provider (what the list and the loops see). */
export type AnyProviderSimulation = ProviderSimulation<z.ZodObject, unknown, ProviderSimulator>;

/** Declares a simulation, keeping its precise types (settings, simulator) for the list. */
export function simulation<E extends z.ZodObject, C, P extends ProviderSimulator>(declaration: ProviderSimulation<E, C, P>): ProviderSimulation<E, C, P> {
  return declaration;
}

/** Body of the 503 a provider that is not configured answers. */
export function notConfiguredBody(simulation: Pick<AnyProviderSimulation, 'name' | 'label' | 'switchOn'>): {
  error: string;
  provider: string;
  message: string;
} {
  return {
    error: 'provider_not_configured',
    provider: simulation.name,
    message: `${simulation.label} is not configured in this sandbox: set ${simulation.switchOn ?? 'its variables'}.`,
  };
}

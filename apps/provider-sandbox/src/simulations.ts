import { PROVIDERS, type ProviderName } from './sandbox.core.js';
import { flutterwaveSimulation } from './flutterwave.sandbox.js';
import { mpesaSimulation } from './mpesa.sandbox.js';
import { paystackSimulation } from './paystack.sandbox.js';
import type { AnyProviderSimulation } from './simulation.js';
import { stripeSimulation } from './stripe.sandbox.js';

/**
 * Every simulated provider, by name (one per name of the domain's `PROVIDERS`: a provider
 * without a simulation is a compile error). The configuration loader (`config.ts`), the registry
 * (`sandbox.registry.ts`), the HTTP module (`app.ts`) and the generated local-stack and compose
 * entries (`npm run config:examples`) loop over it.
 */
export const SIMULATIONS = {
  paystack: paystackSimulation,
  stripe: stripeSimulation,
  flutterwave: flutterwaveSimulation,
  mpesa: mpesaSimulation,
} as const satisfies Record<ProviderName, AnyProviderSimulation>;

/** The simulations' record, as declared (each with its own settings and simulator types). */
export type Simulations = typeof SIMULATIONS;

/** Each provider's settings: `null` for one that is not configured (Paystack's never is). */
export type SimulationSettings = { readonly [P in ProviderName]: ReturnType<Simulations[P]['settings']> };

/** Each provider's simulator. */
export type Simulators = { readonly [P in ProviderName]: ReturnType<Simulations[P]['create']> };

/** Each provider's simulator in a sandbox: `null` for one that is not configured (never for one always on). */
export type ConfiguredSimulators = { readonly [P in ProviderName]: Simulators[P] | (null extends SimulationSettings[P] ? null : never) };

/** The simulations in the domain's order of names (for loops that do not need the precise types). */
export const SIMULATION_LIST: readonly AnyProviderSimulation[] = PROVIDERS.map((name) => SIMULATIONS[name]);

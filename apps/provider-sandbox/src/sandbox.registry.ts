import type { SandboxConfig } from './config.js';
import { isProviderName, PROVIDERS, type ProviderName } from './sandbox.core.js';
import type { SimulatorLookup } from './sandbox.http.js';
import { notConfiguredBody, type AnyProviderSimulation } from './simulation.js';
import { SIMULATIONS, type ConfiguredSimulators, type Simulators } from './simulations.js';
import type { Notifier } from './webhook-sender.js';

/** Body of the 503 a provider that is not configured answers. */
export function notConfigured(provider: ProviderName): { error: string; provider: string; message: string } {
  return notConfiguredBody(SIMULATIONS[provider]);
}

/**
 * The simulated providers of one sandbox, built by looping over `SIMULATIONS`. Paystack is
 * always there; the others are null when they are not configured.
 */
export class SandboxRegistry implements SimulatorLookup {
  /** @param simulators - each provider's simulator, `null` when it is not configured. */
  constructor(readonly simulators: ConfiguredSimulators) {}

  /** Builds every configured provider from the sandbox configuration. */
  static fromConfig(config: SandboxConfig, notifier: Notifier, now: () => number = Date.now): SandboxRegistry {
    const simulators = Object.fromEntries(
      PROVIDERS.map((name) => {
        const simulation: AnyProviderSimulation = SIMULATIONS[name];
        const settings = config.providers[name];
        return [name, settings === null ? null : simulation.create(settings, notifier, now)];
      }),
    );
    return new SandboxRegistry(simulators as ConfiguredSimulators);
  }

  /** The simulator named by a control-API path: undefined when no such provider, null when not configured. */
  simulator(name: string): Simulators[ProviderName] | null | undefined {
    if (!isProviderName(name)) return undefined;
    return this.simulators[name];
  }

  /** Body of the 503 of a provider that is not configured. */
  notConfigured(name: ProviderName): { error: string; provider: string; message: string } {
    return notConfigured(name);
  }

  /** Health: Paystack's counters at the top level (as before), every provider's below. */
  stats() {
    const providers: Record<string, ReturnType<Simulators['paystack']['book']['stats']> | 'not configured'> = {};
    for (const name of PROVIDERS) providers[name] = this.simulators[name]?.book.stats() ?? 'not configured';
    return { ...this.simulators.paystack.book.stats(), providers };
  }
}

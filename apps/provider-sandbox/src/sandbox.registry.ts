import type { SandboxConfig } from '@settle/config';
import { FlutterwaveSimulator } from './flutterwave.sandbox.js';
import { MpesaSimulator } from './mpesa.sandbox.js';
import { PaystackSimulator } from './paystack.sandbox.js';
import type { ProviderSimulator } from './provider.simulator.js';
import { isProviderName, PROVIDERS, type ProviderName } from './sandbox.core.js';
import { StripeSimulator } from './stripe.sandbox.js';
import type { Notifier } from './webhook-sender.js';

/** What to set to switch each optional provider on (for the 503 message). */
const CREDENTIAL_HINTS: Record<Exclude<ProviderName, 'paystack'>, string> = {
  stripe: 'STRIPE_SECRET_KEY',
  flutterwave: 'FLUTTERWAVE_SECRET_KEY',
  mpesa: 'MPESA_CONSUMER_KEY, MPESA_CONSUMER_SECRET and MPESA_PASSKEY',
};

const LABELS: Record<ProviderName, string> = { paystack: 'Paystack', stripe: 'Stripe', flutterwave: 'Flutterwave', mpesa: 'M-Pesa' };

/** Body of the 503 a provider without credentials answers. */
export function notConfigured(provider: Exclude<ProviderName, 'paystack'>): { error: string; provider: string; message: string } {
  return {
    error: 'provider_not_configured',
    provider,
    message: `${LABELS[provider]} is not configured in this sandbox: set ${CREDENTIAL_HINTS[provider]}.`,
  };
}

/**
 * The simulated providers of one sandbox. Paystack is always there; the others are null
 * when their credentials are not configured.
 */
export class SandboxRegistry {
  constructor(
    readonly paystack: PaystackSimulator,
    readonly stripe: StripeSimulator | null,
    readonly flutterwave: FlutterwaveSimulator | null,
    readonly mpesa: MpesaSimulator | null,
  ) {}

  /** Builds every configured provider from the sandbox configuration. */
  static fromConfig(config: SandboxConfig, notifier: Notifier, now: () => number = Date.now): SandboxRegistry {
    return new SandboxRegistry(
      new PaystackSimulator(config.paystack, notifier, now),
      config.stripe ? new StripeSimulator(config.stripe, notifier, now) : null,
      config.flutterwave ? new FlutterwaveSimulator(config.flutterwave, notifier, now) : null,
      config.mpesa ? new MpesaSimulator(config.mpesa, notifier, now) : null,
    );
  }

  /** The simulator named by a control-API path: undefined when no such provider, null when not configured. */
  simulator(name: string): ProviderSimulator | null | undefined {
    if (!isProviderName(name)) return undefined;
    return this[name];
  }

  /** Health: Paystack's counters at the top level (as before), every provider's below. */
  stats() {
    const providers: Record<string, ReturnType<PaystackSimulator['book']['stats']> | 'not configured'> = {};
    for (const name of PROVIDERS) providers[name] = this[name]?.book.stats() ?? 'not configured';
    return { ...this.paystack.book.stats(), providers };
  }
}

import { describe, expect, it } from 'vitest';
import { providerApiAt, rewriteProviderUrl, underRoots } from '../src/provider.routes.js';
import { SIMULATION_LIST } from '../src/simulations.js';

describe("the providers' API roots", () => {
  it('a path is under a root when it is the root or goes on below it', () => {
    expect(underRoots('/v1', ['/v1'])).toBe(true);
    expect(underRoots('/v1/payment_intents/pi_1', ['/v1'])).toBe(true);
    expect(underRoots('/v10/x', ['/v1'])).toBe(false);
    expect(underRoots('/transactions', ['/transaction'])).toBe(false);
  });

  it("finds each provider's API by its roots, and none for the sandbox's own paths", () => {
    expect(providerApiAt('/v1/x', SIMULATION_LIST)).toBe(SIMULATION_LIST.find((s) => s.name === 'stripe')!.api);
    expect(providerApiAt('/transaction/verify/ref', SIMULATION_LIST)).toBe(SIMULATION_LIST.find((s) => s.name === 'paystack')!.api);
    expect(providerApiAt('/v3/transactions', SIMULATION_LIST)).toBe(SIMULATION_LIST.find((s) => s.name === 'flutterwave')!.api);
    for (const path of ['/_sandbox/health', '/health/live', '/oauth/v1/generate', '/mpesa/stkpushquery/v1/query', '/']) {
      expect(providerApiAt(path, SIMULATION_LIST), path).toBeUndefined();
    }
  });
});

describe('repeated slashes', () => {
  it("are read as one under Flutterwave's /v3 (its Node client asks for //v3/...), the query kept", () => {
    expect(rewriteProviderUrl('//v3/transactions/12/verify', SIMULATION_LIST)).toBe('/v3/transactions/12/verify');
    expect(rewriteProviderUrl('//v3//transactions/verify_by_reference?tx_ref=a//b', SIMULATION_LIST)).toBe('/v3/transactions/verify_by_reference?tx_ref=a//b');
  });

  it('are left alone elsewhere', () => {
    for (const url of ['//v1/payment_intents/pi_1', '//transaction/verify/ref', '//_sandbox/health', '/v3/transactions/12/verify', '/?a=//b']) {
      expect(rewriteProviderUrl(url, SIMULATION_LIST)).toBe(url);
    }
  });
});

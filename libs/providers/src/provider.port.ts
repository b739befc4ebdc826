import type { ProviderName, ProviderVerdict } from '@settle/domain';

/**
 * A payment provider's verification endpoint, queried server to server (spec section 4,
 * "Outbound provider verification calls"). Read-only: it never charges (spec section 1,
 * rule 2). Implementations retry transient failures themselves and always resolve with a
 * verdict; a failure that says nothing about the payment resolves as `unreachable`.
 */
export interface PaymentProvider {
  readonly name: ProviderName;
  /**
   * Verifies one transaction.
   *
   * @param reference - the provider identifier of section 4 (Paystack: the `ref_` reference).
   * @returns the normalised verdict; never rejects for provider or network failures.
   */
  verify(reference: string): Promise<ProviderVerdict>;
}

/** A provider call failed; `retryable` says whether backoff and retry may help. */
export class ProviderCallError extends Error {
  constructor(
    /** Stable code: `PROVIDER.TIMEOUT`, `PROVIDER.BAD_GATEWAY`, `PROVIDER.GATEWAY_TIMEOUT`, ... */
    readonly code: string,
    readonly retryable: boolean,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderCallError';
  }
}

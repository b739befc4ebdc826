import { SettleError, type ErrorKind, type Expectation, type ProviderName, type ProviderVerdict } from '@settle/domain';

/** What a verification query needs: the provider identifier and what the checkout expects. */
export interface VerificationRequest {
  /**
   * The provider identifier of docs/spec.md, section 4: Paystack the `ref_` reference, Stripe the
   * PaymentIntent id (`pi_...`), Flutterwave our `tx_ref` or Flutterwave's numeric id,
   * M-Pesa the `CheckoutRequestID` of the STK push.
   */
  readonly reference: string;
  /**
   * The checkout's registered terms. Most providers echo amount, currency and customer back;
   * M-Pesa's STK query does not, so its adapter takes them from the service's own STK
   * initiation record (this expectation), as documented per provider. `null` for a payment
   * with no checkout (docs/unmatched-payments.md): the answer is read as it is, and terms it
   * does not carry are listed in the observation's `unconfirmed`.
   */
  readonly expectation: Expectation | null;
}

/**
 * A payment provider's verification endpoint, queried server to server (docs/spec.md, section 4,
 * "Outbound provider verification calls"). Read-only: it never charges (docs/spec.md, section 1,
 * rule 2). Implementations retry transient failures themselves and always resolve with a
 * verdict; a failure that says nothing about the payment resolves as `unreachable`.
 */
export interface PaymentProvider {
  readonly name: ProviderName;
  /**
   * Verifies one transaction.
   *
   * @returns the normalised verdict; never rejects for provider or network failures.
   */
  verify(request: VerificationRequest): Promise<ProviderVerdict>;
}

/**
 * A provider call failed; `retryable` says whether backoff and retry may help. The message
 * never contains a secret (keys and tokens stay in `Secret` objects and headers). Adapters
 * catch it and resolve an `unreachable` verdict with its code, so it reaches no edge in normal
 * operation; its `kind` says how an edge would treat it if it did:
 * - `unavailable` for the provider being down, slow, overloaded or answering what we cannot
 *   read (time-outs, connection failures, 429, 5xx, a malformed answer): a later check may succeed;
 * - `internal` for `PROVIDER.AUTH_REJECTED`: our credential is wrong, a deployment error.
 */
export class ProviderCallError extends SettleError {
  readonly kind: ErrorKind;

  constructor(
    /** Stable code: `PROVIDER.TIMEOUT`, `PROVIDER.BAD_GATEWAY`, `PROVIDER.GATEWAY_TIMEOUT`, ... */
    readonly code: string,
    readonly retryable: boolean,
    message: string,
    /**
     * Delay the provider asked for with `Retry-After` (RFC 9110 section 10.2.3), in
     * milliseconds, already resolved from seconds or an HTTP date; `undefined` when absent.
     */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ProviderCallError';
    this.kind = code === 'PROVIDER.AUTH_REJECTED' ? 'internal' : 'unavailable';
  }
}

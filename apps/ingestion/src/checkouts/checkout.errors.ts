import { SettleError, type ErrorKind } from '@settle/domain';

/** Stable codes of the checkout application's errors. */
export type CheckoutErrorCode = 'CHECKOUT.CONFLICT' | 'CHECKOUT.NOT_FOUND';

/** Kind and problem title of each code (the HTTP edge maps the kind to a status). */
const KINDS: Record<CheckoutErrorCode, { kind: ErrorKind; title: string }> = {
  'CHECKOUT.CONFLICT': { kind: 'conflict', title: 'Checkout already registered' },
  'CHECKOUT.NOT_FOUND': { kind: 'not_found', title: 'Checkout not found' },
};

/**
 * A checkout command was refused: `CHECKOUT.CONFLICT` (kind `conflict`, HTTP 409) when the
 * reference is registered with other terms (the domain's `sameCheckoutTerms`),
 * `CHECKOUT.NOT_FOUND` (kind `not_found`, HTTP 404) for an unknown reference. Thrown by the
 * command handlers; only the HTTP filter turns it into a status.
 */
export class CheckoutError extends SettleError {
  readonly kind: ErrorKind;
  /** Problem title of the code, for the HTTP answer. */
  readonly title: string;

  /**
   * @param code - stable code, see {@link CheckoutErrorCode}.
   * @param message - human-readable explanation, answered as the problem's detail; never a secret.
   */
  constructor(
    readonly code: CheckoutErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CheckoutError';
    this.kind = KINDS[code].kind;
    this.title = KINDS[code].title;
  }
}

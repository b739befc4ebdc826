/**
 * The terms a checkout is registered with: what its payment is checked against (spec
 * section 3, "Four-point field integrity checklist": identity, currency, amount, customer) and
 * what its settlement grants (the user, the entitlement and its access period). An
 * `Expectation` is one; ingestion's stored registration maps to one field by field.
 */
export interface CheckoutTerms {
  readonly reference: string;
  readonly provider: string;
  /** Expected amount, integer minor units. */
  readonly amountMinor: number;
  /** ISO 4217 code, upper case. */
  readonly currency: string;
  readonly userId: string;
  /** Identifiers of the payer; absent, `undefined` and `null` are the same (none given). */
  readonly customer: { readonly email?: string | null | undefined; readonly phone?: string | null | undefined };
  readonly entitlement: string;
  /** ISO 8601 duration, or `null` for registrations made before access periods existed. */
  readonly accessPeriod: string | null;
}

/**
 * The "same reference, other terms" rule: a reference names one checkout session (spec
 * section 3, checklist point 1, "the provider reference equals the session initialized in the
 * SDK"), so the terms its payment is verified against are fixed once it is registered. A
 * registration again with the very same terms is a harmless retry (it answers the same); with
 * any other term (provider, amount, currency, user, customer identifiers, entitlement, access
 * period) it is a conflict, refused by ingestion (HTTP 409 `CHECKOUT.CONFLICT`) and by the
 * transaction decider (`TRANSACTION.CONFLICT`).
 *
 * Compared exactly as registered: amounts in minor units, strings as given (an absent
 * customer identifier equals `null`/`undefined` only).
 *
 * @returns `true` when `registered` and `requested` are the same terms, field by field.
 */
export function sameCheckoutTerms(registered: CheckoutTerms, requested: CheckoutTerms): boolean {
  return (
    registered.reference === requested.reference &&
    registered.provider === requested.provider &&
    registered.amountMinor === requested.amountMinor &&
    registered.currency === requested.currency &&
    registered.userId === requested.userId &&
    (registered.customer.email ?? null) === (requested.customer.email ?? null) &&
    (registered.customer.phone ?? null) === (requested.customer.phone ?? null) &&
    registered.entitlement === requested.entitlement &&
    registered.accessPeriod === requested.accessPeriod
  );
}

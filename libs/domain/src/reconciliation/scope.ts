/**
 * Settle's scope in a provider account (docs/reconciliation.md, "Scope"): an account usually
 * carries payments Settle was never meant to see (invoices, other products, subscriptions the
 * provider bills itself). A provider transaction is Settle's only when it carries Settle's
 * marker, configured per provider; one without it is counted, never queued or alerted.
 */

/**
 * Settle's marker on a provider transaction:
 * - `reference_prefix`: the reference starts with `prefix` (the checkout service names every
 *   session it creates for Settle `<prefix>...`);
 * - `metadata_key`: the transaction's metadata has `key` (Paystack `metadata`, Stripe
 *   `metadata`, Flutterwave `meta`), with the value `value` when one is given.
 */
export type ScopeMarker =
  { readonly kind: 'reference_prefix'; readonly prefix: string } | { readonly kind: 'metadata_key'; readonly key: string; readonly value?: string | undefined };

/** What the marker is looked for in: the transaction's reference and its metadata as the provider lists them. */
export interface MarkedTransaction {
  readonly reference: string;
  /** Flat string metadata; absent when the provider's answer has none. */
  readonly metadata?: Readonly<Record<string, string>> | undefined;
}

/** Whether a provider transaction carries Settle's marker, so is in its scope. */
export function inSettleScope(transaction: MarkedTransaction, marker: ScopeMarker): boolean {
  if (marker.kind === 'reference_prefix') return transaction.reference.startsWith(marker.prefix);
  const value = transaction.metadata?.[marker.key];
  if (value === undefined) return false;
  return marker.value === undefined || value === marker.value;
}

/**
 * The ISO 4217 exponent of a currency (2 for NGN, 0 for JPY, 3 for BHD), from the
 * runtime's currency data (`Intl.NumberFormat`), not a hand-written table.
 *
 * @throws RangeError for a code that is not a currency.
 */
export function currencyExponent(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** Minor units to the major units some providers (Flutterwave, M-Pesa) report: 12345 NGN kobo -> 123.45. */
export function toMajorUnits(minor: number, currency: string): number {
  const exponent = currencyExponent(currency);
  return Number((minor / 10 ** exponent).toFixed(exponent));
}

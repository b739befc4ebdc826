import { currencyCode, MAX_AMOUNT_MINOR, SettleError } from '@settle/domain';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/**
 * Why a provider's amount or currency could not be turned into minor units. Kind `invalid`:
 * the same answer will never convert (adapters resolve it as an `unreachable` verdict with its
 * code, never as a rounded amount).
 */
export class AmountConversionError extends SettleError {
  readonly kind = 'invalid' as const;

  constructor(
    /** `PROVIDER.UNKNOWN_CURRENCY` or `PROVIDER.MALFORMED_AMOUNT`. */
    readonly code: 'PROVIDER.UNKNOWN_CURRENCY' | 'PROVIDER.MALFORMED_AMOUNT',
    message: string,
  ) {
    super(message);
    this.name = 'AmountConversionError';
  }
}

let knownCurrencies: ReadonlySet<string> | undefined;

/**
 * Number of minor-unit digits of a currency (NGN 2, JPY 0, KWD 3), read from the runtime's
 * ICU/CLDR currency data through `Intl.NumberFormat(...).resolvedOptions().maximumFractionDigits`
 * (docs/provider-facts.md, Flutterwave: "not a hand-written table"). The code must be one the runtime
 * knows (`Intl.supportedValuesOf('currency')`): `Intl.NumberFormat` alone would answer 2 for
 * any unknown three-letter code.
 *
 * Note: CLDR follows ISO 4217 for the currencies the providers here settle in (NGN, KES,
 * GHS, ZAR, USD, EUR, GBP: 2; UGX, RWF, XAF, XOF, JPY: 0; KWD, BHD: 3) but departs from it
 * for a few others (in ICU 78: HUF, IQD, MGA answer 0). Package prices must be stored with
 * the same exponent, so use this function there too.
 *
 * @param currency - ISO 4217 alphabetic code, any case.
 * @returns the exponent, 0 to 3 in practice.
 * @throws AmountConversionError `PROVIDER.UNKNOWN_CURRENCY` for a code the runtime does not know.
 */
export function currencyExponent(currency: string): number {
  let code: string;
  try {
    code = currencyCode(currency);
  } catch {
    throw new AmountConversionError('PROVIDER.UNKNOWN_CURRENCY', 'Currency is not an ISO 4217 code');
  }
  knownCurrencies ??= new Set(Intl.supportedValuesOf('currency'));
  if (!knownCurrencies.has(code)) {
    throw new AmountConversionError('PROVIDER.UNKNOWN_CURRENCY', `Currency ${code} is unknown`);
  }
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits;
  if (digits === undefined) throw new AmountConversionError('PROVIDER.UNKNOWN_CURRENCY', `Currency ${code} has no exponent`);
  return digits;
}

/**
 * Converts an amount in MAJOR units (Flutterwave's `amount: 100.5`) to an integer in minor
 * units with the currency's exponent ({@link currencyExponent}), exactly, without floating
 * point arithmetic: the decimal text is split at the point and the digits are shifted
 * (BigInt), so NGN 100.5 gives 10050, JPY 1500 gives 1500, KWD 1.234 gives 1234.
 *
 * A JSON number is read through its shortest round-trip decimal form (ECMAScript
 * `Number::toString`), which is the decimal as the provider wrote it for any amount of up to
 * 15 significant digits; trailing zeros of the fraction are dropped (`100.50` = `100.5`).
 *
 * @param amount - non-negative decimal, as a JSON number or a decimal string (`"100.50"`).
 * @param currency - ISO 4217 code, any case.
 * @returns the amount in minor units, a safe integer from 0 to `MAX_AMOUNT_MINOR`.
 * @throws AmountConversionError `PROVIDER.MALFORMED_AMOUNT` for a negative, non-decimal
 *   (`1e21`, `NaN`) or too large amount, or one with more decimals than the exponent allows
 *   (NGN 1.234, JPY 10.5: rejected, never rounded); `PROVIDER.UNKNOWN_CURRENCY` as
 *   {@link currencyExponent}.
 */
export function majorToMinor(amount: number | string, currency: string): number {
  const exponent = currencyExponent(currency);
  let text: string;
  if (typeof amount === 'number') {
    if (!Number.isFinite(amount)) throw new AmountConversionError('PROVIDER.MALFORMED_AMOUNT', 'Amount is not finite');
    text = String(amount);
  } else {
    text = amount.trim();
  }
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new AmountConversionError('PROVIDER.MALFORMED_AMOUNT', 'Amount is not a non-negative decimal');
  const whole = match[1] ?? '0';
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > exponent) {
    throw new AmountConversionError('PROVIDER.MALFORMED_AMOUNT', `Amount has more than ${exponent} decimals`);
  }
  const minor = BigInt(whole) * 10n ** BigInt(exponent) + BigInt(fraction.padEnd(exponent, '0') || '0');
  if (minor > BigInt(MAX_AMOUNT_MINOR)) {
    throw new AmountConversionError('PROVIDER.MALFORMED_AMOUNT', 'Amount is out of range');
  }
  return Number(minor);
}

/**
 * Normalises a payer's phone number to E.164 (`+2348012345678`) with libphonenumber-js,
 * so the consensus customer check compares like with like (consensus.ts: "callers that know
 * the region normalise to E.164 before the check").
 * - a number in international form (`+...`) is parsed as such;
 * - a national or digits-only number is parsed with `defaultCountry` when given
 *   (`08012345678` and `2348012345678` with `NG` both give `+2348012345678`);
 * - a number that does not parse as valid is returned trimmed, unchanged, never guessed.
 *
 * @returns E.164 text, the trimmed raw text, or `undefined` for an empty value.
 */
export function normalisePhoneNumber(raw: string | null | undefined, defaultCountry?: CountryCode): string | undefined {
  const trimmed = raw?.trim();
  if (!trimmed) return undefined;
  const parsed = parsePhoneNumberFromString(trimmed, defaultCountry ? { defaultCountry } : undefined);
  return parsed?.isValid() ? parsed.number : trimmed;
}

/** Upper-cases a provider's currency code; an invalid one is returned unchanged for the currency check to reject. */
export function providerCurrency(value: string): string {
  try {
    return currencyCode(value);
  } catch {
    return value;
  }
}

/** The `message` of a provider's JSON error answer, or `''` when it has none (or it is not text). */
export function messageOf(json: unknown): string {
  const message = typeof json === 'object' && json !== null ? (json as { message?: unknown }).message : undefined;
  return typeof message === 'string' ? message : '';
}

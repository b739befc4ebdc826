import { DomainError } from './errors.js';

/**
 * An amount of money in the currency's minor unit (kobo, cents), as an integer.
 * Floats are never used for money (docs/spec.md, section 2: "Integer in the smallest currency unit").
 */
export interface Money {
  /** Integer amount in minor units; a safe integer, never a float. */
  readonly amountMinor: number;
  /** ISO 4217 alphabetic code, upper case (`NGN`, `USD`). */
  readonly currency: string;
}

/**
 * Largest amount in minor units Settle accepts: 2^52. Avro `long` values are exact in
 * JavaScript only up to this bound (avsc refuses larger ones), and it is far above any real
 * payment (45 trillion naira in kobo).
 */
export const MAX_AMOUNT_MINOR = 2 ** 52;

/**
 * Checks that a number is usable as a minor-unit amount.
 *
 * @param value - candidate amount in minor units.
 * @returns the same value.
 * @throws DomainError `MONEY.INVALID_AMOUNT` when it is not an integer from 0 to {@link MAX_AMOUNT_MINOR}.
 */
export function minorUnits(value: number): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_AMOUNT_MINOR) {
    throw new DomainError('MONEY.INVALID_AMOUNT', `Amounts are integers in minor units, from 0 to ${MAX_AMOUNT_MINOR}`);
  }
  return value;
}

/**
 * Normalises an ISO 4217 alphabetic code to upper case (providers such as Stripe answer
 * in lower case).
 *
 * @throws DomainError `MONEY.INVALID_CURRENCY` when it is not three letters.
 */
export function currencyCode(value: string): string {
  const code = value.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code)) {
    throw new DomainError('MONEY.INVALID_CURRENCY', 'Currency must be an ISO 4217 alphabetic code');
  }
  return code;
}

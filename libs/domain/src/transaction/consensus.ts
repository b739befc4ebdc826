import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { describeCustomerMasked } from '../privacy/masking.js';
import { currencyCode } from '../shared/money.js';
import type { Expectation } from './types.js';
import type { ProviderObservation } from './verdict.js';

/** The four points of the field integrity checklist (docs/spec.md, section 3). */
export const CONSENSUS_CHECK_NAMES = ['transaction_identity', 'currency', 'amount', 'customer'] as const;
/** One of {@link CONSENSUS_CHECK_NAMES}. */
export type ConsensusCheckName = (typeof CONSENSUS_CHECK_NAMES)[number];

/** Stable error codes, one per checklist point. */
export const CONSENSUS_CODES = {
  transaction_identity: 'CONSENSUS.IDENTITY_MISMATCH',
  currency: 'CONSENSUS.CURRENCY_MISMATCH',
  amount: 'CONSENSUS.AMOUNT_MISMATCH',
  customer: 'CONSENSUS.CUSTOMER_MISMATCH',
} as const satisfies Record<ConsensusCheckName, string>;

/** Outcome of one checklist point, with what was expected and what the provider said. */
export interface ConsensusCheck {
  readonly check: ConsensusCheckName;
  readonly passed: boolean;
  /** `null` when passed, else the stable code from {@link CONSENSUS_CODES}. */
  readonly code: string | null;
  /** Expected value as text (amounts in minor units). */
  readonly expected: string;
  /** Observed value as text (amounts in minor units). */
  readonly observed: string;
}

/** What an erased customer's check records, expected and observed (docs/privacy.md, "Erasure"). */
export const ERASED = 'erased';

function check(name: ConsensusCheckName, passed: boolean, expected: string, observed: string): ConsensusCheck {
  return { check: name, passed, code: passed ? null : CONSENSUS_CODES[name], expected, observed };
}

/** E-mail comparison: case-insensitive after trimming. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Readings of a phone number in E.164 (`+2348012345678`), parsed with libphonenumber-js
 * (Google's libphonenumber metadata): as written (national numbers read in `region`), and,
 * for bare digits, as an international number without its plus (M-Pesa sends 2547...).
 * Invalid readings are dropped.
 *
 * @param region - ISO 3166 country for national numbers (`NG`, `KE`).
 */
function e164Readings(phone: string, region?: CountryCode): string[] {
  const trimmed = phone.trim();
  const candidates = [parsePhoneNumberFromString(trimmed, region)];
  if (!trimmed.startsWith('+') && /^\d{8,15}$/.test(trimmed)) candidates.push(parsePhoneNumberFromString(`+${trimmed}`));
  return [...new Set(candidates.filter((c) => c?.isValid()).map((c) => c!.number))];
}

/**
 * A phone number in E.164, or `null` when the text is not a valid number. A national
 * number is read in `region`; bare digits that are not a valid national number there are
 * read as international.
 */
export function toE164(phone: string, region?: CountryCode): string | null {
  return e164Readings(phone, region)[0] ?? null;
}

/**
 * Whether two phone numbers are the same number: the expected one in E.164, the observed one
 * matching when any of its readings does (national in the expected number's country, or
 * international without the plus). Unparseable numbers never match.
 */
export function samePhone(expected: string, observed: string): boolean {
  const expectedE164 = toE164(expected);
  if (expectedE164 === null) return false;
  const region = parsePhoneNumberFromString(expectedE164)?.country;
  return e164Readings(observed, region).includes(expectedE164);
}

function customerCheck(expected: Expectation, observed: ProviderObservation): ConsensusCheck {
  // An erased customer (docs/privacy.md, "Erasure") is compared no more: the check was decided when the
  // values were held, and a later answer (a refund, a reconciliation) must not fail it for want of them.
  if (expected.customerErased) return check('customer', true, ERASED, ERASED);
  const comparisons: boolean[] = [];
  if (expected.customer.email && observed.customer.email) {
    comparisons.push(normaliseEmail(expected.customer.email) === normaliseEmail(observed.customer.email));
  }
  if (expected.customer.phone && observed.customer.phone) {
    comparisons.push(samePhone(expected.customer.phone, observed.customer.phone));
  }
  // Passes only when at least one identifier is present on both sides and every shared one matches.
  const passed = comparisons.length > 0 && comparisons.every(Boolean);
  // Recorded masked (docs/privacy.md, "Masked forms"): the check's record goes to the immutable ledger and to Kafka.
  return check('customer', passed, describeCustomerMasked(expected.customer), describeCustomerMasked(observed.customer));
}

/**
 * Runs the four-point field integrity checklist (docs/spec.md, section 3) on one provider answer.
 * The amount check is exact equality in minor units (Flutterwave's own guide accepts more;
 * Settle does not), and a reported charge below the confirmed amount fails it too.
 * All four must pass before anything is written to the ledger; a bare HTTP 200 is not enough.
 *
 * @param expected - what the checkout session expects.
 * @param observed - what the provider confirmed, amounts already in minor units.
 * @returns the four checks in checklist order, each with expected and observed values.
 */
export function checkConsensus(expected: Expectation, observed: ProviderObservation): ConsensusCheck[] {
  let observedCurrency: string;
  try {
    observedCurrency = currencyCode(observed.currency);
  } catch {
    observedCurrency = observed.currency;
  }
  return [
    check('transaction_identity', observed.reference === expected.reference, expected.reference, observed.reference),
    check('currency', observedCurrency === expected.currency, expected.currency, observedCurrency),
    check(
      'amount',
      Number.isSafeInteger(observed.amountMinor) &&
        observed.amountMinor === expected.amountMinor &&
        // Never settle a charge below the amount confirmed (fees only ever add to it).
        (observed.chargedAmountMinor === undefined || observed.chargedAmountMinor >= observed.amountMinor),
      String(expected.amountMinor),
      observed.chargedAmountMinor === undefined || observed.chargedAmountMinor === observed.amountMinor
        ? String(observed.amountMinor)
        : `${observed.amountMinor} (charged ${observed.chargedAmountMinor})`,
    ),
    customerCheck(expected, observed),
  ];
}

/** True when every check passed. */
export function consensusReached(checks: readonly ConsensusCheck[]): boolean {
  return checks.length === 4 && checks.every((c) => c.passed);
}

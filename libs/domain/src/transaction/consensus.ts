import { currencyCode } from '../shared/money.js';
import type { Expectation } from './types.js';
import type { ProviderObservation } from './verdict.js';

/** The four points of the field integrity checklist (spec section 3). */
export type ConsensusCheckName = 'transaction_identity' | 'currency' | 'amount' | 'customer';

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

function check(name: ConsensusCheckName, passed: boolean, expected: string, observed: string): ConsensusCheck {
  return { check: name, passed, code: passed ? null : CONSENSUS_CODES[name], expected, observed };
}

/** E-mail comparison: case-insensitive after trimming. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Phone comparison key: digits only, with a leading `+` kept. Callers that know the
 * region normalise to E.164 before the check.
 */
export function normalisePhone(phone: string): string {
  const trimmed = phone.trim();
  const digits = trimmed.replace(/\D/g, '');
  return trimmed.startsWith('+') ? `+${digits}` : digits;
}

function customerCheck(expected: Expectation, observed: ProviderObservation): ConsensusCheck {
  const pairs: Array<[string, string]> = [];
  if (expected.customer.email && observed.customer.email) {
    pairs.push([normaliseEmail(expected.customer.email), normaliseEmail(observed.customer.email)]);
  }
  if (expected.customer.phone && observed.customer.phone) {
    pairs.push([normalisePhone(expected.customer.phone), normalisePhone(observed.customer.phone)]);
  }
  const describe = (c: { email?: string | undefined; phone?: string | undefined }): string =>
    [c.email ? `email:${c.email}` : null, c.phone ? `phone:${c.phone}` : null].filter(Boolean).join(' ') || '(none)';
  // Passes only when at least one identifier is present on both sides and every shared one matches.
  const passed = pairs.length > 0 && pairs.every(([e, o]) => e === o);
  return check('customer', passed, describe(expected.customer), describe(observed.customer));
}

/**
 * Runs the four-point field integrity checklist (spec section 3) on one provider answer.
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
      Number.isSafeInteger(observed.amountMinor) && observed.amountMinor === expected.amountMinor,
      String(expected.amountMinor),
      String(observed.amountMinor),
    ),
    customerCheck(expected, observed),
  ];
}

/** True when every check passed. */
export function consensusReached(checks: readonly ConsensusCheck[]): boolean {
  return checks.length === 4 && checks.every((c) => c.passed);
}

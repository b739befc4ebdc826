import { DomainError } from '../shared/errors.js';
import type { AccessPeriod } from '../entitlement/access-period.js';

/**
 * Shapes of a checkout transaction as the spec describes it (section 2, "Transaction (as
 * verified)") and the states of section 3.
 */

/**
 * A transaction reference Settle accepts (the spec's provider reference, section 2): 1 to 100
 * printable, URL-safe characters (letters, digits, `_`, `.`, `=`, `-`), starting with a letter or
 * digit. Registration refuses another (`REQUEST.VALIDATION_FAILED`); anything that names a
 * reference (a path, a webhook body) and does not match cannot be a checkout.
 */
export const REFERENCE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.=-]{0,99}$/;

/** Whether a text is a reference a checkout can have ({@link REFERENCE_PATTERN}). */
export function isWellFormedReference(text: string): boolean {
  return REFERENCE_PATTERN.test(text);
}

/** Providers this build can verify. Grows provider by provider. */
export const PROVIDERS = ['paystack', 'stripe', 'flutterwave', 'mpesa'] as const;
/** Name of a supported payment provider. */
export type ProviderName = (typeof PROVIDERS)[number];

/** The payer as the checkout knows them; at least one of the two is set. */
export interface CustomerIdentity {
  /** E-mail address of the payer. */
  readonly email?: string | undefined;
  /** Phone number of the payer, ideally E.164. */
  readonly phone?: string | undefined;
}

/**
 * What the checkout session expects the provider to confirm: the session initialised in the
 * SDK, the package price and the authenticated user (docs/spec.md, section 3, four-point checklist).
 */
export interface Expectation {
  /** Provider reference of the session (Paystack: the `reference` sent at initialisation). */
  readonly reference: string;
  readonly provider: ProviderName;
  /** Package price in minor units (kobo, cents). */
  readonly amountMinor: number;
  /** ISO 4217 code of the package price, upper case. */
  readonly currency: string;
  /** Authenticated user id in the customer's system. */
  readonly userId: string;
  /** Identifiers of the authenticated user that the provider may echo back. */
  readonly customer: CustomerIdentity;
  /** Entitlement granted when the payment settles (for example a plan name). */
  readonly entitlement: string;
  /**
   * Access the payment buys (an ISO 8601 duration such as `P1M`), added to the user's expiry
   * when it settles (docs/delivery.md). `null` only for checkouts registered before access
   * periods existed: their settlement grants nothing.
   */
  readonly accessPeriod: AccessPeriod | null;
  /**
   * The registration's customer was erased (docs/privacy.md, "Erasure"): the customer check was
   * decided while the values were held and compares nothing again; it records `erased`.
   */
  readonly customerErased?: boolean;
}

/**
 * Transaction states. The first four are the spec's (docs/spec.md, section 3); `STATE_MISMATCH` is the
 * spec's "State Mismatch" outcome held as a state of its own; `MANUAL_REVIEW` is where a
 * transaction goes when the sweeper's re-checks reach their limit unresolved (see
 * docs/state-machine.md). MANUAL_REVIEW is not terminal: a later verification (an admin's
 * reconciliation) may still settle or decline it, but nothing re-checks it automatically.
 */
export const TRANSACTION_STATUSES = ['PENDING', 'RECOVERING', 'MANUAL_REVIEW', 'SETTLED_CONSENSUS', 'FAILED_DECLINED', 'STATE_MISMATCH'] as const;
/** One of {@link TRANSACTION_STATUSES}. */
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** Entitlement statuses (docs/spec.md, section 2): Unlocked, Locked, or Held in review. */
export const ENTITLEMENT_STATUSES = ['LOCKED', 'UNLOCKED', 'HELD_IN_REVIEW'] as const;
/** One of {@link ENTITLEMENT_STATUSES}. */
export type EntitlementStatus = (typeof ENTITLEMENT_STATUSES)[number];

/** States after which no verification changes anything. */
export const TERMINAL_STATUSES: ReadonlySet<TransactionStatus> = new Set(['SETTLED_CONSENSUS', 'FAILED_DECLINED', 'STATE_MISMATCH']);

/** Whether a state is terminal (no further automatic verification is useful). */
export function isTerminal(status: TransactionStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

/** What made a verification start (docs/spec.md, section 1, "When verification starts automatically"). */
export const VERIFICATION_TRIGGERS = [
  'webhook_received',
  'webhook_signature_rejected',
  'sweeper_orphaned',
  'sweeper_webhook_missing',
  /** A transaction held in review (RECOVERING), re-checked on the backoff schedule. */
  'sweeper_review_recheck',
  /** The last automatic re-check: an unresolved answer moves the transaction to manual review. */
  'sweeper_review_limit',
  'customer_returned',
  'admin_reconciliation',
  /** docs/spec.md, section 1, rule 3: the existing reference is verified before a new attempt. */
  'attempt_check',
  /**
   * A payment Settle was never told about (docs/unmatched-payments.md): a correctly signed webhook
   * for a reference with no checkout, verified once its grace period passed, and re-checked on
   * the backoff schedule while the provider has no final answer.
   */
  'unmatched_payment',
  /**
   * A reconciliation run found the payment paid at the provider and not settled here (class
   * `stuck`), or paid and never registered (`unknown_to_settle`): docs/reconciliation.md.
   */
  'reconciliation',
] as const;
/** One of {@link VERIFICATION_TRIGGERS}. */
export type VerificationTrigger = (typeof VERIFICATION_TRIGGERS)[number];

/**
 * Whether `value` is one of `values`: the type guard that turns a string read from the wire or
 * a database row into a literal union without an unchecked cast.
 *
 * @example `isOneOf(TRANSACTION_STATUSES, row.status)` narrows `row.status` to a {@link TransactionStatus}.
 */
export function isOneOf<const T extends string>(values: readonly T[], value: string | null | undefined): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

/**
 * Reads a stored or received string as one of a literal union's `values`, the checked
 * replacement of an `as` cast at a boundary (a database row, a read model).
 *
 * @param what - what the value is, for the message (for example `transaction status`).
 * @throws DomainError `VALUE.UNKNOWN` (kind `internal`: Settle wrote a value it does not know).
 */
export function literalOf<const T extends string>(values: readonly T[], value: string, what: string): T {
  if (!isOneOf(values, value)) throw new DomainError('VALUE.UNKNOWN', `Unknown ${what}: ${JSON.stringify(value).slice(0, 80)}`, 'internal');
  return value;
}

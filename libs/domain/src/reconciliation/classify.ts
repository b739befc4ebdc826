import { describeCustomerMasked } from '../privacy/masking.js';
import { currencyCode } from '../shared/money.js';
import { normaliseEmail, samePhone } from '../transaction/consensus.js';
import type { CustomerIdentity, ProviderName, TransactionStatus } from '../transaction/types.js';

/**
 * Reconciliation against the provider's own books (docs/reconciliation.md): each provider
 * transaction in Settle's scope, compared with what Settle holds for its reference, ends in
 * exactly one class, by the decision table below. Pure: the reconciler (an adapter) pages the
 * provider's list and reads the ledger's read models; this decides.
 */

/**
 * A payment's status as the provider's list shows it, normalised by the provider's adapter:
 * - `succeeded`: funds cleared (Paystack `success`, Stripe `succeeded`, Flutterwave `successful`);
 * - `pending`: still in progress (a bank transfer or USSD not yet confirmed, Stripe `processing`);
 * - `failed`: never paid (declined, abandoned, cancelled);
 * - `reversed`: paid, then taken back as the payment object itself shows it (Paystack `reversed`).
 *   Refunds and disputes the payment object does not show are found from the providers' refund
 *   and dispute lists, not here.
 */
export const PROVIDER_PAYMENT_STATUSES = ['succeeded', 'pending', 'failed', 'reversed'] as const;
/** One of {@link PROVIDER_PAYMENT_STATUSES}. */
export type ProviderPaymentStatus = (typeof PROVIDER_PAYMENT_STATUSES)[number];

/** One transaction of a provider's list, in Settle's scope (it carries Settle's marker). */
export interface ProviderRecord {
  readonly provider: ProviderName;
  /** The reference Settle would know it by. */
  readonly reference: string;
  /** The provider's own id of the transaction, for the evidence. */
  readonly providerTransactionId?: string | undefined;
  readonly status: ProviderPaymentStatus;
  /** The provider's raw status (`success`, `requires_payment_method`), for the evidence. */
  readonly providerStatus: string;
  /** Amount in minor units, as the adapter converted it from the provider's answer. */
  readonly amountMinor: number;
  /** ISO 4217 code. */
  readonly currency: string;
  /** The payer as the provider's list shows them; either may be missing from a list answer. */
  readonly customer: CustomerIdentity;
}

/** What Settle holds for a reference: the checkout's terms and its state in the ledger's read model. */
export interface SettleRecord {
  readonly reference: string;
  readonly status: TransactionStatus;
  /** The registered amount, minor units. */
  readonly amountMinor: number;
  /** ISO 4217 code, upper case. */
  readonly currency: string;
  readonly customer: CustomerIdentity;
  /** The user the checkout was registered for. */
  readonly userId: string;
  readonly entitlement: string;
}

/**
 * The classes a compared provider transaction ends in, most serious first (the precedence: the
 * first that applies wins). The last four are counted, never exceptions.
 */
export const RECONCILIATION_CLASSES = [
  /** Settled in Settle, not successful at the provider (reversed, failed, pending): alert at once. */
  'settled_not_successful',
  /** Successful at the provider, with another amount, currency or customer than Settle's record. */
  'terms_differ',
  /** A second cleared payment by the same user for the same entitlement within the duplicate window. */
  'possible_duplicate',
  /** Paid at the provider, not settled in Settle: the verifier is asked to verify it now. */
  'stuck',
  /** Paid at the provider, never registered with Settle: an unmatched payment. */
  'unknown_to_settle',
  /** Settled in both with the same terms, or failed in both. */
  'matches',
  /** Pending or failed at the provider while Settle has not settled it: nothing was paid yet. */
  'not_paid',
  /** Failed or pending at the provider and unknown to Settle: nobody paid, nothing to find. */
  'not_paid_unknown',
] as const;
/** One of {@link RECONCILIATION_CLASSES}. */
export type ReconciliationClass = (typeof RECONCILIATION_CLASSES)[number];

/** The classes that are exceptions: each is recorded with its evidence until it is resolved. */
export const EXCEPTION_CLASSES: ReadonlySet<ReconciliationClass> = new Set([
  'settled_not_successful',
  'terms_differ',
  'possible_duplicate',
  'stuck',
  'unknown_to_settle',
]);

/** One field compared, as each side has it (amounts in minor units, as text). */
export interface EvidenceField {
  readonly field: 'status' | 'amount' | 'currency' | 'customer' | 'duplicate_of';
  readonly provider: string;
  readonly settle: string;
}

/** The class of one provider transaction, with the fields that decided it. */
export interface Classification {
  readonly reference: string;
  readonly class: ReconciliationClass;
  /** Whether {@link Classification.class} is one of {@link EXCEPTION_CLASSES}. */
  readonly exception: boolean;
  /** The fields compared that differ (or, for a duplicate, the earlier reference): empty for a match. */
  readonly evidence: readonly EvidenceField[];
}

/**
 * Classifies one provider transaction against Settle's record of its reference, by this decision
 * table (provider status × Settle's state), the first row that applies winning:
 *
 * | provider      | Settle                      | class                      |
 * |---------------|-----------------------------|----------------------------|
 * | not succeeded | SETTLED_CONSENSUS           | `settled_not_successful`   |
 * | succeeded     | any, terms differ           | `terms_differ`             |
 * | succeeded     | any, `duplicateOf` given    | `possible_duplicate`       |
 * | succeeded     | not SETTLED_CONSENSUS       | `stuck`                    |
 * | succeeded     | no checkout                 | `unknown_to_settle`        |
 * | succeeded     | SETTLED_CONSENSUS           | `matches`                  |
 * | failed        | FAILED_DECLINED             | `matches`                  |
 * | not succeeded | no checkout                 | `not_paid_unknown`         |
 * | not succeeded | any other state             | `not_paid`                 |
 *
 * Terms differ when the amounts (minor units, exact) or the currencies differ, or when an
 * identifier of the payer present on both sides differs (e-mail case-insensitively, phones as
 * E.164, as the consensus check compares them: docs/spec.md, section 3); an identifier missing
 * from the provider's list answer is not a difference.
 *
 * @param duplicateOf - the earlier reference when this payment is a possible duplicate charge
 *   ({@link findPossibleDuplicates}), else `null`.
 */
export function classify(provider: ProviderRecord, settle: SettleRecord | null, duplicateOf: string | null = null): Classification {
  const result = (cls: ReconciliationClass, evidence: readonly EvidenceField[] = []): Classification => ({
    reference: provider.reference,
    class: cls,
    exception: EXCEPTION_CLASSES.has(cls),
    evidence,
  });
  const status: EvidenceField = { field: 'status', provider: `${provider.status} (${provider.providerStatus})`, settle: settle?.status ?? 'no checkout' };
  if (provider.status !== 'succeeded') {
    if (settle?.status === 'SETTLED_CONSENSUS') return result('settled_not_successful', [status]);
    if (settle === null) return result('not_paid_unknown');
    if (provider.status === 'failed' && settle.status === 'FAILED_DECLINED') return result('matches');
    return result('not_paid');
  }
  if (settle === null) return result('unknown_to_settle', [status]);
  const differences = termDifferences(provider, settle);
  if (differences.length > 0) return result('terms_differ', differences);
  if (duplicateOf !== null) return result('possible_duplicate', [{ field: 'duplicate_of', provider: provider.reference, settle: duplicateOf }]);
  if (settle.status !== 'SETTLED_CONSENSUS') return result('stuck', [status]);
  return result('matches');
}

/** The amount, currency and customer fields that differ between the two sides. */
function termDifferences(provider: ProviderRecord, settle: SettleRecord): EvidenceField[] {
  const differences: EvidenceField[] = [];
  if (provider.amountMinor !== settle.amountMinor) {
    differences.push({ field: 'amount', provider: String(provider.amountMinor), settle: String(settle.amountMinor) });
  }
  const providerCurrency = normalisedCurrency(provider.currency);
  if (providerCurrency !== settle.currency) differences.push({ field: 'currency', provider: providerCurrency, settle: settle.currency });
  const emailDiffers =
    provider.customer.email !== undefined &&
    settle.customer.email !== undefined &&
    normaliseEmail(provider.customer.email) !== normaliseEmail(settle.customer.email);
  const phoneDiffers =
    provider.customer.phone !== undefined && settle.customer.phone !== undefined && !samePhone(settle.customer.phone, provider.customer.phone);
  if (emailDiffers || phoneDiffers)
    differences.push({ field: 'customer', provider: describeCustomer(provider.customer), settle: describeCustomer(settle.customer) });
  return differences;
}

/** The currency upper-cased when it is a valid ISO 4217 code, else as the provider wrote it. */
function normalisedCurrency(currency: string): string {
  try {
    return currencyCode(currency);
  } catch {
    return currency;
  }
}

/** Recorded masked (docs/privacy.md, "Masked forms"): evidence goes to the immutable ledger and to Kafka. */
function describeCustomer(customer: CustomerIdentity): string {
  return describeCustomerMasked(customer);
}

/** A cleared payment of a checkout, for duplicate detection: who paid, for what, and when. */
export interface ClearedPayment {
  readonly reference: string;
  readonly userId: string;
  readonly entitlement: string;
  /** When the payment cleared (the ledger's settlement, or the provider's paid time), ms since the epoch. */
  readonly clearedAtMs: number;
}

/** Default duplicate window: a second payment within 10 minutes of the previous one (milliseconds). */
export const DEFAULT_DUPLICATE_WINDOW_MS = 10 * 60_000;

/**
 * Possible duplicate charges: for each user and entitlement, every cleared payment made within
 * `windowMs` (inclusive) of the previous one of the same user and entitlement (a double click, a
 * retry after a time-out), mapped to that previous payment's reference. The first payment of a
 * run is never a duplicate; payments at the same instant are ordered by reference, so the answer
 * does not depend on the input's order.
 *
 * @param windowMs - the duplicate window, milliseconds (default {@link DEFAULT_DUPLICATE_WINDOW_MS}).
 * @returns reference of each possible duplicate → reference of the payment it repeats.
 */
export function findPossibleDuplicates(payments: readonly ClearedPayment[], windowMs = DEFAULT_DUPLICATE_WINDOW_MS): Map<string, string> {
  const byBuyer = new Map<string, ClearedPayment[]>();
  for (const payment of payments) {
    const key = JSON.stringify([payment.userId, payment.entitlement]);
    const list = byBuyer.get(key);
    if (list) list.push(payment);
    else byBuyer.set(key, [payment]);
  }
  const duplicates = new Map<string, string>();
  for (const list of byBuyer.values()) {
    list.sort((a, b) => a.clearedAtMs - b.clearedAtMs || (a.reference < b.reference ? -1 : a.reference > b.reference ? 1 : 0));
    for (let i = 1; i < list.length; i++) {
      if (list[i]!.clearedAtMs - list[i - 1]!.clearedAtMs <= windowMs) duplicates.set(list[i]!.reference, list[i - 1]!.reference);
    }
  }
  return duplicates;
}

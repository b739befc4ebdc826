/**
 * What the console's transaction pages and review queues answer (docs/console.md, "API"), and the
 * row shapes and helpers their readers share: the transactions' reader
 * (transaction.repository.ts) and the review queues' (../queues/review-queues.ts).
 */
import { providerDefinition } from '@settle/providers';
import { encodeKeysetCursor, type KeysetCursor } from '@settle/http';

/** Counts of the whole book of transactions (`GET /api/v1/overview`). */
export interface Overview {
  /** Transactions per state; every known state is present, 0 when none. */
  states: Record<string, number>;
  /** Transactions per entitlement status; every known status is present. */
  entitlements: Record<string, number>;
  /**
   * The held-in-review queue's size: state `RECOVERING` with entitlement `HELD_IN_REVIEW` (a
   * `MANUAL_REVIEW` transaction is held too, but it is counted in `manualReview`).
   */
  heldInReview: number;
  /** State `MANUAL_REVIEW`. */
  manualReview: number;
  /** State `STATE_MISMATCH`. */
  stateMismatch: number;
  total: number;
}

/** One row of the transaction list. Amounts in minor units; `updatedAt` ISO 8601 (milliseconds, UTC). */
export interface TransactionSummary {
  reference: string;
  provider: string;
  state: string;
  entitlementStatus: string;
  amountMinor: number;
  currency: string;
  userId: string | null;
  email: string | null;
  updatedAt: string;
}

/** One of the four consensus checks of the last decision (docs/spec.md, section 3). */
export interface CheckView {
  check: string;
  passed: boolean;
  code: string | null;
  expected: string;
  observed: string;
  /** The provider answer's field the observed value was read from (the provider's `observedFields`); absent in the read model, added by the console. */
  providerField?: string | null;
}

/** A transaction in full (`GET /api/v1/transactions/:reference`). */
export interface TransactionDetail extends TransactionSummary {
  entitlement: string | null;
  accessPeriod: string | null;
  checks: CheckView[] | null;
  lastVerdict: string | null;
  lastTrigger: string | null;
  /** What happened to the money after the payment settled (docs/state-machine.md, "The money after settlement"). */
  moneyState: string;
  /** Money returned to the payer so far, minor units. */
  returnedMinor: number;
  /** A State Mismatch's resolution (docs/state-machine.md, "Resolving a State Mismatch"): `accepted_as_paid`, `refund_due`, `refunded`; `null` for none. */
  resolution: string | null;
}

/**
 * A State Mismatch's resolution fact as the ledger recorded it: who decided, why, and the
 * difference accepted (minor units of the registered currency; `null` across currencies).
 */
export interface ResolutionView {
  /** `SettledByOverride`: the proposal and its two people; `MismatchRefundDue`: the admin who closed it. */
  proposalId: string | null;
  proposedBy: string | null;
  approvedBy: string | null;
  closedBy: string | null;
  note: string | null;
  differenceMinor: number | null;
  /** `MismatchRefundDueClosed`: money returned by then, minor units. */
  returnedMinor: number | null;
}

/**
 * What a provider's refund, reversal or dispute object said, as the ledger recorded it (a money
 * fact on the transaction's stream): amounts in minor units, times ISO 8601 UTC.
 */
export interface MovementView {
  /** `refund`, `reversal` or `dispute`. */
  kind: string;
  /** The provider's own id of the object. */
  providerId: string;
  /** The provider's raw status. */
  providerStatus: string;
  amountMinor: number;
  currency: string;
  /** When the provider created the object. */
  createdAt: string;
  /** The payment's money state after the fact; `null` for an object the checks refused. */
  moneyState: string | null;
  /** Money returned so far after the fact; `null` for a refused object. */
  returnedMinor: number | null;
  /** A dispute's reason (opened) or outcome (`won`, `lost`); `null` otherwise. */
  reason: string | null;
  outcome: string | null;
  /** A refused object's failed checks (codes); empty otherwise. */
  failedChecks: string[];
}

/** An open dispute of a transaction (`GET /api/v1/queues/disputes`). */
export interface OpenDisputeView {
  providerId: string;
  amountMinor: number;
  reason: string | null;
  /** When the provider opened it, ISO 8601 UTC. */
  openedAt: string;
}

/** A row of the disputes queue: a settled payment with a dispute still open. */
export interface DisputeItem extends TransactionSummary {
  moneyState: string;
  returnedMinor: number;
  disputes: OpenDisputeView[];
}

/**
 * One event of the transaction's ledger stream, or one admin action on it (docs/console.md,
 * "API"); outcome fields are `null` for an event that is not an outcome.
 */
export interface TimelineEntry {
  /** Global ledger position: the timeline's order. */
  position: number;
  /** Revision within its stream (`transaction-<reference>`, or `admin-transaction-<reference>` for an admin action). */
  revision: number;
  type: string;
  /** ISO 8601 UTC. */
  recordedAt: string;
  trigger: string | null;
  verdict: string | null;
  state: string | null;
  detail: string | null;
  /** Who asked for it: only on admin actions (`type` `AdminActionRequested`), the console user as signed in. */
  actor?: { email: string; role: string };
  /** An admin action's name and outcome (`null` while unknown: running, or its outcome could not be recorded). */
  adminAction?: { action: string; outcome: 'succeeded' | 'failed' | null; errorCode: string | null; completedAt: string | null };
  /** A money fact's provider object (a refund, a reversal, a dispute): only on those. */
  movement?: MovementView;
  /** A State Mismatch's resolution fact: only on those. */
  resolution?: ResolutionView;
}

/**
 * The sweeper's watch of a transaction (`sweeper.watch_state`): when it next asks the provider
 * and how many times it already did in the current episode.
 */
export interface WatchView {
  /** When the next re-check is due, ISO 8601 UTC; `null` when none is scheduled. */
  nextCheckAt: string | null;
  /** Re-checks the sweeper requested since the latest progress (`checks`). */
  checksSoFar: number;
  /** Whether the sweeper still has a re-check scheduled (`due_at` is set). */
  active: boolean;
}

/** One attempt to deliver an entitlement event to an endpoint (`dispatcher.attempts`). */
export interface DeliveryAttemptView {
  /** When the attempt started, ISO 8601 UTC. */
  at: string;
  /** `delivered`, `gone`, `throttled` or `failed`. */
  outcome: string;
  /** The endpoint's HTTP status, `null` when none came (time-out, refused connection). */
  httpStatus: number | null;
  /** Milliseconds from the request to the answer or the failure. */
  durationMs: number;
}

/** One delivery of an entitlement event to one endpoint (`dispatcher.deliveries`). */
export interface DeliveryView {
  endpointId: string;
  endpointUrl: string;
  /** `pending`, `delivered`, `failed` or `cancelled`. */
  status: string;
  /** Oldest first. */
  attempts: DeliveryAttemptView[];
}

/** An entitlement event of the transaction as the dispatcher received it (`dispatcher.events`). */
export interface EntitlementEventView {
  eventId: string;
  /** The event kind (`entitlement.granted`). */
  event: string;
  /** The grant's end, ISO 8601 UTC as delivered (the body's `expires_at`); `null` when the body has none. */
  expiresAt: string | null;
  /** One per subscribed endpoint, by endpoint URL. */
  deliveries: DeliveryView[];
}

/** A row of `GET /api/v1/queues/held-in-review`. */
export interface HeldInReviewItem extends TransactionSummary {
  /** When the sweeper next re-checks, ISO 8601 UTC; `null` when no re-check is scheduled (or no watch). */
  nextCheckAt: string | null;
  /** Re-checks done so far in the current episode; 0 without a watch. */
  checksSoFar: number;
}

/** A row of `GET /api/v1/queues/manual-review`: why the transaction waits for a person. */
export interface ManualReviewItem extends TransactionSummary {
  lastVerdict: string | null;
  lastTrigger: string | null;
  /** Re-checks the sweeper made before giving up; 0 without a watch. */
  checksSoFar: number;
  /** The last event of the transaction's ledger stream; `null` when the stream is empty. */
  lastEvent: { type: string; recordedAt: string; detail: string | null } | null;
}

/** A failed consensus check of a State Mismatch, with where the observed value came from. */
export interface MismatchCheckView {
  check: string;
  /** The check's stable code (`CONSENSUS.AMOUNT_MISMATCH`, ...). */
  code: string | null;
  /** What Settle registered (the checkout). */
  expected: string;
  /** What the provider reported. */
  observed: string;
  /** The provider answer's field the observed value was read from (the provider's `observedFields`); `null` for an unknown provider or check. */
  providerField: string | null;
}

/** A row of `GET /api/v1/queues/state-mismatch`: the failed checks side by side. */
export interface StateMismatchItem extends TransactionSummary {
  /** The checks of the last decision that failed, in the spec's order. */
  failedChecks: MismatchCheckView[];
}

/**
 * A row of `GET /api/v1/queues/unmatched-payments`: a payment a provider confirmed for a reference
 * that has no checkout (docs/unmatched-payments.md), still open. Nothing was granted for it.
 */
export interface UnmatchedPaymentItem {
  reference: string;
  provider: string;
  /** What the provider confirmed, in minor units of `currency`; `null` when its answer carries none (M-Pesa: `termsVerified` false). */
  amountMinor: number | null;
  currency: string | null;
  /**
   * The customer the provider confirmed, masked (`c•••@example.com`, `+254•••678`: docs/privacy.md,
   * "Masked forms"); both `null` when unverified. Never the values: they are sealed.
   */
  customer: { email: string | null; phone: string | null };
  /** Whether amount and customer come from the provider's verified answer (false for M-Pesa). */
  termsVerified: boolean;
  /** The provider's own status of the payment, as it answered. */
  providerStatus: string | null;
  /** The provider's own id of the payment. */
  providerTransactionId: string | null;
  /** When the provider confirmed it, ISO 8601 UTC (milliseconds). */
  verifiedAt: string;
}

/** A keyset page of a queue. */
export interface QueueQuery {
  /** The last row of the previous page. */
  after?: KeysetCursor | undefined;
  /** 1..100. */
  limit: number;
}

/** Filters and page of the transaction list. */
export interface ListQuery {
  /** A reference prefix, or exactly a user id, an email (case-insensitive) or a phone. */
  q?: string | undefined;
  provider?: string | undefined;
  state?: string | undefined;
  entitlement?: string | undefined;
  /** The money state after settlement (`disputed` for the disputes queue). */
  moneyState?: string | undefined;
  /** Leaves out State Mismatches resolved for good (accepted as paid, or refunded): the State Mismatch queue's open ones. */
  unresolved?: boolean | undefined;
  /** Last changed at or after this time (`updated_at`), ISO 8601. */
  from?: string | undefined;
  /** Last changed before this time, ISO 8601. */
  to?: string | undefined;
  /** The last row of the previous page. */
  after?: KeysetCursor | undefined;
  /** 1..100. */
  limit: number;
}

export interface SummaryRow {
  reference: string;
  provider: string;
  state: string;
  entitlement_status: string;
  amount_minor: number;
  currency: string;
  user_id: string | null;
  customer_email: string | null;
  updated_at: Date;
  updated_at_text: string;
}

export interface DetailRow extends SummaryRow {
  entitlement: string | null;
  access_period: string | null;
  checks: CheckView[] | null;
  last_verdict: string | null;
  last_trigger: string | null;
  money_state: string;
  returned_minor: string | number;
  resolution: string | null;
}

export const SUMMARY_COLUMNS = `t.reference, t.provider, t.state, t.entitlement_status, t.amount_minor, t.currency,
  c.user_id, c.customer_email, t.updated_at,
  to_char(t.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS updated_at_text`;

export function summaryOf(row: SummaryRow): TransactionSummary {
  return {
    reference: row.reference,
    provider: row.provider,
    state: row.state,
    entitlementStatus: row.entitlement_status,
    amountMinor: row.amount_minor,
    currency: row.currency,
    userId: row.user_id,
    email: row.customer_email,
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * Most references a search prefix may match to be answered from its candidates (index probes,
 * then a sort of those alone); a broader prefix is matched while walking the newest-first index.
 */
export const NARROW_SEARCH = 1_000;

/**
 * The smallest string above every string that starts with `prefix`, in byte order (`COLLATE
 * "C"`): `prefix` followed by the highest code point, so `[prefix, bound)` is exactly the
 * strings starting with `prefix`.
 */
export function prefixUpperBound(prefix: string): string {
  return `${prefix}\u{10FFFF}`;
}

/** Epoch milliseconds as `pg` answers a `bigint` (text) or a number, as ISO 8601; `null` stays `null`. */
export function isoOfEpochMs(value: string | number | null): string | null {
  return value === null ? null : new Date(Number(value)).toISOString();
}

export interface QueueRow extends SummaryRow {
  due_at: string | number | null;
  watch_checks: number | null;
}

export interface ManualRow extends QueueRow {
  last_verdict: string | null;
  last_trigger: string | null;
  event_type: string | null;
  event_recorded_at: Date | null;
  event_detail: string | null;
}

/** Keyset condition and order of the queues: oldest first, `(updated_at, reference)` ascending. */
export function queuePage(query: QueueQuery, values: unknown[]): { after: string; limit: string } {
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const after = query.after ? `AND (t.updated_at, t.reference) > (${param(query.after.at)}::timestamptz, ${param(query.after.reference)})` : '';
  return { after, limit: param(query.limit + 1) };
}

/** The page and the cursor after its last row (`null` when `rows` holds no more than `limit`). */
export function pageOf<R extends SummaryRow>(rows: R[], limit: number): { page: R[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, nextCursor: rows.length > limit && last ? encodeKeysetCursor({ at: last.updated_at_text, reference: last.reference }) : null };
}

/** Where a provider's answer holds the value a check observed (its definition's `observedFields`), `null` when unknown. */
export function observedField(provider: string, check: string): string | null {
  const fields = providerDefinition(provider)?.observedFields as Readonly<Record<string, string>> | undefined;
  return fields?.[check] ?? null;
}

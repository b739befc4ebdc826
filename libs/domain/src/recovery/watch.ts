import { assertNever, DomainError } from '../shared/errors.js';
import { isTerminal, type TransactionStatus, type VerificationTrigger } from '../transaction/types.js';

/**
 * One piece of activity the sweeper sees for a transaction, taken from the transaction's
 * Kafka streams. `at` is when the activity happened (epoch ms), not when it was consumed,
 * so a lagging sweeper still computes the same due times.
 *
 * Activity is *progress* when it is not the sweeper's own re-check or an unchanged answer to
 * one: registration, completion, a webhook, a verification somebody else asked for (a
 * customer, an admin, a webhook), and an outcome that changed the state. Progress starts a
 * new episode: the re-check count goes back to zero.
 */
export type Activity =
  | { readonly kind: 'registered'; readonly at: number }
  | { readonly kind: 'completed'; readonly at: number }
  | { readonly kind: 'webhook_received'; readonly at: number }
  | { readonly kind: 'verification_requested'; readonly at: number; readonly bySweeper: boolean }
  | { readonly kind: 'outcome'; readonly at: number; readonly status: TransactionStatus; readonly changed: boolean }
  /**
   * The verifier's answer about an unmatched payment candidate (docs/unmatched-payments.md):
   * `resolved` when the provider gave a final answer (recorded as an unmatched payment, or
   * declined), so nothing is left to re-check until a checkout is registered.
   */
  | { readonly kind: 'unmatched_observed'; readonly at: number; readonly resolved: boolean };

/** What the sweeper remembers of one transaction. */
export interface Watch {
  readonly reference: string;
  /** Latest activity of any kind, epoch ms. */
  readonly lastActivityAt: number;
  /** Latest progress (see {@link Activity}), epoch ms; `null` before any. */
  readonly progressAt: number | null;
  /**
   * Whether the checkout is registered. Before it is, only a correctly signed webhook arms the
   * watch, as an unmatched payment candidate (docs/unmatched-payments.md).
   */
  readonly registered: boolean;
  readonly completed: boolean;
  readonly webhookSeen: boolean;
  /**
   * The provider gave a final answer about this reference while it had no checkout (an
   * unmatched payment recorded, or a decline): its candidate checks are over.
   */
  readonly unmatchedResolved: boolean;
  /** Furthest state seen in a consensus result (states only move forward, see {@link statusRank}). */
  readonly status: TransactionStatus;
  /** Verification requests the sweeper itself made since the latest progress. */
  readonly checks: number;
  /** When the sweeper last requested a verification, epoch ms; `null` in a fresh episode. */
  readonly lastCheckAt: number | null;
  /** When a verification is due, epoch ms; `null` when nothing is scheduled. */
  readonly dueAt: number | null;
}

/**
 * The re-check schedule of a transaction the sweeper already asked about: exponential
 * backoff from `initialDelayMs`, multiplied by `backoffFactor` after each re-check, capped at
 * `maxDelayMs`, spread by +/- `jitterRatio`, and ended after `limit` re-checks by the move to
 * manual review. Compare the peers in docs/state-machine.md (Hyperswitch: 60 s, then every
 * 300 s, five times; Kill Bill: pending at 1 h, then 1 d).
 */
export interface RecheckPolicy {
  /** Wait before the first re-check of a held-in-review transaction, and between the first two re-checks of any transaction, milliseconds. Default 60 000. */
  readonly initialDelayMs: number;
  /** Growth of the wait from one re-check to the next. Default 2. */
  readonly backoffFactor: number;
  /** Longest wait between two re-checks, milliseconds. Default 3 600 000 (one hour). */
  readonly maxDelayMs: number;
  /** Spread of each wait, as a fraction (0.1 is +/- 10 %), so a burst of transactions held at once is not re-checked all at once. Default 0.1. */
  readonly jitterRatio: number;
  /** Automatic re-checks per episode; the last one asks for manual review unless it settles the transaction. Default 30 (about 24 h). */
  readonly limit: number;
}

/** Sweeper timing rules. */
export interface RecoveryPolicy {
  /**
   * Inactivity after which a transaction counts as orphaned, in milliseconds. The spec
   * (sections 1 and 8) says "more than 45 seconds": default 45 000.
   */
  readonly inactivityMs: number;
  readonly recheck: RecheckPolicy;
}

/** Defaults of the re-check schedule: 60 s, 60 s, 2 min, 4 min ... 1 h, 30 re-checks, about 24 h. */
export const DEFAULT_RECHECK_POLICY: RecheckPolicy = {
  initialDelayMs: 60_000,
  backoffFactor: 2,
  maxDelayMs: 3_600_000,
  jitterRatio: 0.1,
  limit: 30,
};

/** The spec's default policy (docs/spec.md, section 8) with the default re-check schedule. */
export const DEFAULT_RECOVERY_POLICY: RecoveryPolicy = { inactivityMs: 45_000, recheck: DEFAULT_RECHECK_POLICY };

/**
 * Rank of a state on the only way states move (docs/state-machine.md): PENDING, then
 * RECOVERING, then MANUAL_REVIEW, then a terminal state. Folding by rank makes the watch
 * independent of the order in which consensus results arrive. Terminal states never follow
 * one another; they get distinct ranks only so that even an impossible history folds the same
 * way in any order.
 */
export function statusRank(status: TransactionStatus): number {
  switch (status) {
    case 'PENDING':
      return 0;
    case 'RECOVERING':
      return 1;
    case 'MANUAL_REVIEW':
      return 2;
    case 'FAILED_DECLINED':
      return 3;
    case 'STATE_MISMATCH':
      return 4;
    case 'SETTLED_CONSENSUS':
      return 5;
    default:
      return assertNever(status);
  }
}

/**
 * Whether the sweeper stops asking about a transaction in this state: terminal states, and
 * manual review (a person owns it; an admin's reconciliation can still settle it).
 */
export function stopsAutomaticRecovery(status: TransactionStatus): boolean {
  return isTerminal(status) || status === 'MANUAL_REVIEW';
}

function isProgress(activity: Activity): boolean {
  switch (activity.kind) {
    case 'registered':
    case 'completed':
    case 'webhook_received':
      return true;
    case 'verification_requested':
      return !activity.bySweeper;
    case 'outcome':
      return activity.changed;
    case 'unmatched_observed':
      return false;
    default:
      return assertNever(activity);
  }
}

/** FNV-1a over the text, as a fraction in [0, 1): the same input always spreads the same way. */
function unitHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) / 2 ** 32;
}

/**
 * Wait after the sweeper's `checks`-th request before the next one, milliseconds:
 * `min(maxDelayMs, initialDelayMs * backoffFactor^(checks - 1))`, spread by a jitter derived
 * from the reference and the count (deterministic, so a restored sweeper computes the same
 * time). Once the limit is reached, the final request is repeated every `maxDelayMs` until its
 * answer arrives, so even a verifier outage never ends in silence.
 *
 * @param checks - requests made so far in the episode, at least 1.
 * @throws DomainError `RECOVERY.INVALID_CHECK_COUNT` when `checks` is below 1.
 */
export function recheckDelay(checks: number, reference: string, policy: RecheckPolicy): number {
  if (!Number.isInteger(checks) || checks < 1) {
    throw new DomainError('RECOVERY.INVALID_CHECK_COUNT', `A re-check delay needs at least one earlier check, got ${checks}`);
  }
  if (checks >= policy.limit) return policy.maxDelayMs;
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.backoffFactor ** (checks - 1));
  const spread = base * policy.jitterRatio * (2 * unitHash(`${reference}\u001f${checks}`) - 1);
  return Math.max(1, Math.round(base + spread));
}

/**
 * The due time of a watch under a policy (see {@link Watch.dueAt}). A reference without a
 * checkout is due only as an unmatched payment candidate: after a correctly signed webhook, the
 * same inactivity window as a registered checkout's (the grace period in which an honest
 * registration racing its webhook wins), then the re-check schedule while the provider has no
 * final answer, ending at the limit (a reconciliation run is the backstop).
 */
function dueAtOf(watch: Omit<Watch, 'dueAt'>, policy: RecoveryPolicy): number | null {
  if (!watch.registered) {
    if (!watch.webhookSeen || watch.unmatchedResolved || watch.checks >= policy.recheck.limit) return null;
    if (watch.checks === 0 || watch.lastCheckAt === null) return watch.lastActivityAt + policy.inactivityMs;
    return watch.lastCheckAt + recheckDelay(watch.checks, watch.reference, policy.recheck);
  }
  if (stopsAutomaticRecovery(watch.status)) return null;
  if (watch.checks === 0 || watch.lastCheckAt === null) {
    // docs/spec.md, section 8: no activity for more than 45 s. A transaction held in review waits the
    // first re-check delay instead: the provider has just said it is still clearing.
    const window = watch.status === 'RECOVERING' ? policy.recheck.initialDelayMs : policy.inactivityMs;
    return watch.lastActivityAt + window;
  }
  return watch.lastCheckAt + recheckDelay(watch.checks, watch.reference, policy.recheck);
}

/**
 * Folds one activity into a watch. Activity never moves time backwards: a late,
 * out-of-order message does not make a transaction look older than it is. The state only
 * moves forward (by {@link statusRank}); once the sweeper stops (terminal or manual review) it
 * is never due again. Before its checkout is registered, a watch is armed only by a correctly
 * signed webhook, as an unmatched payment candidate after the grace period (a webhook racing
 * its registration is verified as a checkout once the registration arrives), so a reference
 * nobody registered and nobody paid (a spoofed webhook is not activity) never causes provider
 * queries. Progress newer than the sweeper's last request starts a new episode.
 *
 * @param watch - the current watch, or `null` for a reference seen for the first time.
 * @throws DomainError `RECOVERY.INVALID_ACTIVITY_TIME` when `activity.at` is not finite.
 */
export function observe(watch: Watch | null, reference: string, activity: Activity, policy: RecoveryPolicy): Watch {
  if (!Number.isFinite(activity.at)) {
    // A NaN time would make the watch never due again: refuse it loudly instead.
    throw new DomainError('RECOVERY.INVALID_ACTIVITY_TIME', `Activity time for ${reference} is not a number`);
  }
  const current: Watch = watch ?? {
    reference,
    lastActivityAt: activity.at,
    progressAt: null,
    dueAt: null,
    registered: false,
    completed: false,
    webhookSeen: false,
    unmatchedResolved: false,
    status: 'PENDING',
    checks: 0,
    lastCheckAt: null,
  };
  let { registered, completed, webhookSeen, unmatchedResolved, status, checks, lastCheckAt, progressAt } = current;
  switch (activity.kind) {
    case 'registered':
      registered = true;
      break;
    case 'completed':
      completed = true;
      break;
    case 'webhook_received':
      webhookSeen = true;
      break;
    case 'verification_requested':
      break;
    case 'outcome':
      if (statusRank(activity.status) > statusRank(status)) status = activity.status;
      break;
    case 'unmatched_observed':
      unmatchedResolved ||= activity.resolved;
      break;
    default:
      assertNever(activity);
  }
  if (isProgress(activity)) {
    progressAt = Math.max(progressAt ?? activity.at, activity.at);
    if (lastCheckAt === null || activity.at > lastCheckAt) {
      checks = 0;
      lastCheckAt = null;
    }
  }
  const next = {
    reference,
    lastActivityAt: Math.max(current.lastActivityAt, activity.at),
    progressAt,
    registered,
    completed,
    webhookSeen,
    unmatchedResolved,
    status,
    checks,
    lastCheckAt,
  };
  return { ...next, dueAt: dueAtOf(next, policy) };
}

/**
 * Whether a verification is due: strictly more than the window has passed
 * (docs/spec.md, section 8: "more than 45 seconds").
 *
 * @param now - epoch ms.
 */
export function isDue(watch: Watch, now: number): boolean {
  return watch.dueAt !== null && now > watch.dueAt;
}

/**
 * Which automatic trigger of docs/spec.md (section 1) a due watch stands for: a completed
 * checkout whose webhook never came, or any other orphaned transaction; a re-check of one held
 * in review; or, at the limit, the final re-check whose unresolved answer means manual review.
 * A reference without a checkout is an unmatched payment candidate (`unmatched_payment`), at
 * the limit too: no checkout, so no manual review.
 *
 * @param policy - the limit comes from `policy.recheck.limit`.
 */
export function dueTrigger(watch: Watch, policy: RecoveryPolicy = DEFAULT_RECOVERY_POLICY): VerificationTrigger {
  if (!watch.registered) return 'unmatched_payment';
  if (watch.checks + 1 >= policy.recheck.limit) return 'sweeper_review_limit';
  if (watch.status === 'RECOVERING') return 'sweeper_review_recheck';
  return watch.completed && !watch.webhookSeen ? 'sweeper_webhook_missing' : 'sweeper_orphaned';
}

/** The sweeper's verification request for a due watch. */
export interface SweeperRequest {
  readonly trigger: VerificationTrigger;
  /** 1-based number of this request in the episode. */
  readonly check: number;
  /** Whether this is the final request (the limit), whose unresolved answer means manual review. */
  readonly final: boolean;
  /** The due time it answers, epoch ms: with the reference, the request's identity. */
  readonly dueAt: number;
}

/**
 * Fires a due watch: the request to publish, and the watch re-armed on the re-check schedule.
 *
 * @param now - epoch ms.
 * @throws DomainError `RECOVERY.NOT_DUE` when the watch is not due at `now`.
 */
export function fire(watch: Watch, now: number, policy: RecoveryPolicy): { request: SweeperRequest; watch: Watch } {
  if (!isDue(watch, now)) throw new DomainError('RECOVERY.NOT_DUE', `Watch ${watch.reference} is not due at ${now}`);
  const trigger = dueTrigger(watch, policy);
  const check = watch.checks + 1;
  const next = { ...watch, checks: check, lastCheckAt: now };
  return {
    request: { trigger, check, final: trigger === 'sweeper_review_limit', dueAt: watch.dueAt! },
    watch: { ...next, dueAt: dueAtOf(next, policy) },
  };
}

import { assertNever, DomainError } from '../shared/errors.js';
import type { VerificationTrigger } from '../transaction/types.js';

/**
 * One piece of activity the sweeper sees for a transaction, taken from the transaction's
 * Kafka streams. `at` is when the activity happened (epoch ms), not when it was consumed,
 * so a lagging sweeper still computes the same due times.
 */
export type Activity =
  | { readonly kind: 'registered'; readonly at: number }
  | { readonly kind: 'completed'; readonly at: number }
  | { readonly kind: 'webhook_received'; readonly at: number }
  | { readonly kind: 'verification_requested'; readonly at: number }
  | { readonly kind: 'outcome'; readonly at: number; readonly terminal: boolean };

/** What the sweeper remembers of one transaction. */
export interface Watch {
  readonly reference: string;
  /** Latest activity, epoch ms. */
  readonly lastActivityAt: number;
  /** When a verification is due, epoch ms; `null` once the transaction is terminal. */
  readonly dueAt: number | null;
  /** Armed only once the checkout is registered: a webhook for an unknown reference waits. */
  readonly registered: boolean;
  readonly completed: boolean;
  readonly webhookSeen: boolean;
  readonly terminal: boolean;
}

/** Sweeper timing rules. */
export interface RecoveryPolicy {
  /**
   * Inactivity after which a transaction counts as orphaned, in milliseconds. The spec
   * (sections 1 and 8) says "more than 45 seconds": default 45 000.
   */
  readonly inactivityMs: number;
}

/** The spec's default policy (section 8). */
export const DEFAULT_RECOVERY_POLICY: RecoveryPolicy = { inactivityMs: 45_000 };

/**
 * Folds one activity into a watch. Activity never moves time backwards: a late,
 * out-of-order message does not make a transaction look older than it is. Once terminal,
 * a watch stays terminal and is never due again. A watch is armed only once its checkout is
 * registered: a webhook racing the checkout waits for the registration, and references
 * nobody registered never cause provider queries.
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
    dueAt: null,
    registered: false,
    completed: false,
    webhookSeen: false,
    terminal: false,
  };
  const lastActivityAt = Math.max(current.lastActivityAt, activity.at);
  let { registered, completed, webhookSeen, terminal } = current;
  switch (activity.kind) {
    case 'registered':
      registered = true;
      break;
    case 'verification_requested':
      break;
    case 'completed':
      completed = true;
      break;
    case 'webhook_received':
      webhookSeen = true;
      break;
    case 'outcome':
      terminal = terminal || activity.terminal;
      break;
    default:
      assertNever(activity);
  }
  return {
    reference,
    lastActivityAt,
    registered,
    completed,
    webhookSeen,
    terminal,
    dueAt: terminal || !registered ? null : lastActivityAt + policy.inactivityMs,
  };
}

/**
 * Whether a verification is due: strictly more than the inactivity window has passed
 * (spec section 8: "more than 45 seconds").
 *
 * @param now - epoch ms.
 */
export function isDue(watch: Watch, now: number): boolean {
  return watch.dueAt !== null && now > watch.dueAt;
}

/**
 * Which automatic trigger of the spec (section 1) a due watch stands for: a completed
 * checkout whose webhook never came, or any other orphaned transaction.
 */
export function dueTrigger(watch: Watch): VerificationTrigger {
  return watch.completed && !watch.webhookSeen ? 'sweeper_webhook_missing' : 'sweeper_orphaned';
}

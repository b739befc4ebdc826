import { assertNever } from '../shared/errors.js';
import { addAccessPeriod, type AccessPeriod } from './access-period.js';

/**
 * Kinds of grant a customer's backend receives (docs/spec.md, section 6, "Events"):
 * `subscription_started` grants the named entitlement to the user the first time;
 * `subscription_renewed` extends access afterwards (and may reach the receiver first).
 */
export const GRANT_EVENT_KINDS = ['subscription_started', 'subscription_renewed'] as const;
/** One of {@link GRANT_EVENT_KINDS}. */
export type GrantEventKind = (typeof GRANT_EVENT_KINDS)[number];

/**
 * Kinds of access change a customer's backend receives when the money of a payment moves after
 * it settled (docs/delivery.md, "Access follows the money"): `subscription_revoked` takes back
 * what the payment bought (the expiry may move earlier, or end now); `subscription_reinstated`
 * gives it back (a suspending dispute won, a refund that failed after it was recorded).
 */
export const ACCESS_CHANGE_EVENT_KINDS = ['subscription_revoked', 'subscription_reinstated'] as const;
/** One of {@link ACCESS_CHANGE_EVENT_KINDS}. */
export type AccessChangeEventKind = (typeof ACCESS_CHANGE_EVENT_KINDS)[number];

/** Every kind of entitlement event a customer's backend receives: the grants, then the access changes. */
export const ENTITLEMENT_EVENT_KINDS = [...GRANT_EVENT_KINDS, ...ACCESS_CHANGE_EVENT_KINDS] as const;
/** One of {@link ENTITLEMENT_EVENT_KINDS}. */
export type EntitlementEventKind = (typeof ENTITLEMENT_EVENT_KINDS)[number];

/**
 * A settled payment granted access: the ledger fact behind every entitlement event
 * (docs/delivery.md). Times are epoch milliseconds; `expiresAt` is computed once, here, from
 * ledger facts only, and never changes for `eventId`.
 */
export interface EntitlementGranted {
  readonly type: 'EntitlementGranted';
  readonly data: {
    /** The customer-facing idempotency key (docs/spec.md, section 2, `event_id`). */
    readonly eventId: string;
    readonly event: GrantEventKind;
    readonly userId: string;
    readonly entitlement: string;
    /** Reference of the settled payment that bought it. */
    readonly reference: string;
    readonly accessPeriod: AccessPeriod;
    /** When the payment settled (the consensus decision time), epoch ms. */
    readonly settledAt: number;
    /** The later of the stored expiry and `settledAt`: where the bought period begins, epoch ms. */
    readonly startsAt: number;
    /** Expiry before this grant, `null` for the first grant. */
    readonly previousExpiresAt: number | null;
    /** `startsAt` plus the access period (docs/spec.md, section 2, `expires_at`), epoch ms. */
    readonly expiresAt: number;
  };
}

/**
 * Why a grant stopped being in force (docs/delivery.md, "Access follows the money"): the payment
 * that bought it was `refunded` in full, `partially_refunded` under a policy that revokes,
 * `reversed`, `charged_back` (a dispute lost), or is `disputed` under a policy that suspends.
 */
export const REVOCATION_REASONS = ['refunded', 'partially_refunded', 'reversed', 'charged_back', 'disputed'] as const;
/** One of {@link REVOCATION_REASONS}. */
export type RevocationReason = (typeof REVOCATION_REASONS)[number];

/**
 * The grant a payment bought is no longer in force: the access expiry is recomputed from the
 * grants still in force ({@link expiryOfGrants}) and may move earlier, or end now.
 */
export interface EntitlementRevoked {
  readonly type: 'EntitlementRevoked';
  readonly data: {
    /** The customer-facing idempotency key. */
    readonly eventId: string;
    readonly userId: string;
    readonly entitlement: string;
    /** Reference of the payment whose grant is revoked. */
    readonly reference: string;
    readonly reason: RevocationReason;
    /** epoch ms */
    readonly revokedAt: number;
    /** Expiry before the revocation, epoch ms. */
    readonly previousExpiresAt: number | null;
    /** Expiry from the grants still in force; the revocation time when none is left, epoch ms. */
    readonly expiresAt: number;
  };
}

/**
 * A revoked grant is in force again (a suspending dispute won, a refund that failed after it
 * was recorded): the expiry is recomputed with it ({@link expiryOfGrants}).
 */
export interface EntitlementReinstated {
  readonly type: 'EntitlementReinstated';
  readonly data: {
    readonly eventId: string;
    readonly userId: string;
    readonly entitlement: string;
    readonly reference: string;
    /** epoch ms */
    readonly reinstatedAt: number;
    readonly previousExpiresAt: number | null;
    /** epoch ms */
    readonly expiresAt: number;
  };
}

/** Every event of an entitlement stream (one stream per user and entitlement). */
export type EntitlementEvent = EntitlementGranted | EntitlementRevoked | EntitlementReinstated;

/** Grant what a settled payment bought. Ids and times come in with the command. */
export interface GrantEntitlement {
  readonly type: 'GrantEntitlement';
  readonly data: {
    /** Deterministic id of the grant (derived by the caller from the settlement's ledger event). */
    readonly eventId: string;
    readonly userId: string;
    readonly entitlement: string;
    readonly reference: string;
    readonly accessPeriod: AccessPeriod;
    /** epoch ms */
    readonly settledAt: number;
  };
}

/** Take back the grant a payment bought. Ids and times come in with the command. */
export interface RevokeEntitlement {
  readonly type: 'RevokeEntitlement';
  readonly data: {
    readonly eventId: string;
    readonly reference: string;
    readonly reason: RevocationReason;
    /** epoch ms */
    readonly revokedAt: number;
  };
}

/** Put a revoked grant back in force. Ids and times come in with the command. */
export interface ReinstateEntitlement {
  readonly type: 'ReinstateEntitlement';
  readonly data: {
    readonly eventId: string;
    readonly reference: string;
    /** epoch ms */
    readonly reinstatedAt: number;
  };
}

/** What a grant bought, kept to recompute the expiry when another grant is revoked. */
export interface GrantTerms {
  readonly reference: string;
  /** epoch ms */
  readonly settledAt: number;
  readonly accessPeriod: AccessPeriod;
}

/** State of one (user, entitlement) stream, folded from its events. */
export interface EntitlementState {
  /** Grants so far (revoked ones included). */
  readonly grants: number;
  /** Events in the stream so far (grants, revocations, reinstatements): its next expected revision. */
  readonly streamLength: number;
  /** Current access expiry, epoch ms; `null` before the first grant. */
  readonly expiresAt: number | null;
  /** References already granted: a settlement grants once, whatever redelivers it. */
  readonly references: ReadonlySet<string>;
  /** Every grant's terms, in stream order. */
  readonly granted: readonly GrantTerms[];
  /** References whose grant is revoked (not reinstated since). */
  readonly revoked: ReadonlySet<string>;
  /** User and entitlement of the stream, `null` before the first grant. */
  readonly owner: { readonly userId: string; readonly entitlement: string } | null;
}

/** State before any grant. */
export function initialEntitlementState(): EntitlementState {
  return { grants: 0, streamLength: 0, expiresAt: null, references: new Set(), granted: [], revoked: new Set(), owner: null };
}

/**
 * The access expiry the grants in force give, epoch ms, `null` when none is: each grant's period
 * starts at the later of the expiry before it and its settlement, in stream order, the rule
 * {@link decideGrant} applies. So after a revocation the expiry is what it would have been had
 * the revoked payment never been made (docs/delivery.md, "Access follows the money": the later
 * grants move earlier by what the revoked one added, never by more).
 */
export function expiryOfGrants(grants: readonly GrantTerms[]): number | null {
  let expiresAt: number | null = null;
  for (const grant of grants) {
    const startsAt: number = expiresAt === null ? grant.settledAt : Math.max(expiresAt, grant.settledAt);
    expiresAt = addAccessPeriod(startsAt, grant.accessPeriod);
  }
  return expiresAt;
}

function inForce(state: EntitlementState, revoked: ReadonlySet<string>): GrantTerms[] {
  return state.granted.filter((g) => !revoked.has(g.reference));
}

/**
 * Decides the revocation of the grant a payment bought (docs/delivery.md, "Access follows the
 * money"): the expiry becomes {@link expiryOfGrants} of the grants still in force, or the
 * revocation time when none is left (access ends now). A reference never granted, or already
 * revoked, decides nothing.
 *
 * @throws RangeError when an expiry falls outside the calendar (as {@link decideGrant}).
 */
export function decideRevoke(command: RevokeEntitlement, state: EntitlementState): EntitlementRevoked[] {
  const c = command.data;
  if (!state.references.has(c.reference) || state.revoked.has(c.reference) || state.owner === null) return [];
  const expiresAt = expiryOfGrants(inForce(state, new Set([...state.revoked, c.reference])));
  return [
    {
      type: 'EntitlementRevoked',
      data: {
        eventId: c.eventId,
        ...state.owner,
        reference: c.reference,
        reason: c.reason,
        revokedAt: c.revokedAt,
        previousExpiresAt: state.expiresAt,
        expiresAt: expiresAt ?? c.revokedAt,
      },
    },
  ];
}

/**
 * Decides putting a revoked grant back in force: the expiry becomes {@link expiryOfGrants} with
 * it again. A reference not revoked decides nothing.
 */
export function decideReinstate(command: ReinstateEntitlement, state: EntitlementState): EntitlementReinstated[] {
  const c = command.data;
  if (!state.revoked.has(c.reference) || state.owner === null) return [];
  const revoked = new Set(state.revoked);
  revoked.delete(c.reference);
  return [
    {
      type: 'EntitlementReinstated',
      data: {
        eventId: c.eventId,
        ...state.owner,
        reference: c.reference,
        reinstatedAt: c.reinstatedAt,
        previousExpiresAt: state.expiresAt,
        expiresAt: expiryOfGrants(inForce(state, revoked)) ?? c.reinstatedAt,
      },
    },
  ];
}

/**
 * Decides the grant a settled payment causes (docs/delivery.md, "Grants are ledger facts"):
 * - the first grant of the stream is `subscription_started`, every later one `subscription_renewed`;
 * - the bought period starts at the later of the stored expiry and the settlement time, so a
 *   renewal paid early extends the current access and one paid after a lapse starts afresh;
 * - `expiresAt` = that start plus the access period ({@link addAccessPeriod});
 * - a reference already granted decides nothing (one grant per settled payment).
 *
 * Pure: ids and times come in with the command.
 *
 * @throws RangeError when the expiry falls outside the calendar (not for periods up to ten years).
 */
export function decideGrant(command: GrantEntitlement, state: EntitlementState): EntitlementGranted[] {
  const c = command.data;
  if (state.references.has(c.reference)) return [];
  // The grants in force give the expiry this one extends: the stored expiry, except after a
  // revocation that left none (which ended access at its own time, not at a grant's).
  const current = state.revoked.size === 0 ? state.expiresAt : expiryOfGrants(inForce(state, state.revoked));
  const startsAt = current === null ? c.settledAt : Math.max(current, c.settledAt);
  return [
    {
      type: 'EntitlementGranted',
      data: {
        eventId: c.eventId,
        event: state.grants === 0 ? 'subscription_started' : 'subscription_renewed',
        userId: c.userId,
        entitlement: c.entitlement,
        reference: c.reference,
        accessPeriod: c.accessPeriod,
        settledAt: c.settledAt,
        startsAt,
        previousExpiresAt: state.expiresAt,
        expiresAt: addAccessPeriod(startsAt, c.accessPeriod),
      },
    },
  ];
}

/** Folds one event into the state. A grant only moves the expiry forward; a revocation may move it back. */
export function evolveEntitlement(state: EntitlementState, event: EntitlementEvent): EntitlementState {
  const streamLength = state.streamLength + 1;
  switch (event.type) {
    case 'EntitlementGranted': {
      const d = event.data;
      return {
        ...state,
        grants: state.grants + 1,
        streamLength,
        // After a revocation the grant's own expiry is the one in force (it extends the grants in force).
        expiresAt: state.expiresAt === null || state.revoked.size > 0 ? d.expiresAt : Math.max(state.expiresAt, d.expiresAt),
        references: new Set([...state.references, d.reference]),
        granted: [...state.granted, { reference: d.reference, settledAt: d.settledAt, accessPeriod: d.accessPeriod }],
        owner: state.owner ?? { userId: d.userId, entitlement: d.entitlement },
      };
    }
    case 'EntitlementRevoked':
      return { ...state, streamLength, expiresAt: event.data.expiresAt, revoked: new Set([...state.revoked, event.data.reference]) };
    case 'EntitlementReinstated': {
      const revoked = new Set(state.revoked);
      revoked.delete(event.data.reference);
      return { ...state, streamLength, expiresAt: event.data.expiresAt, revoked };
    }
    default:
      return assertNever(event);
  }
}

/** Folds a whole stream, oldest first. */
export function foldEntitlement(events: readonly EntitlementEvent[], from: EntitlementState = initialEntitlementState()): EntitlementState {
  return events.reduce(evolveEntitlement, from);
}

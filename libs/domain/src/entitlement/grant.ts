import { assertNever } from '../shared/errors.js';
import { addAccessPeriod, type AccessPeriod } from './access-period.js';

/**
 * Kinds of entitlement event a customer's backend receives (docs/spec.md, section 6, "Events"):
 * `subscription_started` grants the named entitlement to the user the first time;
 * `subscription_renewed` extends access afterwards (and may reach the receiver first).
 */
export const ENTITLEMENT_EVENT_KINDS = ['subscription_started', 'subscription_renewed'] as const;
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
    readonly event: EntitlementEventKind;
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

/** Every event of an entitlement stream (one stream per user and entitlement). */
export type EntitlementEvent = EntitlementGranted;

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

/** State of one (user, entitlement) stream, folded from its events. */
export interface EntitlementState {
  /** Grants so far: the stream's length, so its next expected revision. */
  readonly grants: number;
  /** Current access expiry, epoch ms; `null` before the first grant. */
  readonly expiresAt: number | null;
  /** References already granted: a settlement grants once, whatever redelivers it. */
  readonly references: ReadonlySet<string>;
}

/** State before any grant. */
export function initialEntitlementState(): EntitlementState {
  return { grants: 0, expiresAt: null, references: new Set() };
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
export function decideGrant(command: GrantEntitlement, state: EntitlementState): EntitlementEvent[] {
  const c = command.data;
  if (state.references.has(c.reference)) return [];
  const startsAt = state.expiresAt === null ? c.settledAt : Math.max(state.expiresAt, c.settledAt);
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

/** Folds one event into the state. Expiry only moves forward. */
export function evolveEntitlement(state: EntitlementState, event: EntitlementEvent): EntitlementState {
  switch (event.type) {
    case 'EntitlementGranted':
      return {
        grants: state.grants + 1,
        expiresAt: state.expiresAt === null ? event.data.expiresAt : Math.max(state.expiresAt, event.data.expiresAt),
        references: new Set([...state.references, event.data.reference]),
      };
    default:
      return assertNever(event.type);
  }
}

/** Folds a whole stream, oldest first. */
export function foldEntitlement(events: readonly EntitlementEvent[], from: EntitlementState = initialEntitlementState()): EntitlementState {
  return events.reduce(evolveEntitlement, from);
}

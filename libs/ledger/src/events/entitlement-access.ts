import { REVOCATION_REASONS, type EntitlementReinstated, type EntitlementRevoked } from '@settle/domain';
import { z } from 'zod';
import type { LedgerEventInput, RecordedLedgerEvent } from '../ports/ledger.port.js';
import { LedgerEventShapeError } from './transaction-outcome.js';

/** Type names of the access changes an entitlement stream holds beside its grants. */
export const ACCESS_CHANGE_TYPES = ['EntitlementRevoked', 'EntitlementReinstated'] as const;
/** One of {@link ACCESS_CHANGE_TYPES}. */
export type AccessChangeType = (typeof ACCESS_CHANGE_TYPES)[number];

/** Whether a ledger event type is an access change (not a grant). */
export function isAccessChangeType(type: string): type is AccessChangeType {
  return (ACCESS_CHANGE_TYPES as readonly string[]).includes(type);
}

/**
 * The `data` of an access change on an entitlement stream (docs/delivery.md, "Access follows the
 * money"): `EntitlementRevoked` (`event`: `subscription_revoked`, with its `reason`) or
 * `EntitlementReinstated` (`subscription_reinstated`), the expiry before and after it as ISO 8601
 * UTC strings with milliseconds, and the money fact that caused it. The one definition of the
 * payload: the projector writes it, the read model and the entitlement outbox read it. Unknown
 * extra fields are kept.
 */
export const accessChangeData = z.looseObject({
  /** The change's ledger event id, also the customer-facing `event_id`. */
  event_id: z.string().min(1),
  event: z.enum(['subscription_revoked', 'subscription_reinstated']),
  user_id: z.string(),
  entitlement: z.string(),
  /** Reference of the payment whose grant is revoked or reinstated. */
  reference: z.string().min(1),
  /** Why (a revocation only): the payment's money state that took the grant out of force. */
  reason: z.enum(REVOCATION_REASONS).nullable(),
  changed_at: z.iso.datetime(),
  previous_expires_at: z.iso.datetime().nullable(),
  expires_at: z.iso.datetime(),
  /** Ledger event id of the money fact (on the payment's transaction stream) that caused the change. */
  cause_event_id: z.string().min(1),
});

/** See {@link accessChangeData}. */
export type AccessChangeData = z.infer<typeof accessChangeData>;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The ledger event recording a revocation or reinstatement. Its event id is the domain event's
 * own (derived by the caller from the money fact), so appending it again is stored once.
 */
export function accessChangeLedgerEvent(
  change: EntitlementRevoked | EntitlementReinstated,
  cause: { moneyEventId: string; correlationId: string },
): LedgerEventInput & { type: AccessChangeType; data: AccessChangeData } {
  const d = change.data;
  const data: AccessChangeData = {
    event_id: d.eventId,
    event: change.type === 'EntitlementRevoked' ? 'subscription_revoked' : 'subscription_reinstated',
    user_id: d.userId,
    entitlement: d.entitlement,
    reference: d.reference,
    reason: change.type === 'EntitlementRevoked' ? change.data.reason : null,
    changed_at: iso(change.type === 'EntitlementRevoked' ? change.data.revokedAt : change.data.reinstatedAt),
    previous_expires_at: d.previousExpiresAt === null ? null : iso(d.previousExpiresAt),
    expires_at: iso(d.expiresAt),
    cause_event_id: cause.moneyEventId,
  };
  return { eventId: d.eventId, type: change.type, data, metadata: { correlationId: cause.correlationId, causationId: cause.moneyEventId } };
}

/**
 * The typed data of a stored access change.
 *
 * @throws LedgerEventShapeError when the event is not a well-formed access change.
 */
export function accessChangeOf(event: Pick<RecordedLedgerEvent, 'type' | 'data' | 'eventId' | 'position'>): { type: AccessChangeType; data: AccessChangeData } {
  const parsed = accessChangeData.safeParse(event.data);
  if (!isAccessChangeType(event.type) || !parsed.success) throw new LedgerEventShapeError(event.eventId, event.position, 'an access change');
  return { type: event.type, data: parsed.data };
}

/**
 * The domain event a stored access change stands for, to fold its stream's state.
 *
 * @throws LedgerEventShapeError when the event is not a well-formed access change.
 */
export function accessChangeEventOf(event: Pick<RecordedLedgerEvent, 'type' | 'data' | 'eventId' | 'position'>): EntitlementRevoked | EntitlementReinstated {
  const { type, data: d } = accessChangeOf(event);
  const common = {
    eventId: d.event_id,
    userId: d.user_id,
    entitlement: d.entitlement,
    reference: d.reference,
    previousExpiresAt: d.previous_expires_at === null ? null : Date.parse(d.previous_expires_at),
    expiresAt: Date.parse(d.expires_at),
  };
  if (type === 'EntitlementReinstated') return { type, data: { ...common, reinstatedAt: Date.parse(d.changed_at) } };
  if (d.reason === null) throw new LedgerEventShapeError(event.eventId, event.position, 'a revocation with its reason');
  return { type, data: { ...common, reason: d.reason, revokedAt: Date.parse(d.changed_at) } };
}

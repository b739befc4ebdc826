import { GRANT_EVENT_KINDS, type AccessPeriod, type EntitlementEvent, type EntitlementGranted } from '@settle/domain';
import { z } from 'zod';
import type { LedgerEventInput, RecordedLedgerEvent } from '../ports/ledger.port.js';
import { accessChangeEventOf, isAccessChangeType } from './entitlement-access.js';
import { LedgerEventShapeError } from './transaction-outcome.js';

/** Prefix (category) of the entitlement streams. */
export const ENTITLEMENT_STREAM_CATEGORY = 'entitlement';

/**
 * Ledger stream of one user's grants of one entitlement: `entitlement-<user>:<entitlement>`,
 * each part percent-encoded (so `:` can only be the separator and any user id is safe).
 */
export function entitlementStream(userId: string, entitlement: string): string {
  return `${ENTITLEMENT_STREAM_CATEGORY}-${encodeURIComponent(userId)}:${encodeURIComponent(entitlement)}`;
}

/** The user and entitlement of an entitlement stream, or `null` for any other stream. */
export function parseEntitlementStream(streamId: string): { userId: string; entitlement: string } | null {
  const match = /^entitlement-([^:]*):([^:]*)$/.exec(streamId);
  if (!match) return null;
  return { userId: decodeURIComponent(match[1]!), entitlement: decodeURIComponent(match[2]!) };
}

/**
 * The `data` of an `EntitlementGranted` ledger event: the grant as the customer's payload
 * states it (docs/spec.md, section 2), times as ISO 8601 UTC strings with milliseconds, plus what an
 * auditor needs to trace it (the period bought, where it started, the settlement behind it).
 * The one definition of the payload: the projector writes it, the read model and the
 * entitlement outbox read it. Unknown extra fields are kept.
 */
export const entitlementGrantedData = z.looseObject({
  /** The grant's ledger event id, also the customer-facing `event_id`. */
  event_id: z.string().min(1),
  event: z.enum(GRANT_EVENT_KINDS),
  user_id: z.string(),
  entitlement: z.string(),
  /** Reference of the settled payment. */
  reference: z.string().min(1),
  access_period: z.string().min(1),
  settled_at: z.iso.datetime(),
  starts_at: z.iso.datetime(),
  previous_expires_at: z.iso.datetime().nullable(),
  expires_at: z.iso.datetime(),
  /** Ledger event id of the settlement (`TransactionSettled`) that caused the grant. */
  settlement_event_id: z.string().min(1),
});

/** See {@link entitlementGrantedData}. */
export type EntitlementGrantedData = z.infer<typeof entitlementGrantedData>;

/**
 * The typed data of a stored `EntitlementGranted`.
 *
 * @throws LedgerEventShapeError when the event is not a well-formed grant (not written by the projector).
 */
export function entitlementGrantedOf(event: Pick<RecordedLedgerEvent, 'type' | 'data' | 'eventId' | 'position'>): EntitlementGrantedData {
  const parsed = entitlementGrantedData.safeParse(event.data);
  if (event.type !== 'EntitlementGranted' || !parsed.success) throw new LedgerEventShapeError(event.eventId, event.position, 'an entitlement grant');
  return parsed.data;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The ledger event recording a grant. Its event id is the grant's own (derived from the
 * settlement's ledger event id by the caller), so appending it again is stored once.
 */
export function entitlementLedgerEvent(
  grant: EntitlementGranted,
  cause: { settlementEventId: string; correlationId: string },
): LedgerEventInput & { data: EntitlementGrantedData } {
  const g = grant.data;
  const data: EntitlementGrantedData = {
    event_id: g.eventId,
    event: g.event,
    user_id: g.userId,
    entitlement: g.entitlement,
    reference: g.reference,
    access_period: g.accessPeriod,
    settled_at: iso(g.settledAt),
    starts_at: iso(g.startsAt),
    previous_expires_at: g.previousExpiresAt === null ? null : iso(g.previousExpiresAt),
    expires_at: iso(g.expiresAt),
    settlement_event_id: cause.settlementEventId,
  };
  return { eventId: g.eventId, type: grant.type, data, metadata: { correlationId: cause.correlationId, causationId: cause.settlementEventId } };
}

/**
 * The domain event a stored grant stands for, to fold a stream's state. A stored fact is taken
 * as it was recorded (its access period is not checked again against today's rules: the ledger
 * never changes its mind).
 *
 * @throws LedgerEventShapeError when the event is not a well-formed grant (not written by the projector).
 */
export function grantEventOf(event: Pick<RecordedLedgerEvent, 'type' | 'data' | 'eventId' | 'position'>): EntitlementGranted {
  const d = entitlementGrantedOf(event);
  return {
    type: 'EntitlementGranted',
    data: {
      eventId: d.event_id,
      event: d.event,
      userId: d.user_id,
      entitlement: d.entitlement,
      reference: d.reference,
      accessPeriod: d.access_period as AccessPeriod,
      settledAt: Date.parse(d.settled_at),
      startsAt: Date.parse(d.starts_at),
      previousExpiresAt: d.previous_expires_at === null ? null : Date.parse(d.previous_expires_at),
      expiresAt: Date.parse(d.expires_at),
    },
  };
}

/**
 * The domain event a stored event of an entitlement stream stands for (a grant, a revocation or a
 * reinstatement), to fold the stream's state.
 *
 * @throws LedgerEventShapeError when the event is none of them, well formed.
 */
export function entitlementEventOf(event: Pick<RecordedLedgerEvent, 'type' | 'data' | 'eventId' | 'position'>): EntitlementEvent {
  return isAccessChangeType(event.type) ? accessChangeEventOf(event) : grantEventOf(event);
}

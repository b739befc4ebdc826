import { ENTITLEMENT_EVENT_KINDS, type AccessPeriod, type EntitlementEvent, type EntitlementEventKind, type EntitlementGranted } from '@settle/domain';
import type { LedgerEventInput, RecordedLedgerEvent } from './ledger.port.js';

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
 */
export type EntitlementGrantedData = {
  /** The grant's ledger event id, also the customer-facing `event_id`. */
  event_id: string;
  event: EntitlementEventKind;
  user_id: string;
  entitlement: string;
  /** Reference of the settled payment. */
  reference: string;
  access_period: string;
  settled_at: string;
  starts_at: string;
  previous_expires_at: string | null;
  expires_at: string;
  /** Ledger event id of the settlement (`TransactionSettled`) that caused the grant. */
  settlement_event_id: string;
};

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
 * The domain event a stored `EntitlementGranted` stands for, to fold a stream's state. A stored
 * fact is taken as it was recorded (its access period is not checked again against today's
 * rules: the ledger never changes its mind).
 *
 * @throws Error when the event is not a well-formed grant (not written by the projector).
 */
export function entitlementEventOf(event: Pick<RecordedLedgerEvent, 'type' | 'data' | 'eventId' | 'position'>): EntitlementEvent {
  const d = event.data as Partial<EntitlementGrantedData>;
  const ms = (text: unknown) => (typeof text === 'string' ? Date.parse(text) : Number.NaN);
  const times = [ms(d.settled_at), ms(d.starts_at), ms(d.expires_at)];
  if (
    event.type !== 'EntitlementGranted' ||
    typeof d.event_id !== 'string' ||
    !(ENTITLEMENT_EVENT_KINDS as readonly unknown[]).includes(d.event) ||
    typeof d.user_id !== 'string' ||
    typeof d.entitlement !== 'string' ||
    typeof d.reference !== 'string' ||
    typeof d.access_period !== 'string' ||
    times.some(Number.isNaN)
  ) {
    throw new Error(`ledger event ${event.eventId} at position ${event.position} is not an entitlement grant`);
  }
  return {
    type: 'EntitlementGranted',
    data: {
      eventId: d.event_id,
      event: d.event as EntitlementEventKind,
      userId: d.user_id,
      entitlement: d.entitlement,
      reference: d.reference,
      accessPeriod: d.access_period as AccessPeriod,
      settledAt: times[0]!,
      startsAt: times[1]!,
      previousExpiresAt: d.previous_expires_at ? Date.parse(d.previous_expires_at) : null,
      expiresAt: times[2]!,
    },
  };
}

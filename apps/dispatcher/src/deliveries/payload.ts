import type { EntitlementGrantedV1 } from '@settle/messaging';
import type { CustomerEvent } from './generated/customer-events.js';

/**
 * The JSON body delivered to customer endpoints for an entitlement event, as its kind's JSON Schema
 * states it (docs/api/customer-events/<kind>.schema.json, generated into ./generated/): the spec's
 * payload (docs/spec.md, section 2, "Event payload delivered to the customer's backend":
 * `event_id`, `event`, `entitlement`, `user_id`, `expires_at`) and three fields for the customer's
 * support and audit (docs/delivery.md, "Payload"): `reference` (the settled payment), `settled_at`
 * and `access_period` (what it bought), which Settle always sends. Times are ISO 8601 UTC with
 * milliseconds.
 */
export type EntitlementPayload = Required<CustomerEvent>;

/**
 * The exact body to sign and send, built once when the event is received and stored, so every
 * attempt, resend and recovery sends the same bytes.
 */
export function payloadBody(event: EntitlementGrantedV1): string {
  const payload: EntitlementPayload = {
    event_id: event.event_id,
    event: event.event,
    entitlement: event.entitlement,
    user_id: event.user_id,
    expires_at: event.expires_at,
    reference: event.reference,
    settled_at: event.settled_at,
    access_period: event.access_period,
  };
  return JSON.stringify(payload);
}

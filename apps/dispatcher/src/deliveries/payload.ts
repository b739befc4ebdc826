import type { EntitlementAccessChangedV1, EntitlementGrantedV1 } from '@settle/messaging';
import type { CustomerEvent, SubscriptionReinstated, SubscriptionRenewed, SubscriptionRevoked, SubscriptionStarted } from './generated/customer-events.js';

/**
 * The JSON body delivered to customer endpoints for an entitlement event, as its kind's JSON Schema
 * states it (docs/api/customer-events/<kind>.schema.json, generated into ./generated/): the spec's
 * payload (docs/spec.md, section 2, "Event payload delivered to the customer's backend":
 * `event_id`, `event`, `entitlement`, `user_id`, `expires_at`), the entitlement stream's
 * `revision` (the receiver kit keeps the expiry of the highest revision it applied: docs/delivery.md,
 * "Access follows the money"), and fields for the customer's support and audit (docs/delivery.md,
 * "Payload"): for a grant `reference` (the settled payment), `settled_at` and `access_period`; for
 * a revocation or reinstatement `reference` (the payment whose money moved), `changed_at` and, for
 * a revocation, `reason`. Settle always sends them. Times are ISO 8601 UTC with milliseconds.
 */
export type EntitlementPayload = CustomerEvent;

/** An entitlement-events record the dispatcher delivers: a grant, or an access change. */
export type EntitlementRecord = EntitlementGrantedV1 | EntitlementAccessChangedV1;

/** Every field of a kind Settle always sends; the receipt only where the ledger gave its hash. */
type Sent<T extends { receipt?: unknown }> = Required<Omit<T, 'receipt'>> & Pick<T, 'receipt'>;

/**
 * The exact body to sign and send, built once when the event is received and stored, so every
 * attempt, resend and recovery sends the same bytes. It carries the customer's receipt (ledger
 * position and stream hash, docs/ledger.md, "Receipts") when the record has the hash.
 */
export function payloadBody(event: EntitlementRecord): string {
  const common = {
    event_id: event.event_id,
    entitlement: event.entitlement,
    user_id: event.user_id,
    expires_at: event.expires_at,
    revision: event.ledger_revision,
    reference: event.reference,
    receipt: event.ledger_stream_hash ? { ledger_position: event.ledger_position, ledger_hash: event.ledger_stream_hash } : undefined,
  };
  if ('settled_at' in event) {
    const grant: Sent<SubscriptionStarted> | Sent<SubscriptionRenewed> = {
      ...common,
      event: event.event,
      settled_at: event.settled_at,
      access_period: event.access_period,
    };
    return JSON.stringify(grant);
  }
  if (event.event === 'subscription_revoked') {
    const revoked: Sent<SubscriptionRevoked> = {
      ...common,
      event: 'subscription_revoked',
      reason: event.reason ?? 'refunded',
      changed_at: event.changed_at,
    };
    return JSON.stringify(revoked);
  }
  const reinstated: Sent<SubscriptionReinstated> = { ...common, event: 'subscription_reinstated', changed_at: event.changed_at };
  return JSON.stringify(reinstated);
}

/**
 * Entitlement events as the ledger projector publishes them (`EntitlementGranted`,
 * docs/delivery.md), for the dispatcher's tests: a first grant of 30 days of `pro`, decided at a
 * given time, with fresh ids.
 */
import { randomUUID } from 'node:crypto';
import type { EntitlementGrantedV1 } from '@settle/messaging';

/**
 * A `subscription_started` grant for a user.
 *
 * @param at - when the grant was decided, epoch milliseconds (its access starts then).
 */
export function entitlementGrant(userId: string, at: number): EntitlementGrantedV1 {
  return {
    event_id: randomUUID(),
    occurred_at: at,
    correlation_id: randomUUID(),
    reference: `ref_${randomUUID().slice(0, 8)}`,
    event: 'subscription_started',
    user_id: userId,
    entitlement: 'pro',
    expires_at: new Date(at + 30 * 86_400_000).toISOString(),
    previous_expires_at: null,
    starts_at: new Date(at).toISOString(),
    settled_at: new Date(at).toISOString(),
    access_period: 'P30D',
    ledger_stream: 'entitlement-x:pro',
    ledger_revision: 0,
    ledger_position: 1,
    ledger_stream_hash: null,
  };
}

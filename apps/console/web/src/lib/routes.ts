// The console's addresses that pages link to (pure: no page imports here). Which page each path
// names, its navigation item and what it shows are in pages/index.tsx.

/** The Deliveries section's tabs: the customer endpoints, and the dead-lettered deliveries. */
export type DeliveriesTab = 'endpoints' | 'failed';

/** The Deliveries section's tabs' paths. */
export const DELIVERIES_PATHS: Record<DeliveriesTab, string> = { endpoints: '/deliveries/endpoints', failed: '/deliveries/dead-lettered' };

/**
 * The review queues' tabs: held in review (the sweeper re-checks), manual review (a person
 * decides), State Mismatch, the disputes still open on settled payments, and the unmatched
 * payments (paid, no checkout registered).
 */
export type QueueTab = 'held' | 'manual' | 'mismatch' | 'disputes' | 'unmatched';

/** The review queues' tabs' paths. */
export const QUEUE_PATHS: Record<QueueTab, string> = {
  held: '/queues/held-in-review',
  manual: '/queues/manual-review',
  mismatch: '/queues/state-mismatch',
  disputes: '/queues/disputes',
  unmatched: '/queues/unmatched-payments',
};

/** The console's address of one transaction. */
export function transactionHref(reference: string): string {
  return `/transactions/${encodeURIComponent(reference)}`;
}

/** The console's address of a review queue's tab. */
export function queueHref(tab: QueueTab): string {
  return QUEUE_PATHS[tab];
}

/** The console's address of a tab of the Deliveries section. */
export function deliveriesHref(tab: DeliveriesTab): string {
  return DELIVERIES_PATHS[tab];
}

/** The console's address of one customer endpoint. */
export function endpointHref(id: string): string {
  return `/deliveries/endpoints/${encodeURIComponent(id)}`;
}

/** The console's address of an entitlement event's delivery attempts. */
export function eventHref(eventId: string): string {
  return `/deliveries/events/${encodeURIComponent(eventId)}`;
}

/** The Proposals page: proposals of sensitive admin actions waiting for a second admin (docs/approvals.md). */
export const PROPOSALS_PATH = '/proposals';

/** The console's address of one proposal. */
export function proposalHref(id: string): string {
  return `${PROPOSALS_PATH}/${encodeURIComponent(id)}`;
}

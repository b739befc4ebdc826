/** The console's pages, as the address bar names them. */
export type Route =
  | { name: 'overview' }
  | { name: 'transactions' }
  | { name: 'transaction'; reference: string }
  | { name: 'queues'; tab: QueueTab }
  | { name: 'audit' }
  | { name: 'users' }
  | { name: 'deliveries'; tab: DeliveriesTab }
  | { name: 'endpoint'; id: string }
  | { name: 'event'; eventId: string }
  | { name: 'not_found' };

/** The Deliveries section's tabs: the customer endpoints, and the dead-lettered deliveries. */
export type DeliveriesTab = 'endpoints' | 'failed';

const DELIVERIES_PATHS: Record<DeliveriesTab, string> = { endpoints: '/deliveries/endpoints', failed: '/deliveries/dead-lettered' };

/** The review queues' tabs: held in review (the sweeper re-checks) and manual review (a person decides). */
export type QueueTab = 'held' | 'manual' | 'mismatch';

const QUEUE_PATHS: Record<QueueTab, string> = { held: '/queues/held-in-review', manual: '/queues/manual-review', mismatch: '/queues/state-mismatch' };

/**
 * The page a path stands for: `/` is the Overview, `/transactions` the list (its filters are in
 * the query string), `/transactions/<reference>` one transaction (the reference URL-decoded),
 * `/queues` and `/queues/held-in-review` the held-in-review queue, `/queues/manual-review` the
 * manual-review queue, `/audit` the audit view (its filters in the query string), `/users` the
 * console's users, `/deliveries` and `/deliveries/endpoints` the endpoints,
 * `/deliveries/dead-lettered` the dead-lettered deliveries, `/deliveries/endpoints/<id>` one
 * endpoint and `/deliveries/events/<event id>` an entitlement event's delivery attempts.
 * A trailing slash is ignored; a path segment that is not valid percent-encoding is no page.
 */
export function matchRoute(pathname: string): Route {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  if (path === '/' || path === '') return { name: 'overview' };
  if (path === '/transactions') return { name: 'transactions' };
  if (path === '/queues' || path === QUEUE_PATHS.held) return { name: 'queues', tab: 'held' };
  if (path === QUEUE_PATHS.manual) return { name: 'queues', tab: 'manual' };
  if (path === QUEUE_PATHS.mismatch) return { name: 'queues', tab: 'mismatch' };
  if (path === '/audit') return { name: 'audit' };
  if (path === '/users') return { name: 'users' };
  if (path === '/deliveries' || path === DELIVERIES_PATHS.endpoints) return { name: 'deliveries', tab: 'endpoints' };
  if (path === DELIVERIES_PATHS.failed) return { name: 'deliveries', tab: 'failed' };
  const segment = (pattern: RegExp): string | null => {
    const raw = pattern.exec(path)?.[1];
    if (!raw) return null;
    try {
      return decodeURIComponent(raw);
    } catch {
      return null;
    }
  };
  const patterns: Array<[RegExp, (value: string) => Route]> = [
    [/^\/transactions\/([^/]+)$/, (reference) => ({ name: 'transaction', reference })],
    [/^\/deliveries\/endpoints\/([^/]+)$/, (id) => ({ name: 'endpoint', id })],
    [/^\/deliveries\/events\/([^/]+)$/, (eventId) => ({ name: 'event', eventId })],
  ];
  for (const [pattern, route] of patterns) {
    if (!pattern.test(path)) continue;
    const value = segment(pattern);
    return value === null ? { name: 'not_found' } : route(value);
  }
  return { name: 'not_found' };
}

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

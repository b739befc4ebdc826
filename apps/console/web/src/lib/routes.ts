/** The console's pages, as the address bar names them. */
export type Route =
  | { name: 'overview' }
  | { name: 'transactions' }
  | { name: 'transaction'; reference: string }
  | { name: 'queues'; tab: QueueTab }
  | { name: 'audit' }
  | { name: 'users' }
  | { name: 'not_found' };

/** The review queues' tabs: held in review (the sweeper re-checks) and manual review (a person decides). */
export type QueueTab = 'held' | 'manual';

const QUEUE_PATHS: Record<QueueTab, string> = { held: '/queues/held-in-review', manual: '/queues/manual-review' };

/**
 * The page a path stands for: `/` is the Overview, `/transactions` the list (its filters are in
 * the query string), `/transactions/<reference>` one transaction (the reference URL-decoded),
 * `/queues` and `/queues/held-in-review` the held-in-review queue, `/queues/manual-review` the
 * manual-review queue, `/audit` the audit view (its filters in the query string), `/users` the
 * console's users.
 * A trailing slash is ignored.
 */
export function matchRoute(pathname: string): Route {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  if (path === '/' || path === '') return { name: 'overview' };
  if (path === '/transactions') return { name: 'transactions' };
  if (path === '/queues' || path === QUEUE_PATHS.held) return { name: 'queues', tab: 'held' };
  if (path === QUEUE_PATHS.manual) return { name: 'queues', tab: 'manual' };
  if (path === '/audit') return { name: 'audit' };
  if (path === '/users') return { name: 'users' };
  const match = /^\/transactions\/([^/]+)$/.exec(path);
  if (match?.[1]) {
    try {
      return { name: 'transaction', reference: decodeURIComponent(match[1]) };
    } catch {
      return { name: 'not_found' };
    }
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

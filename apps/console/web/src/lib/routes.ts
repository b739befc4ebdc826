/** The console's pages, as the address bar names them. */
export type Route = { name: 'overview' } | { name: 'transactions' } | { name: 'transaction'; reference: string } | { name: 'not_found' };

/**
 * The page a path stands for: `/` is the Overview, `/transactions` the list (its filters are in
 * the query string), `/transactions/<reference>` one transaction (the reference URL-decoded).
 * A trailing slash is ignored.
 */
export function matchRoute(pathname: string): Route {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  if (path === '/' || path === '') return { name: 'overview' };
  if (path === '/transactions') return { name: 'transactions' };
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

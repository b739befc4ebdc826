import type { UseInfiniteQueryResult } from '@tanstack/react-query';
import { ErrorPanel, Spinner } from './Feedback';

/** What {@link ListFoot} reads of a keyset list's query (TanStack Query's infinite query). */
type PagedQuery = Pick<UseInfiniteQueryResult, 'hasNextPage' | 'isFetchingNextPage' | 'isFetchNextPageError' | 'error' | 'fetchNextPage'>;

/**
 * The foot of a keyset list: the error of a next page that failed (with a retry), how many rows
 * are shown (and that it is the end when there is no next page), and "Load more" while there is
 * one (`load-more`).
 *
 * @param shown - rows shown so far.
 * @param end - what the end is called: `the list`, `the queue`, `the trail`.
 * @param errorTitle - the failed next page's title; default "Could not load more".
 */
export function ListFoot({ query, shown, end, errorTitle = 'Could not load more' }: { query: PagedQuery; shown: number; end: string; errorTitle?: string }) {
  return (
    <>
      {query.isFetchNextPageError && <ErrorPanel error={query.error} title={errorTitle} onRetry={() => void query.fetchNextPage()} />}
      <div className="list-foot">
        {shown > 0 && (
          <span className="muted small">
            {shown} shown{query.hasNextPage ? '' : `, the end of ${end}`}
          </span>
        )}
        {query.hasNextPage && (
          <button type="button" className="button" data-testid="load-more" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
            {query.isFetchingNextPage ? <Spinner label="Loading more" /> : null}
            {query.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        )}
      </div>
    </>
  );
}

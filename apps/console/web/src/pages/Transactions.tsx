import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { ENTITLEMENT_STATUSES, PROVIDERS, STATES, type TransactionFilters } from '../api/types';
import { EntitlementBadge, StateBadge } from '../components/Badge';
import { ListFoot } from '../components/ListFoot';
import { EmptyState, ErrorPanel } from '../components/Feedback';
import { entitlementLabel, formatAge, formatDateTime, formatMoney, providerLabel, stateLabel } from '../lib/format';
import { toLocalInput } from '../lib/deliveries';
import { filtersFromSearch, transactionsHref } from '../lib/query-string';
import { Link, navigate } from '../lib/router';
import { transactionHref } from '../lib/routes';

const PAGE_SIZE = 50;
const SEARCH_DELAY_MS = 350;

/** The transactions list: search, filters (kept in the address), a table newest first, and more by cursor. */
export function TransactionsPage({ search }: { search: string }) {
  const filters = useMemo(() => filtersFromSearch(search), [search]);
  const [draft, setDraft] = useState(filters.q);
  const [addressQ, setAddressQ] = useState(filters.q);

  // The box follows the address (back/forward, an Overview card); typing updates the address after a pause.
  if (addressQ !== filters.q) {
    setAddressQ(filters.q);
    if (draft.trim() !== filters.q) setDraft(filters.q);
  }
  useEffect(() => {
    if (draft.trim() === filters.q) return;
    const timer = window.setTimeout(() => navigate(transactionsHref({ ...filters, q: draft }), { replace: true }), SEARCH_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [draft, filters]);

  const setFilter = (key: keyof TransactionFilters, value: string) => navigate(transactionsHref({ ...filters, q: draft, [key]: value }), { replace: true });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    navigate(transactionsHref({ ...filters, q: draft }), { replace: true });
  };
  const filtered = Boolean(filters.q || filters.provider || filters.state || filters.entitlement || filters.from || filters.to);
  // The time window, typed in the browser's local time and kept in the address as ISO 8601 UTC.
  const setTime = (key: 'from' | 'to', value: string) => {
    const at = value ? Date.parse(value) : NaN;
    setFilter(key, Number.isFinite(at) ? new Date(at).toISOString() : '');
  };
  const timeInput = (iso: string | undefined) => {
    const at = iso ? Date.parse(iso) : NaN;
    return Number.isFinite(at) ? toLocalInput(at) : '';
  };

  const list = useInfiniteQuery({
    queryKey: ['transactions', filters],
    queryFn: ({ pageParam }) => api.transactions(filters, pageParam, PAGE_SIZE),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
  const rows = list.data?.pages.flatMap((page) => page.items) ?? [];
  // Ages are told from when the page was read, so a render never reads the clock.
  const now = list.dataUpdatedAt;

  return (
    <section>
      <div className="page-head">
        <h1>Transactions</h1>
        {list.isFetching && !list.isPending && !list.isFetchingNextPage && <span className="muted small">Refreshing…</span>}
      </div>

      <form className="toolbar" role="search" onSubmit={submit}>
        <input
          className="search"
          data-testid="search"
          type="search"
          placeholder="Reference prefix, user id, email or phone"
          aria-label="Search transactions"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
        />
        <select aria-label="Provider" data-testid="filter-provider" value={filters.provider} onChange={(event) => setFilter('provider', event.target.value)}>
          <option value="">All providers</option>
          {PROVIDERS.map((provider) => (
            <option key={provider} value={provider}>
              {providerLabel(provider)}
            </option>
          ))}
        </select>
        <select aria-label="State" data-testid="filter-state" value={filters.state} onChange={(event) => setFilter('state', event.target.value)}>
          <option value="">All states</option>
          {STATES.map((state) => (
            <option key={state} value={state}>
              {stateLabel(state)}
            </option>
          ))}
        </select>
        <select
          aria-label="Entitlement status"
          data-testid="filter-entitlement"
          value={filters.entitlement}
          onChange={(event) => setFilter('entitlement', event.target.value)}
        >
          <option value="">All entitlements</option>
          {ENTITLEMENT_STATUSES.map((status) => (
            <option key={status} value={status}>
              {entitlementLabel(status)}
            </option>
          ))}
        </select>
        <label className="time-filter">
          <span className="small muted">Changed from</span>
          <input
            type="datetime-local"
            data-testid="filter-from"
            aria-label="Changed from"
            value={timeInput(filters.from)}
            onChange={(event) => setTime('from', event.target.value)}
          />
        </label>
        <label className="time-filter">
          <span className="small muted">to</span>
          <input
            type="datetime-local"
            data-testid="filter-to"
            aria-label="Changed before"
            value={timeInput(filters.to)}
            onChange={(event) => setTime('to', event.target.value)}
          />
        </label>
        {filtered && (
          <button type="button" className="button button-ghost" onClick={() => navigate('/transactions', { replace: true })}>
            Clear
          </button>
        )}
      </form>

      {list.isError && !list.data && <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />}

      {!list.isError || list.data ? (
        <div className="table-wrap">
          <table className="table" data-testid="transactions-table" aria-busy={list.isPending}>
            <thead>
              <tr>
                <th>Reference</th>
                <th>Provider</th>
                <th>State</th>
                <th>Entitlement</th>
                <th className="num">Amount</th>
                <th>Customer</th>
                <th>Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.isPending &&
                Array.from({ length: 8 }, (_, index) => (
                  <tr key={index} className="row-skeleton" aria-hidden="true">
                    {Array.from({ length: 7 }, (_, cell) => (
                      <td key={cell}>
                        <span className="skeleton" />
                      </td>
                    ))}
                  </tr>
                ))}
              {rows.map((row) => (
                <tr
                  key={row.reference}
                  data-testid="transaction-row"
                  data-reference={row.reference}
                  className="clickable"
                  onClick={() => navigate(transactionHref(row.reference))}
                >
                  <td>
                    <Link href={transactionHref(row.reference)} className="mono" onClick={(event) => event.stopPropagation()}>
                      {row.reference}
                    </Link>
                  </td>
                  <td>{providerLabel(row.provider)}</td>
                  <td>
                    <StateBadge state={row.state} testId="state-badge" />
                  </td>
                  <td>
                    <EntitlementBadge status={row.entitlementStatus} />
                  </td>
                  <td className="num">{formatMoney(row.amountMinor, row.currency)}</td>
                  <td className="customer">
                    <span>{row.email ?? '—'}</span>
                    {row.userId && <span className="muted small mono">{row.userId}</span>}
                  </td>
                  <td title={formatDateTime(row.updatedAt)}>
                    <span>{formatDateTime(row.updatedAt)}</span>
                    <span className="muted small">{formatAge(row.updatedAt, now)}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {!list.isPending && rows.length === 0 && (
            <EmptyState title={filtered ? 'No transaction matches these filters' : 'No transactions yet'}>
              {filtered ? 'Search matches a reference prefix, or a user id, email or phone exactly.' : 'Checkouts appear here once ingestion registers them.'}
            </EmptyState>
          )}
        </div>
      ) : null}

      <ListFoot query={list} shown={rows.length} end="the list" errorTitle="Could not load more transactions" />
    </section>
  );
}

import type { AuditFilters, DeliveryState, TransactionFilters } from '../api/types';

/** The filters of the transactions list with nothing chosen. */
export const NO_FILTERS: TransactionFilters = { q: '', provider: '', state: '', entitlement: '', from: '', to: '' };

const FILTER_KEYS = ['q', 'provider', 'state', 'entitlement', 'from', 'to'] as const satisfies readonly (keyof TransactionFilters)[];

/** Page sizes the API accepts (`limit` 1..100). */
export const MIN_LIMIT = 1;
export const MAX_LIMIT = 100;

/**
 * The query string of `GET /api/v1/transactions`: the filters that are set (trimmed; empty ones
 * left out), the cursor when there is one, and the limit clamped to 1..100.
 *
 * @returns `''` when there is nothing to send, else `?` and the parameters, in a fixed order
 *   (q, provider, state, entitlement, from, to, cursor, limit), so equal filters give equal URLs.
 */
export function transactionsQuery(filters: Partial<TransactionFilters>, cursor: string | null = null, limit?: number): string {
  const params = filtersToParams(filters);
  if (cursor) params.set('cursor', cursor);
  if (limit !== undefined && Number.isFinite(limit)) params.set('limit', String(Math.min(MAX_LIMIT, Math.max(MIN_LIMIT, Math.trunc(limit)))));
  const query = params.toString();
  return query ? `?${query}` : '';
}

/**
 * The query string of a review queue's page (`GET /api/v1/queues/*`): the cursor when there is
 * one and the limit clamped to 1..100, as {@link transactionsQuery} without filters.
 *
 * @returns `''` when there is nothing to send.
 */
export function pageQuery(cursor: string | null = null, limit?: number): string {
  return transactionsQuery({}, cursor, limit);
}

/** The filters as URL parameters, leaving out the empty ones. */
function filtersToParams(filters: Partial<TransactionFilters>): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = filters[key]?.trim();
    if (value) params.set(key, value);
  }
  return params;
}

/**
 * The console's own address of the transactions list with these filters (what the Overview's
 * cards link to and what the list keeps in the address bar), e.g. `/transactions?state=PENDING`.
 */
export function transactionsHref(filters: Partial<TransactionFilters>): string {
  const query = filtersToParams(filters).toString();
  return query ? `/transactions?${query}` : '/transactions';
}

/** The filters a page's query string (`location.search`) holds; unknown parameters are ignored. */
export function filtersFromSearch(search: string): TransactionFilters {
  const params = new URLSearchParams(search);
  return {
    q: params.get('q')?.trim() ?? '',
    provider: params.get('provider')?.trim() ?? '',
    state: params.get('state')?.trim() ?? '',
    entitlement: params.get('entitlement')?.trim() ?? '',
    from: params.get('from')?.trim() ?? '',
    to: params.get('to')?.trim() ?? '',
  };
}

const AUDIT_KEYS = ['actor', 'targetKind', 'targetId'] as const satisfies readonly (keyof AuditFilters)[];

function auditParams(filters: Partial<AuditFilters>): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of AUDIT_KEYS) {
    const value = filters[key]?.trim();
    if (value) params.set(key, value);
  }
  // A target is a kind and an id together; one without the other is no filter.
  if (!params.has('targetKind') || !params.has('targetId')) {
    params.delete('targetKind');
    params.delete('targetId');
  }
  return params;
}

/**
 * The query string of `GET /api/v1/audit`: the filters that are set (a target only with both its
 * kind and id), the cursor, the limit clamped to 1..100.
 *
 * @returns `''` when there is nothing to send.
 */
export function auditQuery(filters: Partial<AuditFilters>, cursor: string | null = null, limit?: number): string {
  const params = auditParams(filters);
  if (cursor) params.set('cursor', cursor);
  if (limit !== undefined && Number.isFinite(limit)) params.set('limit', String(Math.min(MAX_LIMIT, Math.max(MIN_LIMIT, Math.trunc(limit)))));
  const query = params.toString();
  return query ? `?${query}` : '';
}

/**
 * The query string of `GET /api/v1/deliveries`: `state` and `endpointId` when set, the cursor
 * when there is one, and the limit clamped to 1..100.
 *
 * @returns `''` when there is nothing to send, else `?` and the parameters in a fixed order.
 */
export function deliveriesQuery(filter: { state?: DeliveryState; endpointId?: string }, cursor: string | null = null, limit?: number): string {
  const params = new URLSearchParams();
  if (filter.state) params.set('state', filter.state);
  if (filter.endpointId) params.set('endpointId', filter.endpointId);
  if (cursor) params.set('cursor', cursor);
  if (limit !== undefined && Number.isFinite(limit)) params.set('limit', String(Math.min(MAX_LIMIT, Math.max(MIN_LIMIT, Math.trunc(limit)))));
  const query = params.toString();
  return query ? `?${query}` : '';
}

/** The console's own address of the audit view with these filters, e.g. `/audit?targetKind=transaction&targetId=REF-1`. */
export function auditHref(filters: Partial<AuditFilters>): string {
  const query = auditParams(filters).toString();
  return query ? `/audit?${query}` : '/audit';
}

/** The audit filters a page's query string holds, kept as typed (a lone target kind or id stays in the form). */
export function auditFiltersFromSearch(search: string): AuditFilters {
  const params = new URLSearchParams(search);
  return { actor: params.get('actor')?.trim() ?? '', targetKind: params.get('targetKind')?.trim() ?? '', targetId: params.get('targetId')?.trim() ?? '' };
}

import { useInfiniteQuery } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { ADMIN_TARGET_KINDS, type AuditEntry, type AuditFilters } from '../api/types';
import { AdminOutcomeBadge } from '../components/Badge';
import { ListFoot } from '../components/ListFoot';
import { EmptyState, ErrorPanel } from '../components/Feedback';
import { adminActionLabel, formatAge, formatDateTime, formatParameters, humanize } from '../lib/format';
import { auditFiltersFromSearch, auditHref } from '../lib/query-string';
import { Link, navigate } from '../lib/router';
import { transactionHref } from '../lib/routes';

const PAGE_SIZE = 50;

/** Where an audit entry's target is shown in the console, `null` when it has no page here. */
export function targetHref(target: AuditEntry['target']): string | null {
  if (target.kind === 'transaction') return transactionHref(target.id);
  if (target.kind === 'user') return '/users';
  return null;
}

function Target({ target }: { target: AuditEntry['target'] }) {
  const href = targetHref(target);
  return (
    <span className="target">
      <span className="muted small">{humanize(target.kind)}</span>
      {href ? (
        <Link href={href} className="mono">
          {target.id}
        </Link>
      ) : (
        <span className="mono">{target.id}</span>
      )}
    </span>
  );
}

/** The filters form: actor email, target kind and id; applied to the address on submit. */
function Filters({ filters }: { filters: AuditFilters }) {
  const [draft, setDraft] = useState(filters);
  const [shown, setShown] = useState(filters);
  // The form follows the address (back/forward, a link from another page).
  if (shown !== filters) {
    setShown(filters);
    setDraft(filters);
  }
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    navigate(auditHref(draft), { replace: true });
  };
  const filtered = Boolean(filters.actor || (filters.targetKind && filters.targetId));
  const incompleteTarget = Boolean(draft.targetKind) !== Boolean(draft.targetId.trim());
  return (
    <form className="toolbar" role="search" onSubmit={submit}>
      <input
        className="audit-field"
        data-testid="audit-actor"
        type="search"
        placeholder="Actor email"
        aria-label="Actor email"
        value={draft.actor}
        onChange={(event) => setDraft({ ...draft, actor: event.target.value })}
      />
      <select
        aria-label="Target kind"
        data-testid="audit-target-kind"
        value={draft.targetKind}
        onChange={(event) => setDraft({ ...draft, targetKind: event.target.value })}
      >
        <option value="">Any target</option>
        {ADMIN_TARGET_KINDS.map((kind) => (
          <option key={kind} value={kind}>
            {humanize(kind)}
          </option>
        ))}
      </select>
      <input
        className="audit-field"
        data-testid="audit-target-id"
        type="search"
        placeholder="Target id: a reference, an endpoint id, an email"
        aria-label="Target id"
        value={draft.targetId}
        onChange={(event) => setDraft({ ...draft, targetId: event.target.value })}
      />
      <button
        type="submit"
        className="button"
        data-testid="audit-apply"
        disabled={incompleteTarget}
        title={incompleteTarget ? 'Choose a target kind and an id' : undefined}
      >
        Apply
      </button>
      {filtered && (
        <button type="button" className="button button-ghost" onClick={() => navigate('/audit', { replace: true })}>
          Clear
        </button>
      )}
    </form>
  );
}

/** The audit view (admins): every admin action recorded in the ledger, newest first, with its actor, target, parameters and outcome. */
export function AuditPage({ search }: { search: string }) {
  const filters = useMemo(() => auditFiltersFromSearch(search), [search]);
  const list = useInfiniteQuery({
    queryKey: ['audit', filters],
    queryFn: ({ pageParam }) => api.audit(filters, pageParam, PAGE_SIZE),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
  const rows = list.data?.pages.flatMap((page) => page.items) ?? [];
  const now = list.dataUpdatedAt;
  const filtered = Boolean(filters.actor || (filters.targetKind && filters.targetId));
  const headers = ['Time', 'Actor', 'Action', 'Target', 'Parameters', 'Outcome'];

  return (
    <section>
      <div className="page-head">
        <h1>Audit</h1>
        {list.isFetching && !list.isPending && !list.isFetchingNextPage && <span className="muted small">Refreshing…</span>}
      </div>
      <p className="muted small page-hint">Every admin action, recorded in the ledger with who asked before it runs, and its outcome after. Newest first.</p>
      <Filters filters={filters} />

      {list.isError && !list.data ? (
        <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="audit-table" aria-busy={list.isPending}>
            <thead>
              <tr>
                {headers.map((header) => (
                  <th key={header}>{header}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {list.isPending &&
                Array.from({ length: 6 }, (_, index) => (
                  <tr key={index} className="row-skeleton" aria-hidden="true">
                    {headers.map((header) => (
                      <td key={header}>
                        <span className="skeleton" />
                      </td>
                    ))}
                  </tr>
                ))}
              {rows.map((entry) => (
                <tr key={entry.actionId} data-testid="audit-row" data-action={entry.action} data-outcome={entry.outcome ?? 'none'}>
                  <td title={formatDateTime(entry.requestedAt)}>
                    <span>{formatDateTime(entry.requestedAt)}</span>
                    <span className="muted small">{formatAge(entry.requestedAt, now)}</span>
                  </td>
                  <td className="actor" data-testid="audit-actor-cell">
                    <Link href={auditHref({ actor: entry.actor.email })} title="Only this actor's actions">
                      {entry.actor.email}
                    </Link>
                    <span className={`role role-${entry.actor.role}`}>{entry.actor.role}</span>
                  </td>
                  <td>{adminActionLabel(entry.action)}</td>
                  <td>
                    <Target target={entry.target} />
                  </td>
                  <td className="parameters small">{formatParameters(entry.parameters) || <span className="muted">—</span>}</td>
                  <td>
                    <AdminOutcomeBadge outcome={entry.outcome} errorCode={entry.errorCode} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {!list.isPending && rows.length === 0 && (
            <EmptyState title={filtered ? 'No admin action matches these filters' : 'No admin actions yet'}>
              {filtered
                ? 'The actor is matched by exact email; a target by its kind and exact id.'
                : 'Reconciliations and user changes show here once someone makes one.'}
            </EmptyState>
          )}
        </div>
      )}

      <ListFoot query={list} shown={rows.length} end="the trail" />
    </section>
  );
}

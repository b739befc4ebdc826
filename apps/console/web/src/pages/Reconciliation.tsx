import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError, call } from '../api/client';
import { PROVIDERS, type Role } from '../api/types';
import { Badge } from '../components/Badge';
import { EmptyState, ErrorPanel, errorMessage, Spinner } from '../components/Feedback';
import { ListFoot } from '../components/ListFoot';
import { TabBar, type Tab } from '../components/TabBar';
import { toLocalInput } from '../lib/deliveries';
import { formatAge, formatDateTime, formatMoney, humanize, providerLabel } from '../lib/format';
import {
  canActOnReconciliation,
  classCounts,
  classLabel,
  classTone,
  evidenceRows,
  EXCEPTION_CLASSES,
  exceptionFiltersFromSearch,
  exceptionsCsvHref,
  exceptionsHref,
  exceptionsQuery,
  LISTABLE_PROVIDERS,
  reconciliationRunHref,
  reconciliationTabHref,
  resolutionText,
  runProgress,
  runStatus,
  runWindow,
  type ExceptionFilters,
  type ReconciliationException,
  type ReconciliationRun,
  type ReconciliationTab,
} from '../lib/reconciliation';
import { Link, navigate } from '../lib/router';
import { transactionHref } from '../lib/routes';

const PAGE_SIZE = 50;
/** Runs progress page by page and exceptions are resolved by the verifier: read again every 30 s, every 3 s while a run is under way. */
const REFRESH_MS = 30_000;
const RUNNING_REFRESH_MS = 3_000;

const TABS: ReadonlyArray<Tab<ReconciliationTab>> = [
  {
    tab: 'exceptions',
    label: 'Exceptions',
    hint: "Payments where the provider's own list and Settle's ledger disagree, newest first, each with its evidence side by side. Resolve one with a reason once it is handled.",
  },
  {
    tab: 'runs',
    label: 'Runs',
    hint: "Each run pages through a provider's list of transactions for a window and compares every payment in Settle's scope with the ledger. Scheduled runs start by themselves; start one here for another window.",
  },
];

/** One class as a badge. */
function ClassBadge({ cls }: { cls: string }) {
  return (
    <Badge tone={classTone(cls)} title={cls} testId="recon-class">
      {classLabel(cls)}
    </Badge>
  );
}

/** A run's status with its pages, and why it failed. */
function RunStatus({ run }: { run: ReconciliationRun }) {
  const status = runStatus(run.status);
  return (
    <span className="badges">
      <Badge tone={status.tone} title={run.status} testId="recon-run-status">
        {status.label}
      </Badge>
      <span className="muted small">{runProgress(run)}</span>
    </span>
  );
}

/** A run's counts per class (zeros left out). */
function ClassCounts({ classes }: { classes: Record<string, number> }) {
  const counts = classCounts(classes);
  if (counts.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="mismatch-checks" data-testid="recon-class-counts">
      {counts.map(([cls, n]) => (
        <li key={cls} data-class={cls}>
          {classLabel(cls)}: <strong>{n}</strong>
        </li>
      ))}
    </ul>
  );
}

/** The window a run covers, `since` to `until`. */
function Window({ window }: { window: ReconciliationRun['window'] }) {
  return (
    <span className="small">
      {formatDateTime(window.since)} → {formatDateTime(window.until)}
    </span>
  );
}

/** An exception's evidence side by side: field | the provider's value | Settle's value. */
function Evidence({ exception }: { exception: ReconciliationException }) {
  const rows = evidenceRows(exception);
  if (rows.length === 0) return <span className="muted">No evidence recorded</span>;
  return (
    <table className="table table-compact" data-testid="recon-evidence">
      <thead>
        <tr>
          <th>Field</th>
          <th>Provider</th>
          <th>Settle</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.field} data-testid="evidence-row" data-field={row.field}>
            <td>{row.label}</td>
            <td className="mono" data-testid="evidence-provider" title={row.raw.provider}>
              {row.provider}
            </td>
            <td className="mono" data-testid="evidence-settle" title={row.raw.settle}>
              {row.settle}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * "Resolve…" on an open exception: a reason, then
 * `POST /api/v1/reconciliation/exceptions/{exceptionId}/resolve`. It reads resolved once the
 * verifier closed it and the ledger recorded why and who (the lists are read again).
 */
function ResolveException({ exceptionId }: { exceptionId: string }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const resolve = useMutation({
    mutationFn: () => call('post', '/api/v1/reconciliation/exceptions/{exceptionId}/resolve', { path: { exceptionId }, body: { reason: reason.trim() } }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['reconciliation'] }),
  });
  if (resolve.isSuccess) {
    return (
      <span className="muted small" role="status" data-testid="recon-resolve-result">
        Resolving…
      </span>
    );
  }
  if (!open) {
    return (
      <button type="button" className="button button-small" data-testid="recon-resolve" onClick={() => setOpen(true)}>
        Resolve…
      </button>
    );
  }
  return (
    <form
      className="row-actions"
      data-testid="recon-resolve-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (reason.trim()) resolve.mutate();
      }}
    >
      <label>
        <span className="sr-only">Reason</span>
        <input
          value={reason}
          required
          maxLength={500}
          placeholder="Why it is resolved"
          onChange={(event) => setReason(event.target.value)}
          data-testid="recon-resolve-reason"
        />
      </label>
      <button type="submit" className="button button-small button-primary" disabled={resolve.isPending || !reason.trim()} data-testid="recon-resolve-confirm">
        {resolve.isPending ? 'Resolving…' : 'Resolve exception'}
      </button>
      <button type="button" className="button button-small" onClick={() => setOpen(false)}>
        Cancel
      </button>
      {resolve.isError && (
        <span className="row-error" role="alert" data-testid="recon-resolve-error">
          Not resolved: {errorMessage(resolve.error)}
        </span>
      )}
    </form>
  );
}

/** The filters form: status, class, provider, run; applied to the address on submit, with the CSV download of what the address selects. */
function ExceptionFiltersForm({ filters }: { filters: ExceptionFilters }) {
  const [draft, setDraft] = useState(filters);
  const [shown, setShown] = useState(filters);
  // The form follows the address (back/forward, a link from another page).
  if (shown !== filters) {
    setShown(filters);
    setDraft(filters);
  }
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    navigate(exceptionsHref(draft), { replace: true });
  };
  const filtered = Object.values(filters).some(Boolean);
  return (
    <form className="toolbar" role="search" onSubmit={submit}>
      <StatusAndClass value={draft} onChange={(key, value) => setDraft({ ...draft, [key]: value })} />
      <select
        aria-label="Provider"
        data-testid="recon-filter-provider"
        value={draft.provider}
        onChange={(event) => setDraft({ ...draft, provider: event.target.value })}
      >
        <option value="">Any provider</option>
        {PROVIDERS.map((p) => (
          <option key={p} value={p}>
            {providerLabel(p)}
          </option>
        ))}
      </select>
      <input
        className="audit-field"
        data-testid="recon-filter-run"
        type="search"
        placeholder="Run id (rcr_...)"
        aria-label="Run id"
        value={draft.runId}
        onChange={(event) => setDraft({ ...draft, runId: event.target.value })}
      />
      <button type="submit" className="button" data-testid="recon-apply">
        Apply
      </button>
      {filtered && (
        <button type="button" className="button button-ghost" onClick={() => navigate(exceptionsHref({}), { replace: true })}>
          Clear
        </button>
      )}
      <a className="button button-ghost" href={exceptionsCsvHref(filters)} download data-testid="recon-csv">
        Download CSV
      </a>
    </form>
  );
}

/** The status and class selects of the exceptions' filters. */
function StatusAndClass({ value, onChange }: { value: ExceptionFilters; onChange: (key: 'status' | 'class', value: string) => void }) {
  return (
    <>
      <select aria-label="Status" data-testid="recon-filter-status" value={value.status} onChange={(event) => onChange('status', event.target.value)}>
        <option value="">Any status</option>
        <option value="open">Open</option>
        <option value="resolved">Resolved</option>
      </select>
      <select aria-label="Class" data-testid="recon-filter-class" value={value.class} onChange={(event) => onChange('class', event.target.value)}>
        <option value="">Any class</option>
        {EXCEPTION_CLASSES.map((cls) => (
          <option key={cls} value={cls}>
            {classLabel(cls)}
          </option>
        ))}
      </select>
    </>
  );
}

/** The exceptions matching `filters`, newest first by keyset pages, each with its evidence, its resolution and, for operators, "Resolve…". */
function ExceptionsTable({ filters, role }: { filters: ExceptionFilters; role: Role }) {
  const list = useInfiniteQuery({
    queryKey: ['reconciliation', 'exceptions', filters],
    queryFn: ({ pageParam }) =>
      call('get', '/api/v1/reconciliation/exceptions', { query: { ...exceptionsQuery(filters), cursor: pageParam ?? undefined, limit: PAGE_SIZE } }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: REFRESH_MS,
  });
  const rows = list.data?.pages.flatMap((page) => page.items) ?? [];
  const now = list.dataUpdatedAt;
  const canResolve = canActOnReconciliation(role);
  const headers = ['Raised', 'Class', 'Payment', 'Evidence: provider / Settle', 'Run', 'Resolution'];
  if (list.isError && !list.data) return <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />;
  return (
    <>
      <div className="table-wrap">
        <table className="table" data-testid="recon-exceptions" aria-busy={list.isPending}>
          <thead>
            <tr>
              {headers.map((header) => (
                <th key={header}>{header}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {list.isPending &&
              Array.from({ length: 4 }, (_, index) => (
                <tr key={index} className="row-skeleton" aria-hidden="true">
                  {headers.map((header) => (
                    <td key={header}>
                      <span className="skeleton" />
                    </td>
                  ))}
                </tr>
              ))}
            {rows.map((e) => (
              <tr key={e.exceptionId} data-testid="recon-exception-row" data-exception-id={e.exceptionId} data-status={e.status} data-class={e.class}>
                <td title={formatDateTime(e.raisedAt)}>
                  <span>{formatDateTime(e.raisedAt)}</span>
                  <span className="muted small">{formatAge(e.raisedAt, now)}</span>
                </td>
                <td>
                  <ClassBadge cls={e.class} />
                </td>
                <td>
                  {e.class === 'unknown_to_settle' ? (
                    <span className="mono">{e.reference}</span>
                  ) : (
                    <Link href={transactionHref(e.reference)} className="mono">
                      {e.reference}
                    </Link>
                  )}
                  <span className="muted small">
                    {providerLabel(e.provider)}
                    {e.providerStatus ? ` · ${e.providerStatus}` : ''}
                    {e.providerTransactionId ? ` · ${e.providerTransactionId}` : ''}
                  </span>
                  {e.amountMinor !== null && e.currency !== null && (
                    <span className="small" data-testid="recon-amount">
                      {formatMoney(e.amountMinor, e.currency)}
                    </span>
                  )}
                </td>
                <td>
                  <Evidence exception={e} />
                </td>
                <td>
                  {e.runId ? (
                    <Link href={reconciliationRunHref(e.runId)} className="mono small">
                      {e.runId}
                    </Link>
                  ) : (
                    <span className="muted small">duplicate check</span>
                  )}
                </td>
                <td data-testid="recon-resolution">
                  {e.resolved ? (
                    <>
                      <span>{resolutionText(e.resolved)}</span>
                      <span className="muted small" title={formatDateTime(e.resolved.at)}>
                        {formatAge(e.resolved.at, now)}
                      </span>
                    </>
                  ) : canResolve ? (
                    <ResolveException exceptionId={e.exceptionId} />
                  ) : (
                    <Badge tone="warning">Open</Badge>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {!list.isPending && rows.length === 0 && (
          <EmptyState title="No exception matches">Exceptions show here once a run finds a payment the provider and Settle see differently.</EmptyState>
        )}
      </div>
      <ListFoot query={list} shown={rows.length} end="the exceptions" />
    </>
  );
}

/**
 * "Start a reconciliation run" (operators and admins): a provider (M-Pesa has no list), the
 * window's start and end (local times; the end empty for now) and dry run, then
 * `POST /api/v1/reconciliation/runs`. The run shows in the list once the verifier started it.
 */
function StartRunForm() {
  const queryClient = useQueryClient();
  const [provider, setProvider] = useState<(typeof LISTABLE_PROVIDERS)[number]>(LISTABLE_PROVIDERS[0]!);
  const [since, setSince] = useState(() => toLocalInput(Math.floor((Date.now() - 86_400_000) / 60_000) * 60_000));
  const [until, setUntil] = useState('');
  const [dryRun, setDryRun] = useState(false);
  const [invalid, setInvalid] = useState<string | null>(null);
  const start = useMutation({
    mutationFn: (window: { since: string; until?: string }) => call('post', '/api/v1/reconciliation/runs', { body: { provider, ...window, dryRun } }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['reconciliation', 'runs'] }),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const window = runWindow(since, until, Date.now());
    if (!window.ok) {
      setInvalid(window.message);
      return;
    }
    setInvalid(null);
    start.mutate(window.until ? { since: window.since, until: window.until } : { since: window.since });
  };
  return (
    <form className="recover" onSubmit={submit} data-testid="recon-start-form">
      <label className="field">
        Provider
        <select value={provider} onChange={(event) => setProvider(event.target.value as typeof provider)} data-testid="recon-start-provider">
          {LISTABLE_PROVIDERS.map((p) => (
            <option key={p} value={p}>
              {providerLabel(p)}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        Since
        <input type="datetime-local" required value={since} onChange={(event) => setSince(event.target.value)} data-testid="recon-start-since" />
      </label>
      <label className="field">
        Until (empty: now)
        <input type="datetime-local" value={until} onChange={(event) => setUntil(event.target.value)} data-testid="recon-start-until" />
      </label>
      <label className="field">
        <span>
          <input type="checkbox" checked={dryRun} onChange={(event) => setDryRun(event.target.checked)} data-testid="recon-start-dry-run" /> Dry run
        </span>
      </label>
      <button type="submit" className="button button-primary" disabled={start.isPending} data-testid="recon-start-submit">
        {start.isPending ? <Spinner label="Starting" /> : null}
        {start.isPending ? 'Starting…' : 'Start run'}
      </button>
      <p className="muted small recover-hint">
        At most 31 days per run. A dry run compares and counts only: it records no exception and asks nothing of the verifier. M-Pesa has no list to reconcile
        against.
      </p>
      {invalid && (
        <div className="notice notice-warning" role="alert" data-testid="recon-start-result">
          {invalid}
        </div>
      )}
      {!invalid && start.isSuccess && (
        <div className="notice notice-success" role="status" data-testid="recon-start-result">
          Run <Link href={reconciliationRunHref(start.data.runId)}>{start.data.runId}</Link> requested for {formatDateTime(start.data.window.since)} →{' '}
          {formatDateTime(start.data.window.until)}; it shows below once the verifier started it.
        </div>
      )}
      {!invalid && start.isError && (
        <div className="notice notice-danger" role="alert" data-testid="recon-start-result">
          Not started: {errorMessage(start.error)}
        </div>
      )}
    </form>
  );
}

/** The runs, newest first by keyset pages; each row opens the run. */
function RunsTable() {
  const list = useInfiniteQuery({
    queryKey: ['reconciliation', 'runs'],
    queryFn: ({ pageParam }) => call('get', '/api/v1/reconciliation/runs', { query: { cursor: pageParam ?? undefined, limit: PAGE_SIZE } }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: (query) =>
      query.state.data?.pages.some((page) => page.items.some((run) => run.status === 'started' || run.status === 'progressed'))
        ? RUNNING_REFRESH_MS
        : REFRESH_MS,
  });
  const rows = list.data?.pages.flatMap((page) => page.items) ?? [];
  const headers = ['Started', 'Provider', 'Kind', 'Window', 'Started by', 'Status', 'Per class', 'Exceptions raised / resolved'];
  if (list.isError && !list.data) return <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />;
  return (
    <>
      <div className="table-wrap">
        <table className="table" data-testid="recon-runs" aria-busy={list.isPending}>
          <thead>
            <tr>
              {headers.map((header) => (
                <th key={header}>{header}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {list.isPending &&
              Array.from({ length: 4 }, (_, index) => (
                <tr key={index} className="row-skeleton" aria-hidden="true">
                  {headers.map((header) => (
                    <td key={header}>
                      <span className="skeleton" />
                    </td>
                  ))}
                </tr>
              ))}
            {rows.map((run) => (
              <tr
                key={run.runId}
                className="clickable"
                data-testid="recon-run-row"
                data-run-id={run.runId}
                data-status={run.status}
                onClick={() => navigate(reconciliationRunHref(run.runId))}
              >
                <td title={formatDateTime(run.startedAt)}>
                  <Link href={reconciliationRunHref(run.runId)} onClick={(event) => event.stopPropagation()}>
                    {formatDateTime(run.startedAt)}
                  </Link>
                </td>
                <td>{providerLabel(run.provider)}</td>
                <td>
                  {humanize(run.kind)}
                  {run.dryRun && <span className="muted small"> (dry run)</span>}
                </td>
                <td>
                  <Window window={run.window} />
                </td>
                <td>{run.startedBy}</td>
                <td>
                  <RunStatus run={run} />
                  {run.error && (
                    <span className="small" data-testid="recon-run-error">
                      {run.error}
                    </span>
                  )}
                </td>
                <td>
                  <ClassCounts classes={run.classes} />
                </td>
                <td className="num">
                  {run.exceptionsRaised} / {run.exceptionsResolved}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {!list.isPending && rows.length === 0 && (
          <EmptyState title="No reconciliation runs yet">
            Scheduled runs show here once the verifier starts them, and the runs started from this page.
          </EmptyState>
        )}
      </div>
      <ListFoot query={list} shown={rows.length} end="the runs" />
    </>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="field-view">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** One run: where it stands (read every 3 s while under way) and the exceptions it raised or resolved. */
export function ReconciliationRunPage({ runId, role }: { runId: string; role: Role }) {
  const view = useQuery({
    queryKey: ['reconciliation', 'run', runId],
    queryFn: () => call('get', '/api/v1/reconciliation/runs/{runId}', { path: { runId } }),
    // A run just requested is not recorded until the verifier starts it: keep asking meanwhile.
    retry: (count, error) => error instanceof ApiError && error.code === 'CONSOLE.RECONCILIATION_RUN_NOT_FOUND' && count < 20,
    retryDelay: RUNNING_REFRESH_MS,
    refetchInterval: (query) => (query.state.data?.status === 'started' || query.state.data?.status === 'progressed' ? RUNNING_REFRESH_MS : REFRESH_MS),
  });
  const [filters, setFilters] = useState<ExceptionFilters>({ status: '', class: '', provider: '', runId });
  const run = view.data;
  return (
    <section>
      <div className="page-head">
        <div className="title-block">
          <Link href={reconciliationTabHref('runs')} className="back">
            ← Runs
          </Link>
          <h1 className="mono">{runId}</h1>
        </div>
      </div>
      {view.isError && !run ? (
        <ErrorPanel error={view.error} title="Could not load this run" onRetry={() => void view.refetch()} />
      ) : !run ? (
        <Spinner label="Loading the run" />
      ) : (
        <div className="panel" data-testid="recon-run" data-status={run.status}>
          <h2 className="panel-title">Run</h2>
          <dl className="fields">
            <Field label="Provider">{providerLabel(run.provider)}</Field>
            <Field label="Kind">
              {humanize(run.kind)}
              {run.dryRun ? ' (dry run)' : ''}
            </Field>
            <Field label="Status">
              <RunStatus run={run} />
            </Field>
            <Field label="Window">
              <Window window={run.window} />
            </Field>
            <Field label="Started by">{run.startedBy}</Field>
            <Field label="Started">{formatDateTime(run.startedAt)}</Field>
            <Field label="Finished">{run.finishedAt ? formatDateTime(run.finishedAt) : '—'}</Field>
            <Field label="Listed">
              {run.listed} ({run.outOfScope} out of scope, {run.tooRecent} too recent)
            </Field>
            <Field label="Per class">
              <ClassCounts classes={run.classes} />
            </Field>
            <Field label="Exceptions raised / resolved">
              {run.exceptionsRaised} / {run.exceptionsResolved}
            </Field>
            {run.error && <Field label="Failed">{run.error}</Field>}
          </dl>
        </div>
      )}
      <h2 className="section-title">Its exceptions</h2>
      <ExceptionFiltersFormOnRun filters={filters} runId={runId} onChange={setFilters} />
      <ExceptionsTable filters={filters} role={role} />
    </section>
  );
}

/** The filters on a run's page: status and class, applied at once (the run stays fixed), and the CSV download of what they select. */
function ExceptionFiltersFormOnRun({ filters, runId, onChange }: { filters: ExceptionFilters; runId: string; onChange: (next: ExceptionFilters) => void }) {
  return (
    <div className="toolbar">
      <StatusAndClass value={filters} onChange={(key, value) => onChange({ ...filters, [key]: value, runId })} />
      <a className="button button-ghost" href={exceptionsCsvHref({ ...filters, runId })} download data-testid="recon-csv">
        Download CSV
      </a>
    </div>
  );
}

/**
 * The Reconciliation section (docs/console.md, "Reconciliation"): the exceptions the runs
 * against the providers' own lists raised (filters in the address, each with its evidence side
 * by side, "Resolve…" for operators and admins, "Download CSV" of what the filters select), and
 * the runs with "Start a reconciliation run" for operators and admins. Distinct from a
 * transaction's "Reconcile now", which asks the provider about one payment.
 */
export function ReconciliationPage({ tab, search, role }: { tab: ReconciliationTab; search: string; role: Role }) {
  const filters = useMemo(() => exceptionFiltersFromSearch(search), [search]);
  return (
    <section>
      <div className="page-head">
        <h1>Reconciliation</h1>
      </div>
      <p className="muted small page-hint">Settle's ledger compared with each provider's own books, as a payment team's daily close.</p>
      <TabBar tabs={TABS} selected={tab} label="Reconciliation" hrefOf={reconciliationTabHref} testIdPrefix="recon-tab" />
      <div role="tabpanel">
        {tab === 'exceptions' ? (
          <>
            <ExceptionFiltersForm filters={filters} />
            <ExceptionsTable filters={filters} role={role} />
          </>
        ) : (
          <>
            {canActOnReconciliation(role) && (
              <div className="panel">
                <h2 className="panel-title">Start a reconciliation run</h2>
                <StartRunForm />
              </div>
            )}
            <RunsTable />
          </>
        )}
      </div>
    </section>
  );
}

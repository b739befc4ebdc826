// Pure helpers of the Reconciliation page (docs/console.md, "Reconciliation"): its addresses and
// filters, the classes' and runs' labels and colours, an exception's evidence side by side with
// amounts as money, and the "Start a reconciliation run" form's window.

import type { paths } from '../api/generated/console-api';
import { PROVIDERS, type Answer, type Item, type Role } from '../api/types';
import { formatMoney, humanize, stateLabel, type Tone } from './format';

/** A reconciliation run as `GET /api/v1/reconciliation/runs` answers it. */
export type ReconciliationRun = Item<Answer<'/api/v1/reconciliation/runs', 'get'>['items']>;
/** A reconciliation exception as `GET /api/v1/reconciliation/exceptions` answers it. */
export type ReconciliationException = Item<Answer<'/api/v1/reconciliation/exceptions', 'get'>['items']>;

/** The Reconciliation section's tabs: the exceptions (what needs a person), and the runs. */
export type ReconciliationTab = 'exceptions' | 'runs';

/** The Reconciliation section's tabs' paths; `/reconciliation` is the exceptions. */
export const RECONCILIATION_PATHS: Record<ReconciliationTab, string> = { exceptions: '/reconciliation/exceptions', runs: '/reconciliation/runs' };

/** The console's address of a tab of the Reconciliation section. */
export function reconciliationTabHref(tab: ReconciliationTab): string {
  return RECONCILIATION_PATHS[tab];
}

/** The console's address of one run: its summary and its exceptions. */
export function reconciliationRunHref(runId: string): string {
  return `/reconciliation/runs/${encodeURIComponent(runId)}`;
}

/** The exceptions' classes, most serious first (libs/domain's `RECONCILIATION_EXCEPTION_CLASSES`). */
export const EXCEPTION_CLASSES = ['settled_not_successful', 'terms_differ', 'possible_duplicate', 'stuck', 'unknown_to_settle'] as const;

/** Providers a run can reconcile against: every one but M-Pesa, whose API has no list (docs/reconciliation.md). */
export const LISTABLE_PROVIDERS = PROVIDERS.filter((provider) => provider !== 'mpesa');

/** Roles that may start a run and resolve an exception: operators and admins (the API checks again). */
const OPERATORS: ReadonlySet<Role> = new Set(['operator', 'admin']);

/** Whether a role may start a reconciliation run or resolve an exception. */
export function canActOnReconciliation(role: Role): boolean {
  return OPERATORS.has(role);
}

/** The exceptions list's filters, as they stand in the page's query string; `''` is no filter. */
export interface ExceptionFilters {
  status: string;
  class: string;
  provider: string;
  runId: string;
}

/** The filters with nothing chosen. */
export const NO_EXCEPTION_FILTERS: ExceptionFilters = { status: '', class: '', provider: '', runId: '' };

const FILTER_KEYS = ['status', 'class', 'provider', 'runId'] as const satisfies ReadonlyArray<keyof ExceptionFilters>;

function filterParams(filters: Partial<ExceptionFilters>): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = filters[key]?.trim();
    if (value) params.set(key, value);
  }
  return params;
}

/** The filters a page's query string (`location.search`) holds; unknown parameters are ignored. */
export function exceptionFiltersFromSearch(search: string): ExceptionFilters {
  const params = new URLSearchParams(search);
  return {
    status: params.get('status')?.trim() ?? '',
    class: params.get('class')?.trim() ?? '',
    provider: params.get('provider')?.trim() ?? '',
    runId: params.get('runId')?.trim() ?? '',
  };
}

/** The console's address of the exceptions with these filters, e.g. `/reconciliation/exceptions?status=open`. */
export function exceptionsHref(filters: Partial<ExceptionFilters>): string {
  const query = filterParams(filters).toString();
  return query ? `${RECONCILIATION_PATHS.exceptions}?${query}` : RECONCILIATION_PATHS.exceptions;
}

/**
 * The address of the CSV download of every exception matching the filters (the API's
 * `format=csv`, the same filters as the list, no paging): what "Download CSV" links to.
 */
export function exceptionsCsvHref(filters: Partial<ExceptionFilters>): string {
  const params = filterParams(filters);
  params.set('format', 'csv');
  return `/api/v1/reconciliation/exceptions?${params.toString()}`;
}

/** The query of `GET /api/v1/reconciliation/exceptions`. */
export type ExceptionsApiQuery = NonNullable<paths['/api/v1/reconciliation/exceptions']['get']['parameters']['query']>;

/**
 * The filters as the API's query, the empty ones left out. Values are sent as typed in the
 * address: the API refuses one it does not know (400 `REQUEST.VALIDATION_FAILED`), which the page shows.
 */
export function exceptionsQuery(filters: ExceptionFilters): ExceptionsApiQuery {
  return Object.fromEntries(filterParams(filters).entries());
}

const CLASS_LABELS: Record<string, string> = {
  settled_not_successful: 'Settled, not successful at the provider',
  terms_differ: 'Terms differ',
  possible_duplicate: 'Possible duplicate',
  stuck: 'Stuck: paid, not settled',
  unknown_to_settle: 'Unknown to Settle',
  matches: 'Matches',
  not_paid: 'Not paid',
  not_paid_unknown: 'Not paid, unknown to Settle',
  out_of_scope: 'Out of scope',
  too_recent: 'Too recent',
};

/** A class of the decision table as people read it (docs/reconciliation.md, "Classes"). */
export function classLabel(cls: string): string {
  return CLASS_LABELS[cls] ?? humanize(cls);
}

const CLASS_TONES: Record<string, Tone> = {
  settled_not_successful: 'danger',
  terms_differ: 'danger',
  possible_duplicate: 'warning',
  stuck: 'warning',
  unknown_to_settle: 'review',
  matches: 'success',
};

/** The badge colour of a class: a settled payment the provider reversed and different terms red, duplicates and stuck amber. */
export function classTone(cls: string): Tone {
  return CLASS_TONES[cls] ?? 'neutral';
}

const RUN_STATUS_TONES: Record<string, Tone> = { started: 'info', progressed: 'info', completed: 'success', failed: 'danger' };
const RUN_STATUS_LABELS: Record<string, string> = { started: 'Started', progressed: 'Running', completed: 'Completed', failed: 'Failed' };

/** A run's status as people read it (`progressed` is "Running") and its colour. */
export function runStatus(status: string): { label: string; tone: Tone } {
  return { label: RUN_STATUS_LABELS[status] ?? humanize(status), tone: RUN_STATUS_TONES[status] ?? 'neutral' };
}

/** The pages a run read: `3 / 5 pages` when the provider tells its page count, else `3 pages`. */
export function runProgress(run: Pick<ReconciliationRun, 'pages' | 'totalPages'>): string {
  const pages = `${run.pages}${run.totalPages === null ? '' : ` / ${run.totalPages}`}`;
  return `${pages} page${run.pages === 1 && run.totalPages === null ? '' : 's'}`;
}

/**
 * A run's counts per class, most serious first then the others by name, without the zeros:
 * `[['stuck', 1], ['matches', 113]]`.
 */
export function classCounts(classes: Record<string, number>): Array<[string, number]> {
  const rank = (cls: string) => {
    const index = (EXCEPTION_CLASSES as readonly string[]).indexOf(cls);
    return index === -1 ? EXCEPTION_CLASSES.length : index;
  };
  return Object.entries(classes)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
}

const FIELD_LABELS: Record<string, string> = {
  status: 'Status',
  amount: 'Amount',
  currency: 'Currency',
  customer: 'Customer',
  duplicate_of: 'Duplicate of',
};

/** One line of an exception's evidence, ready to show: the field, the provider's value beside Settle's, and their raw values. */
export interface EvidenceRow {
  field: string;
  label: string;
  provider: string;
  settle: string;
  /** The values as recorded (amounts in minor units), for a title. */
  raw: { provider: string; settle: string };
}

/** An amount in minor units as text (`250000`) as money in its currency, or unchanged when either cannot be read. */
function money(minor: string, currency: string | null | undefined, locale?: string): string {
  if (!/^-?\d{1,15}$/.test(minor) || !currency) return minor;
  return formatMoney(Number(minor), currency, locale);
}

/**
 * An exception's evidence side by side (field | provider's value | Settle's value), for people:
 * amounts, recorded in minor units, as money with each side's own currency (the currency
 * evidence's when the currencies differ too, else the payment's), Settle's state in words (`PENDING`
 * is "Pending"), the other fields as recorded.
 *
 * @param locale - BCP 47 locale for the amounts; the browser's by default.
 */
export function evidenceRows(exception: Pick<ReconciliationException, 'evidence' | 'currency'>, locale?: string): EvidenceRow[] {
  const currency = exception.evidence.find((e) => e.field === 'currency');
  return exception.evidence.map((e) => {
    const raw = { provider: e.provider, settle: e.settle };
    const label = FIELD_LABELS[e.field] ?? humanize(e.field);
    if (e.field === 'amount') {
      return {
        field: e.field,
        label,
        provider: money(e.provider, currency?.provider ?? exception.currency, locale),
        settle: money(e.settle, currency?.settle ?? exception.currency, locale),
        raw,
      };
    }
    if (e.field === 'status') return { field: e.field, label, provider: e.provider, settle: /^[A-Z_]+$/.test(e.settle) ? stateLabel(e.settle) : e.settle, raw };
    return { field: e.field, label, provider: e.provider, settle: e.settle, raw };
  });
}

/** How an exception was resolved, in one line: `Resolved by ops@example.com: refunded at the provider` or `Resolved: a later run found it in order`. */
export function resolutionText(resolved: NonNullable<ReconciliationException['resolved']>): string {
  const by = resolved.by ? ` by ${resolved.by}` : '';
  if (resolved.resolution === 'operator') return `Resolved${by}${resolved.note ? `: ${resolved.note}` : ''}`;
  if (resolved.resolution === 'matches') return `Resolved${by}: a later run found it in order`;
  if (resolved.resolution === 'reclassified') return `Resolved${by}: a later run classed it otherwise`;
  return `Resolved${by}: ${humanize(resolved.resolution)}${resolved.note ? ` (${resolved.note})` : ''}`;
}

/** The longest window one run may cover: 31 days (ingestion's limit, `RECONCILIATION.INVALID_WINDOW`), milliseconds. */
export const RUN_WINDOW_MAX_MS = 31 * 86_400_000;

/**
 * Reads the "Start a reconciliation run" form's window (`datetime-local` inputs, the browser's
 * local time) into the ISO times the API takes, refusing what ingestion would: no start, a start
 * in the future, an end not after the start, a window longer than 31 days. An empty end is now
 * (left out of the request).
 *
 * @param now - epoch milliseconds.
 */
export function runWindow(sinceInput: string, untilInput: string, now: number): { ok: true; since: string; until?: string } | { ok: false; message: string } {
  const since = sinceInput ? new Date(sinceInput).getTime() : Number.NaN;
  if (Number.isNaN(since)) return { ok: false, message: 'Choose when the window starts.' };
  const until = untilInput ? new Date(untilInput).getTime() : now;
  if (Number.isNaN(until)) return { ok: false, message: 'The end of the window is not a time.' };
  if (since >= until) return { ok: false, message: untilInput ? 'The window must end after it starts.' : 'The start is in the future.' };
  if (until - since > RUN_WINDOW_MAX_MS) return { ok: false, message: 'The window is longer than 31 days: start several runs.' };
  return untilInput
    ? { ok: true, since: new Date(since).toISOString(), until: new Date(until).toISOString() }
    : { ok: true, since: new Date(since).toISOString() };
}

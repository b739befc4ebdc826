import type { ReactNode } from 'react';
import type { Role, SessionUser } from '../api/types';
import { EmptyState } from '../components/Feedback';
import { DELIVERIES_PATHS, PROPOSALS_PATH, QUEUE_PATHS, type DeliveriesTab, type QueueTab } from '../lib/routes';
import { Link } from '../lib/router';
import { RECONCILIATION_PATHS, type ReconciliationTab } from '../lib/reconciliation';
import { AuditPage } from './Audit';
import { DeliveriesPage } from './Deliveries';
import { EndpointPage } from './Endpoint';
import { EventDeliveriesPage } from './EventDeliveries';
import { OverviewPage } from './Overview';
import { ProposalPage, ProposalsPage } from './Proposals';
import { QueuesPage } from './Queues';
import { ReconciliationPage, ReconciliationRunPage } from './Reconciliation';
import { TransactionPage } from './Transaction';
import { TransactionsPage } from './Transactions';
import { UsersPage } from './Users';

// The console's pages in one place: the address each is at, the navigation item it belongs to and
// what it shows. A new page is its file in this folder and its entries here (its route, its paths,
// its view, and its navigation item when it has one); lib/routes.ts has the addresses other pages
// link to. Layout reads the navigation from here, App shows the page the address names.

/** The console's pages, as the address bar names them. */
export type Route =
  | { name: 'overview' }
  | { name: 'transactions' }
  | { name: 'transaction'; reference: string }
  | { name: 'reconciliation'; tab: ReconciliationTab }
  | { name: 'reconciliation_run'; runId: string }
  | { name: 'queues'; tab: QueueTab }
  | { name: 'proposals' }
  | { name: 'proposal'; id: string }
  | { name: 'audit' }
  | { name: 'users' }
  | { name: 'deliveries'; tab: DeliveriesTab }
  | { name: 'endpoint'; id: string }
  | { name: 'event'; eventId: string }
  | { name: 'not_found' };

/** The main navigation, in order; `nav-<section>` is each item's test id. */
const NAV = [
  { section: 'overview', href: '/', label: 'Overview' },
  { section: 'transactions', href: '/transactions', label: 'Transactions' },
  { section: 'reconciliation', href: '/reconciliation', label: 'Reconciliation' },
  { section: 'queues', href: '/queues', label: 'Queues' },
  { section: 'proposals', href: PROPOSALS_PATH, label: 'Proposals' },
  { section: 'deliveries', href: '/deliveries', label: 'Deliveries' },
  { section: 'audit', href: '/audit', label: 'Audit' },
  { section: 'users', href: '/users', label: 'Users' },
] as const;

/** A navigation item: its section, address and label. */
export type NavItem = (typeof NAV)[number];
/** An item of the main navigation, which the pages under it make active. */
export type Section = NavItem['section'];

/** Whole paths (a trailing slash ignored) and the page each names. */
const PATHS = new Map<string, Route>([
  ['/', { name: 'overview' }],
  ['/transactions', { name: 'transactions' }],
  ['/reconciliation', { name: 'reconciliation', tab: 'exceptions' }],
  [RECONCILIATION_PATHS.exceptions, { name: 'reconciliation', tab: 'exceptions' }],
  [RECONCILIATION_PATHS.runs, { name: 'reconciliation', tab: 'runs' }],
  ['/queues', { name: 'queues', tab: 'held' }],
  [QUEUE_PATHS.held, { name: 'queues', tab: 'held' }],
  [QUEUE_PATHS.manual, { name: 'queues', tab: 'manual' }],
  [QUEUE_PATHS.mismatch, { name: 'queues', tab: 'mismatch' }],
  [QUEUE_PATHS.disputes, { name: 'queues', tab: 'disputes' }],
  [QUEUE_PATHS.unmatched, { name: 'queues', tab: 'unmatched' }],
  [PROPOSALS_PATH, { name: 'proposals' }],
  ['/audit', { name: 'audit' }],
  ['/users', { name: 'users' }],
  ['/deliveries', { name: 'deliveries', tab: 'endpoints' }],
  [DELIVERIES_PATHS.endpoints, { name: 'deliveries', tab: 'endpoints' }],
  [DELIVERIES_PATHS.failed, { name: 'deliveries', tab: 'failed' }],
]);

/** Paths with one segment of their own (URL-decoded), and the page it names. */
const PATTERNS: ReadonlyArray<[RegExp, (value: string) => Route]> = [
  [/^\/transactions\/([^/]+)$/, (reference) => ({ name: 'transaction', reference })],
  [/^\/reconciliation\/runs\/([^/]+)$/, (runId) => ({ name: 'reconciliation_run', runId })],
  [/^\/deliveries\/endpoints\/([^/]+)$/, (id) => ({ name: 'endpoint', id })],
  [/^\/deliveries\/events\/([^/]+)$/, (eventId) => ({ name: 'event', eventId })],
  [/^\/proposals\/([^/]+)$/, (id) => ({ name: 'proposal', id })],
];

/** What a page is shown with. */
export interface PageContext {
  /** The signed-in user. */
  user: SessionUser;
  /** The address's query string (`location.search`), where the lists keep their filters. */
  search: string;
}

/** How the pages of one route name show: the navigation item they belong to (`null`: none), whether only admins see them, and the page. */
interface PageView<R extends Route> {
  section: Section | null;
  adminOnly?: boolean;
  render: (route: R, context: PageContext) => ReactNode;
}

const VIEWS: { [N in Route['name']]: PageView<Extract<Route, { name: N }>> } = {
  overview: { section: 'overview', render: () => <OverviewPage /> },
  transactions: { section: 'transactions', render: (_, { search }) => <TransactionsPage search={search} /> },
  transaction: {
    section: 'transactions',
    render: ({ reference }, { user }) => <TransactionPage key={reference} reference={reference} role={user.role} />,
  },
  reconciliation: { section: 'reconciliation', render: ({ tab }, { user, search }) => <ReconciliationPage tab={tab} search={search} role={user.role} /> },
  reconciliation_run: { section: 'reconciliation', render: ({ runId }, { user }) => <ReconciliationRunPage key={runId} runId={runId} role={user.role} /> },
  queues: { section: 'queues', render: ({ tab }, { user }) => <QueuesPage tab={tab} role={user.role} /> },
  proposals: { section: 'proposals', render: (_, { user }) => <ProposalsPage me={user} /> },
  proposal: { section: 'proposals', render: ({ id }, { user }) => <ProposalPage key={id} id={id} me={user} /> },
  audit: { section: 'audit', adminOnly: true, render: (_, { search }) => <AuditPage search={search} /> },
  users: { section: 'users', adminOnly: true, render: (_, { user }) => <UsersPage me={user} /> },
  deliveries: { section: 'deliveries', render: ({ tab }, { user }) => <DeliveriesPage tab={tab} role={user.role} /> },
  endpoint: { section: 'deliveries', render: ({ id }, { user }) => <EndpointPage key={id} id={id} role={user.role} /> },
  event: { section: 'deliveries', render: ({ eventId }, { user }) => <EventDeliveriesPage key={eventId} eventId={eventId} role={user.role} /> },
  not_found: {
    section: null,
    render: () => (
      <div className="empty">
        <strong>There is no such page.</strong>
        <Link href="/">Back to the overview</Link>
      </div>
    ),
  },
};

/** The view of a route (the table is keyed by name, so its entry takes that route). */
function viewOf<R extends Route>(route: R): PageView<R> {
  return VIEWS[route.name] as unknown as PageView<R>;
}

/**
 * The page a path stands for: `/` is the Overview, `/transactions` the list (its filters are in
 * the query string), `/transactions/<reference>` one transaction (the reference URL-decoded),
 * `/reconciliation` and `/reconciliation/exceptions` the reconciliation exceptions (their filters
 * in the query string), `/reconciliation/runs` the runs, `/reconciliation/runs/<run id>` one run,
 * `/queues` and `/queues/held-in-review` the held-in-review queue, `/queues/manual-review` the
 * manual-review queue, `/queues/state-mismatch` the State Mismatch queue, `/queues/disputes` the
 * disputes still open,
 * `/queues/unmatched-payments` the unmatched payments, `/proposals` the proposals waiting for a
 * second admin and `/proposals/<id>` one proposal, `/audit` the audit view (its filters in
 * the query string), `/users` the console's users, `/deliveries` and `/deliveries/endpoints` the endpoints,
 * `/deliveries/dead-lettered` the dead-lettered deliveries, `/deliveries/endpoints/<id>` one
 * endpoint and `/deliveries/events/<event id>` an entitlement event's delivery attempts.
 * A trailing slash is ignored; a path segment that is not valid percent-encoding is no page.
 */
export function matchRoute(pathname: string): Route {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  const whole = PATHS.get(path === '' ? '/' : path);
  if (whole) return { ...whole };
  for (const [pattern, route] of PATTERNS) {
    const raw = pattern.exec(path)?.[1];
    if (!raw) continue;
    try {
      return route(decodeURIComponent(raw));
    } catch {
      return { name: 'not_found' };
    }
  }
  return { name: 'not_found' };
}

/** The navigation item a page belongs to; `null` for no page. */
export function sectionOf(route: Route): Section | null {
  return viewOf(route).section;
}

/** The navigation items a role sees, in order (the admins' pages only to admins). */
export function navigationFor(role: Role): NavItem[] {
  return NAV.filter((item) => role === 'admin' || !viewOf(matchRoute(item.href)).adminOnly);
}

/** The page a route names, shown to `context.user`; a page for admins says so to anyone else. */
export function renderPage(route: Route, context: PageContext): ReactNode {
  const view = viewOf(route);
  if (view.adminOnly && context.user.role !== 'admin') {
    return <EmptyState title="This page is for admins">Ask an admin of the console if you need it.</EmptyState>;
  }
  return view.render(route, context);
}

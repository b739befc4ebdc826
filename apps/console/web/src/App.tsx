import { useSession } from './api/session';
import { EmptyState, ErrorPanel, Spinner } from './components/Feedback';
import { matchRoute } from './lib/routes';
import { Link, useLocation } from './lib/router';
import { AuditPage } from './pages/Audit';
import { DeliveriesPage } from './pages/Deliveries';
import { EndpointPage } from './pages/Endpoint';
import { EventDeliveriesPage } from './pages/EventDeliveries';
import { Layout } from './pages/Layout';
import { OverviewPage } from './pages/Overview';
import { QueuesPage } from './pages/Queues';
import { SignInPage } from './pages/SignIn';
import { TransactionPage } from './pages/Transaction';
import { TransactionsPage } from './pages/Transactions';
import { UsersPage } from './pages/Users';

/** The console: the sign-in page without a session, else the layout around the page the address names. */
export function App() {
  const session = useSession();
  const location = useLocation();

  if (session.isPending) {
    return (
      <div className="splash">
        <Spinner label="Loading the console" />
      </div>
    );
  }
  if (session.isError) {
    return (
      <div className="splash">
        <ErrorPanel error={session.error} title="The console is not reachable" onRetry={() => void session.refetch()} />
      </div>
    );
  }
  if (!session.data) return <SignInPage />;

  const route = matchRoute(location.pathname);
  return (
    <Layout user={session.data.user} route={route}>
      {route.name === 'overview' && <OverviewPage />}
      {route.name === 'transactions' && <TransactionsPage search={location.search} />}
      {route.name === 'queues' && <QueuesPage tab={route.tab} />}
      {route.name === 'transaction' && <TransactionPage key={route.reference} reference={route.reference} role={session.data.user.role} />}
      {(route.name === 'audit' || route.name === 'users') && session.data.user.role !== 'admin' && (
        <EmptyState title="This page is for admins">Ask an admin of the console if you need it.</EmptyState>
      )}
      {route.name === 'audit' && session.data.user.role === 'admin' && <AuditPage search={location.search} />}
      {route.name === 'users' && session.data.user.role === 'admin' && <UsersPage me={session.data.user} />}
      {route.name === 'deliveries' && <DeliveriesPage tab={route.tab} role={session.data.user.role} />}
      {route.name === 'endpoint' && <EndpointPage key={route.id} id={route.id} role={session.data.user.role} />}
      {route.name === 'event' && <EventDeliveriesPage key={route.eventId} eventId={route.eventId} role={session.data.user.role} />}
      {route.name === 'not_found' && (
        <div className="empty">
          <strong>There is no such page.</strong>
          <Link href="/">Back to the overview</Link>
        </div>
      )}
    </Layout>
  );
}

import { useSession } from './api/session';
import { ErrorPanel, Spinner } from './components/Feedback';
import { useLocation } from './lib/router';
import { matchRoute, renderPage } from './pages';
import { Layout } from './pages/Layout';
import { SignInPage } from './pages/SignIn';

/** The console: the sign-in page without a session, else the layout around the page the address names (pages/index.tsx). */
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
      {renderPage(route, { user: session.data.user, search: location.search })}
    </Layout>
  );
}

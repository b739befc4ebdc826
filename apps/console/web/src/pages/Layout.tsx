import type { ReactNode } from 'react';
import { useSignOut } from '../api/session';
import type { SessionUser } from '../api/types';
import type { Route } from '../lib/routes';
import { Link } from '../lib/router';

/** The navigation item a page belongs to; `null` for no page. */
function sectionOf(route: Route): 'overview' | 'transactions' | 'queues' | 'deliveries' | 'audit' | 'users' | null {
  switch (route.name) {
    case 'overview':
      return 'overview';
    case 'audit':
      return 'audit';
    case 'users':
      return 'users';
    case 'queues':
      return 'queues';
    case 'deliveries':
    case 'endpoint':
    case 'event':
      return 'deliveries';
    case 'transactions':
    case 'transaction':
      return 'transactions';
    case 'not_found':
      return null;
  }
}

/** The frame of every signed-in page: top bar with the product, the navigation and the user. */
export function Layout({ user, route, children }: { user: SessionUser; route: Route; children: ReactNode }) {
  const signOut = useSignOut();
  const section = sectionOf(route);
  return (
    <div className="app">
      <header className="topbar">
        <Link href="/" className="brand">
          <span className="brand-mark" aria-hidden="true">
            S
          </span>
          Settle Console
        </Link>
        <nav className="nav" aria-label="Main">
          <Link
            href="/"
            data-testid="nav-overview"
            className={section === 'overview' ? 'active' : undefined}
            aria-current={section === 'overview' ? 'page' : undefined}
          >
            Overview
          </Link>
          <Link
            href="/transactions"
            data-testid="nav-transactions"
            className={section === 'transactions' ? 'active' : undefined}
            aria-current={section === 'transactions' ? 'page' : undefined}
          >
            Transactions
          </Link>
          <Link
            href="/queues"
            data-testid="nav-queues"
            className={section === 'queues' ? 'active' : undefined}
            aria-current={section === 'queues' ? 'page' : undefined}
          >
            Queues
          </Link>
          <Link
            href="/deliveries"
            data-testid="nav-deliveries"
            className={section === 'deliveries' ? 'active' : undefined}
            aria-current={section === 'deliveries' ? 'page' : undefined}
          >
            Deliveries
          </Link>
          {user.role === 'admin' && (
            <>
              <Link
                href="/audit"
                data-testid="nav-audit"
                className={section === 'audit' ? 'active' : undefined}
                aria-current={section === 'audit' ? 'page' : undefined}
              >
                Audit
              </Link>
              <Link
                href="/users"
                data-testid="nav-users"
                className={section === 'users' ? 'active' : undefined}
                aria-current={section === 'users' ? 'page' : undefined}
              >
                Users
              </Link>
            </>
          )}
        </nav>
        <div className="user">
          <span className="user-email" title={user.email}>
            {user.email}
          </span>
          <span className={`role role-${user.role}`}>{user.role}</span>
          <button type="button" className="button button-ghost" data-testid="signout" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
        </div>
      </header>
      <main className="content">{children}</main>
    </div>
  );
}

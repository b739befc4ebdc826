import type { ReactNode } from 'react';
import { useSignOut } from '../api/session';
import type { SessionUser } from '../api/types';
import type { Route } from '../lib/routes';
import { Link } from '../lib/router';

/** A navigation item: its section, address and label, and whether only admins see it. */
type Section = 'overview' | 'transactions' | 'queues' | 'deliveries' | 'audit' | 'users';

/** The main navigation, in order; `nav-<section>` is each item's test id. */
const NAV: ReadonlyArray<{ section: Section; href: string; label: string; adminOnly?: boolean }> = [
  { section: 'overview', href: '/', label: 'Overview' },
  { section: 'transactions', href: '/transactions', label: 'Transactions' },
  { section: 'queues', href: '/queues', label: 'Queues' },
  { section: 'deliveries', href: '/deliveries', label: 'Deliveries' },
  { section: 'audit', href: '/audit', label: 'Audit', adminOnly: true },
  { section: 'users', href: '/users', label: 'Users', adminOnly: true },
];

/** The navigation item a page belongs to; `null` for no page. */
function sectionOf(route: Route): Section | null {
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
          {NAV.filter((item) => !item.adminOnly || user.role === 'admin').map((item) => (
            <Link
              key={item.section}
              href={item.href}
              data-testid={`nav-${item.section}`}
              className={section === item.section ? 'active' : undefined}
              aria-current={section === item.section ? 'page' : undefined}
            >
              {item.label}
            </Link>
          ))}
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

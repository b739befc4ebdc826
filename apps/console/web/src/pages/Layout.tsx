import type { ReactNode } from 'react';
import { useSignOut } from '../api/session';
import type { SessionUser } from '../api/types';
import { Link } from '../lib/router';
import { navigationFor, sectionOf, type Route } from './index';

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
          {navigationFor(user.role).map((item) => (
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

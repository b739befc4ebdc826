import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { AuditEntry, ConsoleUser, TransactionView } from '../src/api/types';
import { adminActionLabel, formatParameters } from '../src/lib/format';
import { auditFiltersFromSearch, auditHref, auditQuery } from '../src/lib/query-string';
import { ledgerEventCount, reconcileProgress } from '../src/lib/reconcile';
import { matchRoute } from '../src/pages';
import { AuditPage, targetHref } from '../src/pages/Audit';
import { Layout } from '../src/pages/Layout';
import { TransactionPage } from '../src/pages/Transaction';
import { UsersPage } from '../src/pages/Users';

// The audit view, the users page and the admin actions on a transaction's timeline, rendered to
// HTML from answers already in the query cache (no browser, no requests), and their helpers.

function render(element: ReactElement, seed: (client: QueryClient) => void = () => undefined): string {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  seed(client);
  return renderToStaticMarkup(createElement(QueryClientProvider, { client }, element));
}

const count = (html: string, needle: string) => html.split(needle).length - 1;

const reconciliation: AuditEntry = {
  actionId: '00000000-0000-4000-8000-000000000001',
  action: 'transaction.reconcile',
  actor: { email: 'ops@example.com', role: 'operator' },
  target: { kind: 'transaction', id: 'ref_held01' },
  parameters: {},
  requestedAt: '2026-11-25T09:00:00.000Z',
  outcome: 'succeeded',
  errorCode: null,
  result: { state: 'RECOVERING' },
  completedAt: '2026-11-25T09:00:01.000Z',
  position: 42,
};
const refused: AuditEntry = {
  ...reconciliation,
  actionId: '00000000-0000-4000-8000-000000000002',
  action: 'user.update',
  actor: { email: 'admin@example.com', role: 'admin' },
  target: { kind: 'user', id: 'admin@example.com' },
  parameters: { disabled: true },
  outcome: 'failed',
  errorCode: 'CONSOLE.SELF_CHANGE_REFUSED',
  result: null,
  position: 43,
};
const unknown: AuditEntry = { ...reconciliation, actionId: '00000000-0000-4000-8000-000000000003', outcome: null, completedAt: null, position: 44 };

describe('the audit view', () => {
  const seeded = (items: AuditEntry[], nextCursor: string | null) => (client: QueryClient) =>
    client.setQueryData(['audit', { actor: '', targetKind: '', targetId: '' }], { pages: [{ items, nextCursor }], pageParams: [null] });

  it('shows each action with its actor and role, its target linked, its parameters and outcome; more by cursor', () => {
    const html = render(createElement(AuditPage, { search: '' }), seeded([unknown, refused, reconciliation], '41'));
    expect(count(html, 'data-testid="audit-row"')).toBe(3);
    expect(html).toContain('ops@example.com');
    expect(html).toContain('role-operator');
    expect(html).toContain('Manual reconciliation');
    expect(html).toContain('href="/transactions/ref_held01"');
    expect(html).toContain('href="/users"');
    expect(html).toContain('disabled: true');
    expect(html).toContain('Succeeded');
    expect(html).toContain('Failed: CONSOLE.SELF_CHANGE_REFUSED');
    expect(html).toContain('No outcome recorded');
    expect(html).toContain('href="/audit?actor=ops%40example.com"');
    for (const id of ['audit-actor', 'audit-target-kind', 'audit-target-id', 'audit-table', 'load-more']) expect(html).toContain(`data-testid="${id}"`);
  });

  it('says so when nothing is recorded, or nothing matches', () => {
    expect(render(createElement(AuditPage, { search: '' }), seeded([], null))).toContain('No admin actions yet');
    const filtered = render(createElement(AuditPage, { search: '?actor=x%40example.com' }), (client) =>
      client.setQueryData(['audit', { actor: 'x@example.com', targetKind: '', targetId: '' }], {
        pages: [{ items: [], nextCursor: null }],
        pageParams: [null],
      }),
    );
    expect(filtered).toContain('No admin action matches these filters');
    expect(filtered).not.toContain('Load more');
  });

  it('links transactions and users, not the kinds without a page here', () => {
    expect(targetHref({ kind: 'transaction', id: 'ref/1' })).toBe('/transactions/ref%2F1');
    expect(targetHref({ kind: 'user', id: 'a@example.com' })).toBe('/users');
    expect(targetHref({ kind: 'endpoint', id: 'ep-1' })).toBeNull();
  });
});

describe('the users page', () => {
  const users: ConsoleUser[] = [
    { email: 'admin@example.com', role: 'admin', disabled: false, createdAt: '2026-11-20T09:00:00.000Z', lastSignInAt: '2026-11-25T09:00:00.000Z' },
    { email: 'gone@example.com', role: 'viewer', disabled: true, createdAt: '2026-11-21T09:00:00.000Z', lastSignInAt: null },
  ];
  const html = render(createElement(UsersPage, { me: { email: 'admin@example.com', role: 'admin' } }), (client) =>
    client.setQueryData(['users'], { items: users }),
  );

  it('lists users with role, status, created and last sign-in, and the form that adds one', () => {
    expect(count(html, 'data-testid="user-row"')).toBe(2);
    expect(html).toContain('data-email="gone@example.com"');
    expect(html).toContain('Disabled');
    expect(html).toContain('Enabled');
    expect(html).toContain('never');
    expect(html).toContain('>Enable<');
    for (const id of ['create-user', 'new-user-email', 'new-user-role', 'new-user-submit', 'users-table']) expect(html).toContain(`data-testid="${id}"`);
    expect(html).toContain('href="/audit?targetKind=user&amp;targetId=gone%40example.com"');
  });

  it('offers no control that would lock the admin out of their own account', () => {
    const own = html.slice(html.indexOf('data-email="admin@example.com"'), html.indexOf('data-email="gone@example.com"'));
    expect(own).toContain('you');
    expect(count(own, 'disabled=""')).toBe(3);
    const other = html.slice(html.indexOf('data-email="gone@example.com"'));
    expect(count(other.slice(0, other.indexOf('</tr>')), 'disabled=""')).toBe(0);
  });
});

describe('admin actions on the transaction page', () => {
  const view: TransactionView = {
    transaction: {
      reference: 'ref_held01',
      provider: 'paystack',
      state: 'SETTLED_CONSENSUS',
      entitlementStatus: 'UNLOCKED',
      amountMinor: 500_000,
      currency: 'NGN',
      userId: 'user-1',
      email: 'payer@example.com',
      updatedAt: '2026-11-25T09:00:05.000Z',
      entitlement: 'pro',
      accessPeriod: 'P1M',
      checks: null,
      lastVerdict: 'cleared',
      lastTrigger: 'admin_reconciliation',
      moneyState: 'none',
      returnedMinor: 0,
      resolution: null,
    },
    timeline: [
      {
        position: 10,
        revision: 0,
        type: 'PaymentHeldInReview',
        recordedAt: '2026-11-25T08:00:00.000Z',
        trigger: 'webhook_received',
        verdict: 'clearing',
        state: 'RECOVERING',
        detail: null,
      },
      {
        position: 42,
        revision: 0,
        type: 'AdminActionRequested',
        recordedAt: '2026-11-25T09:00:00.000Z',
        trigger: null,
        verdict: null,
        state: null,
        detail: 'Manual reconciliation requested by ops@example.com (operator)',
        actor: { email: 'ops@example.com', role: 'operator' },
        adminAction: { action: 'transaction.reconcile', outcome: 'succeeded', errorCode: null, completedAt: '2026-11-25T09:00:01.000Z' },
      },
      {
        position: 45,
        revision: 1,
        type: 'TransactionSettled',
        recordedAt: '2026-11-25T09:00:05.000Z',
        trigger: 'admin_reconciliation',
        verdict: 'cleared',
        state: 'SETTLED_CONSENSUS',
        detail: null,
      },
    ],
    watch: null,
    entitlementEvents: [],
  };

  it('shows who asked, and its outcome, in ledger order, newest first', () => {
    const html = render(createElement(TransactionPage, { reference: 'ref_held01', role: 'viewer' }), (client) =>
      client.setQueryData(['transaction', 'ref_held01'], view),
    );
    expect(count(html, 'data-testid="timeline-admin-action"')).toBe(1);
    expect(html).toContain('By ops@example.com (operator)');
    expect(html).toContain('Manual reconciliation requested by ops@example.com (operator)');
    const order = ['TransactionSettled', 'data-testid="timeline-admin-action"', 'PaymentHeldInReview'].map((needle) => html.indexOf(needle));
    expect(order.every((index) => index > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it("does not count the request as the reconciliation's outcome", () => {
    expect(ledgerEventCount(view.timeline)).toBe(2);
    const before = { state: 'RECOVERING', events: ledgerEventCount(view.timeline.slice(0, 1)) };
    const requestOnly = { state: 'RECOVERING', events: ledgerEventCount(view.timeline.slice(0, 2)) };
    expect(reconcileProgress(before, requestOnly, 0, 1_000)).toBe('waiting');
  });
});

describe('the frame for admins', () => {
  it('shows Audit and Users to admins only', () => {
    const admin = render(createElement(Layout, { user: { email: 'a@example.com', role: 'admin' }, route: { name: 'audit' }, children: null }));
    expect(admin).toContain('data-testid="nav-audit"');
    expect(admin).toContain('data-testid="nav-users"');
    expect(admin).toMatch(/data-testid="nav-audit" class="active"/);
    for (const role of ['viewer', 'operator'] as const) {
      const html = render(createElement(Layout, { user: { email: 'o@example.com', role }, route: { name: 'overview' }, children: null }));
      expect(html).not.toContain('nav-audit');
      expect(html).not.toContain('nav-users');
    }
  });
});

describe('audit helpers', () => {
  it('builds the query string: set filters trimmed, a target only with its kind and id, the cursor, the limit clamped', () => {
    expect(auditQuery({})).toBe('');
    expect(auditQuery({ actor: ' Ops@Example.com ', targetKind: 'transaction', targetId: ' ref_1 ' }, '42', 500)).toBe(
      '?actor=Ops%40Example.com&targetKind=transaction&targetId=ref_1&cursor=42&limit=100',
    );
    expect(auditQuery({ targetKind: 'user' })).toBe('');
    expect(auditQuery({ targetId: 'x' }, null, 0)).toBe('?limit=1');
    expect(auditHref({ targetKind: 'user', targetId: 'a@example.com' })).toBe('/audit?targetKind=user&targetId=a%40example.com');
    expect(auditHref({})).toBe('/audit');
    expect(auditFiltersFromSearch('?actor=a%40example.com&targetKind=user&other=1')).toEqual({ actor: 'a@example.com', targetKind: 'user', targetId: '' });
  });

  it('routes /audit and /users', () => {
    expect(matchRoute('/audit')).toEqual({ name: 'audit' });
    expect(matchRoute('/users/')).toEqual({ name: 'users' });
  });

  it('names actions and lists parameters for people', () => {
    expect(adminActionLabel('transaction.reconcile')).toBe('Manual reconciliation');
    expect(adminActionLabel('something.new')).toBe('Something new');
    expect(formatParameters({ role: 'viewer', disabled: true, since: { at: 1 } })).toBe('role: viewer · disabled: true · since: {"at":1}');
    expect(formatParameters({})).toBe('');
  });
});

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { HeldInReviewItem, ManualReviewItem, Overview, TransactionPage as Page, TransactionView } from '../src/api/types';
import { OverviewPage } from '../src/pages/Overview';
import { QueuesPage } from '../src/pages/Queues';
import { Layout } from '../src/pages/Layout';
import { SignInPage } from '../src/pages/SignIn';
import { TransactionPage } from '../src/pages/Transaction';
import { TransactionsPage } from '../src/pages/Transactions';

// The pages rendered to HTML from answers already in the query cache: no browser, no requests.
// They check that each page renders what the contract gives it and carries the test ids the
// browser tests will use.

function render(element: ReactElement, seed: (client: QueryClient) => void = () => undefined): string {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  seed(client);
  return renderToStaticMarkup(createElement(QueryClientProvider, { client }, element));
}

const view: TransactionView = {
  transaction: {
    reference: 'ref_mismatch01',
    provider: 'paystack',
    state: 'STATE_MISMATCH',
    entitlementStatus: 'LOCKED',
    amountMinor: 500_000,
    currency: 'NGN',
    userId: 'user-42',
    email: 'ada@example.com',
    updatedAt: '2026-11-25T08:58:26.000Z',
    entitlement: 'premium',
    accessPeriod: 'P30D',
    checks: [
      { check: 'amount', passed: false, code: 'CONSENSUS.AMOUNT_MISMATCH', expected: '500000', observed: '400000' },
      { check: 'transaction_identity', passed: true, code: null, expected: 'ref_mismatch01', observed: 'ref_mismatch01' },
      { check: 'currency', passed: true, code: null, expected: 'NGN', observed: 'NGN' },
      { check: 'customer', passed: true, code: null, expected: 'user-42', observed: 'ada@example.com' },
    ],
    lastVerdict: 'cleared',
    lastTrigger: 'admin_reconciliation',
  },
  timeline: [
    {
      position: 17,
      revision: 0,
      type: 'StateMismatchDetected',
      recordedAt: '2026-11-25T08:58:26.000Z',
      trigger: 'sweeper_orphaned',
      verdict: 'cleared',
      state: 'STATE_MISMATCH',
      detail: 'amount paid 400000 < expected 500000',
    },
  ],
  watch: { nextCheckAt: '2026-11-25T09:12:00.000Z', checksSoFar: 3, active: true },
  entitlementEvents: [
    {
      eventId: '00000000-0000-4000-8000-000000000001',
      event: 'entitlement.granted',
      expiresAt: '2026-12-25T08:58:26.000Z',
      deliveries: [
        {
          endpointId: '00000000-0000-4000-8000-00000000000a',
          endpointUrl: 'https://hooks.example.com/settle',
          status: 'delivered',
          attempts: [
            { at: '2026-11-25T08:58:27.000Z', outcome: 'failed', httpStatus: 503, durationMs: 120 },
            { at: '2026-11-25T08:59:27.000Z', outcome: 'delivered', httpStatus: 200, durationMs: 85 },
          ],
        },
        { endpointId: '00000000-0000-4000-8000-00000000000b', endpointUrl: 'https://b.example.com/hooks', status: 'pending', attempts: [] },
      ],
    },
  ],
};

const count = (html: string, needle: string) => html.split(needle).length - 1;

describe('the transaction page', () => {
  const seeded = (client: QueryClient) => client.setQueryData(['transaction', 'ref_mismatch01'], view);

  it('shows the state, the four checks in the spec order with expected and observed, and the timeline', () => {
    const html = render(createElement(TransactionPage, { reference: 'ref_mismatch01', role: 'viewer' }), seeded);
    expect(count(html, 'data-testid="state-badge"')).toBe(1);
    expect(html).toContain('State mismatch');
    expect(html).toContain('data-testid="checks"');
    const order = ['transaction_identity', 'currency', 'amount', 'customer'].map((check) => html.indexOf(`data-check="${check}"`));
    expect(order.every((index) => index > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(html).toContain('CONSENSUS.AMOUNT_MISMATCH');
    expect(html).toContain('400000');
    expect(html).toContain('data-testid="timeline"');
    expect(html).toContain('StateMismatchDetected');
    expect(html).toContain('₦5,000.00');
  });

  it('offers "Reconcile now" to operators and admins only', () => {
    for (const role of ['operator', 'admin'] as const) {
      expect(render(createElement(TransactionPage, { reference: 'ref_mismatch01', role }), seeded)).toContain('data-testid="reconcile"');
    }
    expect(render(createElement(TransactionPage, { reference: 'ref_mismatch01', role: 'viewer' }), seeded)).not.toContain('data-testid="reconcile"');
  });

  it('says so when no verification has decided yet', () => {
    const undecided: TransactionView = { transaction: { ...view.transaction, checks: null }, timeline: [], watch: null, entitlementEvents: [] };
    const html = render(createElement(TransactionPage, { reference: 'ref_new', role: 'viewer' }), (client) =>
      client.setQueryData(['transaction', 'ref_new'], undecided),
    );
    expect(html).toContain('No verification has decided yet');
    expect(html).toContain('Nothing in the ledger yet');
    expect(html).toContain('data-testid="watch"');
    expect(html).toContain('Not watched');
    expect(html).toContain('data-testid="entitlement-events"');
    expect(html).toContain('No entitlement events');
  });

  it("shows the sweeper's watch and each entitlement event with its deliveries and attempts", () => {
    const html = render(createElement(TransactionPage, { reference: 'ref_mismatch01', role: 'viewer' }), seeded);
    expect(html).toContain('data-testid="watch"');
    expect(html).toContain('Checks so far');
    expect(html).toContain('>3<');
    expect(html).toContain('Re-checking automatically');
    expect(count(html, 'data-testid="entitlement-event"')).toBe(1);
    expect(html).toContain('entitlement.granted');
    expect(html).toContain('https://hooks.example.com/settle');
    expect(html).toContain('85 ms');
    expect(html).toContain('503');
    expect(html).toContain('No attempt yet');
  });
});

describe('the queues', () => {
  const summary = { ...view.transaction };
  const held: HeldInReviewItem = { ...summary, reference: 'ref_held', state: 'RECOVERING', nextCheckAt: '2099-01-01T00:00:00.000Z', checksSoFar: 4 };
  const manual: ManualReviewItem = {
    ...summary,
    reference: 'ref_manual',
    state: 'MANUAL_REVIEW',
    lastVerdict: 'clearing',
    lastTrigger: 'sweeper_review_limit',
    checksSoFar: 30,
    lastEvent: { type: 'ManualReviewRequested', recordedAt: '2026-11-25T08:58:26.000Z', detail: 'still clearing after 30 re-checks' },
  };

  it('shows the held-in-review tab with the next check and the checks so far, rows linking to the transaction', () => {
    const html = render(createElement(QueuesPage, { tab: 'held' }), (client) =>
      client.setQueryData(['queue', 'held'], { pages: [{ items: [held], nextCursor: 'next' }], pageParams: [null] }),
    );
    expect(html).toContain('data-testid="queue-held"');
    expect(html).toContain('data-testid="queue-tab-manual"');
    expect(html).toContain('href="/transactions/ref_held"');
    expect(html).toMatch(/data-testid="next-check"[^>]*>in \d+ d</);
    expect(html).toContain('data-testid="checks-so-far">4<');
    expect(html).toContain('Load more');
  });

  it('shows the manual-review tab with why, and the empty state', () => {
    const html = render(createElement(QueuesPage, { tab: 'manual' }), (client) =>
      client.setQueryData(['queue', 'manual'], { pages: [{ items: [manual], nextCursor: null }], pageParams: [null] }),
    );
    expect(html).toContain('data-testid="queue-manual"');
    expect(html).toContain('href="/transactions/ref_manual"');
    expect(html).toContain('still clearing after 30 re-checks · 30 automatic re-checks');
    const empty = render(createElement(QueuesPage, { tab: 'held' }), (client) =>
      client.setQueryData(['queue', 'held'], { pages: [{ items: [], nextCursor: null }], pageParams: [null] }),
    );
    expect(empty).toContain('Nothing is held in review');
  });
});

describe('the transactions list', () => {
  const filters = { q: '', provider: '', state: 'STATE_MISMATCH', entitlement: '' };
  const page: Page = { items: [view.transaction], nextCursor: 'next-cursor' };

  it('shows a row per transaction with its reference, and "Load more" while there is a next page', () => {
    const html = render(createElement(TransactionsPage, { search: '?state=STATE_MISMATCH' }), (client) =>
      client.setQueryData(['transactions', filters], { pages: [page], pageParams: [null] }),
    );
    expect(html).toContain('data-testid="transactions-table"');
    expect(html).toContain('data-testid="search"');
    expect(count(html, 'data-testid="transaction-row"')).toBe(1);
    expect(html).toContain('data-reference="ref_mismatch01"');
    expect(html).toContain('href="/transactions/ref_mismatch01"');
    expect(html).toContain('Load more');
  });

  it('shows the empty state when nothing matches', () => {
    const html = render(createElement(TransactionsPage, { search: '?state=STATE_MISMATCH' }), (client) =>
      client.setQueryData(['transactions', filters], { pages: [{ items: [], nextCursor: null }], pageParams: [null] }),
    );
    expect(html).toContain('No transaction matches these filters');
    expect(html).not.toContain('Load more');
  });
});

describe('the overview', () => {
  it('links each count to the list filtered by it', () => {
    const overview: Overview = {
      states: { PENDING: 3, SETTLED_CONSENSUS: 10, STATE_MISMATCH: 1 },
      entitlements: { LOCKED: 4, UNLOCKED: 10 },
      heldInReview: 0,
      manualReview: 0,
      stateMismatch: 1,
      total: 14,
    };
    const html = render(createElement(OverviewPage), (client) => client.setQueryData(['overview'], overview));
    expect(html).toContain('href="/transactions?state=PENDING"');
    expect(html).toContain('href="/transactions?entitlement=UNLOCKED"');
    expect(html).toContain('>14<');
  });
});

describe('the frame and the sign-in page', () => {
  it('shows the product, the navigation, the user and role, and sign out', () => {
    const html = render(createElement(Layout, { user: { email: 'ops@example.com', role: 'operator' }, route: { name: 'overview' }, children: null }));
    for (const id of ['nav-overview', 'nav-transactions', 'nav-queues', 'signout']) expect(html).toContain(`data-testid="${id}"`);
    expect(html).toContain('Settle Console');
    expect(html).toContain('ops@example.com');
    expect(html).toContain('operator');
  });

  it('has the sign-in fields', () => {
    const html = render(createElement(SignInPage));
    for (const id of ['login-email', 'login-password', 'login-submit']) expect(html).toContain(`data-testid="${id}"`);
  });
});

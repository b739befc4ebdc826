import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { HeldInReviewItem, ManualReviewItem, Overview, TransactionPage as Page, TransactionView } from '../src/api/types';
import { OverviewPage } from '../src/pages/Overview';
import { matchRoute } from '../src/pages';
import { QueuesPage } from '../src/pages/Queues';
import { queueHref } from '../src/lib/routes';
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
      { check: 'amount', passed: false, code: 'CONSENSUS.AMOUNT_MISMATCH', expected: '500000', observed: '400000', providerField: null },
      { check: 'transaction_identity', passed: true, code: null, expected: 'ref_mismatch01', observed: 'ref_mismatch01', providerField: null },
      { check: 'currency', passed: true, code: null, expected: 'NGN', observed: 'NGN', providerField: null },
      { check: 'customer', passed: true, code: null, expected: 'user-42', observed: 'ada@example.com', providerField: null },
    ],
    lastVerdict: 'cleared',
    lastTrigger: 'admin_reconciliation',
    moneyState: 'none',
    returnedMinor: 0,
    resolution: null,
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

  it('shows the money after settlement: its state and returned amount, each refund or dispute on the timeline with what the provider said, a refused one with its checks', () => {
    const refunded: TransactionView = {
      ...view,
      transaction: {
        ...view.transaction,
        state: 'SETTLED_CONSENSUS',
        entitlementStatus: 'UNLOCKED',
        checks: null,
        moneyState: 'refunded',
        returnedMinor: 500_000,
      },
      timeline: [
        {
          position: 30,
          revision: 1,
          type: 'RefundRecorded',
          recordedAt: '2026-11-26T10:00:00.000Z',
          trigger: null,
          verdict: null,
          state: null,
          detail: null,
          movement: {
            kind: 'refund',
            providerId: '3021881',
            providerStatus: 'processed',
            amountMinor: 500_000,
            currency: 'NGN',
            createdAt: '2026-11-26T09:59:00.000Z',
            moneyState: 'refunded',
            returnedMinor: 500_000,
            reason: null,
            outcome: null,
            failedChecks: [],
          },
        },
        {
          position: 31,
          revision: 2,
          type: 'MoneyMovementRejected',
          recordedAt: '2026-11-26T10:01:00.000Z',
          trigger: null,
          verdict: null,
          state: null,
          detail: null,
          movement: {
            kind: 'refund',
            providerId: '3021882',
            providerStatus: 'processed',
            amountMinor: 100,
            currency: 'USD',
            createdAt: '2026-11-26T10:00:30.000Z',
            moneyState: null,
            returnedMinor: null,
            reason: null,
            outcome: null,
            failedChecks: ['MOVEMENT.CURRENCY_MISMATCH'],
          },
        },
      ],
    };
    const html = render(createElement(TransactionPage, { reference: 'ref_refunded', role: 'viewer' }), (client) =>
      client.setQueryData(['transaction', 'ref_refunded'], refunded),
    );
    expect(html).toMatch(/data-testid="money-state"[^>]*>Refunded</);
    expect(html).toContain('data-testid="money-returned"');
    expect(count(html, 'data-testid="timeline-movement"')).toBe(2);
    expect(html).toContain('3021881');
    expect(html).toContain('processed');
    expect(html).toContain('MOVEMENT.CURRENCY_MISMATCH');
    const plain = render(createElement(TransactionPage, { reference: 'ref_mismatch01', role: 'viewer' }), seeded);
    expect(plain).toMatch(/data-testid="money-state"[^>]*>None</);
    expect(plain).not.toContain('data-testid="money-returned"');
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
    const html = render(createElement(QueuesPage, { tab: 'held', role: 'viewer' }), (client) =>
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
    const html = render(createElement(QueuesPage, { tab: 'manual', role: 'viewer' }), (client) =>
      client.setQueryData(['queue', 'manual'], { pages: [{ items: [manual], nextCursor: null }], pageParams: [null] }),
    );
    expect(html).toContain('data-testid="queue-manual"');
    expect(html).toContain('href="/transactions/ref_manual"');
    expect(html).toContain('still clearing after 30 re-checks · 30 automatic re-checks');
    const empty = render(createElement(QueuesPage, { tab: 'held', role: 'viewer' }), (client) =>
      client.setQueryData(['queue', 'held'], { pages: [{ items: [], nextCursor: null }], pageParams: [null] }),
    );
    expect(empty).toContain('Nothing is held in review');
  });

  it('shows the State Mismatch tab with each failed check, expected against observed, and the provider field', () => {
    const mismatch = {
      ...manual,
      reference: 'ref_lower',
      state: 'STATE_MISMATCH',
      failedChecks: [
        { check: 'amount', code: 'CONSENSUS.AMOUNT_MISMATCH', expected: '5000 NGN', observed: '4000 NGN', providerField: 'data.amount' },
        { check: 'currency', code: 'CONSENSUS.CURRENCY_MISMATCH', expected: 'NGN', observed: 'USD', providerField: null },
      ],
    };
    const html = render(createElement(QueuesPage, { tab: 'mismatch', role: 'viewer' }), (client) =>
      client.setQueryData(['queue', 'mismatch'], { pages: [{ items: [mismatch], nextCursor: null }], pageParams: [null] }),
    );
    expect(html).toContain('data-testid="queue-mismatch"');
    expect(html).toContain('href="/transactions/ref_lower"');
    expect(count(html, 'data-testid="failed-check"')).toBe(2);
    expect(html).toMatch(/data-check="amount".*5000 NGN.*expected,.*4000 NGN.*observed.*\(data\.amount\)/s);
    expect(count(html, 'data-testid="provider-field"')).toBe(1);
  });
});

describe('the disputes queue', () => {
  it('shows each settled payment with a dispute still open: its amount, reason and age, and what was refunded before; rows link to the transaction', () => {
    const disputed = {
      ...view.transaction,
      reference: 'ref_disputed',
      state: 'SETTLED_CONSENSUS' as const,
      moneyState: 'disputed' as const,
      returnedMinor: 0,
      disputes: [{ providerId: 'dp_1', amountMinor: 500_000, reason: 'fraudulent', openedAt: '2026-11-25T08:58:26.000Z' }],
    };
    const html = render(createElement(QueuesPage, { tab: 'disputes', role: 'viewer' }), (client) =>
      client.setQueryData(['queue', 'disputes'], { pages: [{ items: [disputed], nextCursor: null }], pageParams: [null] }),
    );
    expect(html).toContain('data-testid="queue-disputes"');
    expect(html).toContain('href="/transactions/ref_disputed"');
    expect(count(html, 'data-testid="open-dispute"')).toBe(1);
    expect(html).toContain('fraudulent');
    expect(html).toContain('dp_1');
    const empty = render(createElement(QueuesPage, { tab: 'disputes', role: 'viewer' }), (client) =>
      client.setQueryData(['queue', 'disputes'], { pages: [{ items: [], nextCursor: null }], pageParams: [null] }),
    );
    expect(empty).toContain('No open dispute');
  });
});

describe('the unmatched payments queue', () => {
  const paid = {
    reference: 'ref_paid',
    provider: 'paystack' as const,
    amountMinor: 250_000,
    currency: 'NGN',
    // As the console's API gives it: masked (docs/privacy.md, "Masked forms").
    customer: { email: 'a•••@example.com', phone: null },
    termsVerified: true,
    providerStatus: 'success',
    providerTransactionId: 'tx-1',
    verifiedAt: '2020-01-01T00:00:00.000Z',
  };
  const mpesa = {
    ...paid,
    reference: 'ws_CO_unverified',
    provider: 'mpesa' as const,
    amountMinor: null,
    currency: 'KES',
    customer: { email: null, phone: null },
    termsVerified: false,
    providerStatus: '0',
    providerTransactionId: null,
  };
  const byPhone = { ...paid, reference: 'ref_phone', customer: { email: null, phone: '+254•••000' } };
  const rowOf = (html: string, reference: string) => new RegExp(`<tr[^>]*data-reference="${reference}"[^>]*>(.*?)</tr>`, 's').exec(html)?.[1] ?? '';

  it('offers operators and admins "Close…" on each row (a reason and a note), and viewers no action', () => {
    const rows = (client: QueryClient) =>
      client.setQueryData(['queue', 'unmatched'], { pages: [{ items: [paid, mpesa], nextCursor: null }], pageParams: [null] });
    const asOperator = render(createElement(QueuesPage, { tab: 'unmatched', role: 'operator' }), rows);
    expect(count(asOperator, 'data-testid="close-unmatched"')).toBe(2);
    expect(asOperator).toContain('>Action</th>');
    const asViewer = render(createElement(QueuesPage, { tab: 'unmatched', role: 'viewer' }), rows);
    expect(asViewer).not.toContain('data-testid="close-unmatched"');
    expect(asViewer).not.toContain('>Action</th>');
  });

  it('shows the tab with its hint: reference as text (no link, rows open nothing), amount, customer, age', () => {
    const html = render(createElement(QueuesPage, { tab: 'unmatched', role: 'viewer' }), (client) =>
      client.setQueryData(['queue', 'unmatched'], { pages: [{ items: [paid, mpesa, byPhone], nextCursor: null }], pageParams: [null] }),
    );
    expect(html).toContain('data-testid="queue-unmatched"');
    expect(html).toContain('data-testid="queue-tab-unmatched"');
    expect(html).toContain('href="/queues/unmatched-payments"');
    expect(html).toContain('no checkout was registered for them: nothing was granted');
    expect(html).not.toContain('href="/transactions/');
    expect(html).not.toMatch(/<tr[^>]*data-testid="queue-row"[^>]*class="clickable"/);
    expect(count(html, 'data-testid="queue-row"')).toBe(3);
    for (const header of ['Reference', 'Provider', 'Amount', 'Customer', 'Age']) expect(html).toContain(`>${header}</th>`);

    const verified = rowOf(html, 'ref_paid');
    expect(verified).toContain('<td class="mono">ref_paid</td>');
    expect(verified).toMatch(/data-testid="amount">[^<]*2,500\.00/);
    expect(verified).toContain('a•••@example.com');
    expect(verified).toMatch(/\d+ d ago/);

    const unverified = rowOf(html, 'ws_CO_unverified');
    expect(unverified).toContain('data-testid="amount-unverified"');
    expect(unverified).toContain('amount unverified');
    expect(unverified).not.toMatch(/data-testid="amount">[^<]*\d/);
    expect(unverified).toMatch(/data-testid="customer"><span class="muted">unverified</);

    expect(rowOf(html, 'ref_phone')).toContain('+254•••000');
  });

  it('has its own address', () => {
    expect(queueHref('unmatched')).toBe('/queues/unmatched-payments');
    expect(matchRoute('/queues/unmatched-payments/')).toEqual({ name: 'queues', tab: 'unmatched' });
  });

  it('shows the empty state', () => {
    const html = render(createElement(QueuesPage, { tab: 'unmatched', role: 'viewer' }), (client) =>
      client.setQueryData(['queue', 'unmatched'], { pages: [{ items: [], nextCursor: null }], pageParams: [null] }),
    );
    expect(html).toContain('No unmatched payments');
  });
});

describe('the transactions list', () => {
  const filters = { q: '', provider: '', state: 'STATE_MISMATCH', entitlement: '', from: '', to: '' };
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
  const overview: Overview = {
    states: { PENDING: 3, SETTLED_CONSENSUS: 10, STATE_MISMATCH: 1 },
    entitlements: { LOCKED: 4, UNLOCKED: 10 },
    heldInReview: 2,
    manualReview: 5,
    stateMismatch: 1,
    total: 14,
    deadLetteredDeliveries: 7,
    deadLetteredMessages: {
      status: 'ok',
      checkedAt: '2026-11-25T10:00:00.000Z',
      total: 4,
      topics: [
        { topic: 'settle.dead-letter.v1', kind: 'messages', records: 3, exists: true, partitions: [{ partition: 0, low: 0, high: 3, records: 3 }] },
        { topic: 'settle.delivery-dead-letter.v1', kind: 'deliveries', records: 1, exists: true, partitions: [{ partition: 0, low: 1, high: 2, records: 1 }] },
      ],
    },
    consumerLag: {
      status: 'ok',
      checkedAt: '2026-11-25T10:00:00.000Z',
      total: 12,
      groups: [
        {
          worker: 'verifier',
          groupId: 'settle-verifier',
          topics: ['settle.transaction-events.v1'],
          state: 'Stable',
          members: 1,
          lag: 12,
          partitions: [{ topic: 'settle.transaction-events.v1', partition: 0, committedOffset: 30, endOffset: 42, lag: 12 }],
        },
      ],
    },
    ledgerChains: {
      status: 'verified',
      position: 1234,
      globalHash: 'ab'.repeat(32),
      verifiedAt: '2026-11-25T10:00:00.000Z',
      eventsChecked: 34,
      lastFullVerificationAt: '2026-11-25T02:00:00.000Z',
      checkpoints: { status: 'checked', checked: 20, latestSize: 1200, latestSignedAt: '2026-11-25T09:59:00.000Z', keysFrom: 'LEDGER_CHECKPOINT_KEYS' },
    },
  };
  const renderOverview = (answer: Overview) => render(createElement(OverviewPage), (client) => client.setQueryData(['overview'], answer));

  it('links each count to its list: filtered transactions, the review queues, the failed deliveries', () => {
    const html = renderOverview(overview);
    expect(html).toContain('href="/transactions?state=PENDING"');
    expect(html).toContain('href="/transactions?entitlement=UNLOCKED"');
    expect(html).toMatch(/href="\/transactions\?state=STATE_MISMATCH"[^>]*data-testid="card-state-mismatch"/);
    expect(html).toMatch(/href="\/queues\/manual-review"[^>]*data-testid="card-manual-review"/);
    expect(html).toMatch(/href="\/queues\/held-in-review"[^>]*data-testid="card-held-in-review"/);
    expect(html).toMatch(/href="\/deliveries\/dead-lettered"[^>]*data-testid="card-dead-lettered-deliveries"/);
    expect(html).toContain('>14<');
    expect(html).toContain('>7<');
  });

  it('shows the dead-lettered messages per topic, the consumer lag per group and partition, and the verified position', () => {
    const html = renderOverview(overview);
    expect(html).toMatch(/data-testid="card-dead-lettered-messages" data-status="ok"/);
    expect(html).toContain('settle.dead-letter.v1: 3');
    expect(html).toContain('data-group="settle-verifier"');
    expect(count(html, 'data-testid="consumer-lag-row"')).toBe(1);
    expect(html).toContain('data-testid="consumer-lag-partitions"');
    expect(html).toMatch(/data-testid="ledger-chains" data-status="verified"/);
    expect(html).toContain('Ledger chains verified up to position 1,234 at ');
    expect(html).toMatch(/data-testid="ledger-checkpoints" data-status="checked"/);
    expect(html).toMatch(/Checked against 20 signed checkpoints(<!-- -->)?; the latest covers positions 1 to (<!-- -->)?1,200(<!-- -->)?, signed at /);
  });

  it('says why the signed checkpoints were not checked, and names a disagreement with one', () => {
    const unchecked = renderOverview({
      ...overview,
      ledgerChains: {
        ...overview.ledgerChains,
        checkpoints: { status: 'not_checked', reason: 'LEDGER_CHECKPOINT_DIR is not set' },
      } as Overview['ledgerChains'],
    });
    expect(unchecked).toMatch(/data-testid="ledger-checkpoints" data-status="not_checked"/);
    expect(unchecked).toMatch(/Checkpoints not checked: (<!-- -->)?LEDGER_CHECKPOINT_DIR is not set/);

    const rewritten = renderOverview({
      ...overview,
      ledgerChains: {
        status: 'broken',
        position: 12,
        reason: 'ROOT_MISMATCH',
        streamId: null,
        revision: null,
        checkedAt: '2026-11-25T10:00:00.000Z',
        lastVerifiedPosition: 15,
        againstSignedCheckpoint: true,
      },
    });
    expect(rewritten).toMatch(/data-testid="ledger-chains" data-status="broken"/);
    expect(rewritten).toMatch(
      /Ledger disagrees with the signed checkpoint of size(<!-- -->)? (<!-- -->)?12(<!-- -->)?: (<!-- -->)?the events no longer match a signed checkpoint/,
    );
  });

  it('shows a broken chain in red, and says when Kafka is unavailable or not configured', () => {
    const broken = renderOverview({
      ...overview,
      deadLetteredMessages: {
        status: 'unavailable',
        code: 'CONSOLE.KAFKA_UNAVAILABLE',
        detail: 'Kafka did not answer within 3000 ms',
        checkedAt: '2026-11-25T10:00:00.000Z',
      },
      consumerLag: { status: 'not_configured' },
      ledgerChains: {
        status: 'broken',
        position: 17,
        reason: 'STREAM_HASH_MISMATCH',
        streamId: 'transaction-ref_a',
        revision: 2,
        checkedAt: '2026-11-25T10:00:00.000Z',
        lastVerifiedPosition: 16,
        againstSignedCheckpoint: false,
      },
    });
    expect(broken).toMatch(/class="notice notice-danger" role="alert" data-testid="ledger-chains" data-status="broken"/);
    expect(broken).toContain('Chain broken at position 17: an event was changed');
    expect(broken).toContain('Kafka unavailable: Kafka did not answer within 3000 ms');
    expect(broken).toMatch(/data-testid="consumer-lag" data-status="not_configured"/);
    expect(broken).not.toContain('consumer-lag-row');

    const pending = renderOverview({ ...overview, ledgerChains: { status: 'pending' } });
    expect(pending).toMatch(/data-testid="ledger-chains" data-status="pending"/);
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

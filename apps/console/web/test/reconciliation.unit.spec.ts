import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { PROVIDERS, RECONCILIATION_EXCEPTION_CLASSES } from '@settle/domain';
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import {
  canActOnReconciliation,
  classCounts,
  classLabel,
  evidenceRows,
  EXCEPTION_CLASSES,
  exceptionFiltersFromSearch,
  exceptionsCsvHref,
  exceptionsHref,
  exceptionsQuery,
  LISTABLE_PROVIDERS,
  reconciliationRunHref,
  resolutionText,
  runProgress,
  runStatus,
  runWindow,
  type ReconciliationException,
  type ReconciliationRun,
} from '../src/lib/reconciliation';
import { matchRoute, navigationFor, sectionOf } from '../src/pages';
import { ReconciliationPage, ReconciliationRunPage } from '../src/pages/Reconciliation';

// The Reconciliation page's pure helpers, its routes, and the page rendered to HTML from answers
// already in the query cache (no browser, no requests).

const RUN_ID = 'rcr_00000000-0000-4000-8000-000000000001';

const exception: ReconciliationException = {
  exceptionId: 'rex_00000000-0000-4000-8000-00000000000a',
  reference: 'ref_terms',
  provider: 'paystack',
  class: 'terms_differ',
  status: 'open',
  evidence: [
    { field: 'amount', provider: '250000', settle: '200000' },
    { field: 'status', provider: 'succeeded (success)', settle: 'PENDING' },
  ],
  runId: RUN_ID,
  providerTransactionId: '4099',
  providerStatus: 'success',
  amountMinor: 250_000,
  currency: 'NGN',
  raisedAt: '2026-11-28T12:01:00.000Z',
  resolved: null,
};

const run: ReconciliationRun = {
  runId: RUN_ID,
  provider: 'stripe',
  kind: 'on_demand',
  status: 'failed',
  window: { since: '2026-11-27T00:00:00.000Z', until: '2026-11-28T00:00:00.000Z' },
  dryRun: true,
  startedBy: 'ops@example.com',
  pages: 2,
  totalPages: 5,
  listed: 200,
  outOfScope: 3,
  tooRecent: 0,
  classes: { matches: 190, stuck: 2, settled_not_successful: 1, not_paid: 0 },
  exceptionsRaised: 3,
  exceptionsResolved: 1,
  startedAt: '2026-11-28T12:00:00.000Z',
  finishedAt: '2026-11-28T12:05:00.000Z',
  error: 'PROVIDER.UNREACHABLE',
};

function render(element: ReactElement, seed: (client: QueryClient) => void = () => undefined): string {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  seed(client);
  return renderToStaticMarkup(createElement(QueryClientProvider, { client }, element));
}

describe('the evidence side by side', () => {
  it("shows amounts, recorded in minor units, as money in the payment's currency, and Settle's state in words", () => {
    expect(evidenceRows(exception, 'en-NG')).toEqual([
      { field: 'amount', label: 'Amount', provider: '₦2,500.00', settle: '₦2,000.00', raw: { provider: '250000', settle: '200000' } },
      { field: 'status', label: 'Status', provider: 'succeeded (success)', settle: 'Pending', raw: { provider: 'succeeded (success)', settle: 'PENDING' } },
    ]);
  });

  it("formats each side's amount with its own currency when the currencies differ too, and its exponent (JPY none, KWD three)", () => {
    const rows = evidenceRows(
      {
        currency: 'JPY',
        evidence: [
          { field: 'amount', provider: '5000', settle: '5000' },
          { field: 'currency', provider: 'JPY', settle: 'KWD' },
        ],
      },
      'en-US',
    );
    // Intl writes a no-break space between a code and its amount.
    expect(rows.map((r) => [r.label, r.provider, r.settle.replace(/\s/g, ' ')])).toEqual([
      ['Amount', '¥5,000', 'KWD 5.000'],
      ['Currency', 'JPY', 'KWD'],
    ]);
  });

  it('leaves values it cannot read as money as recorded, and names the other fields', () => {
    const rows = evidenceRows({
      currency: null,
      evidence: [
        { field: 'amount', provider: '12', settle: 'unknown' },
        { field: 'duplicate_of', provider: 'ref_b', settle: 'ref_a' },
        { field: 'status', provider: 'reversed (reversed)', settle: 'no checkout' },
      ],
    });
    expect(rows.map((r) => [r.label, r.provider, r.settle])).toEqual([
      ['Amount', '12', 'unknown'],
      ['Duplicate of', 'ref_b', 'ref_a'],
      ['Status', 'reversed (reversed)', 'no checkout'],
    ]);
  });
});

describe("the Reconciliation page's helpers", () => {
  it('lists the domain classes, and every provider but M-Pesa to start a run against', () => {
    expect(EXCEPTION_CLASSES).toEqual(RECONCILIATION_EXCEPTION_CLASSES);
    expect(LISTABLE_PROVIDERS).toEqual(PROVIDERS.filter((p) => p !== 'mpesa'));
    expect(classLabel('settled_not_successful')).toBe('Settled, not successful at the provider');
    expect(classLabel('something_new')).toBe('Something new');
  });

  it('lets operators and admins act, not viewers', () => {
    expect(['viewer', 'operator', 'admin'].map((role) => canActOnReconciliation(role as 'viewer'))).toEqual([false, true, true]);
  });

  it('keeps the filters in the address, the CSV link with the same filters, the API query without the empty ones', () => {
    const filters = exceptionFiltersFromSearch(`?status=open&class=stuck&runId=${RUN_ID}&other=1`);
    expect(filters).toEqual({ status: 'open', class: 'stuck', provider: '', runId: RUN_ID });
    expect(exceptionsHref(filters)).toBe(`/reconciliation/exceptions?status=open&class=stuck&runId=${RUN_ID}`);
    expect(exceptionsHref({})).toBe('/reconciliation/exceptions');
    expect(exceptionsCsvHref(filters)).toBe(`/api/v1/reconciliation/exceptions?status=open&class=stuck&runId=${RUN_ID}&format=csv`);
    expect(exceptionsCsvHref({})).toBe('/api/v1/reconciliation/exceptions?format=csv');
    expect(exceptionsQuery(filters)).toEqual({ status: 'open', class: 'stuck', runId: RUN_ID });
  });

  it("reads a run's status, pages and counts per class (zeros left out, the exceptions first)", () => {
    expect(runStatus('progressed')).toEqual({ label: 'Running', tone: 'info' });
    expect(runStatus('failed')).toEqual({ label: 'Failed', tone: 'danger' });
    expect(runProgress(run)).toBe('2 / 5 pages');
    expect(runProgress({ pages: 1, totalPages: null })).toBe('1 page');
    expect(classCounts(run.classes)).toEqual([
      ['settled_not_successful', 1],
      ['stuck', 2],
      ['matches', 190],
    ]);
  });

  it('says how an exception was resolved', () => {
    expect(resolutionText({ at: '2026-11-28T12:00:00.000Z', resolution: 'operator', note: 'refunded at the provider', by: 'ops@example.com' })).toBe(
      'Resolved by ops@example.com: refunded at the provider',
    );
    expect(resolutionText({ at: '2026-11-28T12:00:00.000Z', resolution: 'matches', note: null, by: null })).toBe('Resolved: a later run found it in order');
  });

  it("reads the run form's window as the API takes it, refusing what ingestion would", () => {
    const now = Date.parse('2026-11-28T12:00:00.000Z');
    const local = (iso: string) => {
      const d = new Date(iso);
      const pad = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
    };
    expect(runWindow(local('2026-11-27T12:00:00.000Z'), '', now)).toEqual({ ok: true, since: '2026-11-27T12:00:00.000Z' });
    expect(runWindow(local('2026-11-01T00:00:00.000Z'), local('2026-11-02T00:00:00.000Z'), now)).toEqual({
      ok: true,
      since: '2026-11-01T00:00:00.000Z',
      until: '2026-11-02T00:00:00.000Z',
    });
    expect(runWindow('', '', now)).toMatchObject({ ok: false, message: 'Choose when the window starts.' });
    expect(runWindow(local('2026-11-29T00:00:00.000Z'), '', now)).toMatchObject({ ok: false, message: 'The start is in the future.' });
    expect(runWindow(local('2026-11-02T00:00:00.000Z'), local('2026-11-01T00:00:00.000Z'), now)).toMatchObject({ ok: false });
    expect(runWindow(local('2026-09-01T00:00:00.000Z'), local('2026-11-01T00:00:00.000Z'), now)).toMatchObject({
      ok: false,
      message: 'The window is longer than 31 days: start several runs.',
    });
  });
});

describe('the Reconciliation routes', () => {
  it('names the exceptions, the runs and one run, under the Reconciliation navigation item for every role', () => {
    expect(matchRoute('/reconciliation')).toEqual({ name: 'reconciliation', tab: 'exceptions' });
    expect(matchRoute('/reconciliation/exceptions/')).toEqual({ name: 'reconciliation', tab: 'exceptions' });
    expect(matchRoute('/reconciliation/runs')).toEqual({ name: 'reconciliation', tab: 'runs' });
    expect(matchRoute(reconciliationRunHref(RUN_ID))).toEqual({ name: 'reconciliation_run', runId: RUN_ID });
    expect(sectionOf({ name: 'reconciliation_run', runId: RUN_ID })).toBe('reconciliation');
    expect(navigationFor('viewer').map((item) => item.section)).toContain('reconciliation');
  });
});

describe('the Reconciliation page', () => {
  const seeded = (client: QueryClient) => {
    client.setQueryData(['reconciliation', 'exceptions', { status: 'open', class: '', provider: '', runId: '' }], {
      pages: [{ items: [exception], nextCursor: null }],
      pageParams: [null],
    });
    client.setQueryData(['reconciliation', 'runs'], { pages: [{ items: [run], nextCursor: 'next' }], pageParams: [null] });
  };

  it('shows an exception with its evidence side by side and "Resolve…" for an operator, not for a viewer, and the CSV link with the filters', () => {
    const asOperator = render(createElement(ReconciliationPage, { tab: 'exceptions', search: '?status=open', role: 'operator' }), seeded);
    expect(asOperator).toContain('data-testid="recon-exception-row"');
    expect(asOperator).toContain(`data-exception-id="${exception.exceptionId}"`);
    expect(asOperator).toContain('data-testid="recon-evidence"');
    expect(asOperator).toContain('data-field="amount"');
    expect(asOperator).toContain('data-testid="recon-resolve"');
    expect(asOperator).toContain('href="/api/v1/reconciliation/exceptions?status=open&amp;format=csv"');
    expect(asOperator).toContain(`href="/reconciliation/runs/${RUN_ID}"`);
    expect(asOperator).toContain('href="/transactions/ref_terms"');
    const asViewer = render(createElement(ReconciliationPage, { tab: 'exceptions', search: '?status=open', role: 'viewer' }), seeded);
    expect(asViewer).not.toContain('data-testid="recon-resolve"');
    expect(asViewer).toContain('Open');
  });

  it('shows the runs with their status, pages, counts and error, and the start form for operators only (no M-Pesa)', () => {
    const asOperator = render(createElement(ReconciliationPage, { tab: 'runs', search: '', role: 'operator' }), seeded);
    expect(asOperator).toContain('data-testid="recon-runs"');
    expect(asOperator).toContain(`data-run-id="${RUN_ID}"`);
    expect(asOperator).toContain('2 / 5 pages');
    expect(asOperator).toContain('PROVIDER.UNREACHABLE');
    expect(asOperator).toContain('ops@example.com');
    expect(asOperator).toContain('data-testid="recon-start-form"');
    expect(asOperator).toContain('value="paystack"');
    expect(asOperator).not.toContain('value="mpesa"');
    expect(asOperator).toContain('data-testid="load-more"');
    const asViewer = render(createElement(ReconciliationPage, { tab: 'runs', search: '', role: 'viewer' }), seeded);
    expect(asViewer).not.toContain('data-testid="recon-start-form"');
  });

  it("shows one run's summary and its exceptions", () => {
    const html = render(createElement(ReconciliationRunPage, { runId: RUN_ID, role: 'viewer' }), (client) => {
      client.setQueryData(['reconciliation', 'run', RUN_ID], run);
      client.setQueryData(['reconciliation', 'exceptions', { status: '', class: '', provider: '', runId: RUN_ID }], {
        pages: [
          {
            items: [
              {
                ...exception,
                status: 'resolved',
                resolved: { at: '2026-11-28T12:10:00.000Z', resolution: 'operator', note: 'refunded', by: 'ops@example.com' },
              },
            ],
            nextCursor: null,
          },
        ],
        pageParams: [null],
      });
    });
    expect(html).toContain('data-testid="recon-run"');
    expect(html).toContain('data-status="failed"');
    expect(html).toContain('Resolved by ops@example.com: refunded');
    expect(html).toContain(`runId=${RUN_ID}&amp;format=csv`);
  });
});

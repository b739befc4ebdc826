import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { Role, TimelineEntry, TransactionDetail } from '../src/api/types';
import { ResolveMismatch } from '../src/components/ResolveMismatch';
import { approvalQuestion, proposalActionLabel } from '../src/lib/proposals';
import { followingResolution } from '../src/lib/resolution';

// A State Mismatch's resolution panel on the transaction page (docs/state-machine.md, "Resolving a
// State Mismatch"), rendered to HTML (no browser, no requests): which actions each role sees, and
// where a resolved one stands with who decided it.

function render(element: ReactElement): string {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  return renderToStaticMarkup(createElement(QueryClientProvider, { client }, element));
}

const mismatch: TransactionDetail = {
  reference: 'ref_low01',
  provider: 'paystack',
  state: 'STATE_MISMATCH',
  entitlementStatus: 'LOCKED',
  amountMinor: 900_000,
  currency: 'NGN',
  userId: 'user-7',
  email: 'payer@example.com',
  updatedAt: '2026-11-29T08:00:00.000Z',
  entitlement: 'pro-monthly',
  accessPeriod: 'P1M',
  checks: null,
  lastVerdict: 'cleared',
  lastTrigger: 'webhook_received',
  moneyState: 'none',
  returnedMinor: 0,
  resolution: null,
};

const override: TimelineEntry = {
  position: 40,
  revision: 1,
  type: 'SettledByOverride',
  recordedAt: '2026-11-29T08:05:00.000Z',
  trigger: null,
  verdict: null,
  state: null,
  detail: null,
  resolution: {
    proposalId: '6f7c1a52-0000-4000-8000-000000000001',
    proposedBy: 'ops@example.com',
    approvedBy: 'lead@example.com',
    closedBy: null,
    note: 'within tolerance',
    differenceMinor: 50_000,
    returnedMinor: null,
  },
};

const panel = (transaction: TransactionDetail, role: Role, timeline: TimelineEntry[] = []) =>
  render(createElement(ResolveMismatch, { transaction, timeline, role }));

describe('the State Mismatch resolution panel', () => {
  it('offers "Accept as paid" to operators and admins, "Close: refund due" to admins only, and nothing to viewers', () => {
    const admin = panel(mismatch, 'admin');
    expect(admin).toContain('data-testid="accept-as-paid"');
    expect(admin).toContain('data-testid="refund-due"');
    const operator = panel(mismatch, 'operator');
    expect(operator).toContain('data-testid="accept-as-paid"');
    expect(operator).not.toContain('data-testid="refund-due"');
    const viewer = panel(mismatch, 'viewer');
    expect(viewer).toContain('data-testid="mismatch-panel"');
    expect(viewer).not.toContain('data-testid="accept-as-paid"');
    expect(viewer).not.toContain('data-testid="refund-due"');
  });

  it('is not there for a transaction in any other state', () => {
    for (const state of ['SETTLED_CONSENSUS', 'FAILED_DECLINED', 'RECOVERING'] as const) {
      expect(panel({ ...mismatch, state }, 'admin')).toBe('');
    }
  });

  it('once accepted as paid, names both people and the difference accepted, and offers no action', () => {
    const html = panel({ ...mismatch, resolution: 'accepted_as_paid', entitlementStatus: 'UNLOCKED' }, 'admin', [override]);
    expect(html).toContain('data-resolution="accepted_as_paid"');
    expect(html).toContain('ops@example.com');
    expect(html).toContain('lead@example.com');
    expect(html).toMatch(/500(\.00|,00)/);
    expect(html).not.toContain('data-testid="accept-as-paid"');
    expect(html).not.toContain('data-testid="refund-due"');
  });

  it('reads refund due while the refund is awaited, and refunded once the provider shows it', () => {
    expect(panel({ ...mismatch, resolution: 'refund_due' }, 'admin')).toContain('data-resolution="refund_due"');
    expect(panel({ ...mismatch, resolution: 'refunded' }, 'admin')).toContain('data-resolution="refunded"');
  });
});

describe('the acceptance on the Proposals page', () => {
  it('has its own name and approval question, naming what approving does', () => {
    expect(proposalActionLabel('state_mismatch.accept_as_paid')).toBe('Accept a State Mismatch as paid');
    const question = approvalQuestion({ action: 'state_mismatch.accept_as_paid', target: { kind: 'transaction', id: 'ref_low01' } });
    expect(question).toContain('ref_low01');
    expect(question).toMatch(/settled by override/);
    expect(approvalQuestion({ action: 'unmatched_payment.match', target: { kind: 'unmatched_payment', id: 'ref_x' } })).toMatch(/checkout is registered/);
  });
});

describe('after "Close: refund due" is requested', () => {
  it('says it waits for the ledger instead of offering the actions again, until the transaction reads resolved', () => {
    const html = render(createElement(ResolveMismatch, { transaction: mismatch, timeline: [], role: 'admin', following: true }));
    expect(html).toContain('data-testid="mismatch-resolving"');
    expect(html).not.toContain('data-testid="refund-due"');
    const resolved = render(
      createElement(ResolveMismatch, { transaction: { ...mismatch, resolution: 'refund_due' }, timeline: [], role: 'admin', following: true }),
    );
    expect(resolved).toContain('data-resolution="refund_due"');
    expect(resolved).not.toContain('data-testid="mismatch-resolving"');
  });

  it('is followed for a bounded time', () => {
    expect(followingResolution(1_000, 1_000 + 29_999)).toBe(true);
    expect(followingResolution(1_000, 1_000 + 30_000)).toBe(false);
  });
});

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/client';
import type { Proposal, SessionUser, TransactionView } from '../src/api/types';
import { erasureRequestOf } from '../src/lib/privacy';
import { approvalQuestion, proposalActionLabel, proposalProblem, subjectLabel } from '../src/lib/proposals';
import { ProposalsPage } from '../src/pages/Proposals';
import { TransactionPage } from '../src/pages/Transaction';

// Erasure of a person's data in the console (docs/privacy.md, "Erasure"; docs/approvals.md): the
// form's checks, the erase proposal on the Proposals page (whom, opened by the API; "erased" once
// done), and a transaction whose customer check reads erased.

function render(element: ReactElement, seed: (client: QueryClient) => void = () => undefined): string {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  seed(client);
  return renderToStaticMarkup(createElement(QueryClientProvider, { client }, element));
}

const hour = 3_600_000;
const erasure: Proposal = {
  id: '00000000-0000-4000-8000-0000000000e1',
  action: 'privacy.erase',
  target: { kind: 'subject', id: 'customer:carol@example.com' },
  parameters: { reason: 'DPO ticket 12' },
  proposer: { email: 'ops@example.com', role: 'operator' },
  proposedAt: new Date(Date.now() - hour).toISOString(),
  expiresAt: new Date(Date.now() + 23 * hour).toISOString(),
  status: 'pending',
  decidedBy: null,
  decidedAt: null,
  reason: null,
};
const admin: SessionUser = { email: 'lead@example.com', role: 'admin' };
const viewer: SessionUser = { email: 'viewer@example.com', role: 'viewer' };
const pending = (items: Proposal[]) => (client: QueryClient) => client.setQueryData(['proposals', 'pending'], { items });

describe('the erasure form', () => {
  it('asks for a user id, or a customer’s email or international phone, and a reason, trimmed', () => {
    expect(erasureRequestOf({ kind: 'customer', id: ' Carol@Example.com ', reason: ' DPO-1 ' })).toEqual({
      request: { subject: { kind: 'customer', id: 'Carol@Example.com' }, reason: 'DPO-1' },
      problems: null,
    });
    expect(erasureRequestOf({ kind: 'customer', id: '+254 712 345 678', reason: 'x' }).request?.subject).toEqual({ kind: 'customer', id: '+254 712 345 678' });
    expect(erasureRequestOf({ kind: 'user', id: 'user-42', reason: 'x' }).request?.subject).toEqual({ kind: 'user', id: 'user-42' });
  });

  it('says what is missing or wrong, field by field', () => {
    expect(erasureRequestOf({ kind: 'customer', id: '0712345678', reason: '' }).problems).toEqual({
      id: 'An email, or a phone with + and the country code.',
      reason: expect.stringMatching(/^Say why/),
    });
    expect(erasureRequestOf({ kind: 'user', id: ' ', reason: 'x'.repeat(501) }).problems).toEqual({
      id: 'Give the user id.',
      reason: 'At most 500 characters.',
    });
  });
});

describe('an erase proposal', () => {
  it('is named, asked about and refused in words', () => {
    expect(proposalActionLabel('privacy.erase')).toBe('Erase a person’s data');
    expect(subjectLabel('customer:carol@example.com')).toBe('customer carol@example.com');
    expect(subjectLabel('user:user-42')).toBe('user user-42');
    expect(subjectLabel('erased')).toBe('erased');
    expect(approvalQuestion(erasure)).toMatch(/^Approve\? The personal data of customer carol@example.com is erased for good.*cannot be undone/);
    expect(proposalProblem(new ApiError(503, 'CONSOLE.PRIVACY_VAULT_MISSING', 'x'))).toMatchObject({
      code: 'CONSOLE.PRIVACY_VAULT_MISSING',
      message: expect.stringMatching(/no privacy vault/),
    });
    expect(proposalProblem(new ApiError(409, 'CONSOLE.SUBJECT_ERASED', 'x')).message).toMatch(/erased meanwhile/);
  });

  it('shows the approver whom it names and why, with Approve for a second admin', () => {
    const html = render(createElement(ProposalsPage, { me: admin }), pending([erasure]));
    expect(html).toContain('Erase a person’s data');
    expect(html).toMatch(/data-testid="proposal-target"><span data-testid="subject">customer carol@example.com</);
    expect(html).toContain('DPO ticket 12');
    expect(html).toMatch(/<button[^>]*data-testid="approve"(?![^>]*disabled)[^>]*>/);
  });

  it('reads erased once approved', () => {
    const done: Proposal = {
      ...erasure,
      target: { kind: 'subject', id: 'erased' },
      status: 'approved',
      decidedBy: admin,
      decidedAt: new Date().toISOString(),
    };
    const html = render(createElement(ProposalsPage, { me: admin }), (client) => {
      pending([])(client);
      client.setQueryData(['proposals', 'decided-here'], [done]);
    });
    expect(html).toContain('data-testid="subject-erased"');
    expect(html).toContain('data-testid="proposal-erased"');
    expect(html).not.toContain('carol@example.com');
  });

  it('is proposed from the Proposals page by operators and admins, not viewers', () => {
    expect(render(createElement(ProposalsPage, { me: admin }), pending([]))).toContain('data-testid="propose-erasure"');
    expect(render(createElement(ProposalsPage, { me: { email: 'ops@example.com', role: 'operator' } }), pending([]))).toContain(
      'data-testid="propose-erasure"',
    );
    expect(render(createElement(ProposalsPage, { me: viewer }), pending([]))).not.toContain('data-testid="propose-erasure"');
  });
});

describe('a transaction whose customer was erased', () => {
  const view: TransactionView = {
    transaction: {
      reference: 'ref_erased01',
      provider: 'paystack',
      state: 'SETTLED_CONSENSUS',
      entitlementStatus: 'UNLOCKED',
      amountMinor: 500_000,
      currency: 'NGN',
      userId: 'user-42',
      email: null,
      updatedAt: '2026-11-25T08:58:26.000Z',
      entitlement: 'premium',
      accessPeriod: 'P30D',
      checks: [
        { check: 'transaction_identity', passed: true, code: null, expected: 'ref_erased01', observed: 'ref_erased01', providerField: null },
        { check: 'customer', passed: true, code: null, expected: 'erased', observed: 'erased', providerField: null },
      ],
      lastVerdict: 'cleared',
      lastTrigger: 'webhook',
      moneyState: 'none',
      returnedMinor: 0,
      resolution: null,
    },
    timeline: [],
    watch: null,
    entitlementEvents: [],
  };

  it('shows its customer check as erased in words, the other checks as they were', () => {
    const html = render(createElement(TransactionPage, { reference: 'ref_erased01', role: 'viewer' }), (client) =>
      client.setQueryData(['transaction', 'ref_erased01'], view),
    );
    const customer = /data-check="customer"(.*?)<\/dl>/s.exec(html)?.[1] ?? '';
    expect(customer.split('data-testid="check-erased"').length - 1).toBe(2);
    expect(customer).toContain('<em>erased</em>');
    expect(html).toMatch(/data-check="transaction_identity".*<dd class="mono">ref_erased01<\/dd>/s);
  });
});

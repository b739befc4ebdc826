import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { Proposal, SessionUser, UnmatchedPayment } from '../src/api/types';
import { MatchForm } from '../src/components/MatchToCheckout';
import { navigationFor, matchRoute } from '../src/pages';
import { ProposalPage, ProposalsPage } from '../src/pages/Proposals';
import { QueuesPage } from '../src/pages/Queues';
import { proposalHref } from '../src/lib/routes';

// The match flow's screens rendered to HTML from answers already in the query cache (no browser,
// no requests): "Match to a checkout…" on the unmatched payments queue, its form (empty: never the
// provider's answer), and the Proposals page with the terms beside the provider's answer and who
// may approve.

function render(element: ReactElement, seed: (client: QueryClient) => void = () => undefined): string {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  seed(client);
  return renderToStaticMarkup(createElement(QueryClientProvider, { client }, element));
}
const count = (html: string, needle: string) => html.split(needle).length - 1;

const paid: UnmatchedPayment = {
  reference: 'ref_paid',
  provider: 'paystack',
  amountMinor: 250_000,
  currency: 'NGN',
  // As the console's API gives it: masked (docs/privacy.md, "Masked forms").
  customer: { email: 'a•••@example.com', phone: null },
  termsVerified: true,
  providerStatus: 'success',
  providerTransactionId: 'tx-1',
  verifiedAt: '2020-01-01T00:00:00.000Z',
};
const other: UnmatchedPayment = { ...paid, reference: 'ref_other', customer: { email: 'b•••@example.com', phone: null } };
const terms = {
  amount: 250_000,
  currency: 'NGN',
  user_id: 'user-42',
  customer: { email: 'ADA@example.com' },
  entitlement: 'pro-monthly',
  access_period: 'P30D',
};
const hour = 3_600_000;
const proposal: Proposal = {
  id: '00000000-0000-4000-8000-000000000001',
  action: 'unmatched_payment.match',
  target: { kind: 'unmatched_payment', id: 'ref_paid' },
  parameters: terms,
  proposer: { email: 'ops@example.com', role: 'operator' },
  proposedAt: new Date(Date.now() - hour).toISOString(),
  expiresAt: new Date(Date.now() + 23 * hour).toISOString(),
  status: 'pending',
  decidedBy: null,
  decidedAt: null,
  reason: null,
};
const operator: SessionUser = { email: 'ops@example.com', role: 'operator' };
const admin: SessionUser = { email: 'lead@example.com', role: 'admin' };

const queueRows = (client: QueryClient) =>
  client.setQueryData(['queue', 'unmatched'], { pages: [{ items: [paid, other], nextCursor: null }], pageParams: [null] });
const rowOf = (html: string, reference: string) => new RegExp(`<tr[^>]*data-reference="${reference}"[^>]*>(.*?)</tr>`, 's').exec(html)?.[1] ?? '';

describe('"Match to a checkout…" on the unmatched payments queue', () => {
  it('is on each row for operators and admins, beside "Close…", and not for viewers', () => {
    for (const role of ['operator', 'admin'] as const) {
      const html = render(createElement(QueuesPage, { tab: 'unmatched', role }), queueRows);
      expect(count(html, 'data-testid="match-unmatched"')).toBe(2);
      expect(count(html, 'data-testid="close-unmatched"')).toBe(2);
      expect(html).toContain('Match to a checkout…');
    }
    expect(render(createElement(QueuesPage, { tab: 'unmatched', role: 'viewer' }), queueRows)).not.toContain('data-testid="match-unmatched"');
  });

  it('links a row whose match waits for approval to that proposal instead', () => {
    const html = render(createElement(QueuesPage, { tab: 'unmatched', role: 'operator' }), (client) => {
      queueRows(client);
      client.setQueryData(['proposals', 'pending'], { items: [proposal] });
    });
    const pending = rowOf(html, 'ref_paid');
    expect(pending).toContain('data-testid="match-pending"');
    expect(pending).toContain(`href="${proposalHref(proposal.id)}"`);
    expect(pending).not.toContain('data-testid="match-unmatched"');
    expect(rowOf(html, 'ref_other')).toContain('data-testid="match-unmatched"');
  });
});

describe('the match form', () => {
  const html = render(createElement(MatchForm, { payment: paid, onDone: () => undefined }));

  it('fixes the reference and the provider, and asks for every term', () => {
    expect(html).toMatch(/data-testid="match-reference">ref_paid</);
    expect(html).toContain('Paystack');
    for (const id of [
      'match-entitlement',
      'match-user-id',
      'match-access-period',
      'match-currency',
      'match-amount',
      'match-email',
      'match-phone',
      'match-submit',
    ]) {
      expect(html).toContain(`data-testid="${id}"`);
    }
    expect(html).toContain('P30D');
    expect(html).toContain('major units');
  });

  it("opens empty: nothing of the provider's answer is in it (amount, currency, customer)", () => {
    const inputs = html.match(/<input[^>]*>/g) ?? [];
    expect(inputs).toHaveLength(7);
    for (const input of inputs) expect(input).toContain('value=""');
    for (const confirmed of ['2,500', '2500', '250000', 'a•••@example.com', 'value="NGN"']) expect(html).not.toContain(confirmed);
  });
});

describe('the Proposals page', () => {
  const seeded =
    (items: Proposal[], answers: Map<string, UnmatchedPayment> = new Map([['ref_paid', paid]])) =>
    (client: QueryClient) => {
      client.setQueryData(['proposals', 'pending'], { items });
      client.setQueryData(['queue', 'unmatched', 'lookup', [...new Set(items.map((p) => p.target.id))].sort()], answers);
    };

  it('shows each pending proposal: its terms beside the provider’s answer, who proposed it, its age and expiry', () => {
    const html = render(createElement(ProposalsPage, { me: admin }), seeded([proposal]));
    expect(html).toContain(`data-proposal-id="${proposal.id}"`);
    expect(html).toMatch(/data-testid="proposal"[^>]*data-status="pending"/);
    expect(html).toContain('Match to a checkout');
    expect(html).toMatch(/data-testid="proposal-target">ref_paid</);
    expect(html).toMatch(/data-testid="proposer">ops@example.com</);
    expect(html).toContain('1 h ago');
    expect(html).toMatch(/expires <span[^>]*>in 23 h</);
    expect(html).toContain('Waiting for a second admin');
    for (const term of ['currency', 'amount', 'email', 'phone', 'user_id', 'entitlement', 'access_period']) expect(html).toContain(`data-term="${term}"`);
    expect(html).toMatch(
      /data-term="amount" data-agrees="true"><th scope="row">Amount<\/th><td data-testid="term-proposed">₦2,500.00<\/td><td data-testid="term-provider"><span>₦2,500.00</,
    );
    // The provider's e-mail is masked: one that fits it is for the verifier to decide (no badge).
    expect(html).toMatch(/data-term="email">.*ADA@example.com.*a•••@example.com/);
    expect(html).toContain('P30D');
    expect(html).not.toContain('data-testid="terms-differ"');
  });

  it('lets an admin who did not propose it approve or reject it', () => {
    const html = render(createElement(ProposalsPage, { me: admin }), seeded([proposal]));
    expect(html).toMatch(/<button[^>]*data-testid="approve"(?![^>]*disabled)[^>]*>/);
    expect(html).not.toContain('data-testid="approve-blocked"');
    expect(html).toContain('Reject…');
  });

  it('disables Approve for its proposer, saying why, and offers Withdraw', () => {
    const html = render(createElement(ProposalsPage, { me: operator }), seeded([proposal]));
    expect(html).toMatch(/<button[^>]*data-testid="approve"[^>]*disabled=""/);
    expect(html).toMatch(/data-testid="approve-blocked">You proposed it: a second, different admin approves it.</);
    expect(html).toContain('Withdraw…');
    const byAdmin = render(createElement(ProposalsPage, { me: { email: 'OPS@example.com', role: 'admin' } }), seeded([proposal]));
    expect(byAdmin).toMatch(/data-testid="approve"[^>]*disabled=""/);
    const otherOperator = render(createElement(ProposalsPage, { me: { email: 'other@example.com', role: 'operator' } }), seeded([proposal]));
    expect(otherOperator).toContain('Only an admin approves');
    expect(otherOperator).not.toContain('data-testid="reject-open"');
  });

  it('warns when the terms differ from what the provider confirmed, or when the payment is not open any more', () => {
    const lower = { ...proposal, parameters: { ...terms, amount: 200_000 } };
    const html = render(createElement(ProposalsPage, { me: admin }), seeded([lower]));
    expect(html).toContain('data-term="amount" data-agrees="false" class="term-differs"');
    expect(html).toContain('data-testid="term-differs"');
    expect(html).toContain('data-testid="terms-differ"');
    const gone = render(createElement(ProposalsPage, { me: admin }), seeded([proposal], new Map()));
    expect(gone).toContain('data-testid="payment-not-open"');
  });

  it('keeps the proposals decided here with how they ended, an approved match linking to its checkout', () => {
    const approved: Proposal = {
      ...proposal,
      status: 'approved',
      decidedBy: { email: 'lead@example.com', role: 'admin' },
      decidedAt: new Date().toISOString(),
    };
    const html = render(createElement(ProposalsPage, { me: admin }), (client) => {
      seeded([proposal])(client);
      client.setQueryData(['proposals', 'decided-here'], [approved]);
    });
    expect(html).toContain('data-testid="decided-proposals"');
    expect(count(html, `data-proposal-id="${proposal.id}"`)).toBe(1);
    expect(html).toMatch(/data-testid="proposal"[^>]*data-status="approved"/);
    expect(html).toMatch(/Approved by <strong data-testid="decided-by">lead@example.com</);
    expect(html).toContain('href="/transactions/ref_paid" data-testid="proposal-transaction"');
    expect(html).not.toContain('data-testid="approve"');
    expect(html).toContain('Nothing waits for approval');
  });

  it('says so when nothing waits', () => {
    expect(render(createElement(ProposalsPage, { me: operator }), seeded([]))).toContain('Nothing waits for approval');
  });

  it('shows one proposal at its own address, whatever its status', () => {
    const rejected: Proposal = {
      ...proposal,
      status: 'rejected',
      decidedBy: { email: 'ops@example.com', role: 'operator' },
      decidedAt: proposal.proposedAt,
      reason: 'typo',
    };
    const html = render(createElement(ProposalPage, { id: proposal.id, me: admin }), (client) =>
      client.setQueryData(['proposals', 'one', proposal.id], rejected),
    );
    expect(html).toMatch(/data-testid="proposal"[^>]*data-status="rejected"/);
    expect(html).toContain('Withdrawn by');
    expect(html).toContain('typo');
    expect(html).not.toContain('data-testid="term-provider"');
  });

  it('has its addresses and a navigation item for every role', () => {
    expect(matchRoute('/proposals')).toEqual({ name: 'proposals' });
    expect(matchRoute(proposalHref(proposal.id))).toEqual({ name: 'proposal', id: proposal.id });
    for (const role of ['viewer', 'operator', 'admin'] as const) expect(navigationFor(role).map((item) => item.section)).toContain('proposals');
  });
});

import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/client';
import type { Proposal, SessionUser } from '../src/api/types';
import {
  isProposer,
  proposalActionLabel,
  proposalProblem,
  proposalStatusAt,
  proposalStatusLabel,
  proposalStatusTone,
  refusalOf,
  whyNotApprove,
} from '../src/lib/proposals';

// Who may approve, reject or withdraw a proposal, and why not, as the Proposals page says it
// (the API enforces the same rules: docs/approvals.md); the API's refusals in words.

const NOW = Date.parse('2026-11-28T12:00:00.000Z');
const proposal: Proposal = {
  id: '00000000-0000-4000-8000-000000000001',
  action: 'unmatched_payment.match',
  target: { kind: 'unmatched_payment', id: 'ref_1' },
  parameters: {},
  proposer: { email: 'Ops@Example.com', role: 'operator' },
  proposedAt: '2026-11-28T11:00:00.000Z',
  expiresAt: '2026-11-29T11:00:00.000Z',
  status: 'pending',
  decidedBy: null,
  decidedAt: null,
  reason: null,
};
const user = (email: string, role: SessionUser['role']): SessionUser => ({ email, role });

describe('who may decide a proposal', () => {
  it('lets an admin who did not propose it approve it, while pending and before its expiry', () => {
    expect(whyNotApprove(proposal, user('lead@example.com', 'admin'), NOW)).toBeNull();
    expect(refusalOf(proposal, user('lead@example.com', 'admin'), NOW)).toBe('reject');
  });

  it('says why not to the proposer (e-mails in any case), to an admin proposer too, and to other roles', () => {
    expect(isProposer(proposal, user('ops@example.com', 'operator'))).toBe(true);
    expect(whyNotApprove(proposal, user('ops@example.com', 'operator'), NOW)).toBe('You proposed it: a second, different admin approves it.');
    const byAdmin = { ...proposal, proposer: { email: 'lead@example.com', role: 'admin' } };
    expect(whyNotApprove(byAdmin, user('LEAD@example.com', 'admin'), NOW)).toMatch(/^You proposed it/);
    expect(whyNotApprove(proposal, user('other@example.com', 'operator'), NOW)).toBe('Only an admin approves; you can read it.');
    expect(whyNotApprove(proposal, user('viewer@example.com', 'viewer'), NOW)).toMatch(/Only an admin/);
  });

  it('lets the proposer withdraw it, and nobody else but admins reject it', () => {
    expect(refusalOf(proposal, user('ops@example.com', 'operator'), NOW)).toBe('withdraw');
    expect(refusalOf({ ...proposal, proposer: { email: 'lead@example.com', role: 'admin' } }, user('lead@example.com', 'admin'), NOW)).toBe('withdraw');
    expect(refusalOf(proposal, user('other@example.com', 'operator'), NOW)).toBeNull();
    expect(refusalOf(proposal, user('viewer@example.com', 'viewer'), NOW)).toBeNull();
  });

  it('reads a pending proposal past its expiry as expired, and offers nothing on a decided one', () => {
    const expiry = Date.parse(proposal.expiresAt);
    expect(proposalStatusAt(proposal, expiry - 1)).toBe('pending');
    expect(proposalStatusAt(proposal, expiry)).toBe('expired');
    expect(whyNotApprove(proposal, user('lead@example.com', 'admin'), expiry)).toMatch(/^It expired/);
    expect(refusalOf(proposal, user('lead@example.com', 'admin'), expiry)).toBeNull();
    const approved = { ...proposal, status: 'approved' as const };
    expect(proposalStatusAt(approved, expiry + 1)).toBe('approved');
    expect(whyNotApprove(approved, user('lead@example.com', 'admin'), NOW)).toBe('It is approved already.');
    expect(refusalOf(approved, user('ops@example.com', 'operator'), NOW)).toBeNull();
  });

  it('names actions and statuses for people', () => {
    expect(proposalActionLabel('unmatched_payment.match')).toBe('Match to a checkout');
    expect(proposalActionLabel('state_mismatch.accept')).toBe('State mismatch accept');
    expect(proposalStatusLabel('pending')).toBe('Waiting for a second admin');
    expect([proposalStatusTone('approved'), proposalStatusTone('rejected'), proposalStatusTone('expired')]).toEqual(['success', 'danger', 'neutral']);
  });
});

describe("the API's refusals in words", () => {
  it('says what a code means, keeping the code', () => {
    expect(proposalProblem(new ApiError(403, 'APPROVAL.SELF_APPROVAL', 'The proposer cannot approve'))).toEqual({
      message: 'You proposed it: a second, different admin must approve it.',
      code: 'APPROVAL.SELF_APPROVAL',
      fields: [],
    });
    expect(proposalProblem(new ApiError(409, 'CONSOLE.PROPOSAL_PENDING', 'x')).message).toMatch(/waiting for approval already/);
    expect(proposalProblem(new ApiError(409, 'APPROVAL.EXPIRED', 'x')).message).toMatch(/expired/);
    expect(proposalProblem(new ApiError(503, 'CONSOLE.INGESTION_UNAVAILABLE', 'x')).message).toMatch(/nothing was approved/);
  });

  it("keeps ingestion's reason for refused terms, and lists the fields a validation names", () => {
    expect(proposalProblem(new ApiError(409, 'CONSOLE.MATCH_REFUSED', 'Ingestion refused the match (REQUEST.VALIDATION_FAILED)')).message).toBe(
      'Ingestion refused the terms, so nothing was approved: Ingestion refused the match (REQUEST.VALIDATION_FAILED)',
    );
    const fields = [{ path: 'amount', message: 'amount must be an integer in minor units' }];
    expect(proposalProblem(new ApiError(400, 'REQUEST.VALIDATION_FAILED', 'One or more fields are invalid', null, fields))).toEqual({
      message: 'Some terms are not valid:',
      code: 'REQUEST.VALIDATION_FAILED',
      fields,
    });
  });

  it("falls back to the problem's detail, and says a network failure as it is", () => {
    expect(proposalProblem(new ApiError(418, 'SOMETHING.NEW', 'A new refusal'))).toEqual({ message: 'A new refusal', code: 'SOMETHING.NEW', fields: [] });
    expect(proposalProblem(new ApiError(0, 'NETWORK.UNREACHABLE', 'The console API cannot be reached.'))).toEqual({
      message: 'The console API cannot be reached.',
      code: null,
      fields: [],
    });
    expect(proposalProblem(new ApiError(502, 'HTTP.502', 'Bad Gateway')).message).toMatch(/could not answer/);
    expect(proposalProblem(new Error('boom')).message).toBe('boom');
  });
});

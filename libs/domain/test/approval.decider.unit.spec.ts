/**
 * Two people for money decisions (docs/approvals.md): the proposal decider, given its past
 * events, when a command, then whole events or the error's code, as Emmett's
 * `DeciderSpecification` states them.
 */
import { describe, expect, it } from 'vitest';
import {
  decideApproval,
  evolveApproval,
  initialProposal,
  proposalStatusAt,
  type ApprovalActor,
  type ApprovalCommand,
  type ApprovalEvent,
  type ProposalTerms,
} from '@settle/domain';

const operator: ApprovalActor = { email: 'olu@example.com', role: 'operator' };
const admin: ApprovalActor = { email: 'ada@example.com', role: 'admin' };
const otherAdmin: ApprovalActor = { email: 'grace@example.com', role: 'admin' };
const viewer: ApprovalActor = { email: 'vic@example.com', role: 'viewer' };

const terms: ProposalTerms = {
  proposalId: '6f1c9a52-2a43-4f7e-9a43-0c8f1b1d5e10',
  action: 'unmatched_payment.match',
  target: { kind: 'unmatched_payment', id: 'paystack:ref_unmatched_1' },
  parameters: { user_id: 'user-1', entitlement: 'pro-monthly', amount_minor: 250_000, currency: 'NGN' },
  proposer: operator,
  proposedAt: 1_800_000_000_000,
  expiresAt: 1_800_000_000_000 + 3_600_000,
};
const proposed: ApprovalEvent = { type: 'ActionProposed', data: terms };
const id = terms.proposalId;

/** Given past events, when a command: the events it decides, or the code of the error it throws. */
function given(...past: ApprovalEvent[]) {
  const state = past.reduce(evolveApproval, initialProposal());
  return {
    when(command: ApprovalCommand) {
      return {
        then: (events: ApprovalEvent[]) => expect(decideApproval(command, state)).toEqual(events),
        thenThrows: (code: string) => expect(() => decideApproval(command, state)).toThrow(expect.objectContaining({ code })),
      };
    },
  };
}

describe('proposing', () => {
  it('an operator proposes: the proposal is recorded with its terms', () => {
    given().when({ type: 'ProposeAction', data: terms }).then([proposed]);
  });

  it('the same proposal again is a no-op; another with the same id is a conflict', () => {
    given(proposed).when({ type: 'ProposeAction', data: terms }).then([]);
    given(proposed)
      .when({ type: 'ProposeAction', data: { ...terms, parameters: { ...terms.parameters, amount_minor: 1 } } })
      .thenThrows('APPROVAL.CONFLICT');
  });

  it('a viewer cannot propose; a proposal must expire after it is made', () => {
    given()
      .when({ type: 'ProposeAction', data: { ...terms, proposer: viewer } })
      .thenThrows('APPROVAL.FORBIDDEN');
    given()
      .when({ type: 'ProposeAction', data: { ...terms, expiresAt: terms.proposedAt } })
      .thenThrows('APPROVAL.INVALID');
  });
});

describe('approving', () => {
  const approve = (approver: ApprovalActor, at = terms.proposedAt + 60_000): ApprovalCommand => ({
    type: 'ApproveAction',
    data: { proposalId: id, approver, at },
  });

  it('a second, different admin approves before the expiry: the action is approved, naming them', () => {
    given(proposed)
      .when(approve(admin))
      .then([{ type: 'ActionApproved', data: { proposalId: id, approver: admin, at: terms.proposedAt + 60_000 } }]);
  });

  it('the proposer cannot approve their own proposal, even as an admin, even written in another case', () => {
    given(proposed)
      .when(approve({ email: 'OLU@example.com ', role: 'admin' }))
      .thenThrows('APPROVAL.SELF_APPROVAL');
    const byAdmin: ApprovalEvent = { type: 'ActionProposed', data: { ...terms, proposer: admin } };
    given(byAdmin).when(approve(admin)).thenThrows('APPROVAL.SELF_APPROVAL');
    given(byAdmin)
      .when(approve(otherAdmin))
      .then([{ type: 'ActionApproved', data: { proposalId: id, approver: otherAdmin, at: terms.proposedAt + 60_000 } }]);
  });

  it('only an admin approves', () => {
    given(proposed)
      .when(approve({ email: 'someone@example.com', role: 'operator' }))
      .thenThrows('APPROVAL.FORBIDDEN');
  });

  it('at or after the expiry, the approval is refused', () => {
    given(proposed)
      .when(approve(admin, terms.expiresAt - 1))
      .then([{ type: 'ActionApproved', data: { proposalId: id, approver: admin, at: terms.expiresAt - 1 } }]);
    given(proposed).when(approve(admin, terms.expiresAt)).thenThrows('APPROVAL.EXPIRED');
  });

  it('approving again by the same admin is a no-op; anything else on a closed proposal is refused', () => {
    const approved: ApprovalEvent = { type: 'ActionApproved', data: { proposalId: id, approver: admin, at: terms.proposedAt + 1 } };
    given(proposed, approved).when(approve(admin)).then([]);
    given(proposed, approved).when(approve(otherAdmin)).thenThrows('APPROVAL.CLOSED');
    given(proposed, { type: 'ProposalExpired', data: { proposalId: id, at: terms.expiresAt } })
      .when(approve(admin))
      .thenThrows('APPROVAL.CLOSED');
  });

  it('an unknown proposal is not found', () => {
    given().when(approve(admin)).thenThrows('APPROVAL.UNKNOWN');
  });
});

describe('rejecting and expiring', () => {
  const reject = (actor: ApprovalActor, reason = 'amount does not match the order'): ApprovalCommand => ({
    type: 'RejectAction',
    data: { proposalId: id, actor, reason, at: terms.proposedAt + 5 },
  });

  it('an admin rejects, or the proposer withdraws, with a reason', () => {
    given(proposed)
      .when(reject(admin))
      .then([{ type: 'ActionRejected', data: { proposalId: id, actor: admin, reason: 'amount does not match the order', at: terms.proposedAt + 5 } }]);
    given(proposed)
      .when(reject(operator, 'proposed by mistake'))
      .then([{ type: 'ActionRejected', data: { proposalId: id, actor: operator, reason: 'proposed by mistake', at: terms.proposedAt + 5 } }]);
    given(proposed)
      .when(reject({ email: 'x@example.com', role: 'operator' }))
      .thenThrows('APPROVAL.FORBIDDEN');
    given(proposed).when(reject(admin, '  ')).thenThrows('APPROVAL.INVALID');
  });

  it('a pending proposal expires at its expiry, not before, and only once', () => {
    given(proposed)
      .when({ type: 'ExpireProposal', data: { proposalId: id, at: terms.expiresAt - 1 } })
      .then([]);
    given(proposed)
      .when({ type: 'ExpireProposal', data: { proposalId: id, at: terms.expiresAt } })
      .then([{ type: 'ProposalExpired', data: { proposalId: id, at: terms.expiresAt } }]);
    given(proposed, { type: 'ProposalExpired', data: { proposalId: id, at: terms.expiresAt } })
      .when({ type: 'ExpireProposal', data: { proposalId: id, at: terms.expiresAt + 1 } })
      .then([]);
  });

  it('reads as expired once past its expiry, before the event is recorded', () => {
    const state = evolveApproval(initialProposal(), proposed);
    expect([proposalStatusAt(state, terms.expiresAt - 1), proposalStatusAt(state, terms.expiresAt)]).toEqual(['pending', 'expired']);
  });
});

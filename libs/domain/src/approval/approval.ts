import { assertNever, DomainError } from '../shared/errors.js';

/**
 * Two people for money decisions (maker-checker): a sensitive admin action (matching an unmatched
 * payment to a checkout, accepting a State Mismatch as paid, erasing a customer's data) is
 * proposed by one operator and takes effect only when a second, different admin approves it
 * before the proposal expires (docs/approvals.md). One decider for every such action: the action
 * itself is named and carried as data, and runs only after {@link ActionApproved}.
 */

/** Who proposes, approves or rejects: the console user, by the role the console gave them. */
export interface ApprovalActor {
  /** The user's e-mail, their identity in the console (compared case-insensitively). */
  readonly email: string;
  readonly role: 'viewer' | 'operator' | 'admin';
}

/** Default life of a proposal: 24 hours (milliseconds). */
export const DEFAULT_PROPOSAL_TTL_MS = 24 * 60 * 60_000;

/** The proposal's terms, as proposed and as approved (nothing changes them in between). */
export interface ProposalTerms {
  /** Id of the proposal (a UUID), the stream's key. */
  readonly proposalId: string;
  /** What is to be done, a stable name (`unmatched_payment.match`). */
  readonly action: string;
  /** What it is done to. */
  readonly target: { readonly kind: string; readonly id: string };
  /** The action's parameters, as the proposer gave them. */
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly proposer: ApprovalActor;
  /** epoch ms. */
  readonly proposedAt: number;
  /** epoch ms; an approval at or after it is refused. */
  readonly expiresAt: number;
}

/** Commands of a proposal. */
export type ApprovalCommand =
  | { readonly type: 'ProposeAction'; readonly data: ProposalTerms }
  | { readonly type: 'ApproveAction'; readonly data: { readonly proposalId: string; readonly approver: ApprovalActor; readonly at: number } }
  | {
      readonly type: 'RejectAction';
      readonly data: { readonly proposalId: string; readonly actor: ApprovalActor; readonly reason: string; readonly at: number };
    }
  | { readonly type: 'ExpireProposal'; readonly data: { readonly proposalId: string; readonly at: number } };

/** A proposal was made: it waits for a second admin. */
export interface ActionProposed {
  readonly type: 'ActionProposed';
  readonly data: ProposalTerms;
}
/** A second, different admin approved it: the action is to run now, with the proposal's terms. */
export interface ActionApproved {
  readonly type: 'ActionApproved';
  readonly data: { readonly proposalId: string; readonly approver: ApprovalActor; readonly at: number };
}
/** An admin rejected it, or its proposer withdrew it: the action never runs. */
export interface ActionRejected {
  readonly type: 'ActionRejected';
  readonly data: { readonly proposalId: string; readonly actor: ApprovalActor; readonly reason: string; readonly at: number };
}
/** Nobody approved it in time: the action never runs. */
export interface ProposalExpired {
  readonly type: 'ProposalExpired';
  readonly data: { readonly proposalId: string; readonly at: number };
}
/** Events of a proposal's stream. */
export type ApprovalEvent = ActionProposed | ActionApproved | ActionRejected | ProposalExpired;

/** Where a proposal is. */
export type ProposalStatus = 'none' | 'pending' | 'approved' | 'rejected' | 'expired';

/** A proposal, folded from its events. */
export type ProposalState =
  { readonly status: 'none' } | { readonly status: Exclude<ProposalStatus, 'none'>; readonly terms: ProposalTerms; readonly decidedBy: ApprovalActor | null };

/** State before any event. */
export function initialProposal(): ProposalState {
  return { status: 'none' };
}

const sameActor = (a: ApprovalActor, b: ApprovalActor) => a.email.trim().toLowerCase() === b.email.trim().toLowerCase();

function requireProposal(state: ProposalState, proposalId: string): Extract<ProposalState, { terms: ProposalTerms }> {
  if (state.status === 'none') throw new DomainError('APPROVAL.UNKNOWN', `No proposal ${proposalId}`, 'not_found');
  return state;
}

/**
 * Decides a command on a proposal (pure; time comes in with the command):
 * - `ProposeAction`: an operator or an admin proposes; the proposal must expire after it is
 *   made. Proposing the same terms again is a no-op.
 * - `ApproveAction`: only an admin, never the proposer (even an admin proposer), and only
 *   before `expiresAt`. Approving again by the same admin is a no-op.
 * - `RejectAction`: an admin rejects, or the proposer withdraws, while it is pending.
 * - `ExpireProposal`: a pending proposal at or past `expiresAt` expires; otherwise nothing.
 *
 * @throws DomainError `APPROVAL.FORBIDDEN` (forbidden: the actor's role may not do this),
 *   `APPROVAL.SELF_APPROVAL` (forbidden: the proposer approving their own proposal),
 *   `APPROVAL.EXPIRED` (conflict: approved at or after `expiresAt`),
 *   `APPROVAL.CLOSED` (conflict: already approved, rejected or expired),
 *   `APPROVAL.CONFLICT` (conflict: the id is taken by other terms),
 *   `APPROVAL.INVALID` (invalid: an expiry not after the proposal, an empty reason),
 *   `APPROVAL.UNKNOWN` (not found).
 */
export function decideApproval(command: ApprovalCommand, state: ProposalState): ApprovalEvent[] {
  switch (command.type) {
    case 'ProposeAction': {
      const terms = command.data;
      if (state.status !== 'none') {
        if (JSON.stringify(state.terms) === JSON.stringify(terms)) return [];
        throw new DomainError('APPROVAL.CONFLICT', `Proposal ${terms.proposalId} exists with other terms`, 'conflict');
      }
      if (terms.proposer.role === 'viewer') throw new DomainError('APPROVAL.FORBIDDEN', 'A viewer cannot propose an action', 'forbidden');
      if (!(terms.expiresAt > terms.proposedAt)) throw new DomainError('APPROVAL.INVALID', 'A proposal must expire after it is made', 'invalid');
      return [{ type: 'ActionProposed', data: terms }];
    }
    case 'ApproveAction': {
      const { approver, at, proposalId } = command.data;
      const proposal = requireProposal(state, proposalId);
      if (proposal.status === 'approved' && proposal.decidedBy && sameActor(proposal.decidedBy, approver)) return [];
      if (proposal.status !== 'pending') throw new DomainError('APPROVAL.CLOSED', `Proposal ${proposalId} is ${proposal.status}`, 'conflict');
      if (sameActor(proposal.terms.proposer, approver)) {
        throw new DomainError('APPROVAL.SELF_APPROVAL', 'A proposal needs a second person: its proposer cannot approve it', 'forbidden');
      }
      if (approver.role !== 'admin') throw new DomainError('APPROVAL.FORBIDDEN', 'Only an admin can approve a proposal', 'forbidden');
      if (at >= proposal.terms.expiresAt) throw new DomainError('APPROVAL.EXPIRED', `Proposal ${proposalId} expired`, 'conflict');
      return [{ type: 'ActionApproved', data: command.data }];
    }
    case 'RejectAction': {
      const { actor, reason, proposalId } = command.data;
      const proposal = requireProposal(state, proposalId);
      if (proposal.status !== 'pending') throw new DomainError('APPROVAL.CLOSED', `Proposal ${proposalId} is ${proposal.status}`, 'conflict');
      if (actor.role !== 'admin' && !sameActor(actor, proposal.terms.proposer)) {
        throw new DomainError('APPROVAL.FORBIDDEN', 'Only an admin or the proposer can reject a proposal', 'forbidden');
      }
      if (reason.trim() === '') throw new DomainError('APPROVAL.INVALID', 'A rejection needs a reason', 'invalid');
      return [{ type: 'ActionRejected', data: command.data }];
    }
    case 'ExpireProposal': {
      const proposal = requireProposal(state, command.data.proposalId);
      if (proposal.status !== 'pending' || command.data.at < proposal.terms.expiresAt) return [];
      return [{ type: 'ProposalExpired', data: command.data }];
    }
    default:
      return assertNever(command);
  }
}

/** Applies one event to a proposal's state. */
export function evolveApproval(state: ProposalState, event: ApprovalEvent): ProposalState {
  switch (event.type) {
    case 'ActionProposed':
      return { status: 'pending', terms: event.data, decidedBy: null };
    case 'ActionApproved':
      return { ...requireProposal(state, event.data.proposalId), status: 'approved', decidedBy: event.data.approver };
    case 'ActionRejected':
      return { ...requireProposal(state, event.data.proposalId), status: 'rejected', decidedBy: event.data.actor };
    case 'ProposalExpired':
      return { ...requireProposal(state, event.data.proposalId), status: 'expired', decidedBy: null };
    default:
      return assertNever(event);
  }
}

/** A proposal's status as seen at `now` (epoch ms): a pending one past its expiry reads `expired` before its event is recorded. */
export function proposalStatusAt(state: ProposalState, now: number): ProposalStatus {
  if (state.status === 'pending' && now >= state.terms.expiresAt) return 'expired';
  return state.status;
}

// Pure helpers of the Proposals page and the match form (maker-checker, docs/approvals.md): who
// may approve, reject or withdraw a proposal and why not, how its status reads, and the API's
// refusals in words.

import { ApiError } from '../api/client';
import type { Proposal, ProposalStatus, SessionUser } from '../api/types';
import type { Tone } from './format';
import { humanize } from './format';

const ACTION_LABELS: Record<string, string> = {
  'unmatched_payment.match': 'Match to a checkout',
  'state_mismatch.accept_as_paid': 'Accept a State Mismatch as paid',
  'privacy.erase': 'Erase a person’s data',
};

/** What approving a proposal does, asked before it runs. */
export function approvalQuestion(proposal: Pick<Proposal, 'action' | 'target'>): string {
  if (proposal.action === 'state_mismatch.accept_as_paid') {
    return `Approve? ${proposal.target.id} is recorded as settled by override, naming the proposer and you and the difference accepted, and its entitlement is granted.`;
  }
  if (proposal.action === 'privacy.erase') {
    return `Approve? The personal data of ${subjectLabel(proposal.target.id)} is erased for good: its keys destroyed, its email and phone cleared, the erasure recorded naming the proposer and you. This cannot be undone.`;
  }
  return `Approve? A checkout is registered under ${proposal.target.id} with these terms and verified against the provider’s answer.`;
}

/** What an erasure's target reads once the person was erased (the API opens it no more). */
export const ERASED = 'erased';

/**
 * An erasure's subject for people, from its target id as the API opens it: `user:user-42` is
 * "user user-42", `customer:carol@example.com` "customer carol@example.com"; `erased` once done,
 * `unavailable` when the console could not open it.
 */
export function subjectLabel(targetId: string): string {
  const match = /^(user|customer):(.+)$/s.exec(targetId);
  return match ? `${match[1]} ${match[2]}` : targetId;
}

/** A proposed action's name for people (`unmatched_payment.match` is "Match to a checkout"). */
export function proposalActionLabel(action: string): string {
  return ACTION_LABELS[action] ?? humanize(action);
}

/**
 * A proposal's status now: a pending one whose expiry has passed reads `expired` (as the API
 * reads it), even if the page read it while it was pending.
 *
 * @param now - epoch milliseconds.
 */
export function proposalStatusAt(proposal: Pick<Proposal, 'status' | 'expiresAt'>, now: number): ProposalStatus {
  return proposal.status === 'pending' && Date.parse(proposal.expiresAt) <= now ? 'expired' : proposal.status;
}

const STATUS_LABELS: Record<ProposalStatus, string> = {
  pending: 'Waiting for a second admin',
  approved: 'Approved',
  rejected: 'Rejected',
  expired: 'Expired',
};
const STATUS_TONES: Record<ProposalStatus, Tone> = { pending: 'warning', approved: 'success', rejected: 'danger', expired: 'neutral' };

/** A proposal's status for people ("Waiting for a second admin", "Approved", ...). */
export function proposalStatusLabel(status: ProposalStatus): string {
  return STATUS_LABELS[status];
}

/** The badge colour of a proposal's status: pending amber, approved green, rejected red, expired grey. */
export function proposalStatusTone(status: ProposalStatus): Tone {
  return STATUS_TONES[status];
}

/** Whether `user` proposed it (e-mails compared case-insensitively, as the approval rules compare them). */
export function isProposer(proposal: Pick<Proposal, 'proposer'>, user: Pick<SessionUser, 'email'>): boolean {
  return proposal.proposer.email.toLowerCase() === user.email.toLowerCase();
}

/**
 * Why `user` cannot approve a proposal now, for the page to say beside the disabled button; `null`
 * when they can: an admin who is not its proposer, while it is pending and before its expiry
 * (the API enforces the same rules, docs/approvals.md).
 *
 * @param now - epoch milliseconds.
 */
export function whyNotApprove(proposal: Pick<Proposal, 'status' | 'expiresAt' | 'proposer'>, user: SessionUser, now: number): string | null {
  const status = proposalStatusAt(proposal, now);
  if (status === 'expired') return 'It expired before anyone approved it: propose the match again.';
  if (status !== 'pending') return `It is ${status} already.`;
  if (isProposer(proposal, user)) return 'You proposed it: a second, different admin approves it.';
  if (user.role !== 'admin') return 'Only an admin approves; you can read it.';
  return null;
}

/**
 * What `user` may do to a pending proposal besides approving: `reject` (an admin who did not
 * propose it), `withdraw` (its proposer, any role), or nothing.
 *
 * @param now - epoch milliseconds.
 */
export function refusalOf(proposal: Pick<Proposal, 'status' | 'expiresAt' | 'proposer'>, user: SessionUser, now: number): 'reject' | 'withdraw' | null {
  if (proposalStatusAt(proposal, now) !== 'pending') return null;
  if (isProposer(proposal, user)) return 'withdraw';
  return user.role === 'admin' ? 'reject' : null;
}

/** What the proposal and match routes refuse with, in words (docs/approvals.md, docs/console.md "API"). */
const PROBLEMS: Record<string, string> = {
  'APPROVAL.SELF_APPROVAL': 'You proposed it: a second, different admin must approve it.',
  'APPROVAL.FORBIDDEN': 'Only an admin, or its proposer withdrawing it, can do this.',
  'APPROVAL.EXPIRED': 'The proposal expired before it was approved: propose the match again.',
  'APPROVAL.CLOSED': 'The proposal was decided already (approved, rejected or expired).',
  'APPROVAL.CONFLICT': 'Another admin changed the proposal at the same moment: read it again.',
  'APPROVAL.UNKNOWN': 'There is no such proposal.',
  'CONSOLE.PROPOSAL_PENDING': 'The same proposal is waiting for approval already: approve, reject or withdraw it on the Proposals page.',
  'CONSOLE.PRIVACY_VAULT_MISSING':
    'The console has no privacy vault (SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE), so it cannot record a person’s data sealed: a configuration error for an engineer. Nothing was proposed or done.',
  'CONSOLE.SUBJECT_ERASED': 'The person this proposal names was erased meanwhile, so it cannot run: reject or withdraw it.',
  'CONSOLE.SUBJECT_KEY_UNAVAILABLE': 'A sealed value of this proposal has a key the privacy vault no longer holds: an engineer must look. Nothing was done.',
  'CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND': 'There is no unmatched payment with this reference.',
  'CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN': 'The payment is not open any more: it was matched or closed meanwhile.',
  'CONSOLE.INGESTION_UNAVAILABLE': 'Ingestion did not answer, so nothing was approved or registered. Try again in a moment.',
  'CONSOLE.INGESTION_REJECTED': "Ingestion refused the console's admin key: a configuration error for an engineer. Nothing was approved.",
  'CONSOLE.FORBIDDEN': 'Your role does not allow this.',
  'CONSOLE.AUDIT_UNAVAILABLE': 'The ledger could not record the action, so it was not done. Try again in a moment.',
  'READ_MODEL.NOT_READY': 'The ledger’s read model is not ready yet. Try again in a moment.',
};

/**
 * An API refusal of a proposal or match command in words, with its problem code and the fields
 * it names: `CONSOLE.MATCH_REFUSED` (ingestion refused the terms) keeps the API's detail; a code
 * not listed falls back to the problem's own detail.
 */
export function proposalProblem(error: unknown): { message: string; code: string | null; fields: ReadonlyArray<{ path: string; message: string }> } {
  if (!(error instanceof ApiError)) return { message: error instanceof Error ? error.message : 'Something went wrong.', code: null, fields: [] };
  if (error.status === 0) return { message: error.message, code: null, fields: [] };
  const known = PROBLEMS[error.code];
  if (known) return { message: known, code: error.code, fields: error.fieldErrors };
  if (error.code === 'CONSOLE.MATCH_REFUSED')
    return { message: `Ingestion refused the terms, so nothing was approved: ${error.message}`, code: error.code, fields: [] };
  if (error.code === 'REQUEST.VALIDATION_FAILED') return { message: 'Some terms are not valid:', code: error.code, fields: error.fieldErrors };
  if (error.status >= 500) return { message: `The console API could not answer. Try again in a moment.`, code: error.code, fields: [] };
  return { message: error.message, code: error.code, fields: error.fieldErrors };
}

import { randomUUID } from 'node:crypto';
import {
  DEFAULT_PROPOSAL_TTL_MS,
  decideApproval,
  DomainError,
  evolveApproval,
  initialProposal,
  proposalStatusAt,
  type ApprovalActor,
  type ProposalStatus,
} from '@settle/domain';
import type { AuditTrail, AdminActor } from '../audit/audit-trail.port.js';
import { roleAtLeast } from '../auth/roles.js';
import { ConsoleError } from '../errors.js';
import type { ProposalAction, RevealPurpose } from './proposal-action.js';
import type { ProposalStore, StoredProposal } from './proposal-store.port.js';

/** A proposal as the console's API shows it (times ISO 8601 UTC). */
export interface ProposalView {
  id: string;
  action: string;
  target: { kind: string; id: string };
  parameters: Record<string, unknown>;
  proposer: { email: string; role: string };
  proposedAt: string;
  expiresAt: string;
  /** As seen now: a pending proposal past its expiry reads `expired`. */
  status: Exclude<ProposalStatus, 'none'>;
  decidedBy: { email: string; role: string } | null;
  decidedAt: string | null;
  reason: string | null;
}

/** Settings of {@link ApprovalService}. */
export interface ApprovalOptions {
  /** How long a proposal waits for approval, milliseconds (`CONSOLE_PROPOSAL_TTL_MS`, default 24 h). */
  ttlMs?: number;
  /** epoch ms; injected so tests drive the clock. */
  clock?: () => number;
}

/** Another change of the proposal was saved first (409 `APPROVAL.CONFLICT`): reload it and retry. */
function changedMeanwhile(): DomainError {
  return new DomainError('APPROVAL.CONFLICT', 'The proposal changed meanwhile; reload it and try again', 'conflict');
}

/**
 * Two people for money decisions (maker-checker, docs/approvals.md), for every sensitive admin
 * action the console knows (`actions`, by name): an operator or admin proposes, a second,
 * different admin approves before the proposal expires, and only then does the action run, with
 * the terms as proposed. The rules are the domain's (`decideApproval`); each command is an admin
 * action in the ledger with its actor (`proposal.create`, `proposal.approve`, `proposal.reject`),
 * recorded before it runs; the proposal's state is kept in `store`. Personal values in a
 * proposal are sealed under their subject's key before they are recorded or stored, and opened
 * only to run the action and in the answers (`ProposalAction.protect` and `reveal`,
 * docs/privacy.md).
 */
export class ApprovalService {
  private readonly ttlMs: number;
  private readonly clock: () => number;

  constructor(
    private readonly store: ProposalStore,
    private readonly audit: AuditTrail,
    private readonly actions: ReadonlyMap<string, ProposalAction>,
    options: ApprovalOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_PROPOSAL_TTL_MS;
    this.clock = options.clock ?? Date.now;
  }

  /**
   * Proposes `action` on `targetId` with `parameters`. An action with personal data in them
   * (`ProposalAction.protect`) has them sealed first: the ledger and the store get the sealed
   * terms only, the answer the terms as given.
   *
   * @throws ProblemError 400 for invalid parameters; the action's `protect` errors
   *   (`CONSOLE.PRIVACY_VAULT_MISSING`, 503); the action's own errors when its target
   *   cannot take it (not found, not open); ConsoleError `CONSOLE.PROPOSAL_PENDING` (409) when
   *   the same action on the same target is pending already; DomainError `APPROVAL.FORBIDDEN`
   *   (403, a viewer); `CONSOLE.AUDIT_UNAVAILABLE` (503).
   */
  async propose(actor: AdminActor, actionName: string, targetId: string, parameters: unknown): Promise<ProposalView> {
    const action = this.actionOf(actionName);
    const checked = action.parse(parameters) as Record<string, unknown>;
    // Personal values are sealed before anything is recorded or stored (docs/privacy.md).
    const recorded = action.protect ? await action.protect(targetId, checked) : { targetId, parameters: checked };
    const proposalId = randomUUID();
    const target = { kind: action.targetKind, id: recorded.targetId };
    return this.audit.run(
      {
        actor,
        action: 'proposal.create',
        target: { kind: 'proposal', id: proposalId },
        parameters: { action: actionName, target, parameters: recorded.parameters },
      },
      async () => {
        await action.check(recorded.targetId);
        const now = this.clock();
        const terms = {
          proposalId,
          action: actionName,
          target,
          parameters: recorded.parameters,
          proposer: actorOf(actor),
          proposedAt: now,
          expiresAt: now + this.ttlMs,
        };
        const events = decideApproval({ type: 'ProposeAction', data: terms }, initialProposal());
        const state = events.reduce(evolveApproval, initialProposal());
        if (state.status === 'none') throw new Error('a proposal decided no event');
        const stored: StoredProposal = { state, decidedAt: null, reason: null, version: 1 };
        if (!(await this.store.insert(stored))) {
          // A protected target is sealed text: named by its kind only.
          const on = action.protect ? `this ${action.targetKind}` : targetId;
          throw new ConsoleError('CONSOLE.PROPOSAL_PENDING', `A proposal of ${actionName} on ${on} is waiting for approval already`);
        }
        return this.viewOf(stored, now, actor);
      },
      (view) => ({ proposal: view.id, status: view.status }),
    );
  }

  /**
   * Approves a proposal and runs its action with the terms as proposed.
   *
   * @throws DomainError `APPROVAL.UNKNOWN` (404), `APPROVAL.SELF_APPROVAL` and `APPROVAL.FORBIDDEN`
   *   (403: the proposer, or not an admin), `APPROVAL.EXPIRED`, `APPROVAL.CLOSED` and
   *   `APPROVAL.CONFLICT` (409: another change saved first); the
   *   action's own errors (then nothing is approved and it can be approved again);
   *   `CONSOLE.AUDIT_UNAVAILABLE` (503).
   */
  async approve(actor: AdminActor, proposalId: string): Promise<{ proposal: ProposalView; result: Record<string, unknown> }> {
    return this.audit.run(
      { actor, action: 'proposal.approve', target: { kind: 'proposal', id: proposalId } },
      async () => {
        const stored = await this.load(proposalId);
        const now = this.clock();
        const events = decideApproval({ type: 'ApproveAction', data: { proposalId, approver: actorOf(actor), at: now } }, stored.state);
        if (events.length === 0) return { proposal: await this.viewOf(stored, now, actor), result: {} };
        const { terms } = stored.state;
        const action = this.actionOf(terms.action);
        // The action runs before the approval is saved: an action that fails leaves the proposal pending.
        const decision = { proposalId, proposedBy: terms.proposer.email, approvedBy: actor.email };
        const asStored = { targetId: terms.target.id, parameters: terms.parameters };
        const opened = action.reveal ? await action.reveal(asStored, 'run') : asStored;
        const result = await action.run(opened.targetId, action.parse(opened.parameters), decision);
        const state = events.reduce(evolveApproval, stored.state);
        if (state.status === 'none') throw new Error('an approval decided no state');
        const approved: StoredProposal = { state, decidedAt: now, reason: null, version: stored.version + 1 };
        if (!(await this.store.save(approved, stored.version))) throw changedMeanwhile();
        return { proposal: await this.viewOf(approved, now, actor), result };
      },
      ({ result }) => result,
    );
  }

  /**
   * Rejects a pending proposal (an admin), or withdraws it (its proposer), with a reason.
   *
   * @throws DomainError `APPROVAL.UNKNOWN` (404), `APPROVAL.FORBIDDEN` (403), `APPROVAL.CLOSED`
   *   (409), `APPROVAL.INVALID` (400, an empty reason); `CONSOLE.AUDIT_UNAVAILABLE` (503).
   */
  async reject(actor: AdminActor, proposalId: string, reason: string): Promise<ProposalView> {
    return this.audit.run(
      { actor, action: 'proposal.reject', target: { kind: 'proposal', id: proposalId }, parameters: { reason } },
      async () => {
        const stored = await this.load(proposalId);
        const now = this.clock();
        const events = decideApproval({ type: 'RejectAction', data: { proposalId, actor: actorOf(actor), reason, at: now } }, stored.state);
        const state = events.reduce(evolveApproval, stored.state);
        if (state.status === 'none') throw new Error('a rejection decided no state');
        const rejected: StoredProposal = { state, decidedAt: now, reason, version: stored.version + 1 };
        if (!(await this.store.save(rejected, stored.version))) throw changedMeanwhile();
        return this.viewOf(rejected, now, actor);
      },
      (view) => ({ status: view.status }),
    );
  }

  /**
   * Proposals waiting for approval now (expired ones left out), oldest first, at most `limit`,
   * as `actor` may see them (personal values opened for an operator or admin, masked for a viewer).
   */
  async pending(actor: AdminActor, limit: number): Promise<ProposalView[]> {
    const now = this.clock();
    const pending = (await this.store.listPending(limit)).filter((p) => proposalStatusAt(p.state, now) === 'pending');
    return Promise.all(pending.map((p) => this.viewOf(p, now, actor)));
  }

  /**
   * One proposal as it stands now, as `actor` may see it (see {@link pending}).
   *
   * @throws DomainError `APPROVAL.UNKNOWN` (404).
   */
  async get(actor: AdminActor, proposalId: string): Promise<ProposalView> {
    return this.viewOf(await this.load(proposalId), this.clock(), actor);
  }

  /**
   * A stored proposal as the API shows it to `actor`, its sealed values revealed by its action's
   * `reveal` (`erased` once the subject was erased): in the answer only, never stored. They are
   * opened only for the people who decide proposals, operators and admins; a viewer gets their
   * masked forms (docs/privacy.md).
   */
  private async viewOf(stored: StoredProposal, now: number, actor: AdminActor): Promise<ProposalView> {
    const view = viewOf(stored, now);
    const action = this.actions.get(view.action);
    if (!action?.reveal) return view;
    const purpose: RevealPurpose = roleAtLeast(actor.role, 'operator') ? 'view' : 'view-masked';
    try {
      const opened = await action.reveal({ targetId: view.target.id, parameters: view.parameters }, purpose);
      return { ...view, target: { kind: view.target.kind, id: opened.targetId }, parameters: opened.parameters };
    } catch {
      // `reveal` for a view does not throw; were it to, the sealed values are shown as stored.
      return view;
    }
  }

  private async load(proposalId: string): Promise<StoredProposal> {
    const stored = await this.store.get(proposalId);
    if (!stored) throw new DomainError('APPROVAL.UNKNOWN', `No proposal ${proposalId}`, 'not_found');
    return stored;
  }

  private actionOf(name: string): ProposalAction {
    const action = this.actions.get(name);
    if (!action) throw new Error(`no proposal action named ${name}`);
    return action;
  }
}

function actorOf(actor: AdminActor): ApprovalActor {
  return { email: actor.email, role: actor.role };
}

function viewOf(stored: StoredProposal, now: number): ProposalView {
  const { terms, decidedBy } = stored.state;
  const status = proposalStatusAt(stored.state, now);
  return {
    id: terms.proposalId,
    action: terms.action,
    target: { ...terms.target },
    parameters: { ...terms.parameters },
    proposer: { ...terms.proposer },
    proposedAt: new Date(terms.proposedAt).toISOString(),
    expiresAt: new Date(terms.expiresAt).toISOString(),
    status: status === 'none' ? 'pending' : status,
    decidedBy: decidedBy ? { ...decidedBy } : null,
    decidedAt: stored.decidedAt === null ? null : new Date(stored.decidedAt).toISOString(),
    reason: stored.reason,
  };
}

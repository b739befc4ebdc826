import type { ProposalState } from '@settle/domain';

/** A proposal as the console keeps it: the approval rules' state, when and why it was decided, and its version. */
export interface StoredProposal {
  state: Extract<ProposalState, { terms: unknown }>;
  /** When it was approved, rejected or expired, epoch ms; `null` while pending. */
  decidedAt: number | null;
  /** A rejection's reason; `null` otherwise. */
  reason: string | null;
  /** 1 when proposed, +1 on every change: the optimistic check of {@link ProposalStore.save}. */
  version: number;
}

/**
 * Where the console keeps proposals of sensitive admin actions (docs/approvals.md): the working
 * state; the ledger's admin actions are the record. A PostgreSQL adapter
 * (`PostgresProposalStore`, `console.proposals`) and an in-memory one (`MemoryProposalStore`, for
 * tests) pass the same contract (apps/console/test/proposal-store.contract.ts).
 */
export interface ProposalStore {
  /** The proposal of an id, or `null`. */
  get(proposalId: string): Promise<StoredProposal | null>;
  /**
   * Stores a new proposal.
   *
   * @returns `false` when a proposal of the same action on the same target is pending already
   *   (nothing stored).
   */
  insert(proposal: StoredProposal): Promise<boolean>;
  /**
   * Replaces a proposal if its stored version is still `previousVersion`.
   *
   * @returns `false` when another change got there first (nothing stored).
   */
  save(proposal: StoredProposal, previousVersion: number): Promise<boolean>;
  /** Pending proposals, oldest first, at most `limit`. */
  listPending(limit: number): Promise<StoredProposal[]>;
}

/** An in-memory {@link ProposalStore}, for unit tests. */
export class MemoryProposalStore implements ProposalStore {
  private readonly proposals = new Map<string, StoredProposal>();

  get(proposalId: string): Promise<StoredProposal | null> {
    const found = this.proposals.get(proposalId);
    return Promise.resolve(found ? structuredClone(found) : null);
  }

  insert(proposal: StoredProposal): Promise<boolean> {
    const { terms } = proposal.state;
    const pending = [...this.proposals.values()].some(
      (p) =>
        p.state.status === 'pending' &&
        p.state.terms.action === terms.action &&
        p.state.terms.target.kind === terms.target.kind &&
        p.state.terms.target.id === terms.target.id,
    );
    if (pending || this.proposals.has(terms.proposalId)) return Promise.resolve(false);
    this.proposals.set(terms.proposalId, structuredClone(proposal));
    return Promise.resolve(true);
  }

  save(proposal: StoredProposal, previousVersion: number): Promise<boolean> {
    const stored = this.proposals.get(proposal.state.terms.proposalId);
    if (stored?.version !== previousVersion) return Promise.resolve(false);
    this.proposals.set(proposal.state.terms.proposalId, structuredClone(proposal));
    return Promise.resolve(true);
  }

  listPending(limit: number): Promise<StoredProposal[]> {
    const pending = [...this.proposals.values()]
      .filter((p) => p.state.status === 'pending')
      .sort((a, b) => a.state.terms.proposedAt - b.state.terms.proposedAt);
    return Promise.resolve(structuredClone(pending.slice(0, limit)));
  }
}

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ProposalStore, StoredProposal } from '../src/approvals/proposal-store.port.js';

/** A pending proposal of `unmatched_payment.match` on `target`, proposed at `at` (epoch ms, whole milliseconds). */
function pending(target: string, at: number): StoredProposal {
  return {
    state: {
      status: 'pending',
      terms: {
        proposalId: randomUUID(),
        action: 'unmatched_payment.match',
        target: { kind: 'unmatched_payment', id: target },
        parameters: { amount: 5_000, customer: { email: 'payer@example.com' } },
        proposer: { email: 'ops@example.com', role: 'operator' },
        proposedAt: at,
        expiresAt: at + 86_400_000,
      },
      decidedBy: null,
    },
    decidedAt: null,
    reason: null,
    version: 1,
  };
}

/**
 * The proposal store's contract (`ProposalStore`, docs/approvals.md): the PostgreSQL store and the
 * in-memory one answer the same.
 */
export function proposalStoreContract(name: string, make: () => ProposalStore | Promise<ProposalStore>): void {
  describe(`proposal store contract: ${name}`, () => {
    it('stores a proposal and reads it back whole; lists the pending ones oldest first', async () => {
      const store = await make();
      const target = `ref_${randomUUID().slice(0, 8)}`;
      const later = pending(`${target}_b`, Date.UTC(2026, 10, 28, 12, 5));
      const earlier = pending(`${target}_a`, Date.UTC(2026, 10, 28, 12, 1));
      expect(await store.insert(later)).toBe(true);
      expect(await store.insert(earlier)).toBe(true);
      expect(await store.get(earlier.state.terms.proposalId)).toEqual(earlier);
      expect(await store.get(randomUUID())).toBeNull();
      const listed = (await store.listPending(1_000)).filter((p) => p.state.terms.target.id.startsWith(target));
      expect(listed.map((p) => p.state.terms.target.id)).toEqual([`${target}_a`, `${target}_b`]);
    });

    it('refuses a second pending proposal of the same action on the same target, and allows one once the first is decided', async () => {
      const store = await make();
      const target = `ref_${randomUUID().slice(0, 8)}`;
      const first = pending(target, Date.UTC(2026, 10, 28, 12));
      expect(await store.insert(first)).toBe(true);
      expect(await store.insert(pending(target, Date.UTC(2026, 10, 28, 13)))).toBe(false);
      const rejected: StoredProposal = {
        ...first,
        state: { ...first.state, status: 'rejected', decidedBy: { email: 'lead@example.com', role: 'admin' } },
        decidedAt: Date.UTC(2026, 10, 28, 12, 30),
        reason: 'wrong user',
        version: 2,
      };
      expect(await store.save(rejected, 1)).toBe(true);
      expect(await store.get(first.state.terms.proposalId)).toEqual(rejected);
      expect(await store.insert(pending(target, Date.UTC(2026, 10, 28, 14)))).toBe(true);
    });

    it('saves a change only over the version it read (one of two concurrent approvals wins)', async () => {
      const store = await make();
      const proposal = pending(`ref_${randomUUID().slice(0, 8)}`, Date.UTC(2026, 10, 28, 12));
      await store.insert(proposal);
      const approved: StoredProposal = {
        ...proposal,
        state: { ...proposal.state, status: 'approved', decidedBy: { email: 'lead@example.com', role: 'admin' } },
        decidedAt: Date.UTC(2026, 10, 28, 12, 1),
        version: 2,
      };
      expect(await store.save(approved, 1)).toBe(true);
      expect(await store.save({ ...approved, state: { ...approved.state, decidedBy: { email: 'cfo@example.com', role: 'admin' } } }, 1)).toBe(false);
      expect((await store.get(proposal.state.terms.proposalId))?.state.decidedBy?.email).toBe('lead@example.com');
    });
  });
}

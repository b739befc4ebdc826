/**
 * Two people for money decisions (docs/approvals.md): the console's approval service over the
 * in-memory proposal store and the audit trail on the in-memory ledger, with a stand-in action.
 */
import { InMemoryLedger } from '@settle/ledger';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ApprovalService } from '../src/approvals/approval.service.js';
import type { ProposalAction } from '../src/approvals/proposal-action.js';
import { MemoryProposalStore } from '../src/approvals/proposal-store.port.js';
import { LedgerAuditTrail, StoreScanAuditLog } from '../src/audit/ledger-audit-trail.js';
import { ConsoleError } from '../src/errors.js';
import { proposalStoreContract } from './proposal-store.contract.js';

proposalStoreContract('in memory', () => new MemoryProposalStore());

const operator = { email: 'ops@example.com', role: 'operator' as const };
const admin = { email: 'lead@example.com', role: 'admin' as const };
const otherAdmin = { email: 'cfo@example.com', role: 'admin' as const };

/** A stand-in action: parameters `{ amount }`, targets that must be `open`, and the runs it made. */
function standIn() {
  const runs: Array<{ target: string; amount: number }> = [];
  const closed = new Set<string>();
  let failNext = false;
  const action: ProposalAction<{ amount: number }> = {
    name: 'unmatched_payment.match',
    targetKind: 'unmatched_payment',
    parse(parameters) {
      const amount = (parameters as { amount?: unknown }).amount;
      if (typeof amount !== 'number') throw new ConsoleError('CONSOLE.MATCH_REFUSED', 'amount is required');
      return { amount };
    },
    check(target) {
      return closed.has(target) ? Promise.reject(new ConsoleError('CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN', 'matched')) : Promise.resolve();
    },
    run(target, { amount }) {
      if (failNext) {
        failNext = false;
        return Promise.reject(new ConsoleError('CONSOLE.INGESTION_UNAVAILABLE', 'down'));
      }
      runs.push({ target, amount });
      return Promise.resolve({ reference: target, state: 'PENDING' });
    },
  };
  return { action, runs, closed, failOnce: () => void (failNext = true) };
}

function harness() {
  let now = Date.UTC(2026, 10, 28, 12);
  const ledger = new InMemoryLedger();
  const audit = new LedgerAuditTrail(ledger, new StoreScanAuditLog(ledger), pino({ level: 'silent' }));
  const stand = standIn();
  const service = new ApprovalService(new MemoryProposalStore(), audit, new Map([[stand.action.name, stand.action]]), {
    ttlMs: 60_000,
    clock: () => now,
  });
  return { service, audit, stand, advance: (ms: number) => void (now += ms) };
}

describe('approvals (maker-checker)', () => {
  it('runs the action only once a second, different admin approves, with the terms as proposed; both actors in the audit trail', async () => {
    const { service, audit, stand } = harness();
    const proposal = await service.propose(operator, 'unmatched_payment.match', 'ref_1', { amount: 5_000 });
    expect(proposal).toMatchObject({
      status: 'pending',
      target: { kind: 'unmatched_payment', id: 'ref_1' },
      parameters: { amount: 5_000 },
      proposer: operator,
    });
    expect(stand.runs).toEqual([]);
    expect(await service.pending(admin, 10)).toEqual([proposal]);

    const approved = await service.approve(admin, proposal.id);
    expect(approved.proposal).toMatchObject({ status: 'approved', decidedBy: admin });
    expect(approved.result).toEqual({ reference: 'ref_1', state: 'PENDING' });
    expect(stand.runs).toEqual([{ target: 'ref_1', amount: 5_000 }]);
    expect(await service.pending(admin, 10)).toEqual([]);
    // Approving again by the same admin is harmless: nothing runs twice.
    await service.approve(admin, proposal.id);
    expect(stand.runs).toHaveLength(1);

    const { items } = await audit.list({ limit: 10 });
    expect(items.map((i) => [i.action, i.actor.email, i.outcome]).reverse()).toEqual([
      ['proposal.create', operator.email, 'succeeded'],
      ['proposal.approve', admin.email, 'succeeded'],
      ['proposal.approve', admin.email, 'succeeded'],
    ]);
  });

  it('refuses the proposer approving their own proposal (an admin too), a non-admin approver, and an approval after expiry', async () => {
    const { service, stand, advance } = harness();
    const byAdmin = await service.propose(admin, 'unmatched_payment.match', 'ref_2', { amount: 1 });
    await expect(service.approve({ ...admin, email: 'LEAD@example.com' }, byAdmin.id)).rejects.toMatchObject({
      code: 'APPROVAL.SELF_APPROVAL',
      kind: 'forbidden',
    });
    await expect(service.approve(operator, byAdmin.id)).rejects.toMatchObject({ code: 'APPROVAL.FORBIDDEN' });
    advance(60_000);
    expect((await service.get(admin, byAdmin.id)).status).toBe('expired');
    expect(await service.pending(admin, 10)).toEqual([]);
    await expect(service.approve(otherAdmin, byAdmin.id)).rejects.toMatchObject({ code: 'APPROVAL.EXPIRED', kind: 'conflict' });
    expect(stand.runs).toEqual([]);
  });

  it('a rejected or withdrawn proposal never runs; one pending proposal per target; a failed run leaves it pending', async () => {
    const { service, stand } = harness();
    const first = await service.propose(operator, 'unmatched_payment.match', 'ref_3', { amount: 1 });
    await expect(service.propose(operator, 'unmatched_payment.match', 'ref_3', { amount: 2 })).rejects.toMatchObject({ code: 'CONSOLE.PROPOSAL_PENDING' });
    await expect(service.reject(operator, first.id, ' ')).rejects.toMatchObject({ code: 'APPROVAL.INVALID' });
    expect(await service.reject(operator, first.id, 'wrong user')).toMatchObject({ status: 'rejected', reason: 'wrong user', decidedBy: operator });
    await expect(service.approve(admin, first.id)).rejects.toMatchObject({ code: 'APPROVAL.CLOSED' });

    const second = await service.propose(operator, 'unmatched_payment.match', 'ref_3', { amount: 2 });
    stand.failOnce();
    await expect(service.approve(admin, second.id)).rejects.toMatchObject({ code: 'CONSOLE.INGESTION_UNAVAILABLE' });
    expect((await service.get(admin, second.id)).status).toBe('pending');
    expect((await service.approve(admin, second.id)).proposal.status).toBe('approved');
    expect(stand.runs).toEqual([{ target: 'ref_3', amount: 2 }]);
  });

  it('refuses a viewer, invalid parameters, a target that cannot take the action, and an unknown proposal', async () => {
    const { service, stand } = harness();
    await expect(service.propose({ email: 'v@example.com', role: 'viewer' }, 'unmatched_payment.match', 'ref_4', { amount: 1 })).rejects.toMatchObject({
      code: 'APPROVAL.FORBIDDEN',
    });
    await expect(service.propose(operator, 'unmatched_payment.match', 'ref_4', {})).rejects.toMatchObject({ code: 'CONSOLE.MATCH_REFUSED' });
    stand.closed.add('ref_5');
    await expect(service.propose(operator, 'unmatched_payment.match', 'ref_5', { amount: 1 })).rejects.toMatchObject({
      code: 'CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN',
    });
    await expect(service.approve(admin, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'APPROVAL.UNKNOWN', kind: 'not_found' });
  });
});

import { describe, expect, it } from 'vitest';
import { TRANSACTION_STATUSES, type TransactionStatus } from '@settle/domain';
import type { ListedMovement } from '@settle/providers';
import {
  movementReads,
  movementReferences,
  nextRunPhase,
  runPhaseOf,
  storedCursorOf,
  type MovementSubject,
  type RunPhase,
} from '../src/reconciliation/movement-phase.js';

describe("a run's stored cursor and its phase", () => {
  it.each([
    [null, { phase: 'transactions', cursor: null }],
    ['3', { phase: 'transactions', cursor: '3' }],
    ['pi_3MtwBwLkdIwHu7ix', { phase: 'transactions', cursor: 'pi_3MtwBwLkdIwHu7ix' }],
    ['m|', { phase: 'movements', cursor: null }],
    ['m|refunds:2', { phase: 'movements', cursor: 'refunds:2' }],
    ['m|disputes:', { phase: 'movements', cursor: 'disputes:' }],
  ] as const)('reads %j as %j (a cursor stored before the movement phase existed has no prefix: the transaction list)', (stored, phase) => {
    expect(runPhaseOf(stored)).toEqual(phase);
  });

  it.each<RunPhase>([
    { phase: 'transactions', cursor: '3' },
    { phase: 'movements', cursor: null },
    { phase: 'movements', cursor: 'refunds:re_9' },
    { phase: 'movements', cursor: 'disputes:' },
  ])('stores %j as a text that reads back as it', (phase) => {
    expect(runPhaseOf(storedCursorOf(phase))).toEqual(phase);
  });

  it('stores the movement phase with the prefix, and nothing once the run has read everything', () => {
    expect(storedCursorOf({ phase: 'movements', cursor: null })).toBe('m|');
    expect(storedCursorOf({ phase: 'movements', cursor: 'refunds:2' })).toBe('m|refunds:2');
    expect(storedCursorOf({ phase: 'transactions', cursor: '2' })).toBe('2');
    expect(storedCursorOf(null)).toBeNull();
  });
});

describe('where a run goes after a page', () => {
  it('the same list while the provider has a next page', () => {
    expect(nextRunPhase('transactions', '4', true)).toEqual({ phase: 'transactions', cursor: '4' });
    expect(nextRunPhase('movements', 'disputes:', true)).toEqual({ phase: 'movements', cursor: 'disputes:' });
  });

  it("after the transaction list's last page: the refund and dispute lists when the adapter lists them, else the end", () => {
    expect(nextRunPhase('transactions', null, true)).toEqual({ phase: 'movements', cursor: null });
    expect(nextRunPhase('transactions', null, false)).toBeNull();
  });

  it('after the last movement page: the end', () => {
    expect(nextRunPhase('movements', null, true)).toBeNull();
  });
});

describe('which payments a page of refunds and disputes asks the verifier to read', () => {
  const movement = (reference: string, id: string, kind: ListedMovement['kind'] = 'refund'): ListedMovement => ({ kind, id, reference, createdAtMs: 1 });
  const subject = (status: TransactionStatus, provider: MovementSubject['provider'] = 'paystack'): MovementSubject => ({
    provider,
    status,
    correlationId: `corr_${status}`,
  });

  it('names each reference once, in the order first named', () => {
    expect(movementReferences([movement('stl_b', '1'), movement('stl_a', '2'), movement('stl_b', '3', 'dispute')])).toEqual(['stl_b', 'stl_a']);
    expect(movementReferences([])).toEqual([]);
  });

  it('asks about settled payments and those in State Mismatch, with their correlation id; leaves unknown and unsettled ones', () => {
    const settle = new Map<string, MovementSubject>([
      ['stl_settled', subject('SETTLED_CONSENSUS')],
      ['stl_mismatch', subject('STATE_MISMATCH')],
      ['stl_pending', subject('PENDING')],
      ['stl_declined', subject('FAILED_DECLINED')],
    ]);
    expect(movementReads('paystack', ['stl_unknown', 'stl_pending', 'stl_settled', 'stl_declined', 'stl_mismatch'], settle)).toEqual([
      { reference: 'stl_settled', correlationId: 'corr_SETTLED_CONSENSUS' },
      { reference: 'stl_mismatch', correlationId: 'corr_STATE_MISMATCH' },
    ]);
  });

  it.each(TRANSACTION_STATUSES)('a payment in %s is asked about only when settled or in State Mismatch', (status) => {
    const asked = movementReads('stripe', ['pi_1'], new Map([['pi_1', subject(status, 'stripe')]])).length === 1;
    expect(asked).toBe(status === 'SETTLED_CONSENSUS' || status === 'STATE_MISMATCH');
  });

  it("leaves a reference Settle holds for another provider: it is not this provider's payment", () => {
    expect(movementReads('stripe', ['stl_settled'], new Map([['stl_settled', subject('SETTLED_CONSENSUS', 'paystack')]]))).toEqual([]);
  });
});

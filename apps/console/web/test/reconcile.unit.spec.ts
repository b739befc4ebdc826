import { describe, expect, it } from 'vitest';
import { RECONCILE_WAIT_MS, reconcileProgress } from '../src/lib/reconcile';

describe('reconcileProgress', () => {
  const before = { state: 'PENDING', events: 0 };
  const startedAt = 1_000_000;

  it('waits while neither the state nor the ledger moved', () => {
    expect(reconcileProgress(before, { state: 'PENDING', events: 0 }, startedAt, startedAt + 1_500)).toBe('waiting');
  });

  it('stops when the state changed', () => {
    expect(reconcileProgress(before, { state: 'SETTLED_CONSENSUS', events: 1 }, startedAt, startedAt + 3_000)).toBe('changed');
  });

  it('stops when the ledger recorded a verification that kept the state (still clearing)', () => {
    const recovering = { state: 'RECOVERING', events: 2 };
    expect(reconcileProgress(recovering, { state: 'RECOVERING', events: 3 }, startedAt, startedAt + 3_000)).toBe('recorded');
  });

  it('gives up after 30 s without a change', () => {
    expect(RECONCILE_WAIT_MS).toBe(30_000);
    expect(reconcileProgress(before, before, startedAt, startedAt + 29_999)).toBe('waiting');
    expect(reconcileProgress(before, before, startedAt, startedAt + 30_000)).toBe('timed_out');
  });

  it('reports a change even when it is read after the wait', () => {
    expect(reconcileProgress(before, { state: 'FAILED_DECLINED', events: 1 }, startedAt, startedAt + 60_000)).toBe('changed');
  });
});

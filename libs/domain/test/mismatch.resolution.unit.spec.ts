import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closeRefundDue, decideMismatchResolution, DomainError, type MismatchCase, type ResolveMismatch } from '@settle/domain';

/** A lower amount paid: 9 000.00 NGN registered, 8 500.00 NGN captured. */
const underpaid = (over: Partial<MismatchCase> = {}): MismatchCase => ({
  status: 'STATE_MISMATCH',
  resolution: null,
  expected: { amountMinor: 900_000, currency: 'NGN' },
  observed: { amountMinor: 850_000, currency: 'NGN' },
  returnedMinor: 0,
  disputeOpen: false,
  ...over,
});

const accept: ResolveMismatch = {
  type: 'AcceptAsPaid',
  data: { proposalId: 'p-1', proposedBy: 'ops@example.com', approvedBy: 'lead@example.com', note: 'within our tolerance', decidedAt: 1_000 },
};
const refundDue: ResolveMismatch = { type: 'CloseRefundDue', data: { closedBy: 'lead@example.com', note: null, decidedAt: 2_000 } };

const codeOf = (f: () => unknown): string | null => {
  try {
    f();
    return null;
  } catch (error) {
    return error instanceof DomainError ? error.code : `not a DomainError: ${String(error)}`;
  }
};

describe('resolving a State Mismatch (docs/state-machine.md, "Resolving a State Mismatch")', () => {
  it('accepting as paid records SettledByOverride naming both people and the difference accepted, in minor units', () => {
    expect(decideMismatchResolution(accept, underpaid())).toEqual([
      {
        type: 'SettledByOverride',
        data: {
          proposalId: 'p-1',
          proposedBy: 'ops@example.com',
          approvedBy: 'lead@example.com',
          note: 'within our tolerance',
          differenceMinor: 50_000,
          decidedAt: 1_000,
        },
      },
    ]);
  });

  it('across currencies there is no difference to state: it is null, and the two amounts stay on the record', () => {
    const [event] = decideMismatchResolution(accept, underpaid({ observed: { amountMinor: 2_000, currency: 'usd' } }));
    expect(event).toMatchObject({ type: 'SettledByOverride', data: { differenceMinor: null } });
    expect(decideMismatchResolution(accept, underpaid({ observed: { amountMinor: 900_000, currency: 'ngn' } }))[0]).toMatchObject({
      data: { differenceMinor: 0 },
    });
  });

  it('only a State Mismatch can be resolved; another resolution or money gone back refuses', () => {
    for (const status of ['SETTLED_CONSENSUS', 'FAILED_DECLINED', 'PENDING', 'MANUAL_REVIEW'] as const) {
      expect(codeOf(() => decideMismatchResolution(accept, underpaid({ status })))).toBe('MISMATCH.NOT_STATE_MISMATCH');
      expect(codeOf(() => decideMismatchResolution(refundDue, underpaid({ status })))).toBe('MISMATCH.NOT_STATE_MISMATCH');
    }
    expect(codeOf(() => decideMismatchResolution(accept, underpaid({ resolution: 'refund_due' })))).toBe('MISMATCH.ALREADY_RESOLVED');
    expect(codeOf(() => decideMismatchResolution(accept, underpaid({ resolution: 'refunded' })))).toBe('MISMATCH.ALREADY_RESOLVED');
    expect(codeOf(() => decideMismatchResolution(refundDue, underpaid({ resolution: 'accepted_as_paid' })))).toBe('MISMATCH.ALREADY_RESOLVED');
    expect(codeOf(() => decideMismatchResolution(accept, underpaid({ returnedMinor: 1 })))).toBe('MISMATCH.MONEY_RETURNED');
    expect(codeOf(() => decideMismatchResolution(accept, underpaid({ disputeOpen: true })))).toBe('MISMATCH.DISPUTE_OPEN');
    // Closing it as refund due stays possible while a dispute is open: the money may go back either way.
    expect(decideMismatchResolution(refundDue, underpaid({ disputeOpen: true })).map((e) => e.type)).toEqual(['MismatchRefundDue']);
  });

  it('the same resolution requested again records nothing (a redelivered request)', () => {
    expect(decideMismatchResolution(accept, underpaid({ resolution: 'accepted_as_paid' }))).toEqual([]);
    expect(decideMismatchResolution(refundDue, underpaid({ resolution: 'refund_due' }))).toEqual([]);
    expect(decideMismatchResolution(refundDue, underpaid({ resolution: 'refunded' }))).toEqual([]);
  });

  it('refund due stays open until the captured money is all returned; a refund made before closes it at once', () => {
    expect(decideMismatchResolution(refundDue, underpaid()).map((e) => e.type)).toEqual(['MismatchRefundDue']);
    expect(decideMismatchResolution(refundDue, underpaid({ returnedMinor: 849_999 })).map((e) => e.type)).toEqual(['MismatchRefundDue']);
    expect(decideMismatchResolution(refundDue, underpaid({ returnedMinor: 850_000 }))).toEqual([
      { type: 'MismatchRefundDue', data: { closedBy: 'lead@example.com', note: null, decidedAt: 2_000 } },
      { type: 'MismatchRefundDueClosed', data: { returnedMinor: 850_000, decidedAt: 2_000 } },
    ]);
  });

  it('closes a refund due exactly when what was returned reaches what was captured, never before, never another resolution', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 0, max: 10_000_000 }), (captured, returned) => {
        const c = underpaid({ resolution: 'refund_due', observed: { amountMinor: captured, currency: 'NGN' }, returnedMinor: returned });
        const closing = closeRefundDue(c, 5);
        expect(closing !== null).toBe(returned >= captured);
        if (closing) expect(closing.data).toEqual({ returnedMinor: returned, decidedAt: 5 });
        expect(closeRefundDue({ ...c, resolution: null }, 5)).toBeNull();
        expect(closeRefundDue({ ...c, resolution: 'accepted_as_paid' }, 5)).toBeNull();
        expect(closeRefundDue({ ...c, resolution: 'refunded' }, 5)).toBeNull();
      }),
    );
  });

  it('with no amount confirmed by the provider, the registered amount is what a refund must return', () => {
    expect(closeRefundDue(underpaid({ resolution: 'refund_due', observed: null, returnedMinor: 899_999 }), 1)).toBeNull();
    expect(closeRefundDue(underpaid({ resolution: 'refund_due', observed: null, returnedMinor: 900_000 }), 1)).not.toBeNull();
  });
});

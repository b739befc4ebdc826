import { describe, expect, it } from 'vitest';
import { decideNewAttempt } from '@settle/domain';

describe('a new payment attempt after verifying the existing reference (docs/spec.md, section 1, rule 3)', () => {
  it.each([
    ['SETTLED_CONSENSUS', 'cleared', false, 'ALREADY_PAID'],
    ['FAILED_DECLINED', 'declined', true, 'PREVIOUS_ATTEMPT_DECLINED'],
    ['STATE_MISMATCH', 'cleared', false, 'IN_MANUAL_REVIEW'],
    ['RECOVERING', 'clearing', false, 'PAYMENT_STILL_CLEARING'],
    ['PENDING', 'not_found', true, 'NO_PAYMENT_FOUND'],
    ['PENDING', 'unreachable', null, 'PROVIDER_UNREACHABLE'],
    ['PENDING', null, null, 'NOT_YET_KNOWN'],
  ] as const)('%s after a %s verdict: allowed %s (%s)', (status, verdict, allowed, reason) => {
    expect(decideNewAttempt(status, verdict)).toEqual({ allowed, reason });
  });

  it('never allows a new attempt while a payment may still land', () => {
    for (const verdict of ['clearing', 'unreachable', null] as const) {
      expect(decideNewAttempt('PENDING', verdict).allowed).not.toBe(true);
    }
    expect(decideNewAttempt('RECOVERING', null).allowed).toBe(false);
  });
});

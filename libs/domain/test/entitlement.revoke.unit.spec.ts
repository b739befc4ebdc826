import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addAccessPeriod,
  decideGrant,
  decideReinstate,
  decideRevoke,
  evolveEntitlement,
  expiryOfGrants,
  foldEntitlement,
  initialEntitlementState,
  parseAccessPeriod,
  type EntitlementEvent,
  type EntitlementState,
  type GrantEntitlement,
  type RevokeEntitlement,
} from '@settle/domain';

const DAY = 86_400_000;
const jan1 = Date.parse('2027-01-01T00:00:00.000Z');
const at = (iso: string) => Date.parse(iso);

function grant(reference: string, settledAt: number, period = 'P1M'): GrantEntitlement {
  return {
    type: 'GrantEntitlement',
    data: { eventId: `grant-${reference}`, userId: 'user-42', entitlement: 'pro', reference, accessPeriod: parseAccessPeriod(period), settledAt },
  };
}

function revoke(reference: string, revokedAt: number): RevokeEntitlement {
  return { type: 'RevokeEntitlement', data: { eventId: `revoke-${reference}`, reference, reason: 'refunded', revokedAt } };
}

/** Applies commands in turn, returning the state and every event decided. */
function run(
  commands: ReadonlyArray<
    GrantEntitlement | RevokeEntitlement | { type: 'ReinstateEntitlement'; data: { eventId: string; reference: string; reinstatedAt: number } }
  >,
) {
  let state: EntitlementState = initialEntitlementState();
  const events: EntitlementEvent[] = [];
  for (const command of commands) {
    const decided: EntitlementEvent[] =
      command.type === 'GrantEntitlement'
        ? decideGrant(command, state)
        : command.type === 'RevokeEntitlement'
          ? decideRevoke(command, state)
          : decideReinstate(command, state);
    events.push(...decided);
    state = decided.reduce(evolveEntitlement, state);
  }
  return { state, events };
}

describe('decideRevoke: access follows the money (docs/delivery.md)', () => {
  it('the worked example: three monthly grants paid up front, the first refunded; the later two move earlier by the month it bought', () => {
    // Paid 1 January, 2 January and 3 January, one month each: access to 1 April (1 Feb, 1 Mar, 1 Apr).
    const { state, events } = run([
      grant('ref_jan', at('2027-01-01T00:00:00Z')),
      grant('ref_feb', at('2027-01-02T00:00:00Z')),
      grant('ref_mar', at('2027-01-03T00:00:00Z')),
      revoke('ref_jan', at('2027-01-10T00:00:00Z')),
    ]);
    expect(events.at(-1)).toEqual({
      type: 'EntitlementRevoked',
      data: {
        eventId: 'revoke-ref_jan',
        userId: 'user-42',
        entitlement: 'pro',
        reference: 'ref_jan',
        reason: 'refunded',
        revokedAt: at('2027-01-10T00:00:00Z'),
        previousExpiresAt: at('2027-04-01T00:00:00Z'),
        // As if the January payment had never been made: 2 Jan + 1 month, then + 1 month.
        expiresAt: at('2027-03-02T00:00:00Z'),
      },
    });
    expect(state.expiresAt).toBe(at('2027-03-02T00:00:00Z'));
    expect(state.streamLength).toBe(4);
  });

  it('revoking the only grant ends access at the revocation time', () => {
    const { events } = run([grant('ref_1', jan1), revoke('ref_1', jan1 + 5 * DAY)]);
    expect(events.at(-1)).toMatchObject({ type: 'EntitlementRevoked', data: { previousExpiresAt: at('2027-02-01T00:00:00Z'), expiresAt: jan1 + 5 * DAY } });
  });

  it('a payment never granted, or already revoked, revokes nothing', () => {
    expect(run([grant('ref_1', jan1), revoke('ref_other', jan1 + DAY)]).events).toHaveLength(1);
    expect(run([grant('ref_1', jan1), revoke('ref_1', jan1 + DAY), revoke('ref_1', jan1 + 2 * DAY)]).events).toHaveLength(2);
    expect(run([revoke('ref_1', jan1)]).events).toEqual([]);
  });

  it('a grant after a revocation that left none starts from its own settlement, not from the revocation', () => {
    const { events, state } = run([grant('ref_1', jan1), revoke('ref_1', jan1 + 20 * DAY), grant('ref_2', jan1 + 10 * DAY)]);
    expect(events.at(-1)).toMatchObject({ type: 'EntitlementGranted', data: { startsAt: jan1 + 10 * DAY, previousExpiresAt: jan1 + 20 * DAY } });
    expect(state.expiresAt).toBe(addAccessPeriod(jan1 + 10 * DAY, parseAccessPeriod('P1M')));
  });

  it('reinstating a revoked grant gives back the expiry it had', () => {
    const { events, state } = run([
      grant('ref_1', jan1),
      grant('ref_2', jan1 + DAY),
      revoke('ref_1', jan1 + 2 * DAY),
      { type: 'ReinstateEntitlement', data: { eventId: 'reinstate-ref_1', reference: 'ref_1', reinstatedAt: jan1 + 30 * DAY } },
    ]);
    expect(events.at(-1)).toEqual({
      type: 'EntitlementReinstated',
      data: {
        eventId: 'reinstate-ref_1',
        userId: 'user-42',
        entitlement: 'pro',
        reference: 'ref_1',
        reinstatedAt: jan1 + 30 * DAY,
        previousExpiresAt: at('2027-02-02T00:00:00Z'),
        expiresAt: at('2027-03-01T00:00:00Z'),
      },
    });
    expect(state.revoked.size).toBe(0);
    expect(foldEntitlement(events)).toEqual(state);
  });

  it('property: after any grants and revocations the expiry is what the grants in force alone would give', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ settledAt: fc.integer({ min: jan1, max: jan1 + 400 * DAY }), days: fc.integer({ min: 1, max: 120 }), revoked: fc.boolean() }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.integer({ min: 0, max: 11 }),
        (payments, revokeAfter) => {
          const grants = payments.map((p, i) => grant(`ref_${i}`, p.settledAt, `P${p.days}D`));
          const revocations = payments.flatMap((p, i) => (p.revoked ? [revoke(`ref_${i}`, jan1 + 500 * DAY)] : []));
          const cut = Math.min(revokeAfter, grants.length);
          const { state, events } = run([
            ...grants.slice(0, cut),
            ...revocations.filter((r) => Number(r.data.reference.slice(4)) < cut),
            ...grants.slice(cut),
            ...revocations.filter((r) => Number(r.data.reference.slice(4)) >= cut),
          ]);
          const inForce = state.granted.filter((g) => !state.revoked.has(g.reference));
          const expected = expiryOfGrants(inForce);
          if (expected !== null) expect(state.expiresAt).toBe(expected);
          else expect(state.expiresAt).toBe(jan1 + 500 * DAY);
          expect(state.revoked.size).toBe(revocations.length);
          expect(foldEntitlement(events)).toEqual(state);
        },
      ),
    );
  });
});

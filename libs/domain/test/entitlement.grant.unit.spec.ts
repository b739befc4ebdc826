import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decideGrant,
  evolveEntitlement,
  foldEntitlement,
  initialEntitlementState,
  parseAccessPeriod,
  type EntitlementEvent,
  type EntitlementState,
  type GrantEntitlement,
} from '@settle/domain';

const DAY = 86_400_000;
const jan15 = Date.parse('2027-01-15T10:00:00.000Z');

function grant(reference: string, settledAt: number, period = 'P1M'): GrantEntitlement {
  return {
    type: 'GrantEntitlement',
    data: { eventId: `grant-${reference}`, userId: 'user-42', entitlement: 'pro', reference, accessPeriod: parseAccessPeriod(period), settledAt },
  };
}

/** Given these past grants, when this command, then these events. */
function given(history: readonly GrantEntitlement[]): EntitlementState {
  return history.reduce<EntitlementState>((state, command) => decideGrant(command, state).reduce(evolveEntitlement, state), initialEntitlementState());
}

describe('decideGrant: grants are ledger facts', () => {
  it('the first grant of a user and entitlement is subscription_started, from the settlement time', () => {
    expect(decideGrant(grant('ref_1', jan15), initialEntitlementState())).toEqual<EntitlementEvent[]>([
      {
        type: 'EntitlementGranted',
        data: {
          eventId: 'grant-ref_1',
          event: 'subscription_started',
          userId: 'user-42',
          entitlement: 'pro',
          reference: 'ref_1',
          accessPeriod: parseAccessPeriod('P1M'),
          settledAt: jan15,
          startsAt: jan15,
          previousExpiresAt: null,
          expiresAt: Date.parse('2027-02-15T10:00:00.000Z'),
        },
      },
    ]);
  });

  it('a renewal paid before expiry extends from the stored expiry', () => {
    const state = given([grant('ref_1', jan15)]);
    const [event] = decideGrant(grant('ref_2', jan15 + 10 * DAY), state);
    expect(event?.data).toMatchObject({
      event: 'subscription_renewed',
      startsAt: Date.parse('2027-02-15T10:00:00.000Z'),
      previousExpiresAt: Date.parse('2027-02-15T10:00:00.000Z'),
      expiresAt: Date.parse('2027-03-15T10:00:00.000Z'),
    });
  });

  it('a renewal paid after a lapse starts again from the settlement time, still as subscription_renewed', () => {
    const state = given([grant('ref_1', jan15)]);
    const late = Date.parse('2027-06-01T08:00:00.000Z');
    const [event] = decideGrant(grant('ref_2', late, 'P1Y'), state);
    expect(event?.data).toMatchObject({ event: 'subscription_renewed', startsAt: late, expiresAt: Date.parse('2028-06-01T08:00:00.000Z') });
  });

  it('a reference already granted decides nothing', () => {
    const state = given([grant('ref_1', jan15)]);
    expect(decideGrant(grant('ref_1', jan15 + DAY), state)).toEqual([]);
  });

  it('31 January plus P1M expires on the last day of February; the next month is added to that day', () => {
    const jan31 = Date.parse('2027-01-31T09:30:00.000Z');
    const state = given([grant('ref_1', jan31)]);
    expect(state.expiresAt).toBe(Date.parse('2027-02-28T09:30:00.000Z'));
    const [renewal] = decideGrant(grant('ref_2', jan31 + DAY), state);
    expect(renewal?.data.expiresAt).toBe(Date.parse('2027-03-28T09:30:00.000Z'));
  });

  it('property: the expiry only moves forward and each grant adds its whole period to the later of expiry and settlement', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ settledAt: fc.integer({ min: jan15, max: jan15 + 800 * DAY }), days: fc.integer({ min: 1, max: 400 }) }), {
          minLength: 1,
          maxLength: 20,
        }),
        (payments) => {
          let state = initialEntitlementState();
          payments.forEach((p, i) => {
            const [event] = decideGrant(grant(`ref_${i}`, p.settledAt, `P${p.days}D`), state);
            expect(event).toBeDefined();
            const start = Math.max(state.expiresAt ?? p.settledAt, p.settledAt);
            expect(event!.data.expiresAt).toBe(start + p.days * DAY);
            expect(event!.data.event).toBe(i === 0 ? 'subscription_started' : 'subscription_renewed');
            const next = evolveEntitlement(state, event!);
            expect(next.expiresAt).toBeGreaterThan(state.expiresAt ?? -Infinity);
            state = next;
          });
          expect(state.grants).toBe(payments.length);
        },
      ),
    );
  });

  it('folding a stream gives the state its grants were decided on', () => {
    const commands = [grant('ref_1', jan15), grant('ref_2', jan15 + 3 * DAY), grant('ref_3', jan15 + 90 * DAY, 'P1Y')];
    const events: EntitlementEvent[] = [];
    let state = initialEntitlementState();
    for (const command of commands) {
      const decided = decideGrant(command, state);
      events.push(...decided);
      state = decided.reduce(evolveEntitlement, state);
    }
    expect(foldEntitlement(events)).toEqual(state);
  });
});

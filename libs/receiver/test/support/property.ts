import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { EntitlementEvent, Receiver } from '../../src/index.js';
import { delivery } from './delivery.js';

const BASE = Date.parse('2026-11-23T10:15:30.000Z');
const DAY = 86_400_000;

/**
 * One user's events and a delivery schedule: every event delivered at least once, some again
 * (Settle's retries), in any order, with the processor running after some deliveries.
 */
export interface Scenario {
  readonly events: ReadonlyArray<{ readonly kind: EntitlementEvent['event']; readonly expiresInDays: number }>;
  /** Indexes into `events`, in delivery order; `process` runs the processor after that delivery. */
  readonly deliveries: ReadonlyArray<{ readonly index: number; readonly process: boolean }>;
}

export function scenarios(maxEvents: number): fc.Arbitrary<Scenario> {
  const event = fc.record({
    kind: fc.constantFrom('subscription_started' as const, 'subscription_renewed' as const),
    expiresInDays: fc.integer({ min: 1, max: 730 }),
  });
  return fc.uniqueArray(event, { minLength: 1, maxLength: maxEvents, selector: (e) => e.expiresInDays }).chain((events) => {
    const n = events.length;
    const order = fc
      .array(fc.nat({ max: n - 1 }), { maxLength: n * 2 })
      .chain((again) => fc.shuffledSubarray([...events.keys(), ...again], { minLength: n + again.length }));
    return order.chain((indexes) =>
      fc
        .array(fc.boolean(), { minLength: indexes.length, maxLength: indexes.length })
        .map((process) => ({ events, deliveries: indexes.map((index, i) => ({ index, process: process[i]! })) })),
    );
  });
}

/**
 * Delivers a scenario to a receiver, signed with `secret`, then processes what is left. Ids are
 * fresh per call, so runs sharing a store never meet.
 *
 * @returns the events as delivered.
 */
export async function play(receiver: Pick<Receiver<unknown>, 'receive' | 'processDue'>, secret: string, scenario: Scenario): Promise<EntitlementEvent[]> {
  const userId = `user-${randomUUID()}`;
  const events = scenario.events.map(({ kind, expiresInDays }) => ({
    event_id: randomUUID(),
    event: kind,
    entitlement: 'pro-monthly',
    user_id: userId,
    expires_at: new Date(BASE + expiresInDays * DAY).toISOString(),
  }));
  for (const { index, process } of scenario.deliveries) {
    const { body, headers } = delivery(events[index]!, [secret]);
    const result = await receiver.receive(body, headers);
    if (result.status !== 200) throw new Error(`delivery answered ${result.status}`);
    if (process) await receiver.processDue();
  }
  await receiver.processDue();
  return events;
}

/** The latest expiry among some events. */
export const latestExpiry = (events: readonly EntitlementEvent[]): Date => new Date(Math.max(...events.map((event) => Date.parse(event.expires_at))));

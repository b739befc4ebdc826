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
  /** In stream order; `revision` absent for events sent before revisions existed. */
  readonly events: ReadonlyArray<{ readonly kind: EntitlementEvent['event']; readonly expiresInDays: number; readonly revision?: number }>;
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

/** A delivery schedule over `n` events: each at least once, some again, in any order, the processor run after some. */
function schedule(n: number): fc.Arbitrary<Scenario['deliveries']> {
  const order = fc
    .array(fc.nat({ max: n - 1 }), { maxLength: n * 2 })
    .chain((again) => fc.shuffledSubarray([...Array.from({ length: n }).keys(), ...again], { minLength: n + again.length }));
  return order.chain((indexes) =>
    fc
      .array(fc.boolean(), { minLength: indexes.length, maxLength: indexes.length })
      .map((process) => indexes.map((index, i) => ({ index, process: process[i]! }))),
  );
}

/**
 * One user's entitlement stream as Settle sends it since revisions exist (docs/delivery.md,
 * "Access follows the money"): first some grants from before (no `revision`, expiries growing
 * along the stream, as grants only ever extend), then events with revisions in stream order, any
 * of which may be a revocation that moves the expiry earlier (or a reinstatement, or a later
 * grant). Delivered in any order, with duplicates.
 */
export function streamScenarios(maxEvents: number): fc.Arbitrary<Scenario> {
  const legacy = fc.uniqueArray(fc.integer({ min: 1, max: 365 }), { maxLength: Math.floor(maxEvents / 2) }).map((days) => [...days].sort((a, b) => a - b));
  const revisioned = fc.array(
    fc.record({
      kind: fc.constantFrom('subscription_renewed' as const, 'subscription_revoked' as const, 'subscription_reinstated' as const),
      expiresInDays: fc.integer({ min: -30, max: 730 }),
    }),
    { minLength: 1, maxLength: Math.ceil(maxEvents / 2) },
  );
  return fc.tuple(legacy, revisioned).chain(([grants, changes]) => {
    const events: Scenario['events'] = [
      ...grants.map((expiresInDays, i) => ({ kind: i === 0 ? ('subscription_started' as const) : ('subscription_renewed' as const), expiresInDays })),
      ...changes.map((change, i) => ({ ...change, revision: grants.length + i })),
    ];
    return schedule(events.length).map((deliveries) => ({ events, deliveries }));
  });
}

/** The expiry a stream ends at: the `expires_at` of its highest revision (for a stream without revisions, its latest). */
export function finalExpiry(events: readonly EntitlementEvent[]): Date {
  const revisioned = events.filter((event) => typeof event.revision === 'number');
  if (revisioned.length === 0) return latestExpiry(events);
  const last = revisioned.reduce((a, b) => ((a.revision as number) > (b.revision as number) ? a : b));
  return new Date(last.expires_at);
}

/**
 * Delivers a scenario to a receiver, signed with `secret`, then processes what is left. Ids are
 * fresh per call, so runs sharing a store never meet.
 *
 * @returns the events as delivered.
 */
export async function play(receiver: Pick<Receiver<unknown>, 'receive' | 'processDue'>, secret: string, scenario: Scenario): Promise<EntitlementEvent[]> {
  const userId = `user-${randomUUID()}`;
  const events = scenario.events.map(
    ({ kind, expiresInDays, revision }) =>
      ({
        event_id: randomUUID(),
        event: kind,
        entitlement: 'pro-monthly',
        user_id: userId,
        expires_at: new Date(BASE + expiresInDays * DAY).toISOString(),
        ...(revision === undefined ? {} : { revision }),
        ...(kind === 'subscription_revoked' || kind === 'subscription_reinstated'
          ? { reference: `ref_${revision}`, changed_at: new Date(BASE).toISOString(), ...(kind === 'subscription_revoked' ? { reason: 'refunded' } : {}) }
          : {}),
      }) as EntitlementEvent,
  );
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

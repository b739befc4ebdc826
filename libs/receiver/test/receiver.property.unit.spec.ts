import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createReceiver, MemoryReceiverStore, type EntitlementEvent } from '../src/index.js';
import { newSecret } from './support/delivery.js';
import { finalExpiry, latestExpiry, play, scenarios, streamScenarios } from './support/property.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe("rules 1, 4 and 5 together, for any order and duplication of one user's events (in-memory store)", () => {
  it("ends at the latest expires_at, with each event_id's business logic run exactly once", async () => {
    const secret = newSecret();
    await fc.assert(
      fc.asyncProperty(scenarios(8), async (scenario) => {
        const runs = new Map<string, number>();
        const count = async (event: EntitlementEvent) => void runs.set(event.event_id, (runs.get(event.event_id) ?? 0) + 1);
        const receiver = createReceiver({
          secrets: [secret],
          store: new MemoryReceiverStore(),
          handlers: { subscription_started: count, subscription_renewed: count },
          logger: quiet,
        });
        const events = await play(receiver, secret, scenario);
        expect(await receiver.accessExpiry(events[0]!.user_id, 'pro-monthly')).toEqual(latestExpiry(events));
        expect(Object.fromEntries(runs)).toEqual(Object.fromEntries(events.map((event) => [event.event_id, 1])));
        expect((await receiver.counts()).processed).toBe(events.length);
      }),
      { numRuns: 200 },
    );
  });
});

describe('rule 4 with revocations: the highest revision wins, for any order and duplication of a stream (in-memory store)', () => {
  it("ends at the expiry of the stream's highest revision (a revocation shortens access, a stale renewal cannot undo it), each handler run once", async () => {
    const secret = newSecret();
    await fc.assert(
      fc.asyncProperty(streamScenarios(8), async (scenario) => {
        const runs = new Map<string, number>();
        const count = async (event: EntitlementEvent) => void runs.set(event.event_id, (runs.get(event.event_id) ?? 0) + 1);
        const receiver = createReceiver({
          secrets: [secret],
          store: new MemoryReceiverStore(),
          handlers: { subscription_started: count, subscription_renewed: count, subscription_revoked: count, subscription_reinstated: count },
          logger: quiet,
        });
        const events = await play(receiver, secret, scenario);
        expect(await receiver.accessExpiry(events[0]!.user_id, 'pro-monthly')).toEqual(finalExpiry(events));
        expect(Object.fromEntries(runs)).toEqual(Object.fromEntries(events.map((event) => [event.event_id, 1])));
      }),
      { numRuns: 300 },
    );
  });
});

/**
 * The delivery scheduler's wake-ups, over an in-memory repository and sender: how many claims a
 * delivery costs when the endpoint has room, and that a freed slot a claim lacked is refilled at
 * once, without waiting for the poll. The scheduler against PostgreSQL and real endpoints is in
 * delivery-faults.int.spec.ts.
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryRepository, ClaimedDelivery, AttemptRecord } from '../src/deliveries/delivery.repository.js';
import { DeliveryScheduler, type SchedulerOptions } from '../src/deliveries/delivery-scheduler.js';
import type { AttemptReport, AttemptRequest } from '../src/deliveries/delivery-sender.js';
import { DispatcherMetrics } from '../src/dispatcher.metrics.js';

/** Pending deliveries in memory, claimed as `DeliveryRepository.claimDue` claims them (per-endpoint room, then the limit). */
class MemoryDeliveries implements Pick<DeliveryRepository, 'claimDue' | 'recordResults' | 'nextDueAt' | 'postpone'> {
  readonly due: ClaimedDelivery[] = [];
  readonly recorded: AttemptRecord[] = [];
  claims = 0;

  add(endpointId: string): ClaimedDelivery {
    const delivery: ClaimedDelivery = {
      id: this.due.length + this.recorded.length + 1,
      eventId: randomUUID(),
      endpointId,
      url: 'http://127.0.0.1:1/webhook',
      body: '{}',
      event: 'subscription_started',
      userId: 'user-1',
      reference: 'ref_1',
      correlationId: randomUUID(),
      publishedAt: new Date(),
      attempt: 1,
      leaseToken: randomUUID(),
      roundFailures: 0,
      firstAttemptAt: new Date(),
      keys: { id: endpointId, secretVersion: 1, previousSecretVersion: null, previousSecretExpiresAt: null },
    };
    this.due.push(delivery);
    return delivery;
  }

  async claimDue({ free, defaultFree, limit }: Parameters<DeliveryRepository['claimDue']>[0]): Promise<ClaimedDelivery[]> {
    this.claims += 1;
    const room = new Map<string, number>();
    const taken: ClaimedDelivery[] = [];
    for (const delivery of [...this.due]) {
      const left = room.get(delivery.endpointId) ?? free.get(delivery.endpointId) ?? defaultFree;
      if (left <= 0 || taken.length >= limit) continue;
      room.set(delivery.endpointId, left - 1);
      taken.push(delivery);
      this.due.splice(this.due.indexOf(delivery), 1);
    }
    return taken;
  }

  async recordResults(results: readonly AttemptRecord[]) {
    this.recorded.push(...results);
    return { changes: [], deadLettered: [] };
  }

  async nextDueAt(): Promise<Date | null> {
    return null;
  }

  async postpone(): Promise<void> {}
}

/** Answers 200 after `delayMs`, one request at a time as they come. */
function sender(delayMs: number) {
  const sent: string[] = [];
  return {
    sent,
    async attempt(request: AttemptRequest): Promise<AttemptReport> {
      sent.push(request.eventId);
      const startedAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { result: { kind: 'answered', status: 200 }, startedAt, latencyMs: Date.now() - startedAt, excerpt: null };
    },
  };
}

const OPTIONS: SchedulerOptions = {
  maxInFlight: 64,
  maxInFlightPerEndpoint: 4,
  leaseMs: 30_000,
  // Longer than any test: every claim after the first is a wake-up, never a poll.
  pollIntervalMs: 60_000,
  flushBatch: 50,
  flushDelayMs: 1,
  retry: { waitsMs: [1_000], jitterRatio: 0, retryAfterMaxMs: 3_000 },
  disableAfterMs: 60_000,
};

let scheduler: DeliveryScheduler | undefined;
afterEach(async () => {
  await scheduler?.stop();
  scheduler = undefined;
});

function start(repository: MemoryDeliveries, send: ReturnType<typeof sender>, options: Partial<SchedulerOptions> = {}): DeliveryScheduler {
  scheduler = new DeliveryScheduler({
    repository,
    sender: send,
    secrets: { signersOf: async () => [] },
    relay: { wake: () => undefined },
    metrics: new DispatcherMetrics(),
    logger: pino({ level: 'silent' }),
    options: { ...OPTIONS, ...options },
  });
  scheduler.start();
  return scheduler;
}

async function until(what: string, check: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe('the delivery scheduler wakes for work, not for every event', () => {
  it('a delivery to an endpoint with room costs one claim: no second claim after it, none when its attempt ends', async () => {
    const repository = new MemoryDeliveries();
    const send = sender(5);
    const running = start(repository, send);
    await until('the first claim', () => repository.claims === 1);
    for (let i = 1; i <= 3; i++) {
      repository.add('endpoint-a');
      running.wake(); // as the fan-out does after recording new deliveries
      await until(`delivery ${i} recorded`, () => repository.recorded.length === i);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(repository.claims).toBe(1 + i);
    }
    expect(send.sent).toHaveLength(3);
  });

  it('an attempt that ends holding a slot a claim lacked wakes the loop: the next due delivery goes out at once, not at the poll', async () => {
    const repository = new MemoryDeliveries();
    const send = sender(30);
    const running = start(repository, send, { maxInFlightPerEndpoint: 1 });
    await until('the first claim', () => repository.claims === 1);
    const first = repository.add('endpoint-a');
    const second = repository.add('endpoint-a');
    running.wake();
    await until('both delivered', () => repository.recorded.length === 2);
    expect(repository.recorded.map((r) => r.delivery.eventId)).toEqual([first.eventId, second.eventId]);
    // The first look; the wake-up (the first delivery); its freed slot (the second); the second's
    // freed slot, which finds nothing. Not one claim per 5 ms while the slot was taken.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(repository.claims).toBe(4);
  });

  it("an attempt that ends at the instance's limit wakes the loop: the deliveries beyond the limit go out as slots free, not at the poll", async () => {
    const repository = new MemoryDeliveries();
    const send = sender(1);
    const running = start(repository, send, { maxInFlight: 2, maxInFlightPerEndpoint: 2 });
    await until('the first claim', () => repository.claims === 1);
    for (let i = 0; i < 5; i++) repository.add(`endpoint-${i}`);
    running.wake();
    // Within a second, where the poll (60 s) would have taken a minute.
    await until('all five delivered', () => repository.recorded.length === 5, 1_000);
    expect(send.sent).toHaveLength(5);
  });

  it('an idle scheduler polls less and less often, up to idlePollMaxMs; a claim that takes a delivery brings the poll back', async () => {
    const repository = new MemoryDeliveries();
    const send = sender(1);
    // A poll of 10 ms backs off 10, 20, 40, 80 ms, then every 80 ms.
    const running = start(repository, send, { pollIntervalMs: 10, idlePollMaxMs: 80 });
    await new Promise((resolve) => setTimeout(resolve, 600));
    const idleClaims = repository.claims;
    // Without the back-off: about 60 claims in 600 ms. With it: 1 + 4 + about 6.
    expect(idleClaims).toBeGreaterThanOrEqual(6);
    expect(idleClaims).toBeLessThanOrEqual(14);
    repository.add('endpoint-a');
    running.wake();
    await until('the delivery recorded', () => repository.recorded.length === 1);
    const afterWork = repository.claims;
    // Back to polls of 10 ms, then backing off again: claims after 10, 30 and 70 ms (at 80 ms
    // and 160 ms without the way back).
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(repository.claims - afterWork).toBeGreaterThanOrEqual(3);
  });

  it('without idlePollMaxMs the poll keeps its interval', async () => {
    const repository = new MemoryDeliveries();
    start(repository, sender(1), { pollIntervalMs: 10 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(repository.claims).toBeGreaterThanOrEqual(15);
  });
});

import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import {
  createReceiver,
  MemoryReceiverStore,
  ReceiverConfigError,
  type EntitlementEvent,
  type ReceiverLogger,
  type ReceiverOptions,
  type ReceiverStore,
} from '../src/index.js';
import { delivery, entitlementEvent, newSecret, waitFor } from './support/delivery.js';

const secret = newSecret();
const DAY = 86_400_000;

/** A logger that keeps every line, to assert what was (and was not) logged. */
function recordingLogger(): ReceiverLogger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (fields: object, message: string) => void lines.push(`${message} ${JSON.stringify(fields)}`);
  return { lines, info: keep, warn: keep, error: keep };
}

/** A receiver over an in-memory store, with a clock the test moves and handlers that count runs. */
function setup(options: Partial<ReceiverOptions<undefined>> = {}) {
  const store = new MemoryReceiverStore();
  let now = Date.parse('2026-11-23T10:15:30.000Z');
  const runs: EntitlementEvent[] = [];
  const logger = recordingLogger();
  const handler = async (event: EntitlementEvent) => void runs.push(event);
  const receiver = createReceiver({
    secrets: [secret],
    store,
    handlers: { subscription_started: handler, subscription_renewed: handler },
    clock: () => now,
    logger,
    ...options,
  });
  const send = (payload: object | string, secrets = [secret], opts: Parameters<typeof delivery>[2] = {}) => {
    const { body, headers } = delivery(payload, secrets, opts);
    return receiver.receive(Buffer.from(body), headers);
  };
  return { store, receiver, runs, logger, send, advance: (ms: number) => void (now += ms) };
}

const nothingRecorded = { pending: 0, processing: 0, processed: 0, failed: 0, ignored: 0 };

describe('rule 1: the signature is verified on the raw bytes, before the payload is read', () => {
  it('accepts what the standardwebhooks package signs, and answers 200 { received: true }', async () => {
    const { send, store } = setup();
    const event = entitlementEvent();
    expect(await send(event)).toEqual({ status: 200, headers: { 'content-type': 'application/json' }, body: { received: true } });
    expect(await store.find(event.event_id)).toMatchObject({ state: 'pending', payload: event });
  });

  it('accepts several signatures while Settle rotates, and several secrets while the customer rotates', async () => {
    const [previous, current] = [newSecret(), newSecret()];
    const settleRotating = setup({ secrets: [current] });
    expect((await settleRotating.send(entitlementEvent(), [previous, current])).status).toBe(200);
    expect((await settleRotating.send(entitlementEvent(), [current, previous])).status).toBe(200);
    const customerRotating = setup({ secrets: [current, previous] });
    expect((await customerRotating.send(entitlementEvent(), [previous])).status).toBe(200);
    expect((await customerRotating.send(entitlementEvent(), [current])).status).toBe(200);
  });

  it.each([
    ['a tampered body', (body: string) => ({ body: body.replace('2026-12-23', '2099-12-23') }), /no v1 signature/],
    ['a wrong secret', () => ({ secrets: [newSecret()] }), /no v1 signature/],
    ['a timestamp older than 5 minutes', () => ({ timestamp: new Date(Date.now() - 5 * 60_000 - 10_000) }), /more than 5 minutes old/],
    ['a timestamp more than 5 minutes ahead', () => ({ timestamp: new Date(Date.now() + 5 * 60_000 + 10_000) }), /in the future/],
  ])('refuses %s with 401 RECEIVER.SIGNATURE_INVALID and records nothing', async (_, change, detail) => {
    const { receiver, store, logger } = setup();
    const event = entitlementEvent();
    const changes = change(JSON.stringify(event)) as { body?: string; secrets?: string[]; timestamp?: Date };
    const signed = delivery(event, changes.secrets ?? [secret], { ...(changes.timestamp ? { timestamp: changes.timestamp } : {}) });
    const result = await receiver.receive(changes.body ?? signed.body, signed.headers);
    expect(result).toEqual({
      status: 401,
      headers: { 'content-type': 'application/problem+json' },
      body: {
        type: 'urn:settle:problem:receiver.signature_invalid',
        title: 'Webhook signature invalid',
        status: 401,
        code: 'RECEIVER.SIGNATURE_INVALID',
        detail: expect.stringMatching(detail),
      },
    });
    expect(await store.counts()).toEqual(nothingRecorded);
    expect(await store.find(event.event_id)).toBeNull();
    const secretKey = secret.slice('whsec_'.length);
    expect(JSON.stringify(result)).not.toContain(secretKey);
    expect(logger.lines.join('\n')).not.toContain(secretKey);
  });

  it('accepts a timestamp 4 minutes old (inside the tolerance)', async () => {
    const { send } = setup();
    expect((await send(entitlementEvent(), [secret], { timestamp: new Date(Date.now() - 4 * 60_000) })).status).toBe(200);
  });

  it('refuses missing and repeated signature headers', async () => {
    const { receiver, store } = setup();
    const { body, headers } = delivery(entitlementEvent(), [secret]);
    const { 'webhook-signature': signature, ...unsigned } = headers;
    expect((await receiver.receive(body, unsigned)).body).toMatchObject({ code: 'RECEIVER.SIGNATURE_INVALID', detail: expect.stringMatching(/missing/) });
    expect((await receiver.receive(body, { ...headers, 'webhook-signature': [signature!, signature!] })).body).toMatchObject({
      code: 'RECEIVER.SIGNATURE_INVALID',
      detail: 'the webhook-signature header is repeated',
    });
    expect(await store.counts()).toEqual(nothingRecorded);
  });

  it('reads Fetch API Headers and Uint8Array bodies too', async () => {
    const { receiver } = setup();
    const { body, headers } = delivery(entitlementEvent(), [secret]);
    expect((await receiver.receive(new TextEncoder().encode(body), new Headers(headers))).status).toBe(200);
  });
});

describe('rule 1, then: the authentic payload is parsed and validated (400, nothing recorded)', () => {
  it.each([
    ['not JSON', '{"event_id":', 'the body is not JSON', undefined],
    ['not an object', '[1,2]', 'the body is not an event of the contract', [{ path: '', message: 'must be a JSON object' }]],
    [
      'missing fields',
      JSON.stringify({ event_id: 'evt-1', event: 'subscription_started', user_id: 'user-42' }),
      'the body is not an event of the contract',
      [
        { path: 'entitlement', message: 'must be a string of 1 to 255 characters' },
        { path: 'expires_at', message: 'must be an ISO 8601 timestamp with an offset, e.g. 2026-12-23T10:15:30.000Z' },
      ],
    ],
    [
      'an expiry without an offset',
      JSON.stringify(entitlementEvent({ event_id: 'evt-1', expires_at: '2026-12-23 10:15' })),
      'the body is not an event of the contract',
      [{ path: 'expires_at', message: 'must be an ISO 8601 timestamp with an offset, e.g. 2026-12-23T10:15:30.000Z' }],
    ],
  ])('refuses %s with 400 RECEIVER.PAYLOAD_INVALID', async (_, body, detail, errors) => {
    const { send, store } = setup();
    const result = await send(body, [secret], { id: 'evt-1' });
    expect(result.status).toBe(400);
    expect(result.body).toEqual({
      type: 'urn:settle:problem:receiver.payload_invalid',
      title: 'Webhook payload invalid',
      status: 400,
      code: 'RECEIVER.PAYLOAD_INVALID',
      detail,
      ...(errors ? { errors } : {}),
    });
    expect(await store.counts()).toEqual(nothingRecorded);
  });

  it('refuses an event_id that differs from the signed webhook-id header', async () => {
    const { send, store } = setup();
    const result = await send(entitlementEvent(), [secret], { id: randomUUID() });
    expect(result.body).toMatchObject({ code: 'RECEIVER.PAYLOAD_INVALID', detail: 'event_id differs from the webhook-id header' });
    expect(await store.counts()).toEqual(nothingRecorded);
  });
});

describe('rules 2 and 3: recorded before any business logic, acknowledged at once, duplicates skipped', () => {
  it('records the event with its access and runs no business logic inside the request', async () => {
    const { send, store, runs, receiver } = setup();
    const event = entitlementEvent();
    await send(event);
    expect(runs).toEqual([]);
    // Rule 4 at record time: the user has the access as soon as the 200 is answered.
    expect(await receiver.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date(event.expires_at));
    expect(await store.counts()).toEqual({ ...nothingRecorded, pending: 1 });
  });

  it('answers a seen event_id 200 { received: true, duplicate: true } and runs its logic once', async () => {
    const { send, receiver, runs } = setup();
    const event = entitlementEvent();
    await send(event);
    expect((await send(event)).body).toEqual({ received: true, duplicate: true });
    await receiver.processDue();
    expect((await send(event)).body).toEqual({ received: true, duplicate: true });
    await receiver.processDue();
    expect(runs).toEqual([event]);
  });

  it('records an unknown event kind as ignored, acknowledges it, and applies no expiry', async () => {
    const { send, receiver, runs, store } = setup();
    const future = { event_id: randomUUID(), event: 'subscription_paused', user_id: 'user-42', entitlement: 'pro-monthly', expires_at: '2099-01-01T00:00:00Z' };
    expect(await send(future)).toMatchObject({ status: 200, body: { received: true, ignored: true } });
    expect(await receiver.processDue()).toBe(0);
    expect(await store.find(future.event_id)).toMatchObject({ state: 'ignored', kind: 'subscription_paused', payload: future });
    expect(await receiver.accessExpiry('user-42', 'pro-monthly')).toBeNull();
    expect(runs).toEqual([]);
  });

  it('answers 503 RECEIVER.STORE_UNAVAILABLE, never 200, when the store fails or does not answer in time', async () => {
    const failing = { record: vi.fn().mockRejectedValue(new Error('connect ECONNREFUSED 127.0.0.1:5432')) } as unknown as ReceiverStore;
    const hanging = { record: vi.fn(() => new Promise(() => undefined)) } as unknown as ReceiverStore;
    for (const store of [failing, hanging]) {
      const { send } = setup({ store, recordTimeoutMs: 50 });
      expect(await send(entitlementEvent())).toEqual({
        status: 503,
        headers: { 'content-type': 'application/problem+json' },
        body: {
          type: 'urn:settle:problem:receiver.store_unavailable',
          title: 'Event store unavailable',
          status: 503,
          code: 'RECEIVER.STORE_UNAVAILABLE',
          detail: 'the event could not be recorded; deliver it again later',
        },
      });
      expect(store.record).toHaveBeenCalledTimes(1);
    }
  });
});

describe('rule 4: the access expiry only moves later, whatever the delivery order', () => {
  it('given renewed arrives before started, when both are processed, then access ends at the later expiry', async () => {
    const { send, receiver, runs } = setup();
    const started = entitlementEvent({ event: 'subscription_started', expires_at: '2026-12-23T10:15:30.000Z' });
    const renewed = entitlementEvent({ event: 'subscription_renewed', expires_at: '2027-01-23T10:15:30.000Z' });
    await send(renewed);
    await receiver.processDue();
    await send(started);
    await receiver.processDue();
    expect(await receiver.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date('2027-01-23T10:15:30.000Z'));
    expect(runs.map((e) => e.event)).toEqual(['subscription_renewed', 'subscription_started']);
  });

  it('applies the expiry before the handler runs, and keeps users and entitlements apart', async () => {
    const seen: Array<Date | null> = [];
    const { send, receiver } = setup({
      handlers: { subscription_started: async (event) => void seen.push(await receiver.accessExpiry(event.user_id, event.entitlement)) },
    });
    await send(entitlementEvent({ user_id: 'user-1', entitlement: 'pro-monthly', expires_at: '2026-12-01T00:00:00+01:00' }));
    await send(entitlementEvent({ user_id: 'user-2', entitlement: 'pro-yearly', expires_at: '2027-12-01T00:00:00Z' }));
    await receiver.processDue();
    expect(seen).toHaveLength(2);
    expect(await receiver.accessExpiry('user-1', 'pro-monthly')).toEqual(new Date('2026-11-30T23:00:00.000Z'));
    expect(await receiver.accessExpiry('user-2', 'pro-yearly')).toEqual(new Date('2027-12-01T00:00:00.000Z'));
    expect(await receiver.accessExpiry('user-1', 'pro-yearly')).toBeNull();
  });
});

describe('rule 5: failing business logic is retried with backoff, then left failed, never dropped', () => {
  it('retries after initialDelayMs, doubling, and succeeds once the handler does', async () => {
    let calls = 0;
    const { send, receiver, store, advance } = setup({
      retry: { maxAttempts: 4, initialDelayMs: 1000, maxDelayMs: 1500 },
      handlers: {
        subscription_started: async (_, { attempt }) => {
          calls += 1;
          if (attempt < 3) throw new Error(`downstream unavailable (run ${attempt})`);
        },
      },
    });
    const event = entitlementEvent();
    await send(event);
    await receiver.processDue();
    expect(await store.find(event.event_id)).toMatchObject({ state: 'pending', attempts: 1, lastError: 'Error: downstream unavailable (run 1)' });
    advance(999);
    expect(await receiver.processDue()).toBe(0);
    advance(1);
    await receiver.processDue();
    const second = await store.find(event.event_id);
    expect(second).toMatchObject({ state: 'pending', attempts: 2, lastError: 'Error: downstream unavailable (run 2)' });
    advance(1499);
    expect(await receiver.processDue()).toBe(0); // 2000 capped to maxDelayMs
    advance(1);
    await receiver.processDue();
    expect(await store.find(event.event_id)).toMatchObject({ state: 'processed', attempts: 3, lastError: null });
    expect(calls).toBe(3);
  });

  it('completes a claimed batch together: a failing handler fails its event alone; a batch the store could not complete is released whole, for a retry', async () => {
    const memory = new MemoryReceiverStore();
    let storeDown = true;
    const store = new Proxy(memory, {
      get(target, property) {
        if (property === 'completeBatch' && storeDown) return () => Promise.reject(new Error('Connection terminated unexpectedly'));
        const value: unknown = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const broken = entitlementEvent();
    const runs: string[] = [];
    const { send, receiver, advance } = setup({
      store,
      retry: { initialDelayMs: 1000 },
      handlers: {
        subscription_started: async (event) => {
          runs.push(event.event_id);
          if (event.event_id === broken.event_id) throw new Error('welcome email template missing');
        },
      },
    });
    const events = [entitlementEvent(), broken, entitlementEvent()];
    for (const event of events) await send(event);

    expect(await receiver.processDue()).toBe(3);
    for (const event of events) {
      expect(await receiver.find(event.event_id)).toMatchObject({ state: 'pending', attempts: 1, lastError: 'Error: Connection terminated unexpectedly' });
    }
    expect(runs).toEqual([]);

    storeDown = false;
    advance(1000);
    expect(await receiver.processDue()).toBe(3);
    expect(runs).toEqual(events.map((event) => event.event_id));
    expect(await receiver.find(events[0]!.event_id)).toMatchObject({ state: 'processed', attempts: 2 });
    expect(await receiver.find(broken.event_id)).toMatchObject({ state: 'pending', attempts: 2, lastError: 'Error: welcome email template missing' });
    expect(await receiver.find(events[2]!.event_id)).toMatchObject({ state: 'processed', attempts: 2 });
  });

  it('tries a failed run\u2019s release again when the store refuses it, so the event is due again without waiting for its lease', async () => {
    const memory = new MemoryReceiverStore();
    let refusals = 0;
    const store = new Proxy(memory, {
      get(target, property) {
        if (property === 'completeBatch') return () => Promise.reject(new Error('Connection terminated unexpectedly'));
        if (property === 'release' && refusals > 0) {
          refusals -= 1;
          return () => Promise.reject(new Error('Client has encountered a connection error and is not queryable'));
        }
        const value: unknown = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const { send, receiver, logger } = setup({ store, retry: { initialDelayMs: 1000 } });
    const [once, always] = [entitlementEvent(), entitlementEvent()];

    await send(once);
    refusals = 2;
    await receiver.processDue();
    expect(await receiver.find(once.event_id)).toMatchObject({ state: 'pending', attempts: 1, lastError: 'Error: Connection terminated unexpectedly' });

    await send(always);
    refusals = 3;
    await receiver.processDue();
    // Three refusals: the event is left to its lease, and the log says so.
    expect(await receiver.find(always.event_id)).toMatchObject({ state: 'processing', attempts: 1 });
    expect(logger.lines.filter((line) => line.startsWith('event run failed and could not be released'))).toHaveLength(1);
  });

  it('leaves the event failed with its last error after maxAttempts, lists it, and retry() runs it again', async () => {
    let broken = true;
    const runs: string[] = [];
    const { send, receiver, advance } = setup({
      retry: { maxAttempts: 2, initialDelayMs: 10 },
      handlers: {
        subscription_started: async (event) => {
          if (broken) throw new TypeError('cannot read properties of undefined');
          runs.push(event.event_id);
        },
      },
    });
    const event = entitlementEvent();
    await send(event);
    await receiver.processDue();
    advance(10);
    await receiver.processDue();
    advance(DAY);
    expect(await receiver.processDue()).toBe(0);
    const failed = await receiver.listFailed();
    expect(failed).toEqual([
      expect.objectContaining({ eventId: event.event_id, state: 'failed', attempts: 2, lastError: 'TypeError: cannot read properties of undefined' }),
    ]);
    // The expiry was applied (idempotent); the handler's work is what failed.
    expect(await receiver.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date(event.expires_at));

    broken = false;
    expect(await receiver.retry(event.event_id)).toBe('retried');
    expect(await receiver.retry(event.event_id)).toBe('not_failed');
    expect(await receiver.retry('no-such-event')).toBe('not_found');
    await receiver.processDue();
    expect(runs).toEqual([event.event_id]);
    expect(await receiver.listFailed()).toEqual([]);
    expect(await receiver.find(event.event_id)).toMatchObject({ state: 'processed', attempts: 1 });
  });

  it('picks up an event left by a crashed processor after its lease, and gives up after maxAttempts crashes', async () => {
    const { send, receiver, store, runs, advance } = setup({ processor: { leaseMs: 5000 }, retry: { maxAttempts: 2 } });
    const survivor = entitlementEvent();
    await send(survivor);
    await store.claim({ now: Date.parse('2026-11-23T10:15:30.000Z'), leaseMs: 5000, limit: 10 }); // a process claims it, then dies
    expect(await receiver.processDue()).toBe(0);
    advance(5000);
    await receiver.processDue();
    expect(runs.map((e) => e.event_id)).toEqual([survivor.event_id]);
    expect(await store.find(survivor.event_id)).toMatchObject({ state: 'processed', attempts: 2 });

    const poison = entitlementEvent();
    await send(poison);
    for (let crash = 0; crash < 2; crash++) {
      await store.claim({ now: Date.parse('2026-11-23T10:15:35.000Z') + crash * 5000, leaseMs: 5000, limit: 10 });
      advance(5000);
    }
    await receiver.processDue();
    expect(await store.find(poison.event_id)).toMatchObject({ state: 'failed', attempts: 3, lastError: expect.stringMatching(/gave up after 2 runs/) });
    expect(runs).toHaveLength(1);
  });
});

describe('the processor loop', () => {
  it('processes a recorded event at once, retries with real delays, and stops cleanly', async () => {
    let failures = 1;
    const runs: string[] = [];
    const receiver = createReceiver({
      secrets: [secret],
      store: new MemoryReceiverStore(),
      processor: { pollIntervalMs: 5_000 },
      retry: { initialDelayMs: 20 },
      logger: recordingLogger(),
      handlers: {
        subscription_started: async (event) => {
          if (failures-- > 0) throw new Error('first run fails');
          runs.push(event.event_id);
        },
      },
    });
    receiver.start();
    receiver.start(); // idempotent
    try {
      const event = entitlementEvent();
      const { body, headers } = delivery(event, [secret]);
      const started = Date.now();
      await receiver.receive(body, headers);
      await waitFor(async () => ((await receiver.find(event.event_id))?.state === 'processed' ? true : undefined), 'the event to be processed');
      // Woken by the delivery and by its own retry timer, not by the 5 s poll.
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(runs).toEqual([event.event_id]);
    } finally {
      await receiver.stop();
    }
  });
});

describe('an idle processor backs its poll off', () => {
  /** A memory store that counts the processor's looks (claims). */
  function countingStore() {
    const memory = new MemoryReceiverStore();
    const looks = { count: 0 };
    const store = new Proxy(memory, {
      get(target, property) {
        const value = Reflect.get(target, property, target) as unknown;
        if (property === 'claim' && typeof value === 'function') {
          return (...args: unknown[]) => {
            looks.count += 1;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as ReceiverStore<undefined>;
    return { store, looks };
  }

  it('looks less and less often up to idlePollMaxMs, and a new event is still processed at once', async () => {
    const { store, looks } = countingStore();
    const runs: string[] = [];
    // A poll of 10 ms backs off 20, 40, 80, 160, 320 ms, then every 400 ms: about 9 looks in
    // 1.5 s, not 150.
    const receiver = createReceiver({
      secrets: [secret],
      store,
      processor: { pollIntervalMs: 10, idlePollMaxMs: 400, lingerMs: 0 },
      logger: recordingLogger(),
      handlers: { subscription_started: async (event) => void runs.push(event.event_id) },
    });
    receiver.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(looks.count).toBeGreaterThanOrEqual(5);
      expect(looks.count).toBeLessThanOrEqual(14);
      const event = entitlementEvent();
      const { body, headers } = delivery(event, [secret]);
      const received = Date.now();
      await receiver.receive(body, headers);
      await waitFor(async () => ((await receiver.find(event.event_id))?.state === 'processed' ? true : undefined), 'the event to be processed');
      expect(Date.now() - received).toBeLessThan(200); // woken, not found by the next look (up to 400 ms away)
      expect(runs).toEqual([event.event_id]);
    } finally {
      await receiver.stop();
    }
  });

  it('idlePollMaxMs below pollIntervalMs is refused', () => {
    expect(() => createReceiver({ secrets: [secret], store: new MemoryReceiverStore(), processor: { pollIntervalMs: 1_000, idlePollMaxMs: 500 } })).toThrow(
      ReceiverConfigError,
    );
  });
});

describe('the processor lingers once woken', () => {
  it('completes the events recorded within lingerMs of a wake-up in one batch', async () => {
    const memory = new MemoryReceiverStore();
    const batches: number[] = [];
    const store = new Proxy(memory, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property);
        if (property === 'completeBatch') {
          return (...args: Parameters<MemoryReceiverStore['completeBatch']>) => {
            batches.push(args[0].length);
            return memory.completeBatch(...args);
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const receiver = createReceiver({ secrets: [secret], store, processor: { lingerMs: 200 }, logger: recordingLogger() });
    receiver.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 50)); // its first look, at start, found nothing: asleep
      const events = [entitlementEvent(), entitlementEvent(), entitlementEvent()];
      for (const event of events) {
        const { body, headers } = delivery(event, [secret]);
        expect((await receiver.receive(body, headers)).status).toBe(200);
      }
      await waitFor(async () => ((await receiver.counts()).processed === 3 ? true : undefined), 'the three events to be processed');
      expect(batches).toEqual([3]);
    } finally {
      await receiver.stop();
    }
  });
});

describe('observing answers (for a metrics histogram)', () => {
  it('reports each answer with its status, outcome and duration', async () => {
    const seen: Array<{ status: number; outcome: string; durationMs: number }> = [];
    const { send } = setup({ observe: (answer) => void seen.push(answer) });
    const event = entitlementEvent();
    await send(event);
    await send(event);
    await send(entitlementEvent(), [newSecret()]);
    expect(seen.map(({ status, outcome }) => [status, outcome])).toEqual([
      [200, 'recorded'],
      [200, 'duplicate'],
      [401, 'RECEIVER.SIGNATURE_INVALID'],
    ]);
    expect(seen.every((a) => a.durationMs >= 0 && a.durationMs < 1_000)).toBe(true);
  });
});

describe('configuration', () => {
  it.each([
    [[], 'secrets: at least one whsec_ secret is required'],
    [['not-a-whsec-secret'], 'secrets[0] is not a whsec_ secret (whsec_ + base64 of at least 24 bytes)'],
    [[newSecret(), `whsec_${Buffer.from('short').toString('base64')}`], 'secrets[1] is not a whsec_ secret (whsec_ + base64 of at least 24 bytes)'],
  ])('refuses secrets %j without printing them', (secrets, message) => {
    expect(() => createReceiver({ secrets, store: new MemoryReceiverStore() })).toThrow(new ReceiverConfigError(message));
  });

  it('refuses options out of range', () => {
    expect(() => createReceiver({ secrets: [secret], store: new MemoryReceiverStore(), retry: { maxAttempts: 0 } })).toThrow(
      'retry.maxAttempts must be an integer of at least 1',
    );
    // A batch is one PostgreSQL transaction with a savepoint per event: PostgreSQL keeps 64 in shared memory.
    expect(() => createReceiver({ secrets: [secret], store: new MemoryReceiverStore(), processor: { batchSize: 65 } })).toThrow(
      'processor.batchSize must be at most 64',
    );
  });
});

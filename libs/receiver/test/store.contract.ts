import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JsonObject, LeasedEvent, ReceiverStore } from '../src/index.js';

const T0 = Date.parse('2026-11-23T10:15:30.000Z');
const LEASE = 30_000;
const DAY = 86_400_000;

const payload = (eventId: string): JsonObject => ({ event_id: eventId, event: 'subscription_started', nested: { a: [1, 'b'] } });

const grant = (expiresAt: number, userId = 'user-42', revision: number | null = null) => ({ userId, entitlement: 'pro-monthly', expiresAt, revision });
type Grant = ReturnType<typeof grant>;

async function recordPending(store: ReceiverStore<unknown>, now = T0, eventId = randomUUID(), access: Grant | null = null): Promise<string> {
  expect(await store.record({ eventId, kind: 'subscription_started', payload: payload(eventId), state: 'pending', grant: access, now })).toBe('recorded');
  return eventId;
}

async function claimOne(store: ReceiverStore<unknown>, now = T0): Promise<LeasedEvent> {
  const [lease, ...rest] = await store.claim({ now, leaseMs: LEASE, limit: 1 });
  expect(rest).toEqual([]);
  if (!lease) throw new Error('nothing claimed');
  return lease;
}

const noWork = async () => undefined;

/**
 * Completes one claimed event through {@link ReceiverStore.completeBatch}: `true` when processed,
 * `false` when the claim was lost; rejects with what the work threw.
 */
export async function completeOne<Tx>(
  store: ReceiverStore<Tx>,
  lease: LeasedEvent,
  request: { now: number },
  work: (tx: Tx) => Promise<void>,
): Promise<boolean> {
  const [completion, ...rest] = await store.completeBatch([lease], request, (_, tx) => work(tx));
  expect(rest).toEqual([]);
  if (completion?.outcome === 'failed') throw completion.error;
  return completion?.outcome === 'processed';
}

/**
 * The contract of the {@link ReceiverStore} port. Every store (in-memory, PostgreSQL, Redis)
 * must pass it. `makeStore` returns a fresh, empty store each time.
 */
export function storeContract(name: string, makeStore: () => Promise<ReceiverStore<unknown>>): void {
  describe(`receiver store contract: ${name}`, () => {
    it('records an event once (rule 2: unique insert on event_id) and keeps its payload', async () => {
      const store = await makeStore();
      const eventId = await recordPending(store);
      expect(await store.record({ eventId, kind: 'subscription_started', payload: { other: true }, state: 'pending', grant: null, now: T0 + 5 })).toBe(
        'duplicate',
      );
      expect(await store.find(eventId)).toEqual({
        eventId,
        kind: 'subscription_started',
        payload: payload(eventId),
        state: 'pending',
        attempts: 0,
        lastError: null,
        receivedAt: new Date(T0),
        nextAttemptAt: new Date(T0),
      });
      expect(await store.find(randomUUID())).toBeNull();
    });

    it('records concurrent deliveries of one event_id once', async () => {
      const store = await makeStore();
      const eventId = randomUUID();
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store.record({ eventId, kind: 'subscription_started', payload: payload(eventId), state: 'pending', grant: grant(T0 + (i + 1) * DAY), now: T0 }),
        ),
      );
      expect(outcomes.filter((o) => o === 'recorded')).toHaveLength(1);
      expect((await store.counts()).pending).toBe(1);
      // The access is the recorded delivery's, and only its: a duplicate applies nothing.
      const recorded = outcomes.indexOf('recorded');
      expect(await store.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date(T0 + (recorded + 1) * DAY));
    });

    it('never claims an ignored event (an unknown kind)', async () => {
      const store = await makeStore();
      const eventId = randomUUID();
      await store.record({ eventId, kind: 'subscription_paused', payload: { event_id: eventId }, state: 'ignored', grant: null, now: T0 });
      expect(await store.claim({ now: T0 + DAY, leaseMs: LEASE, limit: 10 })).toEqual([]);
      expect(await store.find(eventId)).toMatchObject({ state: 'ignored', kind: 'subscription_paused' });
    });

    it('claims a due event once, with a lease, an attempt and a token; claimable again after the lease', async () => {
      const store = await makeStore();
      const eventId = await recordPending(store);
      const first = await claimOne(store);
      expect(first).toEqual({ eventId, kind: 'subscription_started', payload: payload(eventId), attempts: 1, token: expect.any(String) });
      expect(await store.find(eventId)).toMatchObject({ state: 'processing', attempts: 1, leaseUntil: new Date(T0 + LEASE) });
      expect(await store.claim({ now: T0 + LEASE - 1, leaseMs: LEASE, limit: 10 })).toEqual([]);

      const second = await claimOne(store, T0 + LEASE);
      expect(second).toMatchObject({ eventId, attempts: 2 });
      expect(second.token).not.toBe(first.token);
      // The first claim lost its lease: completing or releasing with it does nothing.
      let ran = false;
      expect(
        await completeOne(store, first, { now: T0 + LEASE }, async () => {
          ran = true;
        }),
      ).toBe(false);
      expect(ran).toBe(false);
      expect(await store.release(first, { now: T0 + LEASE, error: 'late', retryAt: null })).toBe(false);
      expect(await completeOne(store, second, { now: T0 + LEASE + 1 }, noWork)).toBe(true);
      expect(await store.find(eventId)).toMatchObject({ state: 'processed', attempts: 2, processedAt: new Date(T0 + LEASE + 1) });
    });

    it('claims earliest due first, up to the limit, and nothing before it is due', async () => {
      const store = await makeStore();
      const late = await recordPending(store, T0 + 2000);
      const early = await recordPending(store, T0 + 1000);
      expect(await store.claim({ now: T0, leaseMs: LEASE, limit: 10 })).toEqual([]);
      await recordPending(store, T0 + 3000);
      const claimed = await store.claim({ now: T0 + 2500, leaseMs: LEASE, limit: 10 });
      expect(claimed.map((lease) => lease.eventId)).toEqual([early, late]);
    });

    it('gives concurrent claims disjoint events', async () => {
      const store = await makeStore();
      const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => recordPending(store, T0 + i)));
      const claims = await Promise.all(Array.from({ length: 6 }, () => store.claim({ now: T0 + DAY, leaseMs: LEASE, limit: 5 })));
      const claimed = claims.flat().map((lease) => lease.eventId);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claimed.sort()).toEqual([...ids].sort());
    });

    it('applies the access expiry with the record, only when later than the stored one (rule 4), per user and entitlement', async () => {
      const store = await makeStore();
      const expiries = [T0 + 30 * DAY, T0 + 10 * DAY, T0 + 60 * DAY, T0 + 45 * DAY];
      const seen: Array<Date | null> = [];
      for (const expiresAt of expiries) {
        await recordPending(store, T0, randomUUID(), grant(expiresAt));
        // Visible at once: nothing was claimed, run or completed.
        seen.push(await store.accessExpiry('user-42', 'pro-monthly'));
      }
      expect(seen).toEqual([T0 + 30 * DAY, T0 + 30 * DAY, T0 + 60 * DAY, T0 + 60 * DAY].map((t) => new Date(t)));
      expect(await store.accessExpiry('user-42', 'pro-yearly')).toBeNull();
      expect(await store.accessExpiry('user-7', 'pro-monthly')).toBeNull();
      expect((await store.counts()).pending).toBe(4);
    });

    it('keeps the latest expiry when records for one user race', async () => {
      const store = await makeStore();
      const expiries = Array.from({ length: 12 }, (_, i) => T0 + ((i * 7) % 12) * DAY);
      await Promise.all(expiries.map((expiresAt, i) => recordPending(store, T0 + i, randomUUID(), grant(expiresAt))));
      expect(await store.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date(Math.max(...expiries)));
    });

    it('with revisions, the highest revision wins (a revocation shortens access, a lower revision changes nothing), whatever the order', async () => {
      const store = await makeStore();
      // Stream order: a grant to day 60 (revision 0), a renewal to day 90 (1), a revocation back to day 60 (2).
      const stream = [grant(T0 + 60 * DAY, 'user-42', 0), grant(T0 + 90 * DAY, 'user-42', 1), grant(T0 + 60 * DAY, 'user-42', 2)];
      const seen: Array<Date | null> = [];
      for (const access of [stream[2]!, stream[0]!, stream[1]!]) {
        await recordPending(store, T0, randomUUID(), access);
        seen.push(await store.accessExpiry('user-42', 'pro-monthly'));
      }
      // The revocation arrived first: the renewal it takes back (a lower revision, a later expiry) does not undo it.
      expect(seen).toEqual([T0 + 60 * DAY, T0 + 60 * DAY, T0 + 60 * DAY].map((t) => new Date(t)));
      await recordPending(store, T0, randomUUID(), grant(T0 + 5 * DAY, 'user-42', 3));
      expect(await store.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date(T0 + 5 * DAY));
    });

    it('access stored without a revision (a kit before 0.3, or events sent before revisions existed) gives way to any revision, and only a later expiry without one', async () => {
      const store = await makeStore();
      await recordPending(store, T0, randomUUID(), grant(T0 + 90 * DAY));
      await recordPending(store, T0, randomUUID(), grant(T0 + 30 * DAY));
      expect(await store.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date(T0 + 90 * DAY));
      // A revocation (revision 4) shortens the legacy access.
      await recordPending(store, T0, randomUUID(), grant(T0 + 10 * DAY, 'user-42', 4));
      expect(await store.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date(T0 + 10 * DAY));
      // A late legacy grant (older than every revisioned event) cannot undo it, even with a later expiry.
      await recordPending(store, T0, randomUUID(), grant(T0 + 120 * DAY));
      expect(await store.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date(T0 + 10 * DAY));
    });

    it('keeps the highest revision when records for one user race', async () => {
      const store = await makeStore();
      const revisions = Array.from({ length: 12 }, (_, i) => (i * 5) % 12);
      // Expiries unrelated to the revision order: the highest revision's (11) must win, not the latest expiry.
      await Promise.all(
        revisions.map((revision, i) => recordPending(store, T0 + i, randomUUID(), grant(T0 + (100 - revision * 3) * DAY, 'user-42', revision))),
      );
      expect(await store.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date(T0 + (100 - 11 * 3) * DAY));
    });

    it('adoptIgnored applies the ignored events of kinds it now applies, once: their access and pending, due now', async () => {
      const store = await makeStore();
      await recordPending(store, T0, randomUUID(), grant(T0 + 90 * DAY, 'user-42', 0));
      const revoked = randomUUID();
      const other = randomUUID();
      const invalid = randomUUID();
      const record = (eventId: string, kind: string, body: JsonObject) =>
        store.record({ eventId, kind, payload: body, state: 'ignored', grant: null, now: T0 });
      expect(await record(revoked, 'subscription_revoked', { event_id: revoked, expires_at: new Date(T0 + 3 * DAY).toISOString(), revision: 1 })).toBe(
        'recorded',
      );
      expect(await record(other, 'subscription_paused', { event_id: other })).toBe('recorded');
      expect(await record(invalid, 'subscription_revoked', { event_id: invalid })).toBe('recorded');
      const grantOf = (kind: string, body: JsonObject) =>
        kind === 'subscription_revoked' && typeof body.expires_at === 'string' && typeof body.revision === 'number'
          ? grant(Date.parse(body.expires_at), 'user-42', body.revision)
          : null;
      const now = T0 + 1_000;
      expect(await store.adoptIgnored({ kinds: ['subscription_started', 'subscription_revoked'], grantOf, now })).toBe(1);
      expect(await store.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date(T0 + 3 * DAY));
      expect(await store.find(revoked)).toMatchObject({ state: 'pending', nextAttemptAt: new Date(now) });
      expect(await store.find(other)).toMatchObject({ state: 'ignored' });
      expect(await store.find(invalid)).toMatchObject({ state: 'ignored' });
      expect(await store.counts()).toMatchObject({ pending: 2, ignored: 2 });
      expect(await store.adoptIgnored({ kinds: ['subscription_started', 'subscription_revoked'], grantOf, now: now + 5 })).toBe(0);
      const claimed = await store.claim({ now, leaseMs: LEASE, limit: 10 });
      expect(claimed.map((lease) => lease.eventId)).toContain(revoked);
    });

    it("records an event and its access while another event's work runs: completing holds no one's access", async () => {
      const store = await makeStore();
      const first = await recordPending(store, T0, randomUUID(), grant(T0 + 10 * DAY));
      const lease = await claimOne(store);
      expect(lease.eventId).toBe(first);
      let release!: () => void;
      const blocked = new Promise<void>((resolve) => (release = resolve));
      let working!: () => void;
      const started = new Promise<void>((resolve) => (working = resolve));
      const completing = completeOne(store, lease, { now: T0 }, async () => {
        working();
        await blocked;
      });
      await started;
      // A renewal of the same user's entitlement, while the first event's work is still running.
      await recordPending(store, T0 + 1, randomUUID(), grant(T0 + 40 * DAY));
      expect(await store.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date(T0 + 40 * DAY));
      release();
      expect(await completing).toBe(true);
      expect(await store.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date(T0 + 40 * DAY));
    });

    it('runs the work before the processed mark; a throwing work leaves the event processing, its access as recorded', async () => {
      const store = await makeStore();
      const eventId = await recordPending(store, T0, randomUUID(), grant(T0 + 30 * DAY));
      const lease = await claimOne(store);
      await expect(
        completeOne(store, lease, { now: T0 }, async () => {
          throw new Error('welcome email insert failed');
        }),
      ).rejects.toThrow('welcome email insert failed');
      // The user paid: access stands although the business logic failed.
      expect(await store.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date(T0 + 30 * DAY));
      expect(await store.find(eventId)).toMatchObject({ state: 'processing' });
      expect(await store.release(lease, { now: T0, error: 'Error: welcome email insert failed', retryAt: T0 + 1000 })).toBe(true);
      expect(await store.find(eventId)).toMatchObject({ state: 'pending', lastError: 'Error: welcome email insert failed' });

      // The retry runs the work again and completes; the work sees the event still processing.
      const again = await claimOne(store, T0 + 1000);
      expect(again).toMatchObject({ eventId, attempts: 2 });
      const seen: string[] = [];
      expect(
        await completeOne(store, again, { now: T0 + 1001 }, async () => {
          seen.push((await store.find(eventId))!.state);
        }),
      ).toBe(true);
      expect(seen).toEqual(['processing']);
      expect(await store.find(eventId)).toMatchObject({ state: 'processed', attempts: 2 });
      expect(await store.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date(T0 + 30 * DAY));
    });

    it('completes a claimed batch in order, one event after another: a throwing work fails its event alone, a lost claim runs nothing', async () => {
      const store = await makeStore();
      const lostId = await recordPending(store, T0);
      const stale = await claimOne(store, T0); // then its process stalls past the lease
      const ids = [await recordPending(store, T0 + 1), await recordPending(store, T0 + 2), await recordPending(store, T0 + 3)];
      // Another processor's claim, after the lease ran out, takes the stalled event with the others.
      const fresh = await store.claim({ now: T0 + LEASE, leaseMs: LEASE, limit: 10 });
      expect(fresh.map((lease) => lease.eventId)).toEqual([...ids, lostId]);
      const batch = [stale, ...fresh.slice(0, 3)];
      const ran: string[] = [];
      let running = 0;
      let overlapped = false;
      const completions = await store.completeBatch(batch, { now: T0 + LEASE + 5 }, async (lease) => {
        overlapped ||= running > 0;
        running += 1;
        ran.push(lease.eventId);
        await new Promise((resolve) => setTimeout(resolve, 2));
        running -= 1;
        if (lease.eventId === ids[1]) throw new Error('welcome email insert failed');
      });
      expect(completions).toEqual([
        { outcome: 'lost' },
        { outcome: 'processed' },
        { outcome: 'failed', error: new Error('welcome email insert failed') },
        { outcome: 'processed' },
      ]);
      expect(ran).toEqual(ids);
      expect(overlapped).toBe(false);
      expect(await store.find(ids[0]!)).toMatchObject({ state: 'processed', processedAt: new Date(T0 + LEASE + 5) });
      expect(await store.find(ids[1]!)).toMatchObject({ state: 'processing' });
      expect(await store.find(ids[2]!)).toMatchObject({ state: 'processed' });
      // The event the stale claim lost is still the other processor's.
      expect(await store.find(lostId)).toMatchObject({ state: 'processing', attempts: 2 });
      expect(await store.completeBatch([], { now: T0 + LEASE + 6 }, noWork)).toEqual([]);
    });

    it('releases a failed run: pending again at retryAt with its error, or failed; retry gives a fresh budget', async () => {
      const store = await makeStore();
      const eventId = await recordPending(store);
      expect(await store.release(await claimOne(store), { now: T0, error: 'Error: first', retryAt: T0 + 1000 })).toBe(true);
      expect(await store.find(eventId)).toMatchObject({ state: 'pending', attempts: 1, lastError: 'Error: first', nextAttemptAt: new Date(T0 + 1000) });
      expect(await store.claim({ now: T0 + 999, leaseMs: LEASE, limit: 10 })).toEqual([]);

      expect(await store.release(await claimOne(store, T0 + 1000), { now: T0 + 1001, error: 'Error: second', retryAt: null })).toBe(true);
      const failed = await store.find(eventId);
      expect(failed).toMatchObject({ state: 'failed', attempts: 2, lastError: 'Error: second', failedAt: new Date(T0 + 1001) });
      expect(await store.claim({ now: T0 + DAY, leaseMs: LEASE, limit: 10 })).toEqual([]);
      expect(await store.listFailed(10)).toEqual([failed]);

      expect(await store.retry(eventId, T0 + 2000)).toBe('retried');
      expect(await store.retry(eventId, T0 + 2000)).toBe('not_failed');
      expect(await store.retry(randomUUID(), T0 + 2000)).toBe('not_found');
      expect(await store.find(eventId)).toMatchObject({ state: 'pending', attempts: 0, lastError: 'Error: second', nextAttemptAt: new Date(T0 + 2000) });
      expect(await store.listFailed(10)).toEqual([]);
      const again = await claimOne(store, T0 + 2000);
      expect(again.attempts).toBe(1);
      expect(await completeOne(store, again, { now: T0 + 2001 }, noWork)).toBe(true);
      expect(await store.find(eventId)).toMatchObject({ state: 'processed', lastError: null });
    });

    it('lists failed events most recently failed first, up to the limit', async () => {
      const store = await makeStore();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push(await recordPending(store, T0 + i));
        await store.release(await claimOne(store, T0 + i), { now: T0 + 100 + i, error: `Error: ${i}`, retryAt: null });
      }
      expect((await store.listFailed(2)).map((event) => [event.eventId, event.lastError])).toEqual([
        [ids[2], 'Error: 2'],
        [ids[1], 'Error: 1'],
      ]);
    });

    it('counts events by state', async () => {
      const store = await makeStore();
      await recordPending(store);
      await recordPending(store);
      await recordPending(store);
      await store.record({ eventId: randomUUID(), kind: 'future_kind', payload: {}, state: 'ignored', grant: null, now: T0 });
      await completeOne(store, await claimOne(store), { now: T0 }, noWork);
      await store.release(await claimOne(store), { now: T0, error: 'Error: x', retryAt: null });
      expect(await store.counts()).toEqual({ pending: 1, processing: 0, processed: 1, failed: 1, ignored: 1 });
      await claimOne(store);
      expect(await store.counts()).toEqual({ pending: 0, processing: 1, processed: 1, failed: 1, ignored: 1 });
    });
  });
}

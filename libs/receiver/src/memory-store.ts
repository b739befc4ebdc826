import { randomUUID } from 'node:crypto';
import { supersedes, type StoredAccess } from './access-rule.js';
import type { JsonObject } from './event.js';
import { completeEach } from './complete-each.js';
import {
  EVENT_STATES,
  type AccessGrant,
  type EventState,
  type FailedEvent,
  type LeasedEvent,
  type ReceiverStore,
  type RetryOutcome,
  type StoredEvent,
} from './store.port.js';

interface Row {
  eventId: string;
  kind: string;
  payload: JsonObject;
  state: EventState;
  attempts: number;
  lastError: string | null;
  receivedAt: number;
  /** Due time when pending, lease end when processing, completion time when processed or failed. */
  at: number;
  token: string | null;
}

const clone = (payload: JsonObject): JsonObject => structuredClone(payload);

/**
 * The in-memory {@link ReceiverStore}: for unit tests and trying the kit out. Not durable and
 * not shared between processes, so it does not satisfy receiver rule 2 in production. Handlers
 * receive `undefined` as their transaction; their writes are not rolled back.
 */
export class MemoryReceiverStore implements ReceiverStore<undefined> {
  readonly #events = new Map<string, Row>();
  readonly #access = new Map<string, StoredAccess>();

  async record(event: { eventId: string; kind: string; payload: JsonObject; state: 'pending' | 'ignored'; grant: AccessGrant | null; now: number }) {
    if (this.#events.has(event.eventId)) return 'duplicate' as const;
    // Synchronous from here: the record and its grant are one step, as in the durable stores.
    if (event.grant) this.#grant(event.grant);
    this.#events.set(event.eventId, {
      eventId: event.eventId,
      kind: event.kind,
      payload: clone(event.payload),
      state: event.state,
      attempts: 0,
      lastError: null,
      receivedAt: event.now,
      at: event.now,
      token: null,
    });
    return 'recorded' as const;
  }

  async claim({ now, leaseMs, limit }: { now: number; leaseMs: number; limit: number }): Promise<LeasedEvent[]> {
    const claimable = [...this.#events.values()]
      .filter((row) => (row.state === 'pending' || row.state === 'processing') && row.at <= now)
      .sort((a, b) => a.at - b.at)
      .slice(0, limit);
    return claimable.map((row) => {
      Object.assign(row, { state: 'processing', attempts: row.attempts + 1, at: now + leaseMs, token: randomUUID() });
      return { eventId: row.eventId, kind: row.kind, payload: clone(row.payload), attempts: row.attempts, token: row.token! };
    });
  }

  async completeBatch(leases: readonly LeasedEvent[], { now }: { now: number }, work: (lease: LeasedEvent, tx: undefined) => Promise<void>) {
    return completeEach(leases, work, {
      held: async (lease) => this.#holds(lease),
      markProcessed: async (lease) => {
        const row = this.#events.get(lease.eventId);
        if (!row || !this.#holds(lease)) return false;
        Object.assign(row, { state: 'processed', at: now, token: null, lastError: null });
        return true;
      },
    });
  }

  async release(lease: LeasedEvent, { now, error, retryAt }: { now: number; error: string; retryAt: number | null }) {
    const row = this.#events.get(lease.eventId);
    if (!row || !this.#holds(lease)) return false;
    Object.assign(row, retryAt === null ? { state: 'failed', at: now } : { state: 'pending', at: retryAt }, { token: null, lastError: error });
    return true;
  }

  async retry(eventId: string, now: number): Promise<RetryOutcome> {
    const row = this.#events.get(eventId);
    if (!row) return 'not_found';
    if (row.state !== 'failed') return 'not_failed';
    Object.assign(row, { state: 'pending', at: now, attempts: 0 });
    return 'retried';
  }

  async find(eventId: string): Promise<StoredEvent | null> {
    const row = this.#events.get(eventId);
    return row ? toStoredEvent(row) : null;
  }

  async listFailed(limit: number): Promise<FailedEvent[]> {
    return [...this.#events.values()]
      .filter((row) => row.state === 'failed')
      .sort((a, b) => b.at - a.at)
      .slice(0, limit)
      .map((row) => toStoredEvent(row) as FailedEvent);
  }

  async accessExpiry(userId: string, entitlement: string): Promise<Date | null> {
    const access = this.#access.get(JSON.stringify([userId, entitlement]));
    return access === undefined ? null : new Date(access.expiresAt);
  }

  async adoptIgnored({ kinds, grantOf, now }: { kinds: readonly string[]; grantOf: (kind: string, payload: JsonObject) => AccessGrant | null; now: number }) {
    let adopted = 0;
    for (const row of this.#events.values()) {
      if (row.state !== 'ignored' || !kinds.includes(row.kind)) continue;
      const grant = grantOf(row.kind, row.payload);
      if (!grant) continue;
      this.#grant(grant);
      Object.assign(row, { state: 'pending', at: now });
      adopted += 1;
    }
    return adopted;
  }

  async counts(): Promise<Record<EventState, number>> {
    const counts = Object.fromEntries(EVENT_STATES.map((state) => [state, 0])) as Record<EventState, number>;
    for (const row of this.#events.values()) counts[row.state] += 1;
    return counts;
  }

  #holds(lease: LeasedEvent): boolean {
    const row = this.#events.get(lease.eventId);
    return row?.state === 'processing' && row.token === lease.token;
  }

  // Synchronous, so no other call interleaves: the conditional update of rule 4.
  #grant(grant: AccessGrant): void {
    const key = JSON.stringify([grant.userId, grant.entitlement]);
    if (supersedes(this.#access.get(key) ?? null, grant)) this.#access.set(key, { expiresAt: grant.expiresAt, revision: grant.revision });
  }
}

function toStoredEvent(row: Row): StoredEvent {
  const base = {
    eventId: row.eventId,
    kind: row.kind,
    payload: clone(row.payload),
    attempts: row.attempts,
    lastError: row.lastError,
    receivedAt: new Date(row.receivedAt),
  };
  const at = new Date(row.at);
  switch (row.state) {
    case 'pending':
      return { ...base, state: row.state, nextAttemptAt: at };
    case 'processing':
      return { ...base, state: row.state, leaseUntil: at };
    case 'processed':
      return { ...base, state: row.state, processedAt: at };
    case 'failed':
      return { ...base, state: row.state, failedAt: at, lastError: row.lastError ?? '' };
    case 'ignored':
      return { ...base, state: row.state };
    default: {
      const never: never = row.state;
      throw new Error(`unknown state ${String(never)}`);
    }
  }
}

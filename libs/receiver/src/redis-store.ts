import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { JsonObject } from './event.js';
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

/** Options of {@link RedisReceiverStore}. */
export interface RedisReceiverStoreOptions {
  /**
   * Prefix of every key. Default `settle-receiver:`. On Redis Cluster, put a hash tag in it
   * (for example `{settle-receiver}:`) so that all the kit's keys live in one slot.
   */
  readonly keyPrefix?: string;
}

// Keys, under the prefix: event:<id> (hash), available (zset of pending and processing events
// by due time or lease end), failed (zset by failure time), states (hash of counts), access
// (hash of expiry in ms per JSON [user_id, entitlement]).

const FENCE = `
if redis.call('HGET', KEYS[1], 'state') ~= 'processing' or redis.call('HGET', KEYS[1], 'token') ~= ARGV[2] then return 0 end`;

const scripts = {
  // KEYS: event, available, states. ARGV: id, kind, payload, state, now.
  settleReceiverRecord: {
    numberOfKeys: 3,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'event_id', ARGV[1], 'kind', ARGV[2], 'payload', ARGV[3], 'state', ARGV[4], 'attempts', 0, 'received_at', ARGV[5])
if ARGV[4] == 'pending' then
  redis.call('HSET', KEYS[1], 'available_at', ARGV[5])
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
end
redis.call('HINCRBY', KEYS[3], ARGV[4], 1)
return 1`,
  },
  // KEYS: available, states. ARGV: now, lease end, limit, prefix, token base.
  settleReceiverClaim: {
    numberOfKeys: 2,
    lua: `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local claimed = {}
for i, id in ipairs(ids) do
  local key = ARGV[4] .. 'event:' .. id
  if redis.call('HGET', key, 'state') == 'pending' then
    redis.call('HINCRBY', KEYS[2], 'pending', -1)
    redis.call('HINCRBY', KEYS[2], 'processing', 1)
  end
  local token = ARGV[5] .. ':' .. i
  local attempts = redis.call('HINCRBY', key, 'attempts', 1)
  redis.call('HSET', key, 'state', 'processing', 'available_at', ARGV[2], 'token', token)
  redis.call('ZADD', KEYS[1], ARGV[2], id)
  claimed[#claimed + 1] = { id, redis.call('HGET', key, 'kind'), redis.call('HGET', key, 'payload'), attempts, token }
end
return claimed`,
  },
  // KEYS: event, access. ARGV: id, token, field ('' for none), expires at. Rule 4: conditional, atomic.
  settleReceiverGrant: {
    numberOfKeys: 2,
    lua: `${FENCE}
if ARGV[3] == '' then return 1 end
local current = redis.call('HGET', KEYS[2], ARGV[3])
if not current or tonumber(current) < tonumber(ARGV[4]) then redis.call('HSET', KEYS[2], ARGV[3], ARGV[4]) end
return 1`,
  },
  // KEYS: event, available, states. ARGV: id, token, now.
  settleReceiverComplete: {
    numberOfKeys: 3,
    lua: `${FENCE}
redis.call('HSET', KEYS[1], 'state', 'processed', 'finished_at', ARGV[3])
redis.call('HDEL', KEYS[1], 'available_at', 'token', 'last_error')
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HINCRBY', KEYS[3], 'processing', -1)
redis.call('HINCRBY', KEYS[3], 'processed', 1)
return 1`,
  },
  // KEYS: event, available, failed, states. ARGV: id, token, now, error, retry at ('' for failed).
  settleReceiverRelease: {
    numberOfKeys: 4,
    lua: `${FENCE}
redis.call('HDEL', KEYS[1], 'token')
redis.call('HSET', KEYS[1], 'last_error', ARGV[4])
redis.call('HINCRBY', KEYS[4], 'processing', -1)
if ARGV[5] == '' then
  redis.call('HSET', KEYS[1], 'state', 'failed', 'finished_at', ARGV[3])
  redis.call('HDEL', KEYS[1], 'available_at')
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
  redis.call('HINCRBY', KEYS[4], 'failed', 1)
else
  redis.call('HSET', KEYS[1], 'state', 'pending', 'available_at', ARGV[5])
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
  redis.call('HINCRBY', KEYS[4], 'pending', 1)
end
return 1`,
  },
  // KEYS: event, available, failed, states. ARGV: id, now.
  settleReceiverRetry: {
    numberOfKeys: 4,
    lua: `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 'not_found' end
if state ~= 'failed' then return 'not_failed' end
redis.call('HSET', KEYS[1], 'state', 'pending', 'available_at', ARGV[2], 'attempts', 0)
redis.call('HDEL', KEYS[1], 'finished_at')
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('HINCRBY', KEYS[4], 'failed', -1)
redis.call('HINCRBY', KEYS[4], 'pending', 1)
return 'retried'`,
  },
} as const;

type Command = (...args: Array<string | number>) => Promise<unknown>;
type Commands = Record<keyof typeof scripts, Command>;

/**
 * The Redis {@link ReceiverStore}, over an `ioredis` client the customer creates (receiver rule
 * 2: shared by every receiver process; durable only as Redis is configured, see the README:
 * AOF with `appendfsync always` and `maxmemory-policy noeviction`). Each state change is one
 * Lua script, atomic in Redis: record (unique on event_id), claim (lease with a token),
 * conditional expiry, complete, release, retry. The scripts are registered on the client with
 * `defineCommand` under names starting with `settleReceiver`.
 *
 * Handlers receive `undefined` as their transaction: their side effects happen at least once.
 */
export class RedisReceiverStore implements ReceiverStore<undefined> {
  readonly #client: Redis | Cluster;
  readonly #commands: Commands;
  readonly #prefix: string;

  /** @param client - the customer's client; the store never closes it. */
  constructor(client: Redis | Cluster, options: RedisReceiverStoreOptions = {}) {
    this.#client = client;
    this.#prefix = options.keyPrefix ?? 'settle-receiver:';
    for (const [name, definition] of Object.entries(scripts)) {
      if (!(name in client)) client.defineCommand(name, definition);
    }
    this.#commands = client as unknown as Commands;
  }

  async record(event: { eventId: string; kind: string; payload: JsonObject; state: 'pending' | 'ignored'; now: number }) {
    const recorded = await this.#commands.settleReceiverRecord(
      this.#event(event.eventId),
      this.#key('available'),
      this.#key('states'),
      event.eventId,
      event.kind,
      JSON.stringify(event.payload),
      event.state,
      event.now,
    );
    return recorded === 1 ? ('recorded' as const) : ('duplicate' as const);
  }

  async claim({ now, leaseMs, limit }: { now: number; leaseMs: number; limit: number }): Promise<LeasedEvent[]> {
    const claimed = (await this.#commands.settleReceiverClaim(
      this.#key('available'),
      this.#key('states'),
      now,
      now + leaseMs,
      limit,
      this.#prefix,
      randomUUID(),
    )) as Array<[string, string, string, number, string]>;
    return claimed.map(([eventId, kind, payload, attempts, token]) => ({ eventId, kind, payload: JSON.parse(payload) as JsonObject, attempts, token }));
  }

  async complete(lease: LeasedEvent, { now, grant }: { now: number; grant: AccessGrant | null }, work: (tx: undefined) => Promise<void>) {
    const held = await this.#commands.settleReceiverGrant(
      this.#event(lease.eventId),
      this.#key('access'),
      lease.eventId,
      lease.token,
      grant ? accessField(grant.userId, grant.entitlement) : '',
      grant?.expiresAt ?? 0,
    );
    if (held !== 1) return false;
    await work(undefined);
    const completed = await this.#commands.settleReceiverComplete(
      this.#event(lease.eventId),
      this.#key('available'),
      this.#key('states'),
      lease.eventId,
      lease.token,
      now,
    );
    return completed === 1;
  }

  async release(lease: LeasedEvent, { now, error, retryAt }: { now: number; error: string; retryAt: number | null }) {
    const released = await this.#commands.settleReceiverRelease(
      this.#event(lease.eventId),
      this.#key('available'),
      this.#key('failed'),
      this.#key('states'),
      lease.eventId,
      lease.token,
      now,
      error,
      retryAt ?? '',
    );
    return released === 1;
  }

  async retry(eventId: string, now: number): Promise<RetryOutcome> {
    return (await this.#commands.settleReceiverRetry(
      this.#event(eventId),
      this.#key('available'),
      this.#key('failed'),
      this.#key('states'),
      eventId,
      now,
    )) as RetryOutcome;
  }

  async find(eventId: string): Promise<StoredEvent | null> {
    const fields = await this.#client.hgetall(this.#event(eventId));
    return fields.state ? toStoredEvent(fields) : null;
  }

  async listFailed(limit: number): Promise<FailedEvent[]> {
    const ids = await this.#client.zrevrange(this.#key('failed'), 0, limit - 1);
    const events = await Promise.all(ids.map((id) => this.find(id)));
    return events.filter((event): event is FailedEvent => event?.state === 'failed');
  }

  async accessExpiry(userId: string, entitlement: string): Promise<Date | null> {
    const expiresAt = await this.#client.hget(this.#key('access'), accessField(userId, entitlement));
    return expiresAt === null ? null : new Date(Number(expiresAt));
  }

  async counts(): Promise<Record<EventState, number>> {
    const stored = await this.#client.hgetall(this.#key('states'));
    return Object.fromEntries(EVENT_STATES.map((state) => [state, Number(stored[state] ?? 0)])) as Record<EventState, number>;
  }

  #key(name: string): string {
    return `${this.#prefix}${name}`;
  }

  #event(eventId: string): string {
    return `${this.#prefix}event:${eventId}`;
  }
}

const accessField = (userId: string, entitlement: string) => JSON.stringify([userId, entitlement]);

function toStoredEvent(fields: Record<string, string>): StoredEvent {
  const date = (name: string) => new Date(Number(fields[name]));
  const base = {
    eventId: fields.event_id!,
    kind: fields.kind!,
    payload: JSON.parse(fields.payload!) as JsonObject,
    attempts: Number(fields.attempts),
    lastError: fields.last_error ?? null,
    receivedAt: date('received_at'),
  };
  const state = fields.state as EventState;
  switch (state) {
    case 'pending':
      return { ...base, state, nextAttemptAt: date('available_at') };
    case 'processing':
      return { ...base, state, leaseUntil: date('available_at') };
    case 'processed':
      return { ...base, state, processedAt: date('finished_at') };
    case 'failed':
      return { ...base, state, failedAt: date('finished_at'), lastError: fields.last_error ?? '' };
    case 'ignored':
      return { ...base, state };
    default: {
      const never: never = state;
      throw new Error(`unknown state ${String(never)}`);
    }
  }
}

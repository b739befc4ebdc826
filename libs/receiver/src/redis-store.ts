import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { ReceiverStoreNotDurableError } from './errors.js';
import { completeEach } from './complete-each.js';
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

/**
 * What the store does when the Redis server could lose an acknowledged event (no append-only
 * file, or an eviction policy other than `noeviction`), checked once, before the first record:
 * - `require` (default): refuse. {@link RedisReceiverStore.ready} rejects, and so does every
 *   record (the kit answers 503, so Settle delivers again: nothing is acknowledged that could be
 *   lost), with a {@link ReceiverStoreNotDurableError} saying what to change;
 * - `warn`: log a warning once (also for `appendfsync` other than `always`) and go on;
 * - `off`: no check (a server whose `INFO` you cannot read, checked by other means).
 */
export type RedisPersistencePolicy = 'require' | 'warn' | 'off';

/** Options of {@link RedisReceiverStore}. */
export interface RedisReceiverStoreOptions {
  /**
   * Prefix of every key. Default `settle-receiver:`. On Redis Cluster, put a hash tag in it
   * (for example `{settle-receiver}:`) so that all the kit's keys live in one slot.
   */
  readonly keyPrefix?: string;
  /** See {@link RedisPersistencePolicy}. Default `require`. */
  readonly persistence?: RedisPersistencePolicy;
  /** Where `warn` writes; default the console. A pino-compatible logger (`warn(fields, message)`). */
  readonly logger?: { warn(fields: object, message: string): void };
}

// Keys, under the prefix: event:<id> (hash), available (zset of pending and processing events
// by due time or lease end), failed (zset by failure time), states (hash of counts), access
// (hash of expiry in ms, with its revision, per JSON [user_id, entitlement]), adopted (hash of
// the kind sets whose ignored events were applied).

// The access hash holds, per field, `<expiry ms>` (set by events without a revision: what a kit
// before 0.3 wrote) or `<expiry ms>:<revision>`. \`supersedes\` of access-rule.ts, in Lua: sets
// the field when the event's access (expiry, revision or '') supersedes the stored one.
const GRANT = `
local function settle_grant(access, field, expires, revision)
  local current = redis.call('HGET', access, field)
  local apply
  if not current then
    apply = true
  else
    local sep = string.find(current, ':', 1, true)
    local stored_expires = tonumber(sep and string.sub(current, 1, sep - 1) or current)
    local stored_revision = sep and tonumber(string.sub(current, sep + 1)) or nil
    if revision == '' then
      apply = stored_revision == nil and stored_expires < tonumber(expires)
    else
      apply = stored_revision == nil or stored_revision < tonumber(revision)
    end
  end
  if apply then
    if revision == '' then redis.call('HSET', access, field, expires) else redis.call('HSET', access, field, expires .. ':' .. revision) end
  end
end`;

const FENCE = `
if redis.call('HGET', KEYS[1], 'state') ~= 'processing' or redis.call('HGET', KEYS[1], 'token') ~= ARGV[2] then return 0 end`;

const scripts = {
  // KEYS: event, available, states, access. ARGV: id, kind, payload, state, now, access field
  // ('' for none), expires at, revision ('' for none). Rules 2 and 4 in one atomic step: the
  // unique record and, when it is new, the conditional expiry.
  settleReceiverRecord: {
    numberOfKeys: 4,
    lua: `${GRANT}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'event_id', ARGV[1], 'kind', ARGV[2], 'payload', ARGV[3], 'state', ARGV[4], 'attempts', 0, 'received_at', ARGV[5], 'granted', 1)
if ARGV[4] == 'pending' then
  redis.call('HSET', KEYS[1], 'available_at', ARGV[5])
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
end
redis.call('HINCRBY', KEYS[3], ARGV[4], 1)
if ARGV[6] ~= '' then settle_grant(KEYS[4], ARGV[6], ARGV[7], ARGV[8]) end
return 1`,
  },
  // KEYS: access. ARGV: field, value, revision. The revision of a value a kit before 0.3 stored
  // (no ':'), from the event that set it, unless the value changed meanwhile.
  settleReceiverPin: {
    numberOfKeys: 1,
    lua: `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ':' .. ARGV[3])
return 1`,
  },
  // KEYS: event, available, states, access. ARGV: id, now, access field, expires at, revision
  // ('' for none). An ignored event a later kit applies (adoptIgnored): its conditional expiry,
  // and pending, due now; nothing when it is no longer ignored.
  settleReceiverAdopt: {
    numberOfKeys: 4,
    lua: `${GRANT}
if redis.call('HGET', KEYS[1], 'state') ~= 'ignored' then return 0 end
settle_grant(KEYS[4], ARGV[3], ARGV[4], ARGV[5])
redis.call('HSET', KEYS[1], 'state', 'pending', 'available_at', ARGV[2], 'granted', 1)
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('HINCRBY', KEYS[3], 'ignored', -1)
redis.call('HINCRBY', KEYS[3], 'pending', 1)
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
  // KEYS: event, access. ARGV: id, token, field ('' for none), expires at. The claim's fence;
  // and the conditional expiry of an event a kit before 0.2 recorded (without 'granted': its
  // access was applied when processed), once.
  settleReceiverFence: {
    numberOfKeys: 2,
    lua: `${GRANT}${FENCE}
if redis.call('HGET', KEYS[1], 'granted') or ARGV[3] == '' then return 1 end
settle_grant(KEYS[2], ARGV[3], ARGV[4], '')
redis.call('HSET', KEYS[1], 'granted', 1)
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
 * AOF with `appendfsync always` and `maxmemory-policy noeviction`, which the store checks before
 * its first record: {@link RedisPersistencePolicy}). Each state change is one Lua script, atomic
 * in Redis: record (unique on event_id, with the conditional expiry of rule 4), claim (lease with
 * a token), complete, release, retry. The scripts are registered on the client with
 * `defineCommand` under names starting with `settleReceiver`.
 *
 * Handlers receive `undefined` as their transaction: their side effects happen at least once.
 */
export class RedisReceiverStore implements ReceiverStore<undefined> {
  readonly #client: Redis | Cluster;
  readonly #commands: Commands;
  readonly #prefix: string;
  readonly #persistence: RedisPersistencePolicy;
  readonly #logger: { warn(fields: object, message: string): void };
  /** The persistence check, once it succeeded or refused for good (a failure to reach Redis is not kept). */
  #checked: Promise<void> | undefined;

  /** @param client - the customer's client; the store never closes it. */
  constructor(client: Redis | Cluster, options: RedisReceiverStoreOptions = {}) {
    this.#client = client;
    this.#prefix = options.keyPrefix ?? 'settle-receiver:';
    this.#persistence = options.persistence ?? 'require';
    this.#logger = options.logger ?? { warn: (fields, message) => console.warn(`[settle-receiver] ${message}`, fields) };
    for (const [name, definition] of Object.entries(scripts)) {
      if (!(name in client)) client.defineCommand(name, definition);
    }
    this.#commands = client as unknown as Commands;
  }

  /**
   * Checks, once, that the server keeps what it acknowledges (`INFO persistence`: `aof_enabled`;
   * `INFO memory`: `maxmemory_policy`; `CONFIG GET appendfsync` where allowed), as
   * {@link RedisReceiverStoreOptions.persistence} says. Call it at startup to fail there; the
   * first record awaits it anyway.
   *
   * @throws {@link ReceiverStoreNotDurableError} under `require` when the server could lose an
   *   acknowledged event, or when its `INFO` cannot be read; an `ioredis` error when Redis
   *   cannot be reached (not kept: the next call checks again).
   */
  ready(): Promise<void> {
    if (this.#persistence === 'off') return Promise.resolve();
    this.#checked ??= this.#checkPersistence().catch((error: unknown) => {
      if (!(error instanceof ReceiverStoreNotDurableError)) this.#checked = undefined;
      throw error;
    });
    return this.#checked;
  }

  async #checkPersistence(): Promise<void> {
    let aof: string | undefined;
    let policy: string | undefined;
    try {
      aof = /^aof_enabled:(\d)/m.exec(await this.#client.info('persistence'))?.[1];
      policy = /^maxmemory_policy:(\S+)/m.exec(await this.#client.info('memory'))?.[1];
    } catch (error) {
      // A server that refuses INFO (a restricted managed Redis) is not an unreachable one.
      if (!/unknown command|NOPERM|not allowed|disabled/i.test((error as Error).message ?? '')) throw error;
    }
    const problems: string[] = [];
    if (aof !== '1') {
      problems.push(
        aof === undefined
          ? 'its persistence could not be read (INFO persistence)'
          : 'appendonly is off, so an acknowledged event is lost if Redis restarts (set appendonly yes and appendfsync always)',
      );
    }
    if (policy !== undefined && policy !== 'noeviction') {
      problems.push(`maxmemory-policy is ${policy}, so Redis may evict recorded events (set maxmemory-policy noeviction)`);
    }
    const warnings = [...problems];
    if (aof === '1') {
      const fsync = await this.#client.config('GET', 'appendfsync').then(
        (reply) => reply[1],
        () => undefined,
      );
      if (fsync !== undefined && fsync !== 'always') {
        warnings.push(`appendfsync is ${fsync}, so a crash can lose the last second of acknowledged events (set appendfsync always)`);
      }
    }
    if (this.#persistence === 'require' && problems.length > 0) {
      throw new ReceiverStoreNotDurableError(
        `the Redis server cannot be trusted with acknowledged events: ${problems.join('; ')}. ` +
          "Fix its configuration, or pass persistence: 'warn' to RedisReceiverStore to accept the risk.",
      );
    }
    if (warnings.length > 0) this.#logger.warn({ problems: warnings }, 'the Redis server can lose acknowledged events');
  }

  async record(event: { eventId: string; kind: string; payload: JsonObject; state: 'pending' | 'ignored'; grant: AccessGrant | null; now: number }) {
    await this.ready();
    const { grant } = event;
    const recorded = await this.#commands.settleReceiverRecord(
      this.#event(event.eventId),
      this.#key('available'),
      this.#key('states'),
      this.#key('access'),
      event.eventId,
      event.kind,
      JSON.stringify(event.payload),
      event.state,
      event.now,
      grant ? accessField(grant.userId, grant.entitlement) : '',
      grant?.expiresAt ?? 0,
      grant?.revision ?? '',
    );
    return recorded === 1 ? ('recorded' as const) : ('duplicate' as const);
  }

  /**
   * The upgrade step, once per set of kinds (a marker under `adopted` remembers it); on Redis
   * Cluster every master is scanned. One pass over the event keys finds the events of `kinds`
   * recorded as ignored, and the revision of every event applied; then each access value a kit
   * before 0.3 stored (an expiry without a revision) gets the revision of the applied event with
   * that expiry (0.2 applied events that carried a revision by the later expiry and kept none), and
   * last each ignored event `grantOf` accepts is applied with one script: its conditional expiry,
   * and pending, due at `now`.
   */
  async adoptIgnored({ kinds, grantOf, now }: { kinds: readonly string[]; grantOf: (kind: string, payload: JsonObject) => AccessGrant | null; now: number }) {
    if (kinds.length === 0) return 0;
    const marker = [...kinds].sort().join(',');
    if ((await this.#client.hget(this.#key('adopted'), marker)) !== null) return 0;
    const nodes: Array<Pick<Redis, 'scanStream'>> = 'nodes' in this.#client ? this.#client.nodes('master') : [this.#client];
    const ignored: Array<{ key: string; eventId: string; grant: AccessGrant }> = [];
    /** Per access field: the highest revision of the applied events with each expiry. */
    const applied = new Map<string, Map<number, number>>();
    for (const node of nodes) {
      for await (const keys of node.scanStream({ match: `${this.#prefix}event:*`, count: 500 }) as AsyncIterable<string[]>) {
        for (const key of keys) {
          const [state, kind, payload] = (await this.#client.hmget(key, 'state', 'kind', 'payload')).map((v) => v ?? null);
          if (!state || !kind || !payload || !kinds.includes(kind)) continue;
          const grant = grantOf(kind, JSON.parse(payload) as JsonObject);
          if (!grant) continue;
          if (state === 'ignored') ignored.push({ key, eventId: key.slice(`${this.#prefix}event:`.length), grant });
          else if (grant.revision !== null) {
            const field = accessField(grant.userId, grant.entitlement);
            const byExpiry = applied.get(field) ?? new Map<number, number>();
            byExpiry.set(grant.expiresAt, Math.max(byExpiry.get(grant.expiresAt) ?? -1, grant.revision));
            applied.set(field, byExpiry);
          }
        }
      }
    }
    for (const [field, byExpiry] of applied) {
      const value = await this.#client.hget(this.#key('access'), field);
      if (value === null || value.includes(':')) continue;
      const revision = byExpiry.get(Number(value));
      if (revision !== undefined) await this.#commands.settleReceiverPin(this.#key('access'), field, value, revision);
    }
    let adopted = 0;
    for (const { key, eventId, grant } of ignored) {
      adopted += Number(
        await this.#commands.settleReceiverAdopt(
          key,
          this.#key('available'),
          this.#key('states'),
          this.#key('access'),
          eventId,
          now,
          accessField(grant.userId, grant.entitlement),
          grant.expiresAt,
          grant.revision ?? '',
        ),
      );
    }
    await this.#client.hset(this.#key('adopted'), marker, String(now));
    return adopted;
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

  async completeBatch(leases: readonly LeasedEvent[], { now }: { now: number }, work: (lease: LeasedEvent, tx: undefined) => Promise<void>) {
    return completeEach(leases, work, {
      held: async (lease) => {
        const legacy = legacyGrantOf(lease.payload);
        const held = await this.#commands.settleReceiverFence(
          this.#event(lease.eventId),
          this.#key('access'),
          lease.eventId,
          lease.token,
          legacy ? accessField(legacy.userId, legacy.entitlement) : '',
          legacy?.expiresAt ?? 0,
        );
        return held === 1;
      },
      markProcessed: async (lease) => {
        const completed = await this.#commands.settleReceiverComplete(
          this.#event(lease.eventId),
          this.#key('available'),
          this.#key('states'),
          lease.eventId,
          lease.token,
          now,
        );
        return completed === 1;
      },
    });
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
    const stored = await this.#client.hget(this.#key('access'), accessField(userId, entitlement));
    return stored === null ? null : new Date(Number(stored.split(':')[0]));
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

/**
 * The access an event gives, read from its stored payload (validated when it was recorded), for
 * an event a kit before 0.2 recorded without applying it; `null` when the payload names none.
 */
function legacyGrantOf(payload: JsonObject): AccessGrant | null {
  const { user_id: userId, entitlement, expires_at: expiresAt } = payload;
  if (typeof userId !== 'string' || typeof entitlement !== 'string' || typeof expiresAt !== 'string') return null;
  const at = Date.parse(expiresAt);
  return Number.isNaN(at) ? null : { userId, entitlement, expiresAt: at, revision: null };
}

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

import type { JsonObject } from './event.js';

/**
 * Where a recorded event is in its life:
 * - `pending`: recorded, waiting for the processor (first run, or a retry after `nextAttemptAt`);
 * - `processing`: claimed by one processor until `leaseUntil`; after that, claimable again
 *   (the processor that held it crashed or outlived its lease);
 * - `processed`: the expiry was applied and the handlers ran; terminal;
 * - `failed`: the handlers kept failing; waits for {@link ReceiverStore.retry}, never dropped;
 * - `ignored`: an event kind this kit version does not know; recorded, acknowledged, never applied
 *   (a later kit version that knows the kind applies it when it starts: {@link ReceiverStore.adoptIgnored}).
 */
export type EventState = 'pending' | 'processing' | 'processed' | 'failed' | 'ignored';

/** Every {@link EventState}, in life-cycle order. */
export const EVENT_STATES: readonly EventState[] = ['pending', 'processing', 'processed', 'failed', 'ignored'];

interface StoredEventBase {
  readonly eventId: string;
  /** The `event` field of the payload. */
  readonly kind: string;
  /** The payload as received. */
  readonly payload: JsonObject;
  /** Runs started so far (a claim counts as one, even when its process crashed). */
  readonly attempts: number;
  /** The last handler failure, kept through retries until the event is processed. */
  readonly lastError: string | null;
  readonly receivedAt: Date;
}

/** A recorded event, by state, so callers read each state's own fields without assertions. */
export type StoredEvent = StoredEventBase &
  (
    | { readonly state: 'pending'; readonly nextAttemptAt: Date }
    | { readonly state: 'processing'; readonly leaseUntil: Date }
    | { readonly state: 'processed'; readonly processedAt: Date }
    | { readonly state: 'failed'; readonly failedAt: Date; readonly lastError: string }
    | { readonly state: 'ignored' }
  );

/** A failed event, as {@link ReceiverStore.listFailed} returns it. */
export type FailedEvent = Extract<StoredEvent, { state: 'failed' }>;

/**
 * An event claimed by one processor. `token` fences the claim: completing or releasing with a
 * token that is no longer the event's (the lease ran out and another processor claimed it) does
 * nothing.
 */
export interface LeasedEvent {
  readonly eventId: string;
  readonly kind: string;
  readonly payload: JsonObject;
  /** This run's number, 1 for the first. */
  readonly attempts: number;
  readonly token: string;
}

/**
 * Access to set when an event is recorded, if it supersedes the stored one (receiver rule 4: the
 * highest revision wins; see `supersedes` in access-rule.ts).
 */
export interface AccessGrant {
  readonly userId: string;
  readonly entitlement: string;
  /** Milliseconds since the epoch. */
  readonly expiresAt: number;
  /** The event's revision in its entitlement stream; `null` for an event sent before revisions existed. */
  readonly revision: number | null;
}

/**
 * What became of one claimed event in {@link ReceiverStore.completeBatch}: `processed`; `lost` when
 * its claim's token was no longer the event's (its lease ran out and another processor claimed
 * it), so nothing ran; `failed` with what its work threw, the event still `processing`.
 */
export type Completion = { readonly outcome: 'processed' } | { readonly outcome: 'lost' } | { readonly outcome: 'failed'; readonly error: unknown };

/** The outcome of {@link ReceiverStore.retry}. */
export type RetryOutcome = 'retried' | 'not_found' | 'not_failed';

/**
 * The durable shared storage of the receiver kit (receiver rule 2): one port,
 * with in-memory, PostgreSQL and Redis adapters passing the same contract suite. Every time is
 * in milliseconds since the epoch and comes from the caller, so processors agree on one clock
 * per call and tests need no fake timers. Methods reject when the storage cannot be reached.
 *
 * `Tx` is what handlers receive to write inside the event's completion: a PostgreSQL client in
 * an open transaction for the PostgreSQL store, `undefined` for the others.
 */
export interface ReceiverStore<Tx = undefined> {
  /**
   * Records an event with a unique insert on its id, before any business logic (rule 2), and,
   * when the event is new, applies its `grant` in the same atomic write (rule 4: the stored
   * expiry for the user and entitlement becomes `grant.expiresAt` only if the grant supersedes
   * the stored access, `supersedes` of access-rule.ts, in one conditional write, never
   * read-then-write). Resolves only once both are durable (as durable as
   * the storage is configured to be), so a 2xx answer means the user has the access: it never
   * waits for a handler or for other events. A duplicate changes nothing (its grant was applied
   * with its first record).
   *
   * @param event.state - `pending` for a known kind (due at once), `ignored` for an unknown one.
   * @param event.grant - the access the event gives; `null` for an event that gives none (an
   *   ignored kind).
   * @returns `recorded`, or `duplicate` when the id is already recorded (nothing changes).
   */
  record(event: {
    eventId: string;
    kind: string;
    payload: JsonObject;
    state: 'pending' | 'ignored';
    grant: AccessGrant | null;
    now: number;
  }): Promise<'recorded' | 'duplicate'>;

  /**
   * Atomically claims up to `limit` events that are `pending` and due (`nextAttemptAt <= now`) or
   * `processing` with an expired lease, oldest first: each moves to `processing` until
   * `now + leaseMs`, with its attempts incremented and a fresh token. Two concurrent claims never
   * return the same event.
   */
  claim(request: { now: number; leaseMs: number; limit: number }): Promise<LeasedEvent[]>;

  /**
   * Completes a claimed batch, in the order given: for each event still held by its claim, runs
   * `work` (its handlers) and marks it `processed`. The access was applied when each event was
   * recorded; completing neither applies nor holds it, so a slow handler delays no one's access.
   * The PostgreSQL store completes the whole batch in one transaction (one commit for the batch,
   * not one per event), each event's `work` behind its own savepoint: `work`'s writes through `tx`
   * commit with that event's processed mark, or roll back alone when it throws. The other stores
   * complete event after event.
   *
   * @returns one {@link Completion} per lease, in the order of `leases`: `processed`; `lost`, having
   *   run nothing, when the claim's token is no longer the event's; `failed` with what `work`
   *   threw (the event still `processing`: release it).
   * @throws a storage error when the batch could not be completed (with the PostgreSQL store,
   *   nothing of it committed: every event still `processing`, release them all).
   */
  completeBatch(leases: readonly LeasedEvent[], request: { now: number }, work: (lease: LeasedEvent, tx: Tx) => Promise<void>): Promise<Completion[]>;

  /**
   * Gives a claimed event back after a failure: `pending` again, due at `retryAt`, or `failed`
   * when `retryAt` is null. `error` is kept as `lastError`.
   *
   * @returns `false` when the claim's token is no longer the event's (nothing changes).
   */
  release(lease: LeasedEvent, request: { now: number; error: string; retryAt: number | null }): Promise<boolean>;

  /** Makes a `failed` event `pending` and due at `now`, with a fresh attempt budget. */
  retry(eventId: string, now: number): Promise<RetryOutcome>;

  /** The recorded event, or null. */
  find(eventId: string): Promise<StoredEvent | null>;

  /** Failed events, most recently failed first. */
  listFailed(limit: number): Promise<FailedEvent[]>;

  /** The stored access expiry of a user's entitlement, or null when none was granted. */
  accessExpiry(userId: string, entitlement: string): Promise<Date | null>;

  /**
   * The upgrade step of a kit that applies more event kinds than the kit before it: every event
   * recorded as `ignored` whose kind is now in `kinds` and whose payload `grantOf` accepts is
   * applied as if recorded now (its access by the same conditional write as
   * {@link ReceiverStore.record}, and `pending`, due at `now`, so its handler runs), atomically
   * per event; the others stay ignored. Without it, an event an older kit acknowledged as
   * ignored (a `subscription_revoked`) would never be applied: its id is already recorded.
   * First, access an older kit stored from an event that carried a revision (0.2 applied such
   * events by the later expiry and kept no revision) gets that event's revision, so the rule reads
   * it right. Idempotent; the Receiver runs it when it starts.
   *
   * @param grantOf - the access of a payload, or `null` when it is not a valid event of its kind.
   * @returns how many events were applied.
   */
  adoptIgnored(request: { kinds: readonly string[]; grantOf: (kind: string, payload: JsonObject) => AccessGrant | null; now: number }): Promise<number>;

  /** How many recorded events are in each state. */
  counts(): Promise<Record<EventState, number>>;

  /**
   * Resolves once the storage is known to keep what it acknowledges; rejects, saying what to
   * change, when it is not (the Redis store checks its server's persistence: README, "Redis").
   * Optional: a store without such a check is ready once constructed.
   */
  ready?(): Promise<void>;
}

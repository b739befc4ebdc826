import { setTimeout as pause } from 'node:timers/promises';
import { ENTITLEMENT_EVENT_KINDS, parseEvent, type EntitlementEvent, type EntitlementEventKind, type FieldError, type JsonObject } from './event.js';
import { PROBLEM_JSON, problem, type ProblemDetails, type ReceiverProblemCode } from './problem.js';
import { ReceiverConfigError } from './errors.js';
import { SignatureVerifier, type HeadersLike } from './signature.js';
import type { AccessGrant, Completion, EventState, FailedEvent, LeasedEvent, ReceiverStore, RetryOutcome, StoredEvent } from './store.port.js';

/** What a handler receives beside the event. */
export interface EventHandlerContext<Tx> {
  /**
   * The store's transaction: for the PostgreSQL store, a client inside the transaction that also
   * marks the event processed, so writes made through it happen exactly once (and roll back when
   * the handler throws); `undefined` for the in-memory and Redis stores. Do not commit, roll back
   * or release it.
   */
  readonly tx: Tx;
  /** This run's number, 1 for the first; higher on retries. */
  readonly attempt: number;
}

/**
 * The customer's business logic for one event kind. It runs outside the HTTP request, after the
 * access expiry was applied (with the event's record, before the 200 answer). Throwing makes the run fail: it is retried with backoff,
 * then the event is left `failed` (receiver rule 5); the expiry stays applied either way, so a
 * user who paid is never locked out by failing business logic. Side effects outside `tx` happen
 * at least once: make them idempotent by `event.event_id`.
 */
export type EventHandler<Tx> = (event: EntitlementEvent, context: EventHandlerContext<Tx>) => Promise<void> | void;

/** A pino-compatible logger (`logger.warn(fields, message)`); the kit never passes it a secret. */
export interface ReceiverLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Options of {@link createReceiver}. Every duration is in milliseconds. */
export interface ReceiverOptions<Tx> {
  /** Endpoint secrets, `whsec_` + base64; several during a rotation (each is tried). */
  readonly secrets: readonly string[];
  /** Durable shared storage (receiver rule 2): `PostgresReceiverStore` or `RedisReceiverStore` in production, `MemoryReceiverStore` in tests. */
  readonly store: ReceiverStore<Tx>;
  /** Business logic per event kind; a kind without a handler only gets its expiry applied. */
  readonly handlers?: { readonly [K in EntitlementEventKind]?: EventHandler<Tx> };
  readonly retry?: {
    /** Runs of a failing event before it is left `failed`. Default 8. */
    readonly maxAttempts?: number;
    /** Wait before the second run; doubles on each failure. Default 1000. */
    readonly initialDelayMs?: number;
    /** Longest wait between two runs. Default 300000 (5 min). */
    readonly maxDelayMs?: number;
  };
  readonly processor?: {
    /** Longest sleep between two looks for due events while there is work (a new event wakes the processor, which claims `lingerMs` later). Default 1000. */
    readonly pollIntervalMs?: number;
    /**
     * Longest sleep of an idle processor: each look that finds nothing doubles the sleep from
     * `pollIntervalMs` up to this, and a look that finds events brings it back. A new event and a
     * retry this process scheduled wake it whatever the sleep, so the back-off delays only events
     * another process recorded and left (it crashed: they are claimable after their lease, then
     * at most this much later). Default 30000 (at least `pollIntervalMs`).
     */
    readonly idlePollMaxMs?: number;
    /** How long a claim holds an event; a crashed processor's events are claimable after it. Default 60000. */
    readonly leaseMs?: number;
    /**
     * Most events claimed, and completed together, per claim: a batch grows with the backlog up
     * to this. The PostgreSQL store completes a batch in one transaction on one connection (one
     * commit per batch), running the events' handlers one after another, each behind its own
     * savepoint; so a slow handler delays the rest of its batch (lower this, or run more
     * processes, when handlers call slow services). A handler's writes become visible, and the
     * row locks it takes are held, until its whole batch commits. Default 16; at most 64
     * (PostgreSQL keeps 64 subtransactions of a transaction in shared memory, more slow every
     * session down; handlers that open savepoints of their own add theirs: lower it then).
     */
    readonly batchSize?: number;
    /**
     * How long the processor waits, once woken by a new event (or a retry falling due), before
     * it claims, so that the events arriving meanwhile are completed in the same batch and
     * transaction. It delays business logic only: access was applied with the record, before
     * the 200. Only a processor woken from its sleep waits: one still working through a backlog
     * claims its next batch at once, and so does a poll. Default 50; 0 claims at once.
     */
    readonly lingerMs?: number;
  };
  /**
   * Longest wait, in milliseconds, for the store to record an event before answering 503 (so
   * Settle delivers it again). Default 1500: well under 2 s, the low end of the spec's "providers
   * commonly retry when a response takes longer than 2 to 5 seconds" (docs/spec.md, section 6,
   * receiver rule 4). Settle's dispatcher gives up an attempt after its per-attempt time-out (10 s by default,
   * `DISPATCHER_ATTEMPT_TIMEOUT_MS`) and retries it later.
   */
  readonly recordTimeoutMs?: number;
  /** Defaults to warnings and errors on the console. */
  readonly logger?: ReceiverLogger;
  /**
   * Called once per delivery answered by {@link Receiver.receive}, with its status and how long
   * the kit took, in milliseconds, from the raw body in hand to the answer ready (signature
   * check, parsing, the durable record): for a metrics histogram. Must not throw.
   */
  readonly observe?: (answer: AnswerObservation) => void;
  /** Milliseconds since the epoch; for tests. Default `Date.now`. */
  readonly clock?: () => number;
}

/** One answered delivery, for {@link ReceiverOptions.observe}. */
export interface AnswerObservation {
  readonly status: number;
  /** `recorded`, `duplicate`, `ignored` (unknown kind), or the problem code of a refusal. */
  readonly outcome: 'recorded' | 'duplicate' | 'ignored' | ReceiverProblemCode;
  /** milliseconds */
  readonly durationMs: number;
}

/** What the HTTP adapters need of a {@link Receiver}, whatever its transaction type. */
export type WebhookReceiver = Pick<Receiver<unknown>, 'receive'>;

/** The acknowledgment of a delivery (200). */
export interface Acknowledgement {
  readonly received: true;
  /** The event_id was already recorded; nothing was done again. */
  readonly duplicate?: true;
  /** An event kind this kit version does not apply; recorded as `ignored`. */
  readonly ignored?: true;
}

/** An HTTP answer, framework-free: adapters write `status`, `headers` and `JSON.stringify(body)`. */
export type ReceiveResult =
  | { readonly status: 200; readonly headers: Readonly<Record<string, string>>; readonly body: Acknowledgement }
  | { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: ProblemDetails };

const consoleLogger: ReceiverLogger = {
  info: () => undefined,
  warn: (fields, message) => console.warn(`[settle-receiver] ${message}`, fields),
  error: (fields, message) => console.error(`[settle-receiver] ${message}`, fields),
};

const MAX_ERROR_LENGTH = 2000;

/** The answer for a problem code, ready for any adapter. */
export function problemResult(code: ReceiverProblemCode, detail?: string, errors?: readonly FieldError[]): ReceiveResult {
  const body = problem(code, detail, errors);
  return { status: body.status, headers: { 'content-type': PROBLEM_JSON }, body };
}

const ack = (body: Acknowledgement): ReceiveResult => ({ status: 200, headers: { 'content-type': 'application/json' }, body });

/** The access an event gives (receiver rule 4): its user's entitlement until its `expires_at`. */
/** The access an event gives: its expiry, under its revision (`null` for an event sent before revisions existed). */
const grantOf = (event: EntitlementEvent): AccessGrant => ({
  userId: event.user_id,
  entitlement: event.entitlement,
  expiresAt: Date.parse(event.expires_at),
  revision: typeof event.revision === 'number' ? event.revision : null,
});

/** The access of a stored payload of a kind this kit applies, or `null` when it is not a valid event of its kind. */
function storedGrantOf(kind: string, payload: JsonObject): AccessGrant | null {
  const parsed = parseEvent(payload);
  return parsed.kind === 'entitlement' && parsed.event.event === kind ? grantOf(parsed.event) : null;
}

function positive(name: string, value: number | undefined, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  const result = value ?? fallback;
  if (!Number.isInteger(result) || result < min) throw new ReceiverConfigError(`${name} must be an integer of at least ${min}`);
  if (result > max) throw new ReceiverConfigError(`${name} must be at most ${max}`);
  return result;
}

function describe(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  promise.catch(() => undefined); // a late rejection after the time-out is not unhandled
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The receiving side of Settle's entitlement webhooks, framework-free. {@link Receiver.receive}
 * answers a delivery in the order of the receiver rules (docs/spec.md, section 6); the processor
 * ({@link Receiver.start}) applies recorded events asynchronously. Create it with
 * {@link createReceiver}; plug it into HTTP with {@link createNodeHandler} or the NestJS module.
 */
export class Receiver<Tx = undefined> {
  readonly #verifier: SignatureVerifier;
  readonly #store: ReceiverStore<Tx>;
  readonly #handlers: ReceiverOptions<Tx>['handlers'];
  readonly #maxAttempts: number;
  readonly #initialDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #pollIntervalMs: number;
  readonly #idlePollMaxMs: number;
  readonly #leaseMs: number;
  readonly #batchSize: number;
  readonly #lingerMs: number;
  readonly #recordTimeoutMs: number;
  readonly #logger: ReceiverLogger;
  readonly #observe: ((answer: AnswerObservation) => void) | undefined;
  readonly #clock: () => number;
  #abort: AbortController | null = null;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #woken = false;
  #retryTimer: NodeJS.Timeout | undefined;
  #retryTimerAt = Infinity;
  /** Whether this instance applied the events an older kit recorded as ignored (once, before its first claim). */
  #adopted = false;

  /** @throws {@link ReceiverConfigError} for missing or invalid secrets or an option out of range. */
  constructor(options: ReceiverOptions<Tx>) {
    this.#verifier = new SignatureVerifier(options.secrets);
    if (!options.store) throw new ReceiverConfigError('store is required');
    this.#store = options.store;
    this.#handlers = options.handlers ?? {};
    this.#maxAttempts = positive('retry.maxAttempts', options.retry?.maxAttempts, 8);
    this.#initialDelayMs = positive('retry.initialDelayMs', options.retry?.initialDelayMs, 1000, 0);
    this.#maxDelayMs = positive('retry.maxDelayMs', options.retry?.maxDelayMs, 300_000, 0);
    this.#pollIntervalMs = positive('processor.pollIntervalMs', options.processor?.pollIntervalMs, 1000);
    this.#idlePollMaxMs = positive('processor.idlePollMaxMs', options.processor?.idlePollMaxMs, Math.max(30_000, this.#pollIntervalMs), this.#pollIntervalMs);
    this.#leaseMs = positive('processor.leaseMs', options.processor?.leaseMs, 60_000);
    this.#batchSize = positive('processor.batchSize', options.processor?.batchSize, 16, 1, 64);
    this.#lingerMs = positive('processor.lingerMs', options.processor?.lingerMs, 50, 0);
    this.#recordTimeoutMs = positive('recordTimeoutMs', options.recordTimeoutMs, 1500);
    this.#logger = options.logger ?? consoleLogger;
    this.#observe = options.observe;
    this.#clock = options.clock ?? Date.now;
  }

  /**
   * Answers one delivery, applying the receiver rules in order:
   * 1. verifies the signature on the raw bytes before parsing (401 `RECEIVER.SIGNATURE_INVALID`,
   *    nothing recorded), then parses and validates the event (400 `RECEIVER.PAYLOAD_INVALID`);
   * 2. records the event_id with a unique insert before any business logic, and in the same
   *    atomic write sets the access expiry of (user_id, entitlement) to the event's `expires_at`
   *    when later than the stored one (rule 4), so that access never waits for a handler;
   * 3. answers 200 `{ received: true }` at once, or `{ received: true, duplicate: true }` for an
   *    event_id already recorded (skipped); 503 `RECEIVER.STORE_UNAVAILABLE` when the record did
   *    not become durable within `recordTimeoutMs`, so Settle retries. Never 200 before that.
   * Business logic (rule 5) runs later, in the processor. Never throws.
   *
   * @param rawBody - the request body exactly as received (not re-serialized JSON).
   * @param headers - the request headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
   */
  async receive(rawBody: Buffer | Uint8Array | string, headers: HeadersLike): Promise<ReceiveResult> {
    if (!this.#observe) return this.#receive(rawBody, headers);
    const started = performance.now();
    const result = await this.#receive(rawBody, headers);
    const body = result.body;
    const outcome = 'code' in body ? body.code : body.duplicate ? 'duplicate' : body.ignored ? 'ignored' : 'recorded';
    this.#observe({ status: result.status, outcome, durationMs: performance.now() - started });
    return result;
  }

  async #receive(rawBody: Buffer | Uint8Array | string, headers: HeadersLike): Promise<ReceiveResult> {
    const raw = typeof rawBody === 'string' || Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
    const check = this.#verifier.verify(raw, headers);
    if (!check.ok) {
      this.#logger.warn({ reason: check.detail }, 'webhook refused: signature invalid');
      return problemResult('RECEIVER.SIGNATURE_INVALID', check.detail);
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString());
    } catch {
      return problemResult('RECEIVER.PAYLOAD_INVALID', 'the body is not JSON');
    }
    const parsed = parseEvent(body);
    if (parsed.kind === 'invalid') {
      return problemResult('RECEIVER.PAYLOAD_INVALID', 'the body is not an event of the contract', parsed.errors);
    }
    const eventId = parsed.kind === 'entitlement' ? parsed.event.event_id : parsed.eventId;
    if (eventId !== check.webhookId) {
      return problemResult('RECEIVER.PAYLOAD_INVALID', 'event_id differs from the webhook-id header', [
        { path: 'event_id', message: 'must equal the webhook-id header' },
      ]);
    }
    const kind = parsed.kind === 'entitlement' ? parsed.event.event : parsed.event;
    let outcome: 'recorded' | 'duplicate';
    try {
      const state = parsed.kind === 'entitlement' ? 'pending' : 'ignored';
      // Rule 4 at record time: the access is durable with the record, before the 200.
      const grant = parsed.kind === 'entitlement' ? grantOf(parsed.event) : null;
      outcome = await withTimeout(this.#store.record({ eventId, kind, payload: parsed.payload, state, grant, now: this.#clock() }), this.#recordTimeoutMs);
    } catch (error) {
      this.#logger.error({ eventId, kind, error: describe(error) }, 'webhook not recorded: store unavailable, answering 503');
      return problemResult('RECEIVER.STORE_UNAVAILABLE', 'the event could not be recorded; deliver it again later');
    }
    if (outcome === 'duplicate') {
      this.#logger.info({ eventId, kind }, 'webhook duplicate: already recorded, skipped');
      return ack({ received: true, duplicate: true });
    }
    if (parsed.kind === 'unknown') {
      this.#logger.warn({ eventId, kind }, 'webhook of an unknown event kind: recorded as ignored');
      return ack({ received: true, ignored: true });
    }
    this.#logger.info({ eventId, kind }, 'webhook recorded');
    this.#wakeUp();
    return ack({ received: true });
  }

  /**
   * Starts the processor loop in this process: it claims due events with a lease (so processes
   * sharing a store never run one event twice at once, and events of a crashed process are
   * claimed again after `leaseMs`) and processes each (see {@link Receiver.processDue}). Looks
   * `lingerMs` after a new event or after a retry it scheduled falls due (the events arriving
   * meanwhile join the batch), and otherwise every `pollIntervalMs`, backing off to
   * `idlePollMaxMs` while looks find nothing; backs off while the store is unreachable.
   * Calling it again while running does nothing.
   */
  start(): void {
    if (this.#loop) return;
    const abort = new AbortController();
    this.#abort = abort;
    this.#loop = this.#run(abort.signal);
  }

  /** Stops the processor loop (between two batches) and resolves once the runs in progress have finished. */
  async stop(): Promise<void> {
    this.#abort?.abort();
    clearTimeout(this.#retryTimer);
    this.#retryTimerAt = Infinity;
    await this.#loop;
    this.#loop = null;
    this.#abort = null;
  }

  /**
   * Claims and processes every due event now, batch after batch, until a claim finds none
   * (a retry due at once is run again in the same call); the loop of
   * {@link Receiver.start} calls it, and a deployment that processes elsewhere (a cron job, a
   * worker) can too. Per event (receiver rule 5): runs the kind's handler and marks the event
   * processed (its access expiry was applied when it was recorded). A failing run is retried
   * after `initialDelayMs`, doubling up to `maxDelayMs`, then left `failed` after `maxAttempts`
   * runs with its last error; the access stays as recorded throughout.
   *
   * @returns how many events were claimed.
   * @throws a storage error when events cannot be claimed (failures of single events are not thrown).
   */
  processDue(): Promise<number> {
    return this.#drain();
  }

  /** Failed events, most recently failed first, with their last error (receiver rule 5). */
  listFailed(limit = 100): Promise<FailedEvent[]> {
    return this.#store.listFailed(limit);
  }

  /**
   * Gives a failed event a fresh attempt budget and makes it due now; the processor picks it up
   * (receiver rule 5).
   *
   * @returns `retried`, `not_found` (no such event_id), or `not_failed` (it is in another state).
   */
  async retry(eventId: string): Promise<RetryOutcome> {
    const outcome = await this.#store.retry(eventId, this.#clock());
    if (outcome === 'retried') {
      this.#logger.info({ eventId }, 'failed event retried');
      this.#wakeUp();
    }
    return outcome;
  }

  /** The recorded event, or null. */
  find(eventId: string): Promise<StoredEvent | null> {
    return this.#store.find(eventId);
  }

  /**
   * The user's access expiry for the entitlement (receiver rule 4), or null when none was
   * granted: the `expires_at` of the highest revision among the events answered 200, processed
   * or not (for events without a revision, the latest `expires_at`).
   */
  accessExpiry(userId: string, entitlement: string): Promise<Date | null> {
    return this.#store.accessExpiry(userId, entitlement);
  }

  /** How many recorded events are in each state. */
  counts(): Promise<Record<EventState, number>> {
    return this.#store.counts();
  }

  /**
   * Resolves once the store is known to keep what it acknowledges (the Redis store checks its
   * server's persistence; the others are ready once built): call it at startup to fail there
   * rather than answer 503 to every delivery.
   *
   * @throws {@link ReceiverStoreNotDurableError} when the store says it is not; a storage error
   *   when it cannot be reached.
   */
  async ready(): Promise<void> {
    await this.#store.ready?.();
  }

  /**
   * Batch after batch until a claim finds nothing, or `signal` aborts between two batches. Before
   * the first claim of this instance, the events an older kit recorded as ignored and this one
   * applies (a `subscription_revoked` a 0.2 kit acknowledged) get their access and become due
   * (`ReceiverStore.adoptIgnored`, README "Upgrading").
   */
  async #drain(signal?: AbortSignal): Promise<number> {
    if (!this.#adopted) {
      const adopted = await this.#store.adoptIgnored({ kinds: ENTITLEMENT_EVENT_KINDS, grantOf: storedGrantOf, now: this.#clock() });
      if (adopted > 0) this.#logger.info({ adopted }, 'events an older kit recorded as ignored are applied now');
      this.#adopted = true;
    }
    let total = 0;
    while (!signal?.aborted) {
      // Whatever was recorded before this claim, it sees: only a wake-up after it is news.
      this.#woken = false;
      const leases = await this.#store.claim({ now: this.#clock(), leaseMs: this.#leaseMs, limit: this.#batchSize });
      if (leases.length === 0) break;
      await this.#process(leases);
      total += leases.length;
    }
    return total;
  }

  /**
   * One claimed batch: events this kit cannot apply, and events claimed more than `maxAttempts`
   * times, are left `failed`; the others are completed together ({@link ReceiverStore.completeBatch}:
   * one transaction with the PostgreSQL store), each running its kind's handler. A failed run is
   * released for a retry, or left `failed` after `maxAttempts` runs. A batch that fails as a
   * whole is completed again event by event, so that each event fails only for its own reasons.
   */
  async #process(leases: readonly LeasedEvent[]): Promise<void> {
    const runnable = new Map<string, EntitlementEvent>();
    const refused: Array<Promise<void>> = [];
    for (const lease of leases) {
      const parsed = parseEvent(lease.payload);
      if (parsed.kind !== 'entitlement') {
        refused.push(this.#release(lease, 'not an event kind this version of the kit applies', null));
      } else if (lease.attempts > this.#maxAttempts) {
        // Claimed again and again without finishing: its processes crashed or it outlived leaseMs.
        refused.push(this.#release(lease, `gave up after ${lease.attempts - 1} runs that never finished (a crash, or a run longer than leaseMs)`, null));
      } else {
        runnable.set(lease.eventId, parsed.event);
      }
    }
    await Promise.all(refused);
    const batch = leases.filter((lease) => runnable.has(lease.eventId));
    if (batch.length === 0) return;
    let completions: Completion[];
    try {
      completions = await this.#store.completeBatch(batch, { now: this.#clock() }, async (lease, tx) => {
        const event = runnable.get(lease.eventId)!;
        await this.#handlers?.[event.event]?.(event, { tx, attempt: lease.attempts });
      });
    } catch (error) {
      if (batch.length === 1) {
        await this.#fail(batch[0]!, describe(error));
        return;
      }
      // The batch failed as a whole (the connection lost, or an error only its commit raised,
      // caused by one handler's writes): each event is completed on its own, so that one
      // event's failure is not every event's, each with its own error.
      this.#logger.warn({ events: batch.length, error: describe(error) }, 'batch could not be completed; completing its events one by one');
      for (const lease of batch) await this.#process([lease]);
      return;
    }
    await Promise.all(
      batch.map(async (lease, i) => {
        const completion = completions[i]!;
        const fields = { eventId: lease.eventId, kind: lease.kind, attempt: lease.attempts };
        if (completion.outcome === 'processed') this.#logger.info(fields, 'event processed');
        else if (completion.outcome === 'lost') this.#logger.warn(fields, "event claimed by another processor after this one's lease ran out; left to it");
        else await this.#fail(lease, describe(completion.error));
      }),
    );
  }

  /** Releases a failed run: due again after the backoff, or `failed` after `maxAttempts` runs. */
  #fail(lease: LeasedEvent, error: string): Promise<void> {
    const retryAt = lease.attempts < this.#maxAttempts ? this.#clock() + this.#delay(lease.attempts) : null;
    return this.#release(lease, error, retryAt);
  }

  /**
   * Records a failed run: due again at `retryAt`, or `failed` when null. The store's release is
   * tried three times, 50 and 250 ms apart ({@link RELEASE_PAUSES_MS}): a run fails most often
   * because the store's connection ended, and a database restart ends every pooled connection at
   * once, so the first try of the release often meets another of them. A release the store never took leaves the
   * event to its lease (`leaseMs`). Releasing again is harmless: the store's release matches the
   * lease's token, which the first release that took clears.
   */
  async #release(lease: LeasedEvent, error: string, retryAt: number | null): Promise<void> {
    const fields = { eventId: lease.eventId, kind: lease.kind, attempt: lease.attempts, error };
    for (let attempt = 0; ; attempt += 1) {
      try {
        await this.#store.release(lease, { now: this.#clock(), error, retryAt });
        break;
      } catch (releaseError) {
        const pauseMs = RELEASE_PAUSES_MS[attempt];
        if (pauseMs === undefined) {
          this.#logger.error(
            { ...fields, releaseError: describe(releaseError) },
            'event run failed and could not be released; claimable again when its lease ends',
          );
          return;
        }
        await pause(pauseMs, undefined, { ref: false });
      }
    }
    if (retryAt === null) {
      this.#logger.error(fields, 'event failed: left in state failed until retried');
    } else {
      this.#logger.warn({ ...fields, retryAt: new Date(retryAt).toISOString() }, 'event run failed; will retry');
      this.#wakeUpAt(retryAt);
    }
  }

  #delay(attempts: number): number {
    return Math.min(this.#maxDelayMs, this.#initialDelayMs * 2 ** (attempts - 1));
  }

  async #run(signal: AbortSignal): Promise<void> {
    let failures = 0;
    // The sleep while nothing is due: pollIntervalMs after work, doubled by each look that found nothing.
    let idleWait = this.#pollIntervalMs;
    while (!signal.aborted) {
      let delay: number;
      try {
        const processed = await this.#drain(signal);
        failures = 0;
        idleWait = processed > 0 ? this.#pollIntervalMs : Math.min(this.#idlePollMaxMs, idleWait * 2);
        delay = idleWait;
      } catch (error) {
        failures += 1;
        delay = Math.min(this.#pollIntervalMs * 2 ** failures, 30_000);
        this.#logger.warn({ error: describe(error), retryInMs: delay }, 'processor could not claim events: store unavailable');
      }
      // Woken by work: linger for the events that follow it, so they are completed together.
      if ((await this.#sleep(delay, signal)) && this.#lingerMs > 0) {
        // Wake-ups meanwhile are kept for the next sleep; a stop ends the wait early.
        await pause(this.#lingerMs, undefined, { signal, ref: false }).catch(() => undefined);
      }
    }
  }

  /** Sleeps until woken (`true`), `ms` passed or `signal` aborted (`false`). */
  #sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const done = (woken: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
        this.#wake = null;
        resolve(woken);
      };
      const aborted = () => done(false);
      const timer = setTimeout(() => done(false), ms);
      timer.unref();
      this.#wake = () => done(true);
      signal.addEventListener('abort', aborted, { once: true });
    });
  }

  #wakeUp(): void {
    if (this.#wake) this.#wake();
    else this.#woken = true;
  }

  /** Wakes the running loop when a retry this process scheduled is due, rather than at the next poll. */
  #wakeUpAt(at: number): void {
    if (!this.#loop || at >= this.#retryTimerAt) return;
    clearTimeout(this.#retryTimer);
    this.#retryTimerAt = at;
    const fire = () => {
      // Timers and the wall clock may disagree by a millisecond: wait until the clock says due.
      const early = at - this.#clock();
      if (early > 0) {
        this.#retryTimer = setTimeout(fire, early).unref();
        return;
      }
      this.#retryTimerAt = Infinity;
      this.#wakeUp();
    };
    this.#retryTimer = setTimeout(fire, Math.max(0, at - this.#clock())).unref();
  }
}

/** Pauses between the tries of a failed run's release, milliseconds (`Receiver`'s `#release`). */
const RELEASE_PAUSES_MS = [50, 250] as const;

/**
 * Creates a {@link Receiver}.
 *
 * @throws {@link ReceiverConfigError} for missing or invalid secrets or an option out of range.
 */
export function createReceiver<Tx>(options: ReceiverOptions<Tx>): Receiver<Tx> {
  return new Receiver(options);
}

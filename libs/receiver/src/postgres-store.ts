import { createHash } from 'node:crypto';
import type { Pool, PoolClient, QueryConfig } from 'pg';
import type { JsonObject } from './event.js';
import { ReceiverConfigError } from './errors.js';
import {
  EVENT_STATES,
  type AccessGrant,
  type Completion,
  type EventState,
  type FailedEvent,
  type LeasedEvent,
  type ReceiverStore,
  type RetryOutcome,
  type StoredEvent,
} from './store.port.js';

/** Options of {@link PostgresReceiverStore}. */
export interface PostgresReceiverStoreOptions {
  /** Schema of the kit's tables. Default `settle_receiver`. */
  readonly schema?: string;
  /**
   * Run the statements of every delivery (the record, the processor's claim and completion) as
   * named prepared statements: PostgreSQL parses and plans each once per connection instead of
   * at every call. Default `false`, because a connection pooler in transaction mode that does
   * not keep prepared statements (PgBouncer before 1.21, or without `max_prepared_statements`)
   * may hand a statement to a connection that never prepared it; turn it on for direct
   * connections, session mode, or a pooler that keeps them (README, "Prepared statements").
   */
  readonly preparedStatements?: boolean;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function schemaName(schema: string | undefined): string {
  const name = schema ?? 'settle_receiver';
  if (!SCHEMA_NAME.test(name)) throw new ReceiverConfigError('schema must be a lower-case SQL identifier');
  return name;
}

/**
 * The kit's tables, idempotent (`IF NOT EXISTS`): for customers who apply DDL with their own
 * migration tool; {@link PostgresReceiverStore.migrate} applies the same.
 *
 * - `events`: one row per event_id (primary key: the unique insert of receiver rule 2) with the
 *   payload, `state`, `attempts`, `last_error`, `available_at` (when a pending event is due, or
 *   when a processing event's lease ends), `lease_token` and `finished_at`;
 * - `access`: the access expiry per (user_id, entitlement), with the event that set it and that
 *   event's `revision` (`NULL` when that event carried none; rows a kit before 0.3 wrote get the
 *   revision of their event from {@link receiverRevisionBackfill}).
 *
 * @param schema - default `settle_receiver`.
 * @throws {@link ReceiverConfigError} when `schema` is not a lower-case SQL identifier.
 */
export function receiverDdl(schema?: string): string {
  const s = schemaName(schema);
  return `
CREATE SCHEMA IF NOT EXISTS ${s};
CREATE TABLE IF NOT EXISTS ${s}.events (
  event_id     text PRIMARY KEY,
  kind         text NOT NULL,
  payload      jsonb NOT NULL,
  state        text NOT NULL CHECK (state IN ('pending', 'processing', 'processed', 'failed', 'ignored')),
  attempts     integer NOT NULL DEFAULT 0,
  last_error   text,
  received_at  timestamptz NOT NULL,
  available_at timestamptz,
  lease_token  uuid,
  finished_at  timestamptz,
  CHECK ((state IN ('pending', 'processing')) = (available_at IS NOT NULL)),
  CHECK ((state = 'processing') = (lease_token IS NOT NULL)),
  CHECK ((state IN ('processed', 'failed')) = (finished_at IS NOT NULL))
);
CREATE INDEX IF NOT EXISTS events_claimable ON ${s}.events (available_at) WHERE state IN ('pending', 'processing');
CREATE INDEX IF NOT EXISTS events_failed ON ${s}.events (finished_at DESC) WHERE state = 'failed';
CREATE TABLE IF NOT EXISTS ${s}.access (
  user_id     text NOT NULL,
  entitlement text NOT NULL,
  expires_at  timestamptz NOT NULL,
  event_id    text NOT NULL,
  updated_at  timestamptz NOT NULL,
  revision    bigint,
  PRIMARY KEY (user_id, entitlement)
);
ALTER TABLE ${s}.access ADD COLUMN IF NOT EXISTS revision bigint;`;
}

/**
 * The access of events recorded but not processed by a kit before 0.2, which applied an event's
 * access when it processed it rather than when it recorded it: applied here once, with the same
 * conditional write (receiver rule 4), so that an upgrade loses no one's access. Idempotent (a
 * no-op for events recorded since, whose access was applied with their record); part of
 * {@link PostgresReceiverStore.migrate}, and to run after {@link receiverDdl} with your own
 * migration tool.
 *
 * @throws {@link ReceiverConfigError} when `schema` is not a lower-case SQL identifier.
 */
export function receiverAccessBackfill(schema?: string): string {
  const s = schemaName(schema);
  return `
INSERT INTO ${s}.access AS a (user_id, entitlement, expires_at, event_id, updated_at)
SELECT DISTINCT ON (payload->>'user_id', payload->>'entitlement')
       payload->>'user_id', payload->>'entitlement', (payload->>'expires_at')::timestamptz, event_id, now()
FROM ${s}.events
WHERE state IN ('pending', 'processing') AND kind IN ('subscription_started', 'subscription_renewed')
ORDER BY payload->>'user_id', payload->>'entitlement', (payload->>'expires_at')::timestamptz DESC
ON CONFLICT (user_id, entitlement) DO UPDATE
SET expires_at = EXCLUDED.expires_at, event_id = EXCLUDED.event_id, updated_at = EXCLUDED.updated_at
WHERE a.revision IS NULL AND a.expires_at < EXCLUDED.expires_at;`;
}

/**
 * `supersedes` of access-rule.ts as SQL, for an upsert of `access AS a` with `EXCLUDED` the event's
 * access: a revision beats no revision and a lower one; no revision beats only no revision, with a
 * later expiry.
 */
const SUPERSEDES = `(CASE WHEN EXCLUDED.revision IS NULL THEN a.revision IS NULL AND a.expires_at < EXCLUDED.expires_at
            ELSE a.revision IS NULL OR a.revision < EXCLUDED.revision END)`;

/**
 * The revision of access rows a kit before 0.3 stored from an event that carried one (Settle sends
 * a `revision` with every event; 0.2 applied such events by the later expiry and kept no
 * revision): read back from the event that set the row (`access.event_id`), so the revision rule
 * sees them as what they are. Idempotent; part of {@link PostgresReceiverStore.migrate} and of
 * the upgrade step ({@link PostgresReceiverStore.adoptIgnored}), and to run after
 * {@link receiverDdl} with your own migration tool.
 *
 * @throws {@link ReceiverConfigError} when `schema` is not a lower-case SQL identifier.
 */
export function receiverRevisionBackfill(schema?: string): string {
  const s = schemaName(schema);
  return `
UPDATE ${s}.access a
   SET revision = (e.payload->>'revision')::bigint
  FROM ${s}.events e
 WHERE a.revision IS NULL AND e.event_id = a.event_id AND jsonb_typeof(e.payload->'revision') = 'number';`;
}

interface EventRow {
  event_id: string;
  kind: string;
  payload: JsonObject;
  state: EventState;
  attempts: number;
  last_error: string | null;
  received_at: Date;
  available_at: Date | null;
  finished_at: Date | null;
}

/**
 * The PostgreSQL {@link ReceiverStore}, over a `pg` Pool the customer creates (receiver rule 2:
 * durable, shared by every receiver process). Recording an event is one statement: its unique
 * insert and, when new, the conditional upsert of its access expiry (rule 4), so the access
 * commits before the 2xx answer. Claims use `FOR UPDATE SKIP LOCKED`; completing a claimed batch is
 * one transaction that checks the claims (row locks and lease tokens), runs each event's handlers
 * with the transaction's client behind a savepoint of its own, and marks the events processed,
 * so handler writes through that client commit exactly once with their event's mark; a handler
 * that throws has its writes rolled back to its savepoint, and only its event fails. A connection that PostgreSQL ends mid-transaction makes the operation
 * reject (never an uncaught `'error'`), and the pool discards that client.
 *
 * Call {@link PostgresReceiverStore.migrate} once at startup, or apply {@link receiverDdl}.
 */
export class PostgresReceiverStore implements ReceiverStore<PoolClient> {
  readonly #pool: Pool;
  readonly #s: string;
  readonly #prepared: boolean;
  readonly #names = new Map<string, string>();

  /**
   * @param pool - the customer's pool; the store never ends it.
   * @throws {@link ReceiverConfigError} when `options.schema` is not a lower-case SQL identifier.
   */
  constructor(pool: Pool, options: PostgresReceiverStoreOptions = {}) {
    this.#pool = pool;
    this.#s = schemaName(options.schema);
    this.#prepared = options.preparedStatements === true;
  }

  /**
   * A statement of the delivery path as pg's query config: named when the store prepares its
   * statements (`settle_receiver_` and a digest of the text, so one name never stands for two
   * texts on a connection, whatever the schema), unnamed otherwise.
   */
  #statement(text: string, values: unknown[]): QueryConfig<unknown[]> {
    if (!this.#prepared) return { text, values };
    let name = this.#names.get(text);
    if (name === undefined) this.#names.set(text, (name = `settle_receiver_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`));
    return { name, text, values };
  }

  /**
   * Applies {@link receiverDdl}, then {@link receiverAccessBackfill} (the access of events a kit
   * before 0.2 recorded and had not processed yet); safe to run from several processes at once
   * (advisory lock), then {@link receiverRevisionBackfill} (the revision of rows 0.2 stored from
   * events that carried one). Events an older kit recorded as ignored are applied by
   * {@link PostgresReceiverStore.adoptIgnored}, which the Receiver runs when it starts.
   */
  async migrate(): Promise<void> {
    await this.#transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`settle_receiver:${this.#s}`]);
      await client.query(receiverDdl(this.#s));
      await client.query(receiverAccessBackfill(this.#s));
      await client.query(receiverRevisionBackfill(this.#s));
    });
  }

  /**
   * One statement, so one atomic write: the unique insert of the event and, when it is new, the
   * conditional upsert of its access (receiver rules 2 and 4). The upsert locks the access row
   * only for this statement, never for a handler.
   */
  async record(event: { eventId: string; kind: string; payload: JsonObject; state: 'pending' | 'ignored'; grant: AccessGrant | null; now: number }) {
    const now = new Date(event.now);
    const { grant } = event;
    const { rows } = await this.#pool.query<{ recorded: boolean }>(
      this.#statement(
        `WITH recorded AS (
         INSERT INTO ${this.#s}.events (event_id, kind, payload, state, received_at, available_at)
         VALUES ($1, $2, $3::jsonb, $4, $5, $6) ON CONFLICT (event_id) DO NOTHING
         RETURNING event_id),
       granted AS (
         INSERT INTO ${this.#s}.access AS a (user_id, entitlement, expires_at, event_id, updated_at, revision)
         SELECT $7::text, $8::text, $9::timestamptz, event_id, $5, $10::bigint FROM recorded WHERE $7::text IS NOT NULL
         ON CONFLICT (user_id, entitlement) DO UPDATE
         SET expires_at = EXCLUDED.expires_at, event_id = EXCLUDED.event_id, updated_at = EXCLUDED.updated_at, revision = EXCLUDED.revision
         WHERE ${SUPERSEDES})
       SELECT EXISTS (SELECT 1 FROM recorded) AS recorded`,
        [
          event.eventId,
          event.kind,
          JSON.stringify(event.payload),
          event.state,
          now,
          event.state === 'pending' ? now : null,
          grant?.userId ?? null,
          grant?.entitlement ?? null,
          grant ? new Date(grant.expiresAt) : null,
          grant?.revision ?? null,
        ],
      ),
    );
    return rows[0]!.recorded ? ('recorded' as const) : ('duplicate' as const);
  }

  /**
   * One transaction: the ignored events of `kinds` are read (locked), and each one `grantOf`
   * accepts gets its access by the conditional write of {@link PostgresReceiverStore.record} and
   * becomes `pending`, due at `now`.
   */
  async adoptIgnored({ kinds, grantOf, now }: { kinds: readonly string[]; grantOf: (kind: string, payload: JsonObject) => AccessGrant | null; now: number }) {
    if (kinds.length === 0) return 0;
    return this.#transaction(async (client) => {
      // Rows an older kit stored meanwhile from events that carried a revision get it first.
      await client.query(receiverRevisionBackfill(this.#s));
      const { rows } = await client.query<{ event_id: string; kind: string; payload: JsonObject }>(
        `SELECT event_id, kind, payload FROM ${this.#s}.events WHERE state = 'ignored' AND kind = ANY ($1::text[]) ORDER BY received_at FOR UPDATE`,
        [[...kinds]],
      );
      const adopted = rows.flatMap((row) => {
        const grant = grantOf(row.kind, row.payload);
        return grant ? [{ eventId: row.event_id, grant }] : [];
      });
      if (adopted.length === 0) return 0;
      const at = new Date(now);
      for (const { eventId, grant } of adopted) {
        await client.query(
          `INSERT INTO ${this.#s}.access AS a (user_id, entitlement, expires_at, event_id, updated_at, revision)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (user_id, entitlement) DO UPDATE
           SET expires_at = EXCLUDED.expires_at, event_id = EXCLUDED.event_id, updated_at = EXCLUDED.updated_at, revision = EXCLUDED.revision
           WHERE ${SUPERSEDES}`,
          [grant.userId, grant.entitlement, new Date(grant.expiresAt), eventId, at, grant.revision],
        );
      }
      await client.query(`UPDATE ${this.#s}.events SET state = 'pending', available_at = $2 WHERE event_id = ANY ($1::text[])`, [
        adopted.map((a) => a.eventId),
        at,
      ]);
      return adopted.length;
    });
  }

  async claim({ now, leaseMs, limit }: { now: number; leaseMs: number; limit: number }): Promise<LeasedEvent[]> {
    const { rows } = await this.#pool.query<{ event_id: string; kind: string; payload: JsonObject; attempts: number; lease_token: string }>(
      this.#statement(
        `WITH next AS (
         SELECT event_id FROM ${this.#s}.events
         WHERE state IN ('pending', 'processing') AND available_at <= $1
         ORDER BY available_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       UPDATE ${this.#s}.events e
       SET state = 'processing', attempts = e.attempts + 1, available_at = $2, lease_token = gen_random_uuid()
       FROM next WHERE e.event_id = next.event_id
       RETURNING e.event_id, e.kind, e.payload, e.attempts, e.lease_token`,
        [new Date(now), new Date(now + leaseMs), limit],
      ),
    );
    return rows.map((r) => ({ eventId: r.event_id, kind: r.kind, payload: r.payload, attempts: r.attempts, token: r.lease_token }));
  }

  /**
   * One transaction for the whole batch: locks the events the claims still hold (one statement:
   * row locks and lease tokens), then, event after event, sets a savepoint, runs `work` with the
   * transaction's client and releases the savepoint; marks every event whose work succeeded
   * processed (one statement) and commits once. The access was applied when each event was
   * recorded: this transaction neither touches nor locks it, so a slow handler holds up no one's
   * access; the locked event rows keep other processors' claims off the batch until it commits.
   * When `work` throws (or leaves the transaction aborted, so that releasing its savepoint fails),
   * its writes roll back to its savepoint and its event is `failed`, still `processing`, for the
   * receiver to release it for a retry; the rest of the batch goes on.
   *
   * PostgreSQL keeps up to 64 subtransactions of a transaction in shared memory; more slow down
   * every session's snapshots while it is open. A batch uses one per event whose work writes,
   * plus the savepoints handlers open themselves (nested transactions of an ORM): the receiver's
   * `processor.batchSize` is at most 64, and lower with such handlers. A handler's writes become
   * visible, and its row locks are released, when the whole batch commits.
   *
   * @returns one {@link Completion} per lease, in order (`lost`, having run nothing, when the
   *   claim's token is no longer the event's).
   * @throws a `pg` error when PostgreSQL fails or ends the connection (nothing committed), or
   *   when rolling back to a savepoint fails (then what `work` threw).
   */
  async completeBatch(leases: readonly LeasedEvent[], { now }: { now: number }, work: (lease: LeasedEvent, tx: PoolClient) => Promise<void>) {
    if (leases.length === 0) return [];
    return this.#transaction(async (client): Promise<Completion[]> => {
      const { rows } = await client.query<{ event_id: string }>(
        this.#statement(
          `SELECT e.event_id FROM ${this.#s}.events e
         JOIN unnest($1::text[], $2::uuid[]) AS claim (event_id, token) ON e.event_id = claim.event_id AND e.lease_token = claim.token
         WHERE e.state = 'processing' FOR UPDATE OF e`,
          [leases.map((lease) => lease.eventId), leases.map((lease) => lease.token)],
        ),
      );
      const held = new Set(rows.map((row) => row.event_id));
      const completions: Completion[] = [];
      const processed: string[] = [];
      for (const lease of leases) {
        if (!held.has(lease.eventId)) {
          completions.push({ outcome: 'lost' });
          continue;
        }
        await client.query('SAVEPOINT settle_receiver_work');
        try {
          await work(lease, client);
          // Fails when the handler left the transaction aborted (a SQL error it caught).
          await client.query('RELEASE SAVEPOINT settle_receiver_work');
        } catch (error) {
          // Undo this handler's writes. If the rollback itself fails (the connection broke), the
          // whole transaction rolls back and this error, the cause, is what the receiver records.
          await client.query('ROLLBACK TO SAVEPOINT settle_receiver_work; RELEASE SAVEPOINT settle_receiver_work').catch(() => {
            throw error;
          });
          completions.push({ outcome: 'failed', error });
          continue;
        }
        processed.push(lease.eventId);
        completions.push({ outcome: 'processed' });
      }
      if (processed.length > 0) {
        await client.query(
          this.#statement(
            `UPDATE ${this.#s}.events SET state = 'processed', finished_at = $2, available_at = NULL, lease_token = NULL, last_error = NULL
           WHERE event_id = ANY ($1::text[])`,
            [processed, new Date(now)],
          ),
        );
      }
      return completions;
    });
  }

  async release(lease: LeasedEvent, { now, error, retryAt }: { now: number; error: string; retryAt: number | null }) {
    const { rowCount } = await this.#pool.query(
      `UPDATE ${this.#s}.events
       SET state = $3, available_at = $4, finished_at = $5, lease_token = NULL, last_error = $6
       WHERE event_id = $1 AND state = 'processing' AND lease_token = $2`,
      retryAt === null
        ? [lease.eventId, lease.token, 'failed', null, new Date(now), error]
        : [lease.eventId, lease.token, 'pending', new Date(retryAt), null, error],
    );
    return rowCount === 1;
  }

  async retry(eventId: string, now: number): Promise<RetryOutcome> {
    const { rows } = await this.#pool.query<{ retried: boolean }>(
      `WITH retried AS (
         UPDATE ${this.#s}.events SET state = 'pending', available_at = $2, attempts = 0, finished_at = NULL
         WHERE event_id = $1 AND state = 'failed' RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM retried) AS retried FROM ${this.#s}.events WHERE event_id = $1`,
      [eventId, new Date(now)],
    );
    if (rows.length === 0) return 'not_found';
    return rows[0]!.retried ? 'retried' : 'not_failed';
  }

  async find(eventId: string): Promise<StoredEvent | null> {
    const { rows } = await this.#pool.query<EventRow>(`SELECT * FROM ${this.#s}.events WHERE event_id = $1`, [eventId]);
    return rows[0] ? toStoredEvent(rows[0]) : null;
  }

  async listFailed(limit: number): Promise<FailedEvent[]> {
    const { rows } = await this.#pool.query<EventRow>(`SELECT * FROM ${this.#s}.events WHERE state = 'failed' ORDER BY finished_at DESC LIMIT $1`, [limit]);
    return rows.map((row) => toStoredEvent(row) as FailedEvent);
  }

  async accessExpiry(userId: string, entitlement: string): Promise<Date | null> {
    const { rows } = await this.#pool.query<{ expires_at: Date }>(`SELECT expires_at FROM ${this.#s}.access WHERE user_id = $1 AND entitlement = $2`, [
      userId,
      entitlement,
    ]);
    return rows[0]?.expires_at ?? null;
  }

  async counts(): Promise<Record<EventState, number>> {
    const { rows } = await this.#pool.query<{ state: EventState; n: number }>(`SELECT state, count(*)::int AS n FROM ${this.#s}.events GROUP BY state`);
    const counts = Object.fromEntries(EVENT_STATES.map((state) => [state, 0])) as Record<EventState, number>;
    for (const { state, n } of rows) counts[state] = n;
    return counts;
  }

  /**
   * Runs `body` in a transaction on a client checked out of the pool: commits when it resolves,
   * rolls back and rethrows when it rejects.
   *
   * While a client is checked out, pg-pool does not listen to its `'error'` event, and pg emits
   * one when the server ends the connection (a PostgreSQL restart, a failover,
   * `pg_terminate_backend`): with no listener, an uncaught exception that ends the customer's
   * process. So the client gets a listener for as long as it is out; its queries then reject,
   * the operation rejects (the receiver releases the run for a retry; `migrate` rejects), and the
   * client is released with the error, so the pool discards it rather than reusing it. The other
   * methods use `pool.query`, which pg-pool guards the same way itself.
   *
   * @throws what `body` throws, or a `pg` error when the connection fails or PostgreSQL refuses.
   */
  async #transaction<T>(body: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken ??= error;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await body(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      if (!broken) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          broken ??= rollbackError;
        });
      }
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }
}

function toStoredEvent(row: EventRow): StoredEvent {
  const base = {
    eventId: row.event_id,
    kind: row.kind,
    payload: row.payload,
    attempts: row.attempts,
    lastError: row.last_error,
    receivedAt: row.received_at,
  };
  switch (row.state) {
    case 'pending':
      return { ...base, state: row.state, nextAttemptAt: row.available_at! };
    case 'processing':
      return { ...base, state: row.state, leaseUntil: row.available_at! };
    case 'processed':
      return { ...base, state: row.state, processedAt: row.finished_at! };
    case 'failed':
      return { ...base, state: row.state, failedAt: row.finished_at!, lastError: row.last_error ?? '' };
    case 'ignored':
      return { ...base, state: row.state };
    default: {
      const never: never = row.state;
      throw new Error(`unknown state ${String(never)}`);
    }
  }
}

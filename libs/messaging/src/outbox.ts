import type { Producer } from 'kafkajs';
import pg from 'pg';
import { contextOfCarrier, endSpan, SETTLE_SPAN_ATTRIBUTES, traceCarrierOf, traceCarrierOfColumns, type Span, type TraceCarrier } from '@settle/platform';
import type { Logger } from 'pino';
import type { AvroCodec } from './codec.js';
import type { ContractMap, EventType } from './contracts.js';
import { HEADERS } from './headers.js';
import type { MessagingMetrics } from './metrics.js';
import { startSendSpan } from './trace-context.js';
import { topicFor, type Topics } from './topics.js';

/**
 * DDL of an outbox table in the given schema (idempotent). Every row in it is waiting to be
 * published: the relay deletes a row once Kafka acknowledged it. Outboxes made before that
 * kept published rows, marked in a `published_at` column: those rows are deleted and the
 * column (with its partial index) dropped. A row keeps the W3C trace context of the work that
 * wrote it (`traceparent`, `tracestate`; null while tracing is off), for the relay to continue.
 *
 * Each app's outbox lives in the schema it owns and is created by that schema's versioned
 * migrations, which hold these same statements (the first one the table, a later one the trace
 * context columns; checked by `test/migrations.unit.spec.ts`); this function is for tests and
 * tools that need an outbox in a schema of their own.
 */
export function outboxDdl(schema: string): string[] {
  return [
    `CREATE SCHEMA IF NOT EXISTS ${schema}`,
    `CREATE TABLE IF NOT EXISTS ${schema}.outbox (
       id bigserial PRIMARY KEY,
       topic text NOT NULL,
       message_key text NOT NULL,
       event_type text NOT NULL,
       payload jsonb NOT NULL,
       correlation_id text NOT NULL,
       causation_id text,
       created_at timestamptz NOT NULL DEFAULT now()
     )`,
    `DO $$ BEGIN
       IF EXISTS (SELECT 1 FROM information_schema.columns
                   WHERE table_schema = '${schema}' AND table_name = 'outbox' AND column_name = 'published_at') THEN
         DELETE FROM ${schema}.outbox WHERE published_at IS NOT NULL;
         ALTER TABLE ${schema}.outbox DROP COLUMN published_at;
       END IF;
     END $$`,
    `ALTER TABLE ${schema}.outbox ADD COLUMN IF NOT EXISTS traceparent text, ADD COLUMN IF NOT EXISTS tracestate text`,
  ];
}

/** A message waiting in the outbox. */
export interface OutboxMessage<K extends EventType = EventType> {
  type: K;
  payload: ContractMap[K];
  /** Defaults to the payload's event_id. */
  causationId?: string;
  /** Kafka message key; defaults to the payload's `reference` (entitlement events use the user id). */
  key?: string;
  /**
   * The trace context the message continues (the span of the work that caused it); defaults to
   * the context active when it is enqueued (an HTTP request's span, a message handled alone).
   * A batch handler names each message's own (`traceCarrierOf(item.context.trace)`).
   */
  trace?: TraceCarrier | undefined;
}

/** A message as it goes on a Kafka topic, before its payload is Avro-encoded. */
export interface OutgoingRecord {
  topic: string;
  type: EventType;
  key: string;
  headers: Record<string, string>;
  payload: ContractMap[EventType];
}

/**
 * The Kafka headers of a published message: its event type, correlation id and causation id
 * (the event's own id when it has no cause). The outbox relay and `settle ledger republish`
 * both set exactly these, so a republished record carries the original's headers.
 */
export function messageHeaders(type: EventType, correlationId: string, causationId: string): Record<string, string> {
  return { [HEADERS.eventType]: type, [HEADERS.correlationId]: correlationId, [HEADERS.causationId]: causationId };
}

/**
 * The record an outbox message becomes on Kafka: its topic, key (the message's, else the
 * payload's `reference`) and headers, as the relay publishes it from the message's outbox
 * row. Pure; the payload is not checked against its schema here (encoding checks it).
 */
export function outgoingRecordOf(topics: Topics, m: OutboxMessage): OutgoingRecord {
  return {
    topic: topicFor(topics, m.type),
    type: m.type,
    key: m.key ?? m.payload.reference,
    headers: messageHeaders(m.type, m.payload.correlation_id, m.causationId ?? m.payload.event_id),
    payload: m.payload,
  };
}

/**
 * The columns an outbox row is inserted with, in order, as an SQL column list: every writer of
 * an outbox uses it, so the list is written once (`INSERT INTO <schema>.outbox ${OUTBOX_COLUMNS}
 * SELECT ...`), its values in the order of {@link PreparedOutboxRow}: topic, key, event type,
 * payload (JSON), correlation id, causation id, `traceparent`, `tracestate`.
 */
export const OUTBOX_COLUMNS = '(topic, message_key, event_type, payload, correlation_id, causation_id, traceparent, tracestate)';

/**
 * The transactional outbox: a message is written in the same PostgreSQL transaction as the
 * state change that caused it, so it is published if and only if that change committed.
 * {@link OutboxRelay} publishes it to Kafka afterwards (at least once; consumers de-duplicate
 * by event id).
 */
export class Outbox {
  constructor(
    private readonly schema: string,
    private readonly topics: Topics,
    private readonly codec: AvroCodec,
  ) {}

  /**
   * Adds messages inside the caller's transaction, after checking each against its schema.
   *
   * @throws Error when a payload does not match its schema (the caller's transaction fails).
   */
  async enqueue(client: pg.PoolClient, messages: readonly OutboxMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const rows = await Promise.all(messages.map((m) => this.prepare(m)));
    const col = <T>(f: (r: (typeof rows)[number]) => T) => rows.map(f);
    // One statement whatever the count: a sweep of thousands of requests is one round trip.
    await client.query(
      `INSERT INTO ${this.schema}.outbox ${OUTBOX_COLUMNS}
       SELECT t, k, e, p, c, ca, tp, ts
         FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::text[], $6::text[], $7::text[], $8::text[]) WITH ORDINALITY AS m(t, k, e, p, c, ca, tp, ts, n)
       ORDER BY n`,
      [
        col((r) => r.topic),
        col((r) => r.key),
        col((r) => r.type),
        col((r) => r.payload),
        col((r) => r.correlationId),
        col((r) => r.causationId),
        col((r) => r.traceparent),
        col((r) => r.tracestate),
      ],
    );
  }

  /** The outbox table, for callers that write a row inside a single statement of their own (with {@link OUTBOX_COLUMNS}). */
  get table(): string {
    return `${this.schema}.outbox`;
  }

  /**
   * Checks a message against its schema and returns the column values of its outbox row
   * (payload as JSON text; the trace context the message's, else the active one, captured now,
   * before any await), for a caller that inserts it in a statement of its own.
   *
   * @throws Error when the payload does not match its schema.
   */
  async prepare(m: OutboxMessage): Promise<PreparedOutboxRow> {
    const trace = m.trace ?? traceCarrierOf();
    await this.codec.assertValid(m.type, m.payload);
    const { topic, key } = outgoingRecordOf(this.topics, m);
    return {
      topic,
      key,
      type: m.type,
      payload: JSON.stringify(m.payload),
      correlationId: m.payload.correlation_id,
      causationId: m.causationId ?? null,
      traceparent: trace?.traceparent ?? null,
      tracestate: trace?.tracestate ?? null,
    };
  }
}

/** The column values of one outbox row, as {@link Outbox.prepare} gives them. */
export interface PreparedOutboxRow {
  topic: string;
  key: string;
  type: EventType;
  /** JSON text. */
  payload: string;
  correlationId: string;
  causationId: string | null;
  /** W3C trace context of the work that wrote the row; null while tracing is off. */
  traceparent: string | null;
  tracestate: string | null;
}

/** An outbox row as the relay reads it. */
export interface OutboxRow {
  id: number;
  topic: string;
  message_key: string;
  event_type: EventType;
  payload: ContractMap[EventType];
  correlation_id: string;
  causation_id: string | null;
  traceparent: string | null;
  tracestate: string | null;
}

/**
 * The headers the relay publishes an outbox row with: {@link messageHeaders}, plus the W3C
 * trace context of `trace` (the row's `send` span) when tracing is on. Pure.
 */
export function relayHeaders(row: OutboxRow, trace: TraceCarrier | undefined): Record<string, string> {
  const headers = messageHeaders(row.event_type, row.correlation_id, row.causation_id ?? row.payload.event_id);
  if (trace?.traceparent) headers[HEADERS.traceparent] = trace.traceparent;
  if (trace?.tracestate) headers[HEADERS.tracestate] = trace.tracestate;
  return headers;
}

/** How an {@link OutboxRelay} paces itself. */
export interface RelayOptions {
  /** Fallback poll interval when no wake came, milliseconds, while the outbox is busy. */
  pollIntervalMs: number;
  /**
   * Longest fallback poll interval once passes find nothing, milliseconds: each empty pass
   * doubles the interval from `pollIntervalMs` up to this; a wake or a pass that publishes
   * resets it. The poll only catches what no wake announced (a crash between a commit and its
   * wake), so an idle outbox costs a pass every few seconds instead of four a second.
   */
  idlePollIntervalMs: number;
  /**
   * How long a wake waits for company while the outbox is busy (the last pass published),
   * milliseconds: commits arriving meanwhile go in the same pass, one read, one Kafka request and one delete
   * for all. An idle outbox's first wake passes at once, so the linger costs nothing when idle.
   */
  lingerMs: number;
  /** Most rows published per pass (one read, one Kafka request, one delete). */
  batchSize: number;
}

/**
 * Relay pacing unless an app says otherwise: a fallback poll every 250 ms while busy, backing off
 * to 5 s when idle; a 5 ms linger while busy; 500 rows per pass.
 */
export const DEFAULT_RELAY_OPTIONS: Readonly<RelayOptions> = { pollIntervalMs: 250, idlePollIntervalMs: 5_000, lingerMs: 5, batchSize: 500 };

/**
 * Publishes outbox rows to Kafka in id order, in batches, with the idempotent acks-all
 * producer, then deletes them. One relay per outbox publishes at a time across instances: the
 * one whose connection of its own holds the outbox's session-level advisory lock (the leader;
 * the lock goes with the session when the instance or its connection dies, and another
 * instance's next pass takes it). It wakes on {@link OutboxRelay.wake} after a commit, and
 * polls as a fallback, so a crash between commit and publish only delays a message, never
 * loses it. Each record gets a producer span, `send <topic>`, a child of the trace context its
 * row stored, and carries that span's context in its headers ({@link relayHeaders};
 * docs/observability.md, "Traces").
 *
 * A leader's pass is two statements on its connection, no transaction: the read of the next
 * rows (which also measures the backlog's age) and, once Kafka acknowledged them, their
 * delete. Holding the lock across passes, instead of taking a transaction-level lock in a
 * transaction per pass, saves three round trips and a transaction per pass (docs/benchmarks.md,
 * "The relay's leadership"); the session-level lock and the transaction-level one of relays
 * before it exclude each other, so a rolling upgrade never runs two publishers. The connection
 * is opened with the pool's settings but is not one of the pool's: it is held for the relay's
 * life, and must reach PostgreSQL in session mode (not through a transaction-pooling proxy),
 * as the other session locks of Settle do (docs/postgres.md).
 *
 * Every pass, in every instance (the leader or not), also measures the backlog's age: that of
 * the outbox's first row by id, the next one to publish ({@link OutboxRelay.backlogAgeSeconds},
 * reported as `settle_outbox_backlog_age_seconds` when given `metrics`).
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  /** Started and not yet drained by {@link OutboxRelay.stop}. */
  private started = false;
  private active: Promise<void> | null = null;
  private again = false;
  /** The last pass published something (a wake then lingers for company). */
  private busy = false;
  /** The fallback poll interval now, milliseconds: doubles with each empty pass up to `idlePollIntervalMs`. */
  private pollMs: number;
  private readonly options: RelayOptions;
  /** The first row's age at the last measurement (seconds, database clock) and when it was taken (`performance.now()`), `null` when empty. */
  private oldest: { ageSeconds: number; measuredAt: number } | null = null;
  /**
   * The relay's own connection, opened at its first pass and kept; `leads` once its session
   * holds the outbox's advisory lock. Dropped (and the lock with it) when it breaks, and on stop.
   */
  private session: { client: pg.Client; leads: boolean } | null = null;

  /**
   * @param metrics - where the backlog age is reported (under the outbox's schema); none when absent.
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
    private readonly producer: Producer,
    private readonly codec: AvroCodec,
    private readonly logger: Logger,
    options: Partial<RelayOptions> = {},
    metrics?: MessagingMetrics,
  ) {
    this.options = { ...DEFAULT_RELAY_OPTIONS, ...options };
    this.pollMs = this.options.pollIntervalMs;
    metrics?.watchOutbox(schema, () => this.backlogAgeSeconds());
  }

  /**
   * Age of the oldest unpublished row (the first by id), seconds: as the latest pass measured
   * it, plus the time since on this process's clock; 0 when that pass found the outbox empty or
   * published everything it held, and before the first pass. While passes fail (the database
   * unreachable) the last measurement keeps growing.
   */
  backlogAgeSeconds(now: number = performance.now()): number {
    return this.oldest === null ? 0 : this.oldest.ageSeconds + Math.max(0, now - this.oldest.measuredAt) / 1000;
  }

  /** Starts relaying: a pass now, then after each wake and every poll interval. */
  start(): void {
    this.running = true;
    this.started = true;
    this.schedule(0);
  }

  /**
   * Asks for a publish pass (after a commit that enqueued messages): at once when the outbox was
   * idle, after `lingerMs` when the last pass published (more commits are likely on their way).
   */
  wake(): void {
    if (!this.running) return;
    this.pollMs = this.options.pollIntervalMs;
    if (this.active) {
      this.again = true;
      return;
    }
    if (this.lingering) return;
    this.lingering = this.busy && this.options.lingerMs > 0;
    this.schedule(this.lingering ? this.options.lingerMs : 0);
  }

  /** A lingering wake's pass is scheduled: later wakes join it. */
  private lingering = false;

  /**
   * Stops relaying, and flushes: lets a pass in progress finish, then publishes what the outbox
   * still holds (passes until one finds less than a batch, or finds another instance's relay
   * holding the lock), so a graceful shutdown leaves no committed message waiting for the next
   * relay to start. Call it once nothing writes to the outbox any more (after the consumer loops
   * and the HTTP server stopped). A pass that fails ends the flush, logged: its rows stay in the
   * outbox for the next relay, nothing is lost. Unbounded here: the app's shutdown bounds it
   * (`SHUTDOWN_TIMEOUT_MS`).
   */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await this.active;
    if (!this.started) return this.closeSession();
    this.started = false;
    let flushed = 0;
    try {
      for (let published = this.options.batchSize; published === this.options.batchSize; flushed += published) published = await this.pass();
    } catch (error) {
      this.logger.warn({ err: error, outbox: this.schema }, 'outbox not flushed at shutdown; the next relay publishes what it holds');
    }
    await this.closeSession();
    if (flushed > 0) this.logger.info({ outbox: this.schema, published: flushed }, 'outbox flushed at shutdown');
  }

  /** Ends the relay's connection, and its leadership with it (another instance's next pass takes the lock). */
  private async closeSession(): Promise<void> {
    const session = this.session;
    this.session = null;
    await session?.client.end().catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.lingering = false;
      this.active = this.pass()
        .catch((error: unknown) => {
          // Rows stay in order: a row that cannot be published holds those behind it, loudly.
          this.logger.error({ err: error, outbox: this.schema }, 'outbox relay pass failed; will retry');
          return -1;
        })
        .then((published) => {
          this.active = null;
          this.busy = published > 0;
          if (!this.running) return;
          if (published === this.options.batchSize) return this.schedule(0);
          if (this.again) {
            // Woken during the pass: the commits that woke it wait a linger for company, as any wake does.
            this.again = false;
            this.lingering = this.busy && this.options.lingerMs > 0;
            return this.schedule(this.lingering ? this.options.lingerMs : 0);
          }
          if (published < 0) return this.schedule(1_000);
          // Nothing announced: the fallback poll, backing off while passes find nothing (another
          // instance's relay holding the lock over rows counts as busy: the backlog is measured).
          this.pollMs = published > 0 || this.oldest !== null ? this.options.pollIntervalMs : Math.min(this.pollMs * 2, this.options.idlePollIntervalMs);
          this.schedule(this.pollMs);
        });
    }, delayMs);
  }

  /**
   * One pass: publishes up to a batch when this relay leads (taking the lead first when no
   * session holds it), and returns how many were published; 0 when another instance leads.
   * Rows are deleted only after Kafka acknowledged them, so a pass that fails after the send
   * (the database lost meanwhile) leaves them for the next pass, or the next leader, to publish
   * again with the same event ids, for consumers to de-duplicate. Deleting rather than marking a
   * row published keeps the table as small as its backlog and writes a few bytes of WAL per row
   * instead of a new version of the row (docs/postgres.md).
   *
   * The leader's read also gives the age of its first row; an instance that does not lead reads
   * that age in the statement that tries the lock (one primary-key probe), so every instance
   * measures the backlog; a pass that published every row it found (fewer than a batch) leaves
   * the backlog measured empty.
   *
   * @throws when the database or the broker fails; nothing is deleted then. After a database
   *   error the relay's connection is dropped, with the lead, and opened again at the next pass.
   */
  async pass(): Promise<number> {
    const session = await this.lead();
    if (!session) return 0;
    const { rows } = await this.onSession(() =>
      session.client.query<OutboxRow & { age_seconds: number }>(
        `SELECT id, topic, message_key, event_type, payload, correlation_id, causation_id, traceparent, tracestate,
                extract(epoch FROM clock_timestamp() - created_at)::float8 AS age_seconds
           FROM ${this.schema}.outbox ORDER BY id LIMIT $1`,
        [this.options.batchSize],
      ),
    );
    this.measured(rows[0]?.age_seconds ?? null);
    if (rows.length === 0) return 0;
    // A row that cannot be encoded or a broker that does not answer fails the pass here; the
    // connection and the lead are kept.
    await this.publish(rows);
    await this.onSession(() => session.client.query(`DELETE FROM ${this.schema}.outbox WHERE id = ANY($1::bigint[])`, [rows.map((r) => r.id)]));
    this.logger.debug({ outbox: this.schema, published: rows.length }, 'outbox published');
    // Deleted: what the pass found is gone; a fuller outbox gets its next pass at once.
    if (rows.length < this.options.batchSize) this.oldest = null;
    return rows.length;
  }

  /**
   * Runs a statement on the relay's connection; when it fails, the connection is dropped (and
   * the lead with it: its state is unknown, a broken socket for all the relay can tell), and the
   * next pass opens another.
   */
  private async onSession<T>(statement: () => Promise<T>): Promise<T> {
    try {
      return await statement();
    } catch (error) {
      await this.closeSession();
      throw error;
    }
  }

  /**
   * The relay's session when it leads: opens the connection if none is open, and tries the lock
   * when it does not hold it yet (measuring the backlog's age in the same statement); `null`
   * when another session holds the lock.
   *
   * @throws when the connection cannot be opened or the statement fails (the connection is dropped).
   */
  private async lead(): Promise<{ client: pg.Client; leads: boolean } | null> {
    if (this.session?.leads) return this.session;
    if (!this.session) {
      // The pool's own settings (address, application name, keep-alive, connect time-out).
      const client = new pg.Client(this.pool.options);
      const session = { client, leads: false };
      // An error on an idle connection (the server gone) would otherwise crash the process; the
      // next statement on it fails, which drops it (onSession).
      client.on('error', (error) => {
        this.logger.warn({ err: error, outbox: this.schema }, "the outbox relay's connection broke; its next pass opens another");
      });
      try {
        await client.connect();
      } catch (error) {
        await client.end().catch(() => undefined);
        throw error;
      }
      this.session = session;
    }
    const session = this.session;
    const { rows } = await this.onSession(() =>
      session.client.query<{ ok: boolean; oldest_age_seconds: number | null }>(
        `SELECT pg_try_advisory_lock(hashtext($1)) AS ok,
                (SELECT extract(epoch FROM clock_timestamp() - created_at)::float8 FROM ${this.schema}.outbox ORDER BY id LIMIT 1) AS oldest_age_seconds`,
        [`settle-outbox:${this.schema}`],
      ),
    );
    this.measured(rows[0]?.oldest_age_seconds ?? null);
    session.leads = rows[0]?.ok === true;
    return session.leads ? session : null;
  }

  /** Records the first row's age as a statement just read it (seconds, database clock; `null`: the outbox is empty). */
  private measured(ageSeconds: number | null): void {
    this.oldest = ageSeconds === null ? null : { ageSeconds: Math.max(0, ageSeconds), measuredAt: performance.now() };
  }

  /** Sends rows to Kafka, acks from every in-sync replica, one request for the batch, each with its `send` span. */
  private async publish(rows: readonly OutboxRow[]): Promise<void> {
    const byTopic = new Map<string, Array<{ key: string; value: Buffer; headers: Record<string, string> }>>();
    const spans: Span[] = [];
    try {
      for (const row of rows) {
        const value = await this.codec.encode(row.event_type, row.payload);
        const send = startSendSpan(row.topic, contextOfCarrier(traceCarrierOfColumns(row.traceparent, row.tracestate)), {
          [SETTLE_SPAN_ATTRIBUTES.eventType]: row.event_type,
          [SETTLE_SPAN_ATTRIBUTES.reference]: row.payload.reference,
        });
        spans.push(send.span);
        const list = byTopic.get(row.topic) ?? [];
        list.push({ key: row.message_key, value, headers: relayHeaders(row, traceCarrierOf(send.context)) });
        byTopic.set(row.topic, list);
      }
      await this.producer.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
      });
    } catch (error) {
      for (const span of spans) endSpan(span, error);
      throw error;
    }
    for (const span of spans) endSpan(span);
  }
}

import type { Producer } from 'kafkajs';
import type pg from 'pg';
import {
  contextOfCarrier,
  endSpan,
  inTransaction,
  SETTLE_SPAN_ATTRIBUTES,
  traceCarrierOf,
  traceCarrierOfColumns,
  type Span,
  type TraceCarrier,
} from '@settle/platform';
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
   * milliseconds: commits arriving meanwhile go in the same pass, one transaction and one Kafka
   * batch. An idle outbox's first wake passes at once, so the linger costs nothing when idle.
   */
  lingerMs: number;
  /** Most rows published per pass (one transaction, one Kafka batch). */
  batchSize: number;
}

/**
 * Relay pacing unless an app says otherwise: a fallback poll every 250 ms while busy, backing off
 * to 5 s when idle; a 5 ms linger while busy; 500 rows per pass.
 */
export const DEFAULT_RELAY_OPTIONS: Readonly<RelayOptions> = { pollIntervalMs: 250, idlePollIntervalMs: 5_000, lingerMs: 5, batchSize: 500 };

/**
 * Publishes outbox rows to Kafka in id order, in batches, with the idempotent acks-all
 * producer, then deletes them. One relay per outbox runs at a time across
 * instances (a PostgreSQL advisory lock). It wakes on {@link OutboxRelay.wake} after a
 * commit, and polls as a fallback, so a crash between commit and publish only delays a
 * message, never loses it. Each record gets a producer span, `send <topic>`, a child of the
 * trace context its row stored, and carries that span's context in its headers
 * ({@link relayHeaders}; docs/observability.md, "Traces").
 *
 * Every pass, in every instance (the lock's holder or not), also measures the backlog's age:
 * that of the outbox's first row by id, the next one to publish ({@link OutboxRelay.backlogAgeSeconds},
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
    if (!this.started) return;
    this.started = false;
    let flushed = 0;
    try {
      for (let published = this.options.batchSize; published === this.options.batchSize; flushed += published) published = await this.pass();
    } catch (error) {
      this.logger.warn({ err: error, outbox: this.schema }, 'outbox not flushed at shutdown; the next relay publishes what it holds');
    }
    if (flushed > 0) this.logger.info({ outbox: this.schema, published: flushed }, 'outbox flushed at shutdown');
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
   * One pass: publishes up to a batch, in one transaction holding the relay's advisory lock;
   * returns how many were published. Rows are deleted only after Kafka acknowledged them, so a
   * pass that fails after the send (the database lost meanwhile) publishes the same rows again
   * on the next pass, with the same event ids, for consumers to de-duplicate. Deleting rather
   * than marking a row published keeps the table as small as its backlog and writes a few
   * bytes of WAL per row instead of a new version of the row (docs/postgres.md).
   *
   * The lock's statement also reads the age of the first row by id (one primary-key probe), so
   * every instance measures the backlog whether it holds the lock or not; a pass that published
   * every row it found (fewer than a batch) leaves the backlog measured empty.
   *
   * @throws when the database or the broker fails; nothing is deleted then.
   */
  async pass(): Promise<number> {
    const published = await inTransaction(this.pool, async (client) => {
      const lock = await client.query<{ ok: boolean; oldest_age_seconds: number | null }>(
        `SELECT pg_try_advisory_xact_lock(hashtext($1)) AS ok,
                (SELECT extract(epoch FROM clock_timestamp() - created_at)::float8 FROM ${this.schema}.outbox ORDER BY id LIMIT 1) AS oldest_age_seconds`,
        [`settle-outbox:${this.schema}`],
      );
      const age = lock.rows[0]?.oldest_age_seconds ?? null;
      this.oldest = age === null ? null : { ageSeconds: Math.max(0, age), measuredAt: performance.now() };
      if (!lock.rows[0]?.ok) return 0;
      const { rows } = await client.query<OutboxRow>(
        `SELECT id, topic, message_key, event_type, payload, correlation_id, causation_id, traceparent, tracestate
           FROM ${this.schema}.outbox ORDER BY id LIMIT $1`,
        [this.options.batchSize],
      );
      if (rows.length === 0) return 0;
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
      await client.query(`DELETE FROM ${this.schema}.outbox WHERE id = ANY($1::bigint[])`, [rows.map((r) => r.id)]);
      this.logger.debug({ outbox: this.schema, published: rows.length }, 'outbox published');
      return rows.length;
    });
    // Committed: what the pass found is gone; a fuller outbox gets its next pass at once.
    if (published > 0 && published < this.options.batchSize) this.oldest = null;
    return published;
  }
}

import { SETTLED } from './options.js';

import { AvroCodec, HEADERS, headerText } from '@settle/messaging';
import type { Consumer, Kafka } from 'kafkajs';
import type pg from 'pg';
import { startObserver } from '../support/observer.js';
import { sleep, wallNow } from '../support/open-loop.js';

/** Counts the benchmark's own queries on the stack's database (they are PostgreSQL work too). */
export class Db {
  queries = 0;
  constructor(readonly pool: pg.Pool) {}
  async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    this.queries += 1;
    return this.pool.query<R>(sql, params);
  }
}

/**
 * A reader of a table that polls it every `intervalMs` in the background (`start`), or at once
 * (`poll`, which joins a read in progress rather than racing it), until `stop`. A failed read is
 * kept in `error` and the next poll tries again.
 */
export abstract class Follower {
  private running = false;
  private loop: Promise<void> | null = null;
  private current: Promise<void> | null = null;
  error: unknown = null;

  constructor(private readonly intervalMs: number) {}

  start(): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        try {
          await this.poll();
        } catch (error) {
          this.error = error;
        }
        await sleep(this.intervalMs);
      }
    })();
  }

  /** Reads what is new since the last poll. */
  poll(): Promise<void> {
    this.current ??= this.read().finally(() => {
      this.current = null;
    });
    return this.current;
  }

  protected abstract read(): Promise<void>;

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

/**
 * Follows `ledger.events` by position (gapless and in commit order, so nothing is missed):
 * the first `TransactionSettled` of each reference with its `recorded_at`, how many it saw,
 * and any other outcome recorded on a transaction stream.
 */
export class LedgerWatch extends Follower {
  readonly settled = new Map<string, { at: number; count: number }>();
  readonly otherOutcomes = new Map<string, string[]>();
  private position = '0';

  constructor(private readonly db: Db) {
    super(200);
  }

  protected async read(): Promise<void> {
    for (;;) {
      const { rows } = await this.db.query<{ position: string; event_type: string; tx: boolean; reference: string | null; at: number }>(
        `SELECT position::text AS position, event_type, starts_with(stream_id, 'transaction-') AS tx, data->>'reference' AS reference,
                (extract(epoch FROM recorded_at) * 1000)::float8 AS at
           FROM ledger.events WHERE position > $1::bigint ORDER BY position LIMIT 10000`,
        [this.position],
      );
      for (const row of rows) {
        if (!row.tx || !row.reference) continue;
        if (row.event_type === SETTLED) {
          const seen = this.settled.get(row.reference);
          if (seen) seen.count += 1;
          else this.settled.set(row.reference, { at: row.at, count: 1 });
        } else {
          const list = this.otherOutcomes.get(row.reference) ?? [];
          list.push(row.event_type);
          this.otherOutcomes.set(row.reference, list);
        }
      }
      if (rows.length > 0) this.position = rows.at(-1)!.position;
      if (rows.length < 10000) return;
    }
  }
}

/** One reference's `SettlementRecorded` messages as this benchmark's consumer received them. */
export interface TopicArrival {
  /** Wall clock of the first arrival, ms. */
  at: number;
  copies: number;
  eventIds: Set<string>;
}

/**
 * A consumer of the settlements topic in a group of its own (outside the stack's prefix, so it
 * is never counted as the stack's lag), from the beginning, committing nothing ({@link startObserver}):
 * each `SettlementRecorded` decoded with the registry codec, its first arrival, copies and event
 * ids recorded by reference.
 */
export class SettlementWatch {
  readonly byReference = new Map<string, TopicArrival>();
  messages = 0;
  bytes = 0;
  undecodable = 0;

  private consumer: Consumer | null = null;

  private constructor() {}

  /** @throws when the consumer does not join its group within 60 s. */
  static async start(kafka: Kafka, topic: string, codec: AvroCodec, groupId: string): Promise<SettlementWatch> {
    const watch = new SettlementWatch();
    watch.consumer = await startObserver(kafka, {
      groupId,
      topics: [topic],
      what: 'the settlement consumer',
      onMessage: async (message, { partition }) => {
        const at = wallNow();
        if (headerText(message.headers, HEADERS.eventType) !== 'SettlementRecorded') return;
        watch.messages += 1;
        watch.bytes += message.value?.length ?? 0;
        let reference = message.key?.toString() ?? '';
        let eventId = `undecodable:${partition}:${message.offset}`;
        try {
          const decoded = await codec.decode(message.value, message.headers);
          if (decoded.type === 'SettlementRecorded') {
            reference = decoded.payload.reference;
            eventId = decoded.payload.event_id;
          }
        } catch {
          watch.undecodable += 1;
        }
        const seen = watch.byReference.get(reference);
        if (seen) {
          seen.copies += 1;
          seen.eventIds.add(eventId);
        } else watch.byReference.set(reference, { at, copies: 1, eventIds: new Set([eventId]) });
      },
    });
    return watch;
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}

/** One reference's entitlement event as the receiver kit recorded it. */
export interface KitArrival {
  /** When the kit recorded it and applied its access (one statement), wall clock ms. */
  at: number;
  eventIds: Set<string>;
}

/**
 * Follows the example customer backend's database: its receiver kit's `settle_receiver.events`,
 * where the kit records each entitlement event in the same statement that applies its access
 * (the kit's README, rule 4), stamped with the kit's clock (`received_at`). Per reference (the
 * event's `reference`): the first record's time and every event id. Rows are read in pages by
 * `received_at` from five seconds before the last one seen, so that a record committed after a
 * later one is still found; ids already seen are skipped.
 */
export class KitWatch extends Follower {
  readonly byReference = new Map<string, KitArrival>();
  private readonly seen = new Set<string>();
  private since = 0;

  constructor(private readonly db: pg.Pool) {
    super(500);
  }

  protected async read(): Promise<void> {
    const { rows } = await this.db.query<{ event_id: string; reference: string | null; at: number }>(
      `SELECT event_id, payload->>'reference' AS reference, (extract(epoch FROM received_at) * 1000)::float8 AS at
         FROM settle_receiver.events WHERE received_at >= to_timestamp($1 / 1000.0) ORDER BY received_at`,
      [Math.max(0, this.since - 5_000)],
    );
    for (const row of rows) {
      this.since = Math.max(this.since, row.at);
      if (this.seen.has(row.event_id) || !row.reference) continue;
      this.seen.add(row.event_id);
      const arrival = this.byReference.get(row.reference);
      if (arrival) arrival.eventIds.add(row.event_id);
      else this.byReference.set(row.reference, { at: row.at, eventIds: new Set([row.event_id]) });
    }
  }

  /** Events the kit recorded and has not processed yet (its business logic still to run). */
  async unprocessed(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM settle_receiver.events WHERE state IN ('pending', 'processing')`);
    return rows[0]!.n;
  }

  /**
   * How many events' business logic ran a number of times other than once, among these event
   * ids. One join and a count per event, so it takes seconds for a soak's 300,000 events: the
   * example's `entitlement_runs` has no index on `event_id` (nothing of the example reads it by
   * event), and a subquery per event scanned the whole table once per event.
   */
  async notRunOnce(eventIds: string[]): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (
         SELECT e.event_id FROM (SELECT DISTINCT unnest($1::text[]) AS event_id) AS e LEFT JOIN entitlement_runs r ON r.event_id = e.event_id
          GROUP BY e.event_id HAVING count(r.event_id) <> 1) AS not_once`,
      [eventIds],
    );
    return rows[0]!.n;
  }
}

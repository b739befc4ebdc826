import { ENTITLEMENT_EVENT_KINDS, literalOf, type DisabledReason, type EntitlementEventKind } from '@settle/domain';
import type { Outbox, OutboxMessage } from '@settle/messaging';
import { inTransaction, traceCarrierOfColumns, type Pool, type PoolClient, type TraceCarrier } from '@settle/platform';
import type { EndpointKeys } from '../endpoints/endpoint-secrets.js';
import { FAN_OUT_LOCK_SHARED } from './fan-out-lock.js';
import { payloadBody, type EntitlementRecord } from './payload.js';

/** An endpoint's health as stored, locked for the recording of its results. */
interface EndpointHealthRow {
  id: string;
  failing_since: Date | null;
  enabled: boolean;
}

/** An entitlement event as received from Kafka, with the record's timestamp. */
export interface ReceivedEvent {
  /** A grant, or a revocation or reinstatement. */
  event: EntitlementRecord;
  /** Kafka record timestamp: when the event left the ledger's outbox, epoch ms. */
  publishedAt: number;
  /** The trace context of the record's `process` span: the event's delivery attempts continue it. */
  trace?: TraceCarrier | undefined;
}

/** A due delivery claimed for an attempt (its lease holds it until the attempt is recorded). */
export interface ClaimedDelivery {
  id: number;
  eventId: string;
  endpointId: string;
  url: string;
  body: string;
  event: EntitlementEventKind;
  userId: string;
  reference: string;
  correlationId: string;
  /** When the event left the ledger's outbox. */
  publishedAt: Date;
  /** This attempt's number (1 for the first attempt of the delivery, every round included). */
  attempt: number;
  /** The claim's lease: the attempt's result is recorded only while the delivery still holds it. */
  leaseToken: string;
  /** Failed attempts of the current round (since the first attempt, a resend or a recovery). */
  roundFailures: number;
  /** First attempt of the current round (this one, when it is the first). */
  firstAttemptAt: Date;
  keys: EndpointKeys;
  /** The trace context the event came with (docs/observability.md, "Traces"); absent when none was recorded. */
  trace?: TraceCarrier | undefined;
}

/** The recorded result of one attempt, as the scheduler decided it. */
export interface AttemptRecord {
  delivery: ClaimedDelivery;
  startedAt: Date;
  endedAt: Date;
  latencyMs: number;
  status: number | null;
  outcome: 'delivered' | 'gone' | 'throttled' | 'failed';
  error: string | null;
  excerpt: string | null;
  /** `pending` (retried at `nextAttemptAt`), `delivered`, or `failed` (exhausted: dead-lettered). */
  state: 'pending' | 'delivered' | 'failed';
  nextAttemptAt: Date | null;
  roundFailures: number;
}

/** An endpoint's health after a flush of results. */
export interface EndpointHealthChange {
  endpointId: string;
  failingSince: Date | null;
  /** Set when the endpoint is disabled by these results. */
  disabled: Exclude<DisabledReason, 'admin'> | null;
}

interface ClaimRow {
  id: number;
  event_id: string;
  endpoint_id: string;
  url: string;
  body: string;
  event: string;
  user_id: string;
  reference: string;
  correlation_id: string;
  published_at: Date;
  traceparent: string | null;
  tracestate: string | null;
  attempts: number;
  lease_token: string;
  round_failures: number;
  first_attempt_at: Date;
  secret_version: number;
  previous_secret_version: number | null;
  previous_secret_expires_at: Date | null;
}

/**
 * The dispatcher's delivery state in PostgreSQL (schema `dispatcher`, see schema.ts). Every
 * write is one statement or one transaction over many rows: a Kafka batch is recorded in one
 * transaction, a set of attempt results in another.
 */
export class DeliveryRepository {
  constructor(
    private readonly pool: Pool,
    private readonly outbox: Outbox,
  ) {}

  /**
   * Records a batch of entitlement events and one pending delivery per event and enabled
   * endpoint subscribed to it, in one transaction under the fan-out lock shared
   * (fan-out-lock.ts). A disabled endpoint gets no delivery here: re-enabling it records the
   * ones it missed (`EndpointRepository.setEnabled`; docs/delivery.md, "Disabled
   * endpoints"). An event already recorded (a Kafka redelivery) records nothing again.
   *
   * @returns the deliveries recorded, and the ids of new events no endpoint, enabled or not, is
   *   subscribed to (recorded, delivered to nobody: an endpoint registered later gets them by a recovery).
   */
  async recordEvents(events: readonly ReceivedEvent[]): Promise<{ deliveries: number; unsubscribed: string[] }> {
    if (events.length === 0) return { deliveries: 0, unsubscribed: [] };
    return inTransaction(
      this.pool,
      async (client) => {
        const col = <T>(f: (e: ReceivedEvent) => T) => events.map(f);
        const { rows } = await client.query<{ deliveries: number; unsubscribed: string[] }>(
          `WITH received AS (
           INSERT INTO dispatcher.events (event_id, event, user_id, entitlement, reference, correlation_id, body, published_at, traceparent, tracestate)
           SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::text[], $10::text[])
           ON CONFLICT (event_id) DO NOTHING
           RETURNING event_id, event
         ), fanned AS (
           INSERT INTO dispatcher.deliveries (event_id, endpoint_id, state, next_attempt_at)
           SELECT r.event_id, e.id, 'pending', now() FROM received r
             JOIN dispatcher.endpoints e ON e.enabled AND e.deleted_at IS NULL AND r.event = ANY (e.event_kinds)
           ON CONFLICT (event_id, endpoint_id) DO NOTHING
           RETURNING event_id
         )
         SELECT (SELECT count(*)::int FROM fanned) AS deliveries,
                ARRAY(SELECT r.event_id::text FROM received r
                       WHERE NOT EXISTS (SELECT 1 FROM dispatcher.endpoints e WHERE e.deleted_at IS NULL AND r.event = ANY (e.event_kinds))) AS unsubscribed`,
          [
            col((e) => e.event.event_id),
            col((e) => e.event.event),
            col((e) => e.event.user_id),
            col((e) => e.event.entitlement),
            col((e) => e.event.reference),
            col((e) => e.event.correlation_id),
            col((e) => payloadBody(e.event)),
            col((e) => new Date(e.publishedAt)),
            col((e) => e.trace?.traceparent ?? null),
            col((e) => e.trace?.tracestate ?? null),
          ],
        );
        return rows[0]!;
      },
      { firstStatement: FAN_OUT_LOCK_SHARED },
    );
  }

  /**
   * Claims due deliveries of enabled endpoints for an attempt, at most `free` per endpoint
   * (`defaultFree` for endpoints not listed) and `limit` in all, the longest due first, and
   * holds each with a lease: a new lease token, the attempt counted, and the due time moved
   * `leaseMs` into the future, so a dispatcher that dies mid-attempt leaves the delivery to be
   * claimed again once the lease ends (at-least-once delivery), and a result that comes back
   * after another claim, a resend or a recovery took the delivery over is not applied to it.
   * Rows another instance holds are skipped, not waited for. Times are the database's.
   */
  async claimDue(options: { free: ReadonlyMap<string, number>; defaultFree: number; limit: number; leaseMs: number }): Promise<ClaimedDelivery[]> {
    if (options.limit <= 0) return [];
    const { rows } = await this.pool.query<ClaimRow>(
      `WITH slots AS (
         SELECT * FROM unnest($1::uuid[], $2::int[]) AS s(endpoint_id, free)
       ), picked AS (
         SELECT d.id, d.next_attempt_at FROM dispatcher.endpoints e
           LEFT JOIN slots s ON s.endpoint_id = e.id
           CROSS JOIN LATERAL (
             SELECT d.id, d.next_attempt_at FROM dispatcher.deliveries d
              WHERE d.endpoint_id = e.id AND d.state = 'pending' AND d.next_attempt_at <= now()
              ORDER BY d.next_attempt_at, d.id
              LIMIT COALESCE(s.free, $3)
              FOR UPDATE OF d SKIP LOCKED
           ) d
          WHERE e.enabled AND e.deleted_at IS NULL AND COALESCE(s.free, $3) > 0
          ORDER BY d.next_attempt_at, d.id
          LIMIT $4
       )
       UPDATE dispatcher.deliveries d
          SET next_attempt_at = now() + $5 * interval '1 millisecond', attempts = d.attempts + 1,
              lease_token = gen_random_uuid(), first_attempt_at = COALESCE(d.first_attempt_at, now()), updated_at = now()
         FROM picked p, dispatcher.events ev, dispatcher.endpoints e
        WHERE d.id = p.id AND ev.event_id = d.event_id AND e.id = d.endpoint_id
       RETURNING d.id, d.event_id, d.endpoint_id, d.attempts, d.lease_token, d.round_failures, d.first_attempt_at,
                 ev.body, ev.event, ev.user_id, ev.reference, ev.correlation_id, ev.published_at, ev.traceparent, ev.tracestate,
                 e.url, e.secret_version, e.previous_secret_version, e.previous_secret_expires_at`,
      [[...options.free.keys()], [...options.free.values()], options.defaultFree, options.limit, options.leaseMs],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      eventId: r.event_id,
      endpointId: r.endpoint_id,
      url: r.url,
      body: r.body,
      event: literalOf(ENTITLEMENT_EVENT_KINDS, r.event, 'entitlement event kind'),
      userId: r.user_id,
      reference: r.reference,
      correlationId: r.correlation_id,
      publishedAt: r.published_at,
      attempt: r.attempts,
      leaseToken: r.lease_token,
      roundFailures: r.round_failures,
      firstAttemptAt: r.first_attempt_at,
      trace: traceCarrierOfColumns(r.traceparent, r.tracestate),
      keys: {
        id: r.endpoint_id,
        secretVersion: r.secret_version,
        previousSecretVersion: r.previous_secret_version,
        previousSecretExpiresAt: r.previous_secret_expires_at,
      },
    }));
  }

  /**
   * Gives back a claimed delivery without an attempt (nothing was sent: Settle could not sign
   * it), due again at `at`; the attempt is not counted. Only while the claim's lease holds.
   */
  async postpone(claim: ClaimedDelivery, at: Date): Promise<void> {
    await this.pool.query(
      `UPDATE dispatcher.deliveries SET next_attempt_at = $3, attempts = attempts - 1, lease_token = NULL, updated_at = now()
        WHERE id = $1 AND lease_token = $2 AND state = 'pending'`,
      [claim.id, claim.leaseToken, at],
    );
  }

  /**
   * The earliest due time of a pending delivery of an enabled endpoint, leaving out the
   * endpoints given (those whose slots are all taken: a freed slot wakes the scheduler anyway),
   * or `null` when none waits.
   */
  async nextDueAt(saturated: readonly string[] = []): Promise<Date | null> {
    const { rows } = await this.pool.query<{ due: Date | null }>(
      `SELECT min(d.next_attempt_at) AS due FROM dispatcher.endpoints e
         CROSS JOIN LATERAL (SELECT next_attempt_at FROM dispatcher.deliveries d
                              WHERE d.endpoint_id = e.id AND d.state = 'pending' ORDER BY next_attempt_at LIMIT 1) d
        WHERE e.enabled AND e.deleted_at IS NULL AND NOT (e.id = ANY ($1::uuid[]))`,
      [saturated],
    );
    return rows[0]?.due ?? null;
  }

  /**
   * Records attempt results in one transaction: each attempt row (numbered per delivery: a
   * result written twice, after a commit whose outcome was unknown, is stored once), each
   * delivery's new state where the attempt's lease still holds (a result that a newer claim, a
   * resend or a recovery overtook is recorded as an attempt and changes nothing else), each
   * endpoint's health (`failing_since`, and disabling where `decideHealth` says so), and a
   * dead-letter record in the outbox for each delivery this write exhausted.
   *
   * @param decideHealth - given an endpoint's stored `failing_since` and its results in the
   *   order they ended, its new health (pure rules of `@settle/domain`).
   * @returns the endpoints whose health changed, and how many deliveries were dead-lettered.
   */
  async recordResults(
    results: readonly AttemptRecord[],
    decideHealth: (
      failingSince: Date | null,
      results: readonly AttemptRecord[],
    ) => { failingSince: Date | null; disabled: Exclude<DisabledReason, 'admin'> | null },
    deadLetter: (result: AttemptRecord) => OutboxMessage,
  ): Promise<{ changes: EndpointHealthChange[]; deadLettered: AttemptRecord[] }> {
    if (results.length === 0) return { changes: [], deadLettered: [] };
    return inTransaction(this.pool, async (client) => {
      // The endpoints first, in id order: the order every transaction that writes both tables
      // takes its locks in (an endpoint's deletion locks it, then cancels its deliveries), so a
      // deletion and the recording of that endpoint's results never deadlock. NO KEY UPDATE:
      // recording new deliveries (their foreign key takes KEY SHARE) never waits on it.
      const { rows: endpoints } = await client.query<EndpointHealthRow>(
        'SELECT id, failing_since, enabled FROM dispatcher.endpoints WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE',
        [[...new Set(results.map((r) => r.delivery.endpointId))]],
      );
      const col = <T>(f: (r: AttemptRecord) => T) => results.map(f);
      await client.query(
        `INSERT INTO dispatcher.attempts (delivery_id, attempt, started_at, latency_ms, status, outcome, error, response_excerpt, next_attempt_at)
         SELECT * FROM unnest($1::bigint[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::timestamptz[])
         ON CONFLICT (delivery_id, attempt) DO NOTHING`,
        [
          col((r) => r.delivery.id),
          col((r) => r.delivery.attempt),
          col((r) => r.startedAt),
          col((r) => Math.round(r.latencyMs)),
          col((r) => r.status),
          col((r) => r.outcome),
          col((r) => r.error),
          col((r) => r.excerpt),
          col((r) => r.nextAttemptAt),
        ],
      );
      // Matched on the primary key and the lease alone (a held lease implies 'pending': the
      // table's CHECK). A "state = 'pending'" here would let the planner, whose statistics
      // last saw few pending rows, read the whole pending index instead: with a blackholed
      // endpoint's backlog in it, every result recorded for every endpoint would pay for it.
      const { rows: applied } = await client.query<{ id: number }>(
        `UPDATE dispatcher.deliveries d
            SET state = r.state, round_failures = r.round_failures, lease_token = NULL,
                next_attempt_at = r.next_attempt_at, delivered_at = r.delivered_at,
                last_status = r.status, last_error = r.error, updated_at = now()
           FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::int[], $5::timestamptz[], $6::timestamptz[], $7::int[], $8::text[])
                AS r(id, token, state, round_failures, next_attempt_at, delivered_at, status, error)
          WHERE d.id = r.id AND d.lease_token = r.token
         RETURNING d.id`,
        [
          col((r) => r.delivery.id),
          col((r) => r.delivery.leaseToken),
          col((r) => r.state),
          col((r) => r.roundFailures),
          col((r) => r.nextAttemptAt),
          col((r) => (r.state === 'delivered' ? r.endedAt : null)),
          col((r) => r.status),
          col((r) => r.error),
        ],
      );
      const appliedIds = new Set(applied.map((row) => Number(row.id)));
      const changes = await this.updateHealth(client, endpoints, results, decideHealth);
      const deadLettered = results.filter((r) => r.state === 'failed' && appliedIds.has(r.delivery.id));
      if (deadLettered.length > 0) await this.outbox.enqueue(client, deadLettered.map(deadLetter));
      return { changes, deadLettered };
    });
  }

  private async updateHealth(
    client: PoolClient,
    rows: readonly EndpointHealthRow[],
    results: readonly AttemptRecord[],
    decideHealth: Parameters<DeliveryRepository['recordResults']>[1],
  ): Promise<EndpointHealthChange[]> {
    const byEndpoint = new Map<string, AttemptRecord[]>();
    for (const r of [...results].sort((a, b) => a.endedAt.getTime() - b.endedAt.getTime())) {
      const list = byEndpoint.get(r.delivery.endpointId);
      if (list) list.push(r);
      else byEndpoint.set(r.delivery.endpointId, [r]);
    }
    const changes: EndpointHealthChange[] = [];
    for (const row of rows) {
      const decided = decideHealth(row.failing_since, byEndpoint.get(row.id)!);
      const disabled = row.enabled ? decided.disabled : null;
      if (decided.failingSince?.getTime() === row.failing_since?.getTime() && !disabled) continue;
      changes.push({ endpointId: row.id, failingSince: decided.failingSince, disabled });
    }
    if (changes.length > 0) {
      await client.query(
        `UPDATE dispatcher.endpoints e
            SET failing_since = c.failing_since,
                enabled = CASE WHEN c.disabled IS NULL THEN e.enabled ELSE false END,
                disabled_reason = COALESCE(c.disabled, e.disabled_reason),
                disabled_at = CASE WHEN c.disabled IS NULL THEN e.disabled_at ELSE now() END,
                updated_at = now()
           FROM unnest($1::uuid[], $2::timestamptz[], $3::text[]) AS c(id, failing_since, disabled)
          WHERE e.id = c.id`,
        [changes.map((c) => c.endpointId), changes.map((c) => c.failingSince), changes.map((c) => c.disabled)],
      );
    }
    return changes;
  }
}

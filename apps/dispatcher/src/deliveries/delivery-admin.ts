import type { Pool } from '@settle/platform';
import { DispatcherError } from '../errors.js';

/** One attempt as the admin API shows it. */
export interface AttemptView {
  attempt: number;
  started_at: string;
  latency_ms: number;
  status: number | null;
  outcome: string;
  error: string | null;
  response_excerpt: string | null;
  next_attempt_at: string | null;
}

/** A delivery (one event to one endpoint) as the admin API shows it. */
export interface DeliveryView {
  delivery_id: number;
  event_id: string;
  event: string;
  user_id: string;
  endpoint_id: string;
  state: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  next_attempt_at: string | null;
  delivered_at: string | null;
  last_status: number | null;
  last_error: string | null;
  recorded_at: string;
  attempt_log?: AttemptView[];
}

interface DeliveryRow {
  id: number;
  event_id: string;
  event: string;
  user_id: string;
  endpoint_id: string;
  state: DeliveryView['state'];
  attempts: number;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;
const view = (r: DeliveryRow): DeliveryView => ({
  delivery_id: Number(r.id),
  event_id: r.event_id,
  event: r.event,
  user_id: r.user_id,
  endpoint_id: r.endpoint_id,
  state: r.state,
  attempts: r.attempts,
  next_attempt_at: r.state === 'pending' ? iso(r.next_attempt_at) : null,
  delivered_at: iso(r.delivered_at),
  last_status: r.last_status,
  last_error: r.last_error,
  recorded_at: r.created_at.toISOString(),
});

const SELECT_DELIVERY = `SELECT d.id, d.event_id, ev.event, ev.user_id, d.endpoint_id, d.state, d.attempts, d.next_attempt_at,
                                d.delivered_at, d.last_status, d.last_error, d.created_at
                           FROM dispatcher.deliveries d JOIN dispatcher.events ev ON ev.event_id = d.event_id`;

/**
 * What operators see and do with deliveries (docs/delivery.md, "Endpoints and their secrets",
 * the admin API table): every attempt of an event, dead-lettered deliveries, and putting deliveries back in the schedule (a resend of
 * one event, or the recovery of every failed delivery to an endpoint since a time). A requeued
 * delivery starts a new round of the retry schedule at once; its earlier attempts stay.
 */
export class DeliveryAdmin {
  constructor(
    private readonly pool: Pool,
    private readonly scheduler: { wake(): void },
  ) {}

  /**
   * Every delivery of an event, with its attempts.
   *
   * @throws DispatcherError `EVENT.NOT_FOUND` when the dispatcher never received it.
   */
  async attemptsOf(eventId: string): Promise<DeliveryView[]> {
    await this.requireEvent(eventId);
    const { rows } = await this.pool.query<DeliveryRow>(`${SELECT_DELIVERY} WHERE d.event_id = $1 ORDER BY d.id`, [eventId]);
    const { rows: attempts } = await this.pool.query<{
      delivery_id: number;
      attempt: number;
      started_at: Date;
      latency_ms: number;
      status: number | null;
      outcome: string;
      error: string | null;
      response_excerpt: string | null;
      next_attempt_at: Date | null;
    }>('SELECT * FROM dispatcher.attempts WHERE delivery_id = ANY($1::bigint[]) ORDER BY delivery_id, attempt', [rows.map((r) => r.id)]);
    return rows.map((r) => ({
      ...view(r),
      attempt_log: attempts
        .filter((a) => Number(a.delivery_id) === Number(r.id))
        .map((a) => ({
          attempt: a.attempt,
          started_at: a.started_at.toISOString(),
          latency_ms: a.latency_ms,
          status: a.status,
          outcome: a.outcome,
          error: a.error,
          response_excerpt: a.response_excerpt,
          next_attempt_at: iso(a.next_attempt_at),
        })),
    }));
  }

  /**
   * Deliveries in a state (`failed`: dead-lettered), newest first, optionally of one endpoint,
   * by keyset pagination: pass the last `delivery_id` seen as `before`.
   */
  async list(filter: { state?: DeliveryView['state']; endpointId?: string; before?: number; limit: number }): Promise<DeliveryView[]> {
    const { rows } = await this.pool.query<DeliveryRow>(
      `${SELECT_DELIVERY}
        WHERE ($1::text IS NULL OR d.state = $1) AND ($2::uuid IS NULL OR d.endpoint_id = $2) AND ($3::bigint IS NULL OR d.id < $3)
        ORDER BY d.id DESC LIMIT $4`,
      [filter.state ?? null, filter.endpointId ?? null, filter.before ?? null, filter.limit],
    );
    return rows.map(view);
  }

  /**
   * Resends an event: to one endpoint (a delivery is recorded if it had none, for an endpoint
   * registered after the event), or to every endpoint that has a delivery of it.
   *
   * @returns the deliveries put back in the schedule.
   * @throws DispatcherError `EVENT.NOT_FOUND`, `ENDPOINT.NOT_FOUND`.
   */
  async resend(eventId: string, endpointId?: string): Promise<number> {
    await this.requireEvent(eventId);
    if (endpointId !== undefined) {
      const { rowCount } = await this.pool.query(
        `INSERT INTO dispatcher.deliveries (event_id, endpoint_id, state, next_attempt_at)
         SELECT $1, id, 'pending', now() FROM dispatcher.endpoints WHERE id = $2 AND deleted_at IS NULL
         ON CONFLICT (event_id, endpoint_id) DO UPDATE SET state = 'pending', round_failures = 0, next_attempt_at = now(),
            first_attempt_at = NULL, lease_token = NULL, updated_at = now()`,
        [eventId, endpointId],
      );
      if (rowCount === 0) throw new DispatcherError('ENDPOINT.NOT_FOUND', `No endpoint ${endpointId}`);
      this.scheduler.wake();
      return rowCount ?? 0;
    }
    return this.requeue(`d.event_id = $1 AND d.state <> 'cancelled'`, [eventId]);
  }

  /**
   * Recovers an endpoint since `since`: every delivery to it that failed (was dead-lettered)
   * at or after that time is put back in the schedule, and every entitlement event received
   * since then that it is subscribed to but never had a delivery of (it was registered later,
   * or re-created after a deletion) gets one.
   *
   * @returns how many deliveries were put back or added.
   * @throws DispatcherError `ENDPOINT.NOT_FOUND`.
   */
  async recover(endpointId: string, since: Date): Promise<number> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM dispatcher.endpoints WHERE id = $1 AND deleted_at IS NULL', [endpointId]);
    if (!rowCount) throw new DispatcherError('ENDPOINT.NOT_FOUND', `No endpoint ${endpointId}`);
    const failed = await this.requeue(`d.endpoint_id = $1 AND d.state = 'failed' AND d.updated_at >= $2`, [endpointId, since]);
    const { rowCount: added } = await this.pool.query(
      `INSERT INTO dispatcher.deliveries (event_id, endpoint_id, state, next_attempt_at)
       SELECT ev.event_id, e.id, 'pending', now() FROM dispatcher.events ev
         JOIN dispatcher.endpoints e ON e.id = $1 AND ev.event = ANY (e.event_kinds)
        WHERE ev.received_at >= $2
       ON CONFLICT (event_id, endpoint_id) DO NOTHING`,
      [endpointId, since],
    );
    if (added) this.scheduler.wake();
    return failed + (added ?? 0);
  }

  private async requeue(where: string, values: unknown[]): Promise<number> {
    const { rowCount } = await this.pool.query(
      `UPDATE dispatcher.deliveries d SET state = 'pending', round_failures = 0, next_attempt_at = now(), first_attempt_at = NULL,
              lease_token = NULL, updated_at = now()
        WHERE ${where}`,
      values,
    );
    if (rowCount) this.scheduler.wake();
    return rowCount ?? 0;
  }

  private async requireEvent(eventId: string): Promise<void> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM dispatcher.events WHERE event_id = $1', [eventId]);
    if (!rowCount) throw new DispatcherError('EVENT.NOT_FOUND', `No entitlement event ${eventId}`);
  }
}

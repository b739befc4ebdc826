import {
  ADMIN_STREAM_CATEGORY,
  adminActionOf,
  LedgerEventShapeError,
  type LedgerStore,
  type LedgerSubscription,
  type RecordedLedgerEvent,
} from '@settle/ledger';
import { inTransaction, isDataException, type Logger, type Pool, type PoolClient } from '@settle/platform';

/** The name of the audit projection's row in `console.projection_checkpoints`. */
export const AUDIT_PROJECTION_NAME = 'audit';

/** The streams the audit projection follows: the admin actions' (`admin-<kind>-<id>`). */
const ADMIN_STREAM_PREFIX = `${ADMIN_STREAM_CATEGORY}-`;

/** Options of {@link AuditProjection}. */
export interface AuditProjectionOptions {
  /** How long to wait before subscribing again after the subscription failed, milliseconds. Default 1 000. */
  retryDelayMs?: number;
  /** How often a polling store (PostgreSQL, in memory) looks for new events once caught up, milliseconds. Default 200. */
  pollIntervalMs?: number;
}

/** What {@link AuditProjection.project} did with one event. */
export type ProjectedOutcome =
  /** A request's row was written, or an outcome set on its request's row. */
  | 'projected'
  /** At or before the checkpoint: handled already (a replay, or another console instance). */
  | 'replayed'
  /** Not a well-formed admin action, or values PostgreSQL cannot hold: the checkpoint moved past it, nothing else. */
  | 'skipped';

/**
 * The audit view's read model under `LEDGER_STORE=kurrentdb` (docs/console.md, "Audit"): a
 * catch-up subscription to the ledger (`subscribeToAll`, filtered to the `admin-` streams) from
 * the checkpoint in `console.projection_checkpoints` (console migration 0004), writing one row
 * per admin action into `console.admin_actions`: its `AdminActionRequested` inserts the row, its
 * `AdminActionCompleted` (in the same stream, same `action_id`) sets the outcome. Each event's
 * row and the checkpoint commit in one transaction, with the checkpoint's row locked: an event at
 * or before the checkpoint is not applied again, so a replay after a crash, or a second console
 * instance following the same ledger, writes nothing twice. `ProjectedAuditLog` reads the table.
 *
 * The checkpoint is a ledger position: on KurrentDB an event's prepare position, unique per event
 * because the audit trail appends one event per append (docs/ledger.md, "KurrentDB").
 */
export class AuditProjection {
  private subscription: LedgerSubscription | null = null;
  private running = false;
  private loop: Promise<void> | null = null;
  private signalStop: (() => void) | null = null;

  constructor(
    private readonly store: Pick<LedgerStore, 'subscribeToAll'>,
    private readonly pool: Pool,
    private readonly logger: Logger,
    private readonly options: AuditProjectionOptions = {},
  ) {}

  /**
   * Applies one ledger event in one transaction with the checkpoint. Events of other streams,
   * and admin events that are not well-formed, only move the checkpoint (logged); so do values
   * PostgreSQL refuses to store (a data exception: a NUL in a parameter), which leave that action
   * out of the view with an error logged, rather than stopping the projection for good.
   *
   * @throws database errors other than a data exception (nothing is committed; the caller retries).
   */
  async project(event: RecordedLedgerEvent): Promise<ProjectedOutcome> {
    try {
      return await inTransaction(this.pool, (client) => this.applyWith(client, event, true));
    } catch (error) {
      if (!isDataException(error)) throw error;
      this.logger.error(
        { err: error, position: event.position, streamId: event.streamId, eventId: event.eventId },
        'admin action left out of the audit view: PostgreSQL cannot store its values; the ledger still holds it',
      );
      return inTransaction(this.pool, (client) => this.applyWith(client, event, false));
    }
  }

  /** The last ledger position handled (0: none yet). */
  async checkpoint(): Promise<number> {
    const { rows } = await this.pool.query<{ position: string }>('SELECT position FROM console.projection_checkpoints WHERE name = $1', [
      AUDIT_PROJECTION_NAME,
    ]);
    return Number(rows[0]?.position ?? 0);
  }

  /**
   * Follows the ledger in the background until {@link AuditProjection.stop}: subscribes from the
   * stored checkpoint and, when the subscription fails (the store away, the database away), logs
   * it and subscribes again from the stored checkpoint after `retryDelayMs`.
   */
  start(): void {
    if (this.running) return;
    this.running = true;
    const stopped = new Promise<null>((resolve) => {
      this.signalStop = () => resolve(null);
    });
    this.loop = (async () => {
      while (this.running) {
        let failure: Error | null;
        try {
          const after = await this.checkpoint();
          if (!this.running) break;
          const subscription = this.store.subscribeToAll(after, (event) => this.project(event).then(() => undefined), {
            streamPrefix: ADMIN_STREAM_PREFIX,
            pollIntervalMs: this.options.pollIntervalMs ?? 200,
          });
          this.subscription = subscription;
          // A subscription ends only by failing, or by stop() (which stops it itself).
          failure = await Promise.race([subscription.failed, stopped]);
          if (failure) {
            this.subscription = null;
            await subscription.stop();
          }
        } catch (error) {
          failure = error instanceof Error ? error : new Error(String(error));
        }
        if (!this.running || !failure) break;
        this.logger.error({ err: failure }, 'the audit projection stopped following the ledger; subscribing again from its checkpoint');
        await Promise.race([stopped, new Promise<void>((resolve) => setTimeout(resolve, this.options.retryDelayMs ?? 1_000).unref())]);
      }
    })();
  }

  /** Stops following the ledger; resolves once the event in hand (if any) is committed. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.signalStop?.();
    const subscription = this.subscription;
    this.subscription = null;
    await subscription?.stop();
    await this.loop;
  }

  /**
   * Applies `event` (when `apply`) and moves the checkpoint to it, on the caller's transaction,
   * under the lock of the checkpoint's row.
   */
  private async applyWith(client: PoolClient, event: RecordedLedgerEvent, apply: boolean): Promise<ProjectedOutcome> {
    await client.query('INSERT INTO console.projection_checkpoints (name, position, updated_at) VALUES ($1, 0, now()) ON CONFLICT (name) DO NOTHING', [
      AUDIT_PROJECTION_NAME,
    ]);
    const { rows } = await client.query<{ position: string }>('SELECT position FROM console.projection_checkpoints WHERE name = $1 FOR UPDATE', [
      AUDIT_PROJECTION_NAME,
    ]);
    if (event.position <= Number(rows[0]!.position)) return 'replayed';
    const outcome = apply ? await this.writeWith(client, event) : 'skipped';
    await client.query('UPDATE console.projection_checkpoints SET position = $2, updated_at = now() WHERE name = $1', [AUDIT_PROJECTION_NAME, event.position]);
    return outcome;
  }

  /** Writes what an admin-action event says into `console.admin_actions`. */
  private async writeWith(client: PoolClient, event: RecordedLedgerEvent): Promise<ProjectedOutcome> {
    if (!event.streamId.startsWith(ADMIN_STREAM_PREFIX)) return 'skipped';
    let parsed: ReturnType<typeof adminActionOf>;
    try {
      parsed = adminActionOf(event);
    } catch (error) {
      if (!(error instanceof LedgerEventShapeError)) throw error;
      this.logger.warn({ position: event.position, streamId: event.streamId, type: event.type }, 'not a well-formed admin action; left out of the audit view');
      return 'skipped';
    }
    if (parsed.type === 'AdminActionRequested') {
      const r = parsed.data;
      await client.query(
        `INSERT INTO console.admin_actions
           (position, action_id, stream_id, action, actor_email, actor_role, target_kind, target_id, parameters, requested_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (position) DO NOTHING`,
        [
          event.position,
          r.action_id,
          event.streamId,
          r.action,
          r.actor.email,
          r.actor.role,
          r.target.kind,
          r.target.id,
          JSON.stringify(r.parameters),
          r.requested_at,
        ],
      );
    } else {
      const c = parsed.data;
      // The outcome of the request of the same action in the same stream, as PostgresAuditLog pairs them.
      await client.query(
        `UPDATE console.admin_actions SET outcome = $3, error_code = $4, result = $5, completed_at = $6
          WHERE stream_id = $1 AND action_id = $2`,
        [event.streamId, c.action_id, c.outcome, c.error_code, c.result === null ? null : JSON.stringify(c.result), c.completed_at],
      );
    }
    return 'projected';
  }
}

import { adminActionStream, readReadModel } from '@settle/ledger';
import type { Pool } from '@settle/platform';
import type { AuditEntry, AuditQuery } from './audit-trail.port.js';
import { auditEntriesOf, type AuditLog, type StoredAdminEvent } from './ledger-audit-trail.js';

interface EventRow {
  position: string;
  event_id: string;
  event_type: string;
  data: Record<string, unknown>;
}

const stored = (r: EventRow): StoredAdminEvent => ({ position: Number(r.position), eventId: r.event_id, type: r.event_type, data: r.data });

/**
 * The audit view's reads from `ledger.events` (owned by the ledger projector; read-only here):
 * a page of `AdminActionRequested` events walking the partial index of ledger migration 0003
 * backwards from a position, then the outcomes of those actions in their streams.
 */
export class PostgresAuditLog implements AuditLog {
  constructor(private readonly pool: Pool) {}

  /**
   * One page, newest first; `nextBefore` is `null` when no older request matches.
   *
   * @throws ReadModelNotReadyError before the ledger projector created `ledger`.
   */
  async list(query: AuditQuery): Promise<{ items: AuditEntry[]; nextBefore: number | null }> {
    const where = [`event_type = 'AdminActionRequested'`];
    const values: unknown[] = [];
    if (query.before !== undefined) {
      values.push(query.before);
      where.push(`position < $${values.length}`);
    }
    if (query.target) {
      values.push(adminActionStream(query.target.kind, query.target.id));
      where.push(`stream_id = $${values.length}`);
    }
    if (query.actor) {
      values.push(query.actor);
      where.push(`data->'actor'->>'email' = $${values.length}`);
    }
    // One more than the page: whether another page follows.
    values.push(query.limit + 1);
    const requests = await readReadModel(() =>
      this.pool.query<EventRow & { stream_id: string }>(
        `SELECT position, event_id, event_type, data, stream_id FROM ledger.console_events
          WHERE ${where.join(' AND ')} ORDER BY position DESC LIMIT $${values.length}`,
        values,
      ),
    );
    if (requests.rows.length === 0) return { items: [], nextBefore: null };
    const more = requests.rows.length > query.limit;
    const page = requests.rows.slice(0, query.limit);
    const completions = await this.pool.query<EventRow>(
      `SELECT position, event_id, event_type, data FROM ledger.console_events
        WHERE stream_id = ANY($1::text[]) AND event_type = 'AdminActionCompleted' AND data->>'action_id' = ANY($2::text[])`,
      [[...new Set(page.map((r) => r.stream_id))], page.map((r) => String(r.data.action_id))],
    );
    const items = auditEntriesOf(page.map(stored), completions.rows.map(stored));
    return { items, nextBefore: more ? items.at(-1)!.position : null };
  }
}

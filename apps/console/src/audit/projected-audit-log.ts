import { adminActionStream, type AdminActionName, type AdminTargetKind } from '@settle/ledger';
import type { Pool } from '@settle/platform';
import type { AuditEntry, AuditQuery } from './audit-trail.port.js';
import type { AuditLog } from './ledger-audit-trail.js';

interface ActionRow {
  position: string;
  action_id: string;
  action: AdminActionName;
  actor_email: string;
  actor_role: string;
  target_kind: AdminTargetKind;
  target_id: string;
  parameters: Record<string, unknown>;
  requested_at: string;
  outcome: 'succeeded' | 'failed' | null;
  error_code: string | null;
  result: Record<string, unknown> | null;
  completed_at: string | null;
}

const entryOf = (r: ActionRow): AuditEntry => ({
  actionId: r.action_id,
  action: r.action,
  actor: { email: r.actor_email, role: r.actor_role },
  target: { kind: r.target_kind, id: r.target_id },
  parameters: r.parameters,
  requestedAt: r.requested_at,
  outcome: r.outcome,
  errorCode: r.error_code,
  result: r.result,
  completedAt: r.completed_at,
  position: Number(r.position),
});

/**
 * The audit view's reads from the console's own read model, `console.admin_actions` (console
 * migration 0004), kept by the `AuditProjection` under `LEDGER_STORE=kurrentdb` (docs/console.md,
 * "Audit"). Same answers, order, filters and cursor as `PostgresAuditLog` (both pass
 * `test/audit-trail.contract.ts`): newest request first by ledger position, `before` a position,
 * `actor` the requester's email, `target` the action's stream (`admin-<kind>-<id>`). It shows
 * what the projection has committed: an action appears once the projection has followed the
 * ledger past it (milliseconds behind, while it runs).
 */
export class ProjectedAuditLog implements AuditLog {
  constructor(private readonly pool: Pool) {}

  /** One page, newest first; `nextBefore` is `null` when no older action matches. */
  async list(query: AuditQuery): Promise<{ items: AuditEntry[]; nextBefore: number | null }> {
    const where: string[] = [];
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
      where.push(`actor_email = $${values.length}`);
    }
    // One more than the page: whether another page follows.
    values.push(query.limit + 1);
    const { rows } = await this.pool.query<ActionRow>(
      `SELECT position, action_id, action, actor_email, actor_role, target_kind, target_id, parameters, requested_at,
              outcome, error_code, result, completed_at
         FROM console.admin_actions
        ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY position DESC LIMIT $${values.length}`,
      values,
    );
    const items = rows.slice(0, query.limit).map(entryOf);
    return { items, nextBefore: rows.length > query.limit ? items.at(-1)!.position : null };
  }
}

import type { AdminActionName, AdminTargetKind } from '@settle/ledger';
import type { ConsoleRole } from '../auth/roles.js';

/** Who did an admin action: the signed-in user, as their session named them. */
export interface AdminActor {
  email: string;
  role: ConsoleRole;
}

/** An admin action about to run (docs/console.md, "Audit"). */
export interface AdminActionRequest {
  actor: AdminActor;
  action: AdminActionName;
  target: { kind: AdminTargetKind; id: string };
  /** What the action was asked with (a time, an endpoint id, a new role); never a secret or a password. */
  parameters?: Record<string, unknown>;
}

/** One admin action as the audit view shows it: its request and, once recorded, its outcome. */
export interface AuditEntry {
  actionId: string;
  action: AdminActionName;
  actor: { email: string; role: string };
  target: { kind: AdminTargetKind; id: string };
  parameters: Record<string, unknown>;
  /** ISO 8601 UTC. */
  requestedAt: string;
  /** `null` while the action runs, or when its outcome could not be recorded (the console stopped meanwhile). */
  outcome: 'succeeded' | 'failed' | null;
  /** The failure's stable code, `null` otherwise. */
  errorCode: string | null;
  /** A short summary of what it did (counts, a new state), `null` when none or failed. */
  result: Record<string, unknown> | null;
  /** ISO 8601 UTC, `null` with `outcome`. */
  completedAt: string | null;
  /** Global ledger position of the request event: the audit view's order and cursor. */
  position: number;
}

/** A page of the audit view, newest first. */
export interface AuditQuery {
  /** 1..100. */
  limit: number;
  /** Only actions requested before this ledger position (the previous page's `nextBefore`). */
  before?: number;
  /** Only this user's actions (email, lower-cased). */
  actor?: string;
  /** Only actions on this target. */
  target?: { kind: AdminTargetKind; id: string };
}

/**
 * The audit trail of admin actions, kept in the ledger (docs/console.md, "Audit"; the issue's
 * rule: "every admin action is recorded in the ledger with the actor"). Adapters:
 * `LedgerAuditTrail` over any ledger store, read back by `PostgresAuditLog` (an index of
 * `ledger.events`, a PostgreSQL ledger), `ProjectedAuditLog` (the console's read model that the
 * `AuditProjection` keeps, a KurrentDB ledger) or `StoreScanAuditLog` (a scan, for the in-memory
 * ledger of tests); all pass `test/audit-trail.contract.ts`.
 */
export interface AuditTrail {
  /**
   * Records the request (`AdminActionRequested`), runs the action, records its outcome
   * (`AdminActionCompleted`, `succeeded` with `summarize(result)`, or `failed` with the error's
   * `code`) and answers the action's result or rethrows its error. An action whose request
   * cannot be recorded does not run.
   *
   * @throws ConsoleError `CONSOLE.AUDIT_UNAVAILABLE` (503) when the request cannot be recorded
   *   because the ledger is unavailable; ProblemError 400 `REQUEST.VALIDATION_FAILED` when the
   *   ledger refuses the request's values themselves (invalid input: retrying fails the same
   *   way); whatever `action` throws, as it is (invalid input as invalid input).
   */
  run<T>(request: AdminActionRequest, action: () => Promise<T>, summarize?: (result: T) => Record<string, unknown>): Promise<T>;

  /** Recorded actions, newest first, one page. */
  list(query: AuditQuery): Promise<{ items: AuditEntry[]; nextBefore: number | null }>;
}

import { randomUUID } from 'node:crypto';
import { SettleError } from '@settle/domain';
import {
  adminActionCompletedEvent,
  adminActionOf,
  adminActionRequestedEvent,
  adminActionStream,
  type AdminActionCompletedData,
  type AdminActionRequestedData,
  type LedgerStore,
  type RecordedLedgerEvent,
} from '@settle/ledger';
import { isDataException, ProblemError, type Logger } from '@settle/platform';
import { ConsoleError } from '../errors.js';
import type { AdminActionRequest, AuditEntry, AuditQuery, AuditTrail } from './audit-trail.port.js';

/** What the audit view reads of a stored admin-action event. */
export type StoredAdminEvent = Pick<RecordedLedgerEvent, 'type' | 'data' | 'eventId' | 'position'>;

/** Reads recorded admin actions back, newest first (the audit view's query side). */
export interface AuditLog {
  /** One page of {@link AuditEntry}s, newest first, and the cursor of the next (`null` when no older entry matches). */
  list(query: AuditQuery): Promise<{ items: AuditEntry[]; nextBefore: number | null }>;
}

/**
 * The audit trail over the ledger (docs/console.md, "Audit"): each action's request and outcome
 * are appended to the target's stream, `admin-<kind>-<id>` (`adminActionStream`), through the
 * {@link LedgerStore} port, so they are hash-chained like every other ledger event; the
 * projector does not project that category. Reads go through an {@link AuditLog}.
 */
export class LedgerAuditTrail implements AuditTrail {
  constructor(
    private readonly store: LedgerStore,
    private readonly log: AuditLog,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async run<T>(request: AdminActionRequest, action: () => Promise<T>, summarize?: (result: T) => Record<string, unknown>): Promise<T> {
    const stream = adminActionStream(request.target.kind, request.target.id);
    const requested: AdminActionRequestedData = {
      action_id: randomUUID(),
      action: request.action,
      actor: { email: request.actor.email, role: request.actor.role },
      target: request.target,
      parameters: request.parameters ?? {},
      requested_at: this.now().toISOString(),
    };
    try {
      await this.store.append(stream, [adminActionRequestedEvent(requested)], 'any');
    } catch (error) {
      if (isDataException(error)) {
        // The ledger is up; what it was given cannot be stored. The input is at fault, and
        // retrying it would fail the same way.
        this.logger.warn(
          { action: request.action, code: (error as { code: string }).code },
          'admin action refused: its request cannot be recorded as given; not run',
        );
        throw new ProblemError(
          400,
          'REQUEST.VALIDATION_FAILED',
          'Invalid request',
          'A value of this action cannot be recorded in the audit trail as given, so it was not done',
        );
      }
      this.logger.error({ err: error, action: request.action, target: request.target }, 'admin action not recorded; not run');
      throw new ConsoleError('CONSOLE.AUDIT_UNAVAILABLE', 'The ledger could not record this action, so it was not done; try again');
    }
    const complete = async (outcome: Pick<AdminActionCompletedData, 'outcome' | 'error_code' | 'result'>): Promise<void> => {
      const data: AdminActionCompletedData = {
        action_id: requested.action_id,
        action: requested.action,
        actor: requested.actor,
        target: requested.target,
        ...outcome,
        completed_at: this.now().toISOString(),
      };
      try {
        await this.store.append(stream, [adminActionCompletedEvent(randomUUID(), data)], 'any');
      } catch (error) {
        // The request is recorded; the audit view shows the outcome as unknown.
        this.logger.error({ err: error, actionId: requested.action_id }, 'admin action outcome not recorded');
      }
    };
    let result: T;
    try {
      result = await action();
    } catch (error) {
      await complete({ outcome: 'failed', error_code: error instanceof SettleError ? error.code : errorCodeOf(error), result: null });
      throw error;
    }
    await complete({ outcome: 'succeeded', error_code: null, result: summarize ? summarize(result) : null });
    return result;
  }

  list(query: AuditQuery): Promise<{ items: AuditEntry[]; nextBefore: number | null }> {
    return this.log.list(query);
  }
}

/** The stable code of an error that is not a SettleError (a ProblemError's `code`), else `INTERNAL`. */
function errorCodeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'INTERNAL';
}

/**
 * Pairs request and outcome events into audit entries, newest request first.
 *
 * @param requests - `AdminActionRequested` events.
 * @param completions - `AdminActionCompleted` events of the same actions (others are ignored).
 */
export function auditEntriesOf(requests: readonly StoredAdminEvent[], completions: readonly StoredAdminEvent[]): AuditEntry[] {
  const outcomes = new Map<string, AdminActionCompletedData>();
  for (const event of completions) {
    const parsed = adminActionOf(event);
    if (parsed.type === 'AdminActionCompleted') outcomes.set(parsed.data.action_id, parsed.data);
  }
  return [...requests]
    .sort((a, b) => b.position - a.position)
    .map((event) => {
      const parsed = adminActionOf(event);
      if (parsed.type !== 'AdminActionRequested') throw new Error(`event ${event.eventId} is not an admin action request`);
      const r = parsed.data;
      const c = outcomes.get(r.action_id);
      return {
        actionId: r.action_id,
        action: r.action,
        actor: r.actor,
        target: r.target,
        parameters: r.parameters,
        requestedAt: r.requested_at,
        outcome: c?.outcome ?? null,
        errorCode: c?.error_code ?? null,
        result: c?.result ?? null,
        completedAt: c?.completed_at ?? null,
        position: event.position,
      };
    });
}

/**
 * An {@link AuditLog} that scans the whole store (`readAll`): for the in-memory ledger of tests
 * and small stores; the PostgreSQL one queries an index instead.
 */
export class StoreScanAuditLog implements AuditLog {
  constructor(private readonly store: Pick<LedgerStore, 'readAll'>) {}

  async list(query: AuditQuery): Promise<{ items: AuditEntry[]; nextBefore: number | null }> {
    const requests: RecordedLedgerEvent[] = [];
    const completions: RecordedLedgerEvent[] = [];
    const stream = query.target ? adminActionStream(query.target.kind, query.target.id) : null;
    for (let after = 0; ;) {
      const page = await this.store.readAll(after, 1_000);
      if (page.length === 0) break;
      for (const event of page) {
        if (!event.streamId.startsWith('admin-') || (stream && event.streamId !== stream)) continue;
        if (event.type === 'AdminActionCompleted') completions.push(event);
        else if (event.type === 'AdminActionRequested' && (query.before === undefined || event.position < query.before)) {
          if (query.actor && String((event.data as { actor?: { email?: string } }).actor?.email) !== query.actor) continue;
          requests.push(event);
        }
      }
      after = page.at(-1)!.position;
    }
    const all = auditEntriesOf(requests, completions);
    const items = all.slice(0, query.limit);
    return { items, nextBefore: all.length > query.limit ? items.at(-1)!.position : null };
  }
}

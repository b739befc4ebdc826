import type { ProviderName } from '@settle/domain';
import { ConsoleError } from '../errors.js';
import { postToIngestionAdmin, type IngestionAdminOptions } from '../reconcile/ingestion-admin.js';

/** What `POST /api/v1/reconciliation/runs` asks ingestion to start. */
export interface RunStartRequest {
  provider: ProviderName;
  /** Start of the window, ISO 8601 with its offset (inclusive). */
  since: string;
  /** End of the window, ISO 8601 with its offset (exclusive); absent: now, as ingestion reads it. */
  until?: string | undefined;
  /** Compare and count only: no exception recorded, nothing asked of the verifier. */
  dryRun: boolean;
  /** The operator's e-mail, recorded as the run's `started_by`. */
  requestedBy: string;
}

/** A run ingestion accepted: its id and the window it will cover (ISO 8601 UTC). */
export interface RunStarted {
  runId: string;
  status: 'requested';
  window: { since: string; until: string };
}

/**
 * The Reconciliation page's actions, through ingestion's admin API (docs/reconciliation.md), the
 * one place that starts runs and resolves exceptions (`ReconciliationRunRequested` and
 * `ReconciliationExceptionResolveRequested` through its outbox; the verifier acts on them, the
 * ledger records the outcome): the console has no producer of its own.
 */
export class ReconciliationAdmin {
  constructor(private readonly ingestion: IngestionAdminOptions) {}

  /**
   * Starts a run against a provider's list (`POST /v1/admin/reconciliation-runs`) with the
   * operator as `requested_by`.
   *
   * @throws ConsoleError `CONSOLE.RECONCILIATION_PROVIDER_CANNOT_LIST` (400: M-Pesa has no list),
   *   `CONSOLE.RECONCILIATION_INVALID_WINDOW` (400: `since` not before `until`, or more than 31
   *   days), `CONSOLE.INGESTION_UNAVAILABLE` (503), `CONSOLE.INGESTION_REJECTED` (500: the
   *   console's key or request refused, or an answer it cannot read).
   */
  async startRun(request: RunStartRequest): Promise<RunStarted> {
    const answer = await postToIngestionAdmin(this.ingestion, 'v1/admin/reconciliation-runs', 'reconciliation run request', {
      provider: request.provider,
      since: request.since,
      ...(request.until === undefined ? {} : { until: request.until }),
      dry_run: request.dryRun,
      requested_by: request.requestedBy,
    });
    const code = typeof answer.body?.code === 'string' ? answer.body.code : null;
    const detail = typeof answer.body?.detail === 'string' ? answer.body.detail : null;
    if (answer.status === 422 && code === 'RECONCILIATION.PROVIDER_CANNOT_LIST') {
      throw new ConsoleError('CONSOLE.RECONCILIATION_PROVIDER_CANNOT_LIST', detail ?? `${request.provider} has no transaction list to reconcile against`);
    }
    if (answer.status === 422 && code === 'RECONCILIATION.INVALID_WINDOW') {
      throw new ConsoleError('CONSOLE.RECONCILIATION_INVALID_WINDOW', detail ?? '`since` must be before `until`, and the window at most 31 days');
    }
    const body = answer.body;
    const window = body?.window as { since?: unknown; until?: unknown } | undefined;
    if (answer.status !== 202 || typeof body?.run_id !== 'string' || typeof window?.since !== 'string' || typeof window.until !== 'string') {
      throw new ConsoleError(
        'CONSOLE.INGESTION_REJECTED',
        `Ingestion answered the reconciliation run request with ${answer.status}${code ? ` (${code})` : ''}`,
      );
    }
    return { runId: body.run_id, status: 'requested', window: { since: window.since, until: window.until } };
  }

  /**
   * Resolves an open exception with a reason (`POST /v1/admin/reconciliation-exceptions/{id}/resolve`),
   * the operator as `resolved_by`: the verifier closes it and the ledger records
   * `ReconciliationExceptionResolved`, after which it reads resolved.
   *
   * @throws ConsoleError `CONSOLE.RECONCILIATION_EXCEPTION_NOT_FOUND` (404),
   *   `CONSOLE.RECONCILIATION_EXCEPTION_NOT_OPEN` (409: resolved already),
   *   `CONSOLE.INGESTION_UNAVAILABLE` (503), `CONSOLE.INGESTION_REJECTED` (500).
   */
  async resolveException(exceptionId: string, request: { reason: string; resolvedBy: string }): Promise<{ exceptionId: string; status: 'resolving' }> {
    const answer = await postToIngestionAdmin(
      this.ingestion,
      `v1/admin/reconciliation-exceptions/${encodeURIComponent(exceptionId)}/resolve`,
      'resolve request',
      { reason: request.reason, resolved_by: request.resolvedBy },
    );
    if (answer.status === 404) throw new ConsoleError('CONSOLE.RECONCILIATION_EXCEPTION_NOT_FOUND', `No reconciliation exception has id ${exceptionId}`);
    if (answer.status === 409)
      throw new ConsoleError('CONSOLE.RECONCILIATION_EXCEPTION_NOT_OPEN', `The reconciliation exception ${exceptionId} is resolved already`);
    if (answer.status !== 202) throw new ConsoleError('CONSOLE.INGESTION_REJECTED', `Ingestion answered the resolve request with ${answer.status}`);
    return { exceptionId, status: 'resolving' };
  }
}

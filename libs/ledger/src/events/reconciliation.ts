import { EXCEPTION_RESOLUTIONS, PROVIDERS, RECONCILIATION_CLASSES, RECONCILIATION_EXCEPTION_CLASSES, RECONCILIATION_RUN_KINDS } from '@settle/domain';
import type { ReconciliationExceptionObservedV1, ReconciliationRunRecordedV1 } from '@settle/messaging';
import { deterministicId } from '@settle/platform';
import { z } from 'zod';
import type { LedgerEventInput } from '../ports/ledger.port.js';

/**
 * Reconciliation's facts in the ledger (docs/reconciliation.md, "Audit"): each run in its own
 * stream, `reconciliation_run-<run id>` (started, progressed every few seconds, completed or
 * failed, with its counts), and each payment's exceptions in `reconciliation-<reference>` (raised
 * with the evidence, resolved with how and by whom). Hash-chained like every stream, so an auditor
 * replays the reconciliation history with `./settle ledger replay`.
 */

/** Category of the run streams. */
export const RECONCILIATION_RUN_STREAM_CATEGORY = 'reconciliation_run';
/** Category of the exception streams (one per payment reference). */
export const RECONCILIATION_EXCEPTION_STREAM_CATEGORY = 'reconciliation';

/** Ledger event types of reconciliation, by what they record. */
export const RECONCILIATION_EVENT_TYPES = {
  started: 'ReconciliationRunStarted',
  progressed: 'ReconciliationRunProgressed',
  completed: 'ReconciliationRunCompleted',
  failed: 'ReconciliationRunFailed',
  raised: 'ReconciliationExceptionRaised',
  resolved: 'ReconciliationExceptionResolved',
} as const;

/** The stream of a run: `reconciliation_run-<run id>`. */
export function reconciliationRunStream(runId: string): string {
  return `${RECONCILIATION_RUN_STREAM_CATEGORY}-${encodeURIComponent(runId)}`;
}

/** The stream of a payment's exceptions: `reconciliation-<reference>`, the reference percent-encoded. */
export function reconciliationExceptionStream(reference: string): string {
  return `${RECONCILIATION_EXCEPTION_STREAM_CATEGORY}-${encodeURIComponent(reference)}`;
}

/** The run id of a run stream, or `null` for any other stream. */
export function parseReconciliationRunStream(streamId: string): string | null {
  const prefix = `${RECONCILIATION_RUN_STREAM_CATEGORY}-`;
  return streamId.startsWith(prefix) ? decodeURIComponent(streamId.slice(prefix.length)) : null;
}

/** The reference of an exception stream, or `null` for any other stream. */
export function parseReconciliationExceptionStream(streamId: string): string | null {
  const prefix = `${RECONCILIATION_EXCEPTION_STREAM_CATEGORY}-`;
  return streamId.startsWith(prefix) ? decodeURIComponent(streamId.slice(prefix.length)) : null;
}

/**
 * The `data` of a run's events: the run as it stood (window and times ISO 8601 UTC; `classes`
 * maps every class of the decision table to its count so far). Unknown extra fields are kept.
 */
export const reconciliationRunData = z.looseObject({
  run_id: z.string().min(1),
  provider: z.enum(PROVIDERS),
  kind: z.enum(RECONCILIATION_RUN_KINDS),
  window_from: z.iso.datetime(),
  window_until: z.iso.datetime(),
  dry_run: z.boolean(),
  started_by: z.string().min(1),
  pages: z.number().int().nonnegative(),
  total_pages: z.number().int().nonnegative().nullable(),
  listed: z.number().int().nonnegative(),
  out_of_scope: z.number().int().nonnegative(),
  too_recent: z.number().int().nonnegative(),
  classes: z.partialRecord(z.enum(RECONCILIATION_CLASSES), z.number().int().nonnegative()),
  exceptions_raised: z.number().int().nonnegative(),
  exceptions_resolved: z.number().int().nonnegative(),
  started_at: z.iso.datetime(),
  finished_at: z.iso.datetime().nullable(),
  error: z.string().nullable(),
});
/** See {@link reconciliationRunData}. */
export type ReconciliationRunData = z.infer<typeof reconciliationRunData>;

/** One compared field of an exception's evidence: the provider's value beside Settle's (amounts in minor units). */
const evidence = z.object({ field: z.string(), provider: z.string(), settle: z.string() });

/** The `data` of a `ReconciliationExceptionRaised`: the exception, its evidence and the provider's fields. */
export const reconciliationExceptionRaisedData = z.looseObject({
  exception_id: z.string().min(1),
  reference: z.string().min(1),
  provider: z.enum(PROVIDERS),
  class: z.enum(RECONCILIATION_EXCEPTION_CLASSES),
  evidence: z.array(evidence),
  run_id: z.string().nullable(),
  provider_transaction_id: z.string().nullable(),
  provider_status: z.string().nullable(),
  amount_minor: z.number().int().nullable(),
  currency: z.string().nullable(),
  raised_at: z.iso.datetime(),
});
/** See {@link reconciliationExceptionRaisedData}. */
export type ReconciliationExceptionRaisedData = z.infer<typeof reconciliationExceptionRaisedData>;

/** The `data` of a `ReconciliationExceptionResolved`: how (a later run, or an operator with a reason) and when. */
export const reconciliationExceptionResolvedData = z.looseObject({
  exception_id: z.string().min(1),
  reference: z.string().min(1),
  provider: z.enum(PROVIDERS),
  class: z.enum(RECONCILIATION_EXCEPTION_CLASSES),
  resolution: z.enum(EXCEPTION_RESOLUTIONS),
  note: z.string().nullable(),
  resolved_by: z.string().nullable(),
  run_id: z.string().nullable(),
  resolved_at: z.iso.datetime(),
});
/** See {@link reconciliationExceptionResolvedData}. */
export type ReconciliationExceptionResolvedData = z.infer<typeof reconciliationExceptionResolvedData>;

/** A ledger fact to append: its stream and event. */
export interface ReconciliationFact {
  readonly streamId: string;
  readonly event: LedgerEventInput & { data: Record<string, unknown> };
}

/**
 * The ledger fact a run record stands for, in the run's stream. Its id derives from the record's,
 * so a redelivered record is stored once.
 */
export function reconciliationRunFact(run: ReconciliationRunRecordedV1): ReconciliationFact {
  const iso = (ms: number) => new Date(ms).toISOString();
  const data: ReconciliationRunData = {
    run_id: run.reference,
    provider: run.provider,
    kind: run.kind,
    window_from: iso(run.window_from),
    window_until: iso(run.window_until),
    dry_run: run.dry_run,
    started_by: run.started_by,
    pages: run.pages,
    total_pages: run.total_pages,
    listed: run.listed,
    out_of_scope: run.out_of_scope,
    too_recent: run.too_recent,
    classes: Object.fromEntries(run.classes.map((c) => [c.class, c.count])),
    exceptions_raised: run.exceptions_raised,
    exceptions_resolved: run.exceptions_resolved,
    started_at: iso(run.started_at),
    finished_at: run.finished_at === null ? null : iso(run.finished_at),
    error: run.error,
  };
  return {
    streamId: reconciliationRunStream(run.reference),
    event: {
      eventId: deterministicId('LedgerEvent', run.event_id),
      type: RECONCILIATION_EVENT_TYPES[run.status],
      data,
      metadata: { correlationId: run.correlation_id, causationId: run.event_id },
    },
  };
}

/** The ledger fact an exception record stands for, in the payment's exception stream (id derived from the record's). */
export function reconciliationExceptionFact(o: ReconciliationExceptionObservedV1): ReconciliationFact {
  const at = new Date(o.occurred_at).toISOString();
  const metadata = { correlationId: o.correlation_id, causationId: o.event_id };
  const eventId = deterministicId('LedgerEvent', o.event_id);
  const streamId = reconciliationExceptionStream(o.reference);
  if (o.change === 'raised') {
    const data: ReconciliationExceptionRaisedData = {
      exception_id: o.exception_id,
      reference: o.reference,
      provider: o.provider,
      class: o.class,
      evidence: o.evidence.map((e) => ({ field: e.field, provider: e.provider, settle: e.settle })),
      run_id: o.run_id,
      provider_transaction_id: o.provider_transaction_id,
      provider_status: o.provider_status,
      amount_minor: o.amount_minor,
      currency: o.currency,
      raised_at: at,
    };
    return { streamId, event: { eventId, type: RECONCILIATION_EVENT_TYPES.raised, data, metadata } };
  }
  const data: ReconciliationExceptionResolvedData = {
    exception_id: o.exception_id,
    reference: o.reference,
    provider: o.provider,
    class: o.class,
    resolution: o.resolution ?? 'operator',
    note: o.resolution_note,
    resolved_by: o.resolved_by,
    run_id: o.run_id,
    resolved_at: at,
  };
  return { streamId, event: { eventId, type: RECONCILIATION_EVENT_TYPES.resolved, data, metadata } };
}

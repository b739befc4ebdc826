import type { Readable } from 'node:stream';
import {
  literalOf,
  PROVIDERS,
  RECONCILIATION_EXCEPTION_CLASSES,
  RECONCILIATION_RUN_KINDS,
  type ExceptionClass,
  type ProviderName,
  type ReconciliationRunKind,
  type ReconciliationRunStatus,
} from '@settle/domain';
import { encodeKeysetCursor, type KeysetCursor } from '@settle/http';
import {
  findReconciliationRun,
  listReconciliationExceptions,
  listReconciliationRuns,
  reconciliationExceptionsCsv,
  type ReconciliationExceptionListRow,
  type ReconciliationRunListRow,
} from '@settle/ledger';
import type { Pool } from '@settle/platform';

/** A reconciliation run as the console answers it (docs/console.md, "Reconciliation"). */
export interface ReconciliationRunView {
  runId: string;
  provider: ProviderName;
  kind: ReconciliationRunKind;
  status: ReconciliationRunStatus;
  /** The window of the provider's creation times compared: `since` inclusive, `until` exclusive, ISO 8601 UTC. */
  window: { since: string; until: string };
  dryRun: boolean;
  /** Who started it: an operator's e-mail, `schedule`, `cli`, `admin-api`, `demo`. */
  startedBy: string;
  pages: number;
  /** The provider's page count when its list tells it; `null` otherwise. */
  totalPages: number | null;
  listed: number;
  outOfScope: number;
  tooRecent: number;
  /** Provider transactions per class of the decision table (docs/reconciliation.md, "Classes"). */
  classes: Record<string, number>;
  exceptionsRaised: number;
  exceptionsResolved: number;
  startedAt: string;
  finishedAt: string | null;
  /** Why a failed run failed; `null` otherwise. */
  error: string | null;
}

/** A reconciliation exception as the console answers it: the provider's payment, the evidence side by side, and its resolution. */
export interface ReconciliationExceptionView {
  exceptionId: string;
  reference: string;
  provider: ProviderName;
  class: ExceptionClass;
  status: 'open' | 'resolved';
  /** Each field compared that differs: the provider's value beside Settle's (amounts in minor units, as text). */
  evidence: Array<{ field: string; provider: string; settle: string }>;
  /** The run that raised it; `null` for one raised by the live duplicate-charge check. */
  runId: string | null;
  providerTransactionId: string | null;
  providerStatus: string | null;
  /** Minor units of `currency`, as the provider listed it. */
  amountMinor: number | null;
  currency: string | null;
  raisedAt: string;
  /** How it was resolved (`matches`, `reclassified` by a later run, or `operator` with their reason); `null` while open. */
  resolved: { at: string; resolution: string; note: string | null; by: string | null } | null;
}

/** The exceptions' filters; absent: any. */
export interface ReconciliationExceptionFilter {
  status?: 'open' | 'resolved' | undefined;
  class?: ExceptionClass | undefined;
  provider?: ProviderName | undefined;
  /** Raised or resolved by this run. */
  runId?: string | undefined;
}

/** A keyset page of a list, newest first; `nextCursor` is `null` on the last page. */
export interface ReconciliationPage<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * The Reconciliation page's reads (docs/reconciliation.md): runs and exceptions from the ledger's
 * read models `read_model.reconciliation_runs` and `read_model.reconciliation_exceptions`,
 * through the owner's own queries in `@settle/ledger` (no SQL of the console's), in the console's
 * camelCase, by keyset pages newest first, and the exceptions' CSV export, the same document
 * ingestion's admin API answers. Every read throws `READ_MODEL.NOT_READY` (503) until the ledger
 * projector created the read models.
 */
export class ReconciliationReader {
  constructor(private readonly pool: Pool) {}

  /** A page of runs, newest first (`startedAt`, then run id), optionally of one provider. */
  async runs(query: {
    provider?: ProviderName | undefined;
    after?: KeysetCursor | undefined;
    limit: number;
  }): Promise<ReconciliationPage<ReconciliationRunView>> {
    const rows = await listReconciliationRuns(this.pool, {
      provider: query.provider,
      after: query.after ? { at: query.after.at, id: query.after.reference } : undefined,
      limit: query.limit,
    });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: page.map(runView),
      nextCursor: rows.length > query.limit && last ? encodeKeysetCursor({ at: last.startedAtText, reference: last.runId }) : null,
    };
  }

  /** One run as it stands; `null` before its first record is projected (a run just requested). */
  async run(runId: string): Promise<ReconciliationRunView | null> {
    const row = await findReconciliationRun(this.pool, runId);
    return row ? runView(row) : null;
  }

  /** A page of exceptions, newest first (`raisedAt`, then id), filtered. */
  async exceptions(
    query: ReconciliationExceptionFilter & { after?: KeysetCursor | undefined; limit: number },
  ): Promise<ReconciliationPage<ReconciliationExceptionView>> {
    const rows = await listReconciliationExceptions(this.pool, {
      ...filterOf(query),
      after: query.after ? { at: query.after.at, id: query.after.reference } : undefined,
      limit: query.limit,
    });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: page.map(exceptionView),
      nextCursor: rows.length > query.limit && last ? encodeKeysetCursor({ at: last.raisedAtText, reference: last.exceptionId }) : null,
    };
  }

  /** Every exception matching the filter as one CSV document, streamed a page at a time (`reconciliationExceptionsCsv`, `@settle/ledger`). */
  exceptionsCsv(filter: ReconciliationExceptionFilter): Promise<Readable> {
    return reconciliationExceptionsCsv(this.pool, filterOf(filter));
  }
}

function filterOf(filter: ReconciliationExceptionFilter) {
  return { status: filter.status, class: filter.class, provider: filter.provider, runId: filter.runId };
}

/** A run's row in the console's shape. */
function runView(r: ReconciliationRunListRow): ReconciliationRunView {
  return {
    runId: r.runId,
    provider: literalOf(PROVIDERS, r.provider, 'provider'),
    kind: literalOf(RECONCILIATION_RUN_KINDS, r.kind, 'run kind'),
    status: r.status,
    window: { since: r.windowFrom.toISOString(), until: r.windowUntil.toISOString() },
    dryRun: r.dryRun,
    startedBy: r.startedBy,
    pages: r.pages,
    totalPages: r.totalPages,
    listed: r.listed,
    outOfScope: r.outOfScope,
    tooRecent: r.tooRecent,
    classes: r.classes,
    exceptionsRaised: r.exceptionsRaised,
    exceptionsResolved: r.exceptionsResolved,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt?.toISOString() ?? null,
    error: r.error,
  };
}

/** An exception's row in the console's shape. */
function exceptionView(r: ReconciliationExceptionListRow): ReconciliationExceptionView {
  return {
    exceptionId: r.exceptionId,
    reference: r.reference,
    provider: literalOf(PROVIDERS, r.provider, 'provider'),
    class: literalOf(RECONCILIATION_EXCEPTION_CLASSES, r.class, 'exception class'),
    status: r.status,
    evidence: r.evidence,
    runId: r.runId,
    providerTransactionId: r.providerTransactionId,
    providerStatus: r.providerStatus,
    amountMinor: r.amountMinor,
    currency: r.currency,
    raisedAt: r.raisedAt.toISOString(),
    resolved: r.resolvedAt && r.resolution ? { at: r.resolvedAt.toISOString(), resolution: r.resolution, note: r.resolutionNote, by: r.resolvedBy } : null,
  };
}

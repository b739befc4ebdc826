import type { Pool } from '@settle/platform';
import { stringify } from 'csv-stringify/sync';
import { listReconciliationExceptions, type ExceptionFilter } from './reconciliation-read-models.js';

/**
 * The reconciliation exceptions' CSV export (docs/reconciliation.md), beside the query it pages
 * through, so that every reader that offers it (ingestion's admin API, the console) answers the
 * same document.
 */

/** The CSV export's columns, in order. */
export const EXCEPTION_CSV_COLUMNS = [
  'exception_id',
  'status',
  'class',
  'provider',
  'reference',
  'provider_transaction_id',
  'provider_status',
  'amount_minor',
  'currency',
  'evidence',
  'run_id',
  'raised_at',
  'resolved_at',
  'resolution',
  'resolution_note',
  'resolved_by',
] as const;

/** Rows read per query while exporting. */
const EXPORT_PAGE = 500;

/**
 * Every exception matching the filter as one CSV document (RFC 4180, header row of
 * {@link EXCEPTION_CSV_COLUMNS} first), newest first, read by keyset pages of 500. Amounts are
 * minor units; times ISO 8601 UTC; the evidence one cell, `field: provider X / settle Y` joined by
 * `; `; an empty cell stands for no value.
 *
 * @throws ReadModelNotReadyError before the ledger projector first created the read models.
 */
export async function reconciliationExceptionsCsv(pool: Pool, filter: ExceptionFilter): Promise<string> {
  const records: string[][] = [];
  let after: { at: string; id: string } | undefined;
  for (;;) {
    const rows = await listReconciliationExceptions(pool, { ...filter, after, limit: EXPORT_PAGE });
    const page = rows.slice(0, EXPORT_PAGE);
    for (const r of page) {
      records.push([
        r.exceptionId,
        r.status,
        r.class,
        r.provider,
        r.reference,
        r.providerTransactionId ?? '',
        r.providerStatus ?? '',
        r.amountMinor === null ? '' : String(r.amountMinor),
        r.currency ?? '',
        r.evidence.map((e) => `${e.field}: provider ${e.provider} / settle ${e.settle}`).join('; '),
        r.runId ?? '',
        r.raisedAt.toISOString(),
        r.resolvedAt?.toISOString() ?? '',
        r.resolution ?? '',
        r.resolutionNote ?? '',
        r.resolvedBy ?? '',
      ]);
    }
    if (rows.length <= EXPORT_PAGE) break;
    const last = page.at(-1)!;
    after = { at: last.raisedAtText, id: last.exceptionId };
  }
  return stringify(records, { header: true, columns: [...EXCEPTION_CSV_COLUMNS] });
}

import { pipeline, Readable } from 'node:stream';
import type { Pool } from '@settle/platform';
import { stringify } from 'csv-stringify';
import { listReconciliationExceptions, type ExceptionFilter, type ReconciliationExceptionListRow } from './reconciliation-read-models.js';

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
 * {@link EXCEPTION_CSV_COLUMNS} first), newest first, read by keyset pages of 500 and streamed:
 * one page in memory at a time, however many exceptions match, so an export never grows the
 * process that answers it past a capped heap (docs/benchmarks.md, "Resident memory"). Amounts
 * are minor units; times ISO 8601 UTC; the evidence one cell, `field: provider X / settle Y`
 * joined by `; `; an empty cell stands for no value.
 *
 * The first page is read before the stream is returned, so a database that cannot answer fails
 * this call (the caller answers a problem) instead of the download. A page that fails later
 * destroys the stream with its error: the HTTP layer then cuts the connection, so the client
 * sees a broken transfer, never a shorter file that looks complete.
 *
 * @returns a readable stream of the document's text (UTF-8).
 * @throws ReadModelNotReadyError before the ledger projector first created the read models.
 */
export async function reconciliationExceptionsCsv(pool: Pool, filter: ExceptionFilter): Promise<Readable> {
  const first = await listReconciliationExceptions(pool, { ...filter, limit: EXPORT_PAGE });
  async function* records(): AsyncGenerator<string[]> {
    for (let rows = first; ;) {
      const page = rows.slice(0, EXPORT_PAGE);
      for (const r of page) yield csvRecordOf(r);
      if (rows.length <= EXPORT_PAGE) return;
      const last = page.at(-1)!;
      rows = await listReconciliationExceptions(pool, { ...filter, after: { at: last.raisedAtText, id: last.exceptionId }, limit: EXPORT_PAGE });
    }
  }
  const csv = stringify({ header: true, columns: [...EXCEPTION_CSV_COLUMNS] });
  // A failing page ends the CSV stream with the page's error (pipeline destroys both).
  pipeline(Readable.from(records()), csv, () => undefined);
  return csv;
}

/** One exception's cells, in the order of {@link EXCEPTION_CSV_COLUMNS}. */
function csvRecordOf(r: ReconciliationExceptionListRow): string[] {
  return [
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
  ];
}

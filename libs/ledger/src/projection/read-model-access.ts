/**
 * Reading the ledger's read models before they exist: the one error every reader answers with
 * (docs/postgres.md), shared by the read models' queries.
 */
import { SettleError, type ErrorKind } from '@settle/domain';

/**
 * The read models are not there yet: the ledger projector, which owns and migrates the
 * `read_model` schema, has not booted once on this database (docs/postgres.md). Transient:
 * ingestion answers 503 `READ_MODEL.NOT_READY` with `Retry-After` until it has.
 */
export class ReadModelNotReadyError extends SettleError {
  readonly code = 'READ_MODEL.NOT_READY';
  readonly kind: ErrorKind = 'unavailable';

  constructor() {
    super('read_model is not migrated yet: the ledger projector creates it at its first boot');
    this.name = 'ReadModelNotReadyError';
  }
}

/** SQLSTATE of a missing table (42P01 undefined_table) or schema (3F000 invalid_schema_name). */
function isMissingRelation(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === '42P01' || code === '3F000';
}

/**
 * Runs a read of the read models (or of tables beside them that their readers share), turning
 * "no such table or schema" (SQLSTATE 42P01, 3F000) into {@link ReadModelNotReadyError}.
 *
 * @throws ReadModelNotReadyError while the tables are not created yet; what `read` throws otherwise.
 */
export async function readReadModel<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (isMissingRelation(error)) throw new ReadModelNotReadyError();
    throw error;
  }
}

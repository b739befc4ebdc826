import { ReadModelNotReadyError } from '@settle/ledger';
import { ProblemError } from '@settle/platform';

/**
 * Ingestion's own errors as problem details, before the generic mappings: the read models
 * (which the ledger projector owns and creates at its first boot) not there yet answer 503
 * `READ_MODEL.NOT_READY`, with `Retry-After` like every 503.
 */
export function problemOf(error: unknown): ProblemError | null {
  if (error instanceof ReadModelNotReadyError) {
    return new ProblemError(503, error.code, 'Read model not ready', 'The ledger projector has not created the read models yet; retry later');
  }
  return null;
}

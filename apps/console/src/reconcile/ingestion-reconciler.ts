import { ConsoleError } from '../errors.js';
import { postToIngestionAdmin, type IngestionAdminOptions } from './ingestion-admin.js';
import type { ReconcileAnswer, Reconciler } from './reconciler.port.js';

/** Settings of {@link IngestionReconciler}: where ingestion's admin API is. */
export type IngestionReconcilerOptions = IngestionAdminOptions;

/**
 * {@link Reconciler} over ingestion's admin API: `POST /v1/admin/checkouts/{reference}/reconcile?wait_ms=0`,
 * which publishes `VerificationRequested` (trigger `admin_reconciliation`) through ingestion's
 * outbox and answers at once with the current state, without waiting for the verifier. The
 * console holds no Kafka producer of its own: the request takes the one path every trigger takes.
 */
export class IngestionReconciler implements Reconciler {
  constructor(private readonly options: IngestionReconcilerOptions) {}

  async reconcile(reference: string): Promise<ReconcileAnswer> {
    const answer = await postToIngestionAdmin(
      this.options,
      `v1/admin/checkouts/${encodeURIComponent(reference)}/reconcile?wait_ms=0`,
      'reconciliation request',
    );
    if (answer.status === 404) throw new ConsoleError('CONSOLE.TRANSACTION_NOT_FOUND', `No checkout is registered under reference ${reference}`);
    if (answer.status < 200 || answer.status > 299) {
      throw new ConsoleError('CONSOLE.INGESTION_REJECTED', `Ingestion refused the reconciliation request with ${answer.status}`);
    }
    if (typeof answer.body?.state !== 'string')
      throw new ConsoleError('CONSOLE.INGESTION_REJECTED', 'Ingestion answered the reconciliation request without a state');
    return { reference, state: answer.body.state };
  }
}

import type { UnmatchedCloseReason } from '@settle/domain';
import { ConsoleError } from '../errors.js';
import { postToIngestionAdmin, type IngestionAdminOptions } from '../reconcile/ingestion-admin.js';

/**
 * Closes an open unmatched payment with a reason through ingestion's admin API
 * (`POST /v1/admin/unmatched-payments/{reference}/close`, docs/unmatched-payments.md): the verifier
 * closes its record and the ledger records `UnmatchedPaymentClosed` with the operator as `closed_by`.
 */
export class UnmatchedPaymentCloser {
  constructor(private readonly ingestion: IngestionAdminOptions) {}

  /**
   * @param closedBy - the operator's e-mail, recorded in the ledger.
   * @throws ConsoleError `CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND` (404), `CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN`
   *   (409, matched or closed already), `CONSOLE.INGESTION_UNAVAILABLE` (503), `CONSOLE.INGESTION_REJECTED`
   *   (500: the console's key or request refused).
   */
  async close(
    reference: string,
    request: { reason: UnmatchedCloseReason; note: string | null; closedBy: string },
  ): Promise<{ reference: string; status: 'closing' }> {
    const answer = await postToIngestionAdmin(this.ingestion, `v1/admin/unmatched-payments/${encodeURIComponent(reference)}/close`, 'close request', {
      reason: request.reason,
      ...(request.note === null ? {} : { note: request.note }),
      closed_by: request.closedBy,
    });
    if (answer.status === 404) throw new ConsoleError('CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND', `No unmatched payment has reference ${reference}`);
    if (answer.status === 409) throw new ConsoleError('CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN', `The unmatched payment ${reference} is not open`);
    if (answer.status !== 202) throw new ConsoleError('CONSOLE.INGESTION_REJECTED', `Ingestion answered the close request with ${answer.status}`);
    return { reference, status: 'closing' };
  }
}

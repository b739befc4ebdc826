import type { Secret } from '@settle/config';
import { traceCarrierOf } from '@settle/platform';
import { ConsoleError } from '../errors.js';
import type { ReconcileAnswer, Reconciler } from './reconciler.port.js';

/** Longest wait for ingestion's answer, milliseconds. */
const DEFAULT_TIMEOUT_MS = 10_000;

/** Settings of {@link IngestionReconciler}. */
export interface IngestionReconcilerOptions {
  /** Ingestion's base URL (`CONSOLE_INGESTION_URL`). */
  baseUrl: string;
  /** The admin API key ingestion accepts (`CONSOLE_INGESTION_ADMIN_API_KEY`), sent as `Authorization: Bearer`. */
  adminApiKey: Secret;
  /** Longest wait for the answer, milliseconds; default 10 000. */
  timeoutMs?: number;
}

/**
 * {@link Reconciler} over ingestion's admin API: `POST /v1/admin/checkouts/{reference}/reconcile?wait_ms=0`,
 * which publishes `VerificationRequested` (trigger `admin_reconciliation`) through ingestion's
 * outbox and answers at once with the current state, without waiting for the verifier. The
 * console holds no Kafka producer of its own: the request takes the one path every trigger takes.
 */
export class IngestionReconciler implements Reconciler {
  constructor(private readonly options: IngestionReconcilerOptions) {}

  async reconcile(reference: string): Promise<ReconcileAnswer> {
    const url = new URL(
      `v1/admin/checkouts/${encodeURIComponent(reference)}/reconcile`,
      this.options.baseUrl.endsWith('/') ? this.options.baseUrl : `${this.options.baseUrl}/`,
    );
    url.searchParams.set('wait_ms', '0');
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        // The operator's request's trace continues into ingestion and the verification it asks for.
        headers: { authorization: `Bearer ${this.options.adminApiKey.reveal()}`, accept: 'application/json', ...traceCarrierOf() },
        signal: AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch {
      throw new ConsoleError('CONSOLE.INGESTION_UNAVAILABLE', 'Ingestion did not answer the reconciliation request; retry later');
    }
    if (response.status === 404) {
      await response.body?.cancel();
      throw new ConsoleError('CONSOLE.TRANSACTION_NOT_FOUND', `No checkout is registered under reference ${reference}`);
    }
    if (response.status >= 500 || response.status === 429) {
      await response.body?.cancel();
      throw new ConsoleError('CONSOLE.INGESTION_UNAVAILABLE', `Ingestion answered ${response.status} to the reconciliation request; retry later`);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new ConsoleError('CONSOLE.INGESTION_REJECTED', `Ingestion refused the reconciliation request with ${response.status}`);
    }
    const body = (await response.json().catch(() => null)) as { reference?: unknown; state?: unknown } | null;
    if (typeof body?.state !== 'string') throw new ConsoleError('CONSOLE.INGESTION_REJECTED', 'Ingestion answered the reconciliation request without a state');
    return { reference, state: body.state };
  }
}
